package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// One 8-byte message between every ordered pair: every channel of the
	// job gets made. When the region's file system cannot hold them, the
	// send that needed a channel must fail with ErrIntern naming
	// HYMPI_SHM_BUDGET; the rank then says so and exits 3, which the test
	// tells apart from a wrong result (exit 1) and a hang.
	register("allpairs_tiny", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		outOfRoom := func(err error, what string) {
			if err == nil {
				return
			}
			if mpi.ClassOf(err) != mpi.ErrIntern || !strings.Contains(err.Error(), "HYMPI_SHM_BUDGET") {
				fail("%s: %v (class %v), want ErrIntern naming HYMPI_SHM_BUDGET", what, err, mpi.ClassOf(err))
			}
			fmt.Fprintf(os.Stderr, "rank %d: out of room: %s: %v\n", r, what, err)
			os.Exit(3)
		}
		bufs := make([][8]byte, n)
		var reqs []*mpi.Request
		for p := range n {
			if p == r {
				continue
			}
			rq, err := c.Irecv(bufs[p][:], p, 9)
			outOfRoom(err, "Irecv")
			reqs = append(reqs, rq)
		}
		var out [8]byte
		binary.LittleEndian.PutUint64(out[:], uint64(r))
		for k := 1; k < n; k++ {
			rq, err := c.Isend(out[:], (r+k)%n, 9)
			outOfRoom(err, "Isend")
			reqs = append(reqs, rq)
		}
		_, err := mpi.Waitall(reqs)
		outOfRoom(err, "Waitall")
		for p := range n {
			if got := binary.LittleEndian.Uint64(bufs[p][:]); p != r && got != uint64(p) {
				fail("message from rank %d says %d", p, got)
			}
		}
	})
}
