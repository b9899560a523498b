package main

import (
	"encoding/binary"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Persistent collectives started in a different order on different
	// ranks: MPI 4.0 matches them by the order of their *_init calls, so
	// each Start meets the same persistent collective on every rank.
	// Odd ranks start them in reverse order, and the set again after a
	// rotation, several times over.
	register("porder", func(w *mpi.Comm) {
		r, n := w.Rank(), w.Size()
		const k = 4
		bufs := make([][]byte, k)
		ps := make([]*mpi.Persistent, k)
		for i := range k {
			// Different sizes, so a mismatch shows as a count error
			// as well as wrong data.
			bufs[i] = make([]byte, 8*(i+1))
			var err error
			ps[i], err = w.BcastInit(bufs[i], i%n)
			must(err, "BcastInit %d", i)
		}
		for run := range 6 {
			for i := range k {
				clear(bufs[i])
				if r == i%n {
					for j := 0; j < len(bufs[i]); j += 8 {
						binary.LittleEndian.PutUint64(bufs[i][j:], uint64(1000*run+10*i+j))
					}
				}
			}
			reqs := make([]*mpi.Request, k)
			for x := range k {
				i := (x + run) % k
				if r%2 == 1 {
					i = k - 1 - i
				}
				var err error
				reqs[i], err = ps[i].Start()
				must(err, "Start %d", i)
			}
			_, err := mpi.Waitall(reqs)
			must(err, "run %d: Waitall", run)
			for i := range k {
				for j := 0; j < len(bufs[i]); j += 8 {
					if got, want := binary.LittleEndian.Uint64(bufs[i][j:]), uint64(1000*run+10*i+j); got != want {
						fail("run %d: persistent Bcast %d word %d is %d, want %d", run, i, j/8, got, want)
					}
				}
			}
		}
		for _, p := range ps {
			must(p.Free(), "Free")
		}
	})
}
