package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hympi/hympi/mpi"
)

// Progress of nonblocking collectives, checked by processes rather than
// clocks: rank 1 (inside every tree and ring) starts an Ibcast, an
// Iallreduce and an Ialltoall with the others, then either only calls Test
// on them ("progress_test") or computes without any MPI call
// ("progress_async", run with HYMPI_ASYNC_PROGRESS=1). Every other rank
// waits for its three collectives and then drops a file in
// $HYMPI_PROGRESS_DIR; rank 1 leaves its loop only when all those files
// exist. If rank 1's part of the collectives needed a call it never makes,
// the others never finish and rank 1 gives up after
// $HYMPI_PROGRESS_LIMIT (default 60s) saying so.

func init() {
	register("progress_test", func(c *mpi.Comm) { progress(c, false) })
	register("progress_async", func(c *mpi.Comm) { progress(c, true) })
}

func progress(c *mpi.Comm, compute bool) {
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
	const m = 1 << 14 // int64s: big enough for segmented and rendezvous paths
	bc := make([]byte, 8*m)
	if r == 0 {
		pattern(bc, 7)
	}
	in, out := make([]int64, m), make([]int64, m)
	for i := range in {
		in[i] = int64(r*m + i)
	}
	blk := 1024
	a2s, a2r := make([]byte, n*blk), make([]byte, n*blk)
	for j := range n {
		pattern(a2s[j*blk:(j+1)*blk], 100*r+j)
	}
	must(c.Barrier(), "Barrier")
	var reqs [3]*mpi.Request
	var err error
	reqs[0], err = c.Ibcast(bc, 0)
	must(err, "Ibcast")
	reqs[1], err = c.Iallreduce(raw(in), raw(out), mpi.Int64, mpi.Sum)
	must(err, "Iallreduce")
	reqs[2], err = c.Ialltoall(a2s, a2r)
	must(err, "Ialltoall")

	others := func() bool {
		for i := range n {
			if i == 1 {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprint("done.", i))); err != nil {
				return false
			}
		}
		return true
	}
	if r == 1 {
		deadline := time.Now().Add(limit)
		if !compute {
			// Only Test, until every one of ours completed.
			for pending := 3; pending > 0; {
				pending = 0
				for i, q := range reqs {
					if q == nil {
						continue
					}
					_, done, err := q.Test()
					must(err, "Test")
					if done {
						reqs[i] = nil // a completed request is gone
					} else {
						pending++
					}
				}
				if time.Now().After(deadline) {
					fail("rank 1's collectives did not complete under Test")
				}
			}
		}
		// No MPI calls from here until the others are through.
		x := 0
		for !others() {
			for i := range 10000 {
				x += i ^ x
			}
			if time.Now().After(deadline) {
				fail("the other ranks did not complete within %v: nothing progressed rank 1's part (%d)", limit, x&1)
			}
		}
	}
	for _, q := range reqs {
		if q != nil {
			_, err = q.Wait()
			must(err, "Wait")
		}
	}
	if r != 1 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint("done.", r)))
		must(err, "marker")
		f.Close()
	}
	checkPattern(bc, 7, "Ibcast")
	for i, v := range out {
		want := int64(n*i) + int64(m)*int64(n*(n-1)/2)
		if v != want {
			fail("Iallreduce element %d: %d, want %d", i, v, want)
		}
	}
	for i := range n {
		checkPattern(a2r[i*blk:(i+1)*blk], 100*i+r, "Ialltoall")
	}
	must(c.Barrier(), "Barrier")
}
