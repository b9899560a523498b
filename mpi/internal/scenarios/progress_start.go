package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hympi/hympi/mpi"
)

// The start call of a nonblocking collective puts the rank's first round
// on the wire itself: rank 1 starts an Ibcast it roots, an Ialltoall and
// (on 2 ranks, where its one round is an exchange with rank 0) an
// Iallreduce, all of them small, and then makes no MPI call until every
// other rank has waited for its collectives and dropped a file in
// $HYMPI_PROGRESS_DIR. The others need nothing from rank 1 but what its
// first round sends, so this passes only if the start sent it, with no
// Test, no Wait and no progress goroutine (run with
// HYMPI_ASYNC_PROGRESS=0). Overlap at 2 ranks depends on it: the peer
// completes while the starter computes.

func init() {
	register("progress_start", progressStart)
}

func progressStart(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	dir := os.Getenv("HYMPI_PROGRESS_DIR")
	if dir == "" {
		fail("HYMPI_PROGRESS_DIR is not set")
	}
	limit := 60 * time.Second
	if s := os.Getenv("HYMPI_PROGRESS_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		must(err, "HYMPI_PROGRESS_LIMIT")
		limit = d
	}
	const blk = 64 // every message fits a collective slot
	bc := make([]byte, blk)
	if r == 1 {
		pattern(bc, 11)
	}
	a2s, a2r := make([]byte, n*blk), make([]byte, n*blk)
	for j := range n {
		pattern(a2s[j*blk:(j+1)*blk], 100*r+j)
	}
	in, out := []int64{int64(r + 1), 5}, make([]int64, 2)
	must(c.Barrier(), "Barrier")
	reqs := make([]*mpi.Request, 0, 3)
	q, err := c.Ibcast(bc, 1)
	must(err, "Ibcast")
	reqs = append(reqs, q)
	q, err = c.Ialltoall(a2s, a2r)
	must(err, "Ialltoall")
	reqs = append(reqs, q)
	if n == 2 {
		q, err = c.Iallreduce(raw(in), raw(out), mpi.Int64, mpi.Sum)
		must(err, "Iallreduce")
		reqs = append(reqs, q)
	}
	if r == 1 {
		deadline := time.Now().Add(limit)
		x := 0
		for !othersDone(dir, n) {
			for i := range 10000 {
				x += i ^ x
			}
			if time.Now().After(deadline) {
				fail("the other ranks did not complete within %v: rank 1's start calls sent nothing (%d)", limit, x&1)
			}
		}
	}
	for _, q := range reqs {
		_, err := q.Wait()
		must(err, "Wait")
	}
	if r != 1 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint("done.", r)))
		must(err, "marker")
		f.Close()
	}
	checkPattern(bc, 11, "Ibcast")
	for i := range n {
		checkPattern(a2r[i*blk:(i+1)*blk], 100*i+r, "Ialltoall")
	}
	if n == 2 && (out[0] != 3 || out[1] != 10) {
		fail("Iallreduce: %v, want [3 10]", out)
	}
	must(c.Barrier(), "Barrier")
}

// othersDone reports whether every rank but 1 has dropped its file in dir.
func othersDone(dir string, n int) bool { return othersDoneBut(dir, n, 1) }

// othersDoneBut reports whether every rank but skip has dropped its file
// in dir.
func othersDoneBut(dir string, n, skip int) bool {
	for i := range n {
		if i == skip {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprint("done.", i))); err != nil {
			return false
		}
	}
	return true
}

// One Test runs a nonblocking collective as far as it can go, not one
// round: the last rank starts an Iscan (recursive doubling: a round per
// bit of n, each only receiving, from ranks it never sends to) and makes
// no MPI call until every other rank has finished its part; by then all
// its messages are in its channels, and a single Test must complete it.
func init() {
	register("progress_onetest", progressOneTest)
}

func progressOneTest(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	dir := os.Getenv("HYMPI_PROGRESS_DIR")
	if dir == "" {
		fail("HYMPI_PROGRESS_DIR is not set")
	}
	last := n - 1
	in, out := []int64{int64(r + 1)}, make([]int64, 1)
	must(c.Barrier(), "Barrier")
	q, err := c.Iscan(raw(in), raw(out), mpi.Int64, mpi.Sum)
	must(err, "Iscan")
	if r == last {
		deadline := time.Now().Add(60 * time.Second)
		for !othersDoneBut(dir, n, last) {
			time.Sleep(time.Millisecond)
			if time.Now().After(deadline) {
				fail("the other ranks did not complete their Iscan")
			}
		}
		if _, done, err := q.Test(); err != nil || !done {
			fail("one Test with every message there: done %v, err %v", done, err)
		}
	} else {
		_, err := q.Wait()
		must(err, "Wait")
		f, err := os.Create(filepath.Join(dir, fmt.Sprint("done.", r)))
		must(err, "marker")
		f.Close()
	}
	if want := int64((r + 1) * (r + 2) / 2); out[0] != want {
		fail("Iscan: %d, want %d", out[0], want)
	}
	must(c.Barrier(), "Barrier")
}
