package main

import (
	"encoding/binary"
	"time"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Several nonblocking collectives outstanding on one communicator,
	// completed in reverse order, mixed with point-to-point traffic and
	// with a blocking collective started while they are pending.
	register("nbc", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		for round := range 20 {
			root := round % n
			big := make([]byte, 1000*round)
			if r == root {
				pattern(big, round)
			}
			rb, err := c.Ibcast(big, root)
			must(err, "Ibcast")
			// A user message with the collective's would-be tags
			// must not be taken by the collective.
			for tag := 0; tag < 3; tag++ {
				must(c.Send([]byte{byte(round), byte(tag)}, (r+1)%n, tag), "Send")
			}
			sum := make([]byte, 8)
			in := make([]byte, 8)
			binary.LittleEndian.PutUint64(in, uint64(r+round))
			ra, err := c.Iallreduce(in, sum, mpi.Uint64, mpi.Sum)
			must(err, "Iallreduce")
			rz, err := c.Ibarrier()
			must(err, "Ibarrier")
			small := make([]byte, 5)
			if r == (root+1)%n {
				pattern(small, -round)
			}
			rs, err := c.Ibcast(small, (root+1)%n)
			must(err, "second Ibcast")
			// A blocking collective while four are pending.
			all := make([]byte, n)
			must(c.Allgather([]byte{byte(r)}, all), "Allgather while nonblocking pending")
			for i := range n {
				if all[i] != byte(i) {
					fail("Allgather with pending collectives: %v", all)
				}
			}
			if round%2 == 0 {
				for _, q := range []*mpi.Request{rs, rz, ra, rb} {
					_, err := q.Wait()
					must(err, "Wait")
				}
			} else {
				_, err := mpi.Waitall([]*mpi.Request{rz, rs, rb, ra})
				must(err, "Waitall")
			}
			checkPattern(big, round, "Ibcast")
			checkPattern(small, -round, "second Ibcast")
			want := uint64(n*(n-1)/2 + n*round)
			if got := binary.LittleEndian.Uint64(sum); got != want {
				fail("Iallreduce round %d: %d, want %d", round, got, want)
			}
			from := (r - 1 + n) % n
			for tag := 2; tag >= 0; tag-- {
				b := make([]byte, 2)
				_, err := c.Recv(b, from, tag)
				must(err, "Recv")
				if b[0] != byte(round) || b[1] != byte(tag) {
					fail("user message crossed with a collective: %v", b)
				}
			}
		}
		// Test polls a collective to completion.
		req, err := c.Ibarrier()
		must(err, "Ibarrier")
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, done, err := req.Test()
			must(err, "Test")
			if done {
				break
			}
			if time.Now().After(deadline) {
				fail("Ibarrier never completed under Test")
			}
		}
		nbcEvery(c)
		nbcNeighbors(c)
		nbcErrors(c)
	})

	// With HYMPI_ASYNC_PROGRESS=1 a rank in the middle of the broadcast
	// tree computes without MPI calls while the ranks below it complete
	// their Ibcast: its progress goroutine forwards the data.
	register("async", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		// Binary tree from root 0: rank 1 is the parent of 3 and 4.
		const compute = 3 * time.Second
		buf := make([]byte, 4096)
		if r == 0 {
			pattern(buf, 42)
		}
		must(c.Barrier(), "Barrier")
		start := time.Now()
		if r == 0 {
			// Start late, so rank 1 is surely computing when the
			// data arrives.
			time.Sleep(300 * time.Millisecond)
		}
		req, err := c.Ibcast(buf, 0)
		must(err, "Ibcast")
		if r == 1 {
			x := 0
			for time.Since(start) < compute {
				for i := range 1000 {
					x += i ^ x
				}
			}
			_ = x
		}
		_, err = req.Wait()
		must(err, "Wait")
		took := time.Since(start)
		checkPattern(buf, 42, "async Ibcast")
		if n > 3 && r == 3 && took > compute/2 {
			fail("Ibcast below a computing rank took %v: nothing progressed it", took)
		}
		must(c.Barrier(), "Barrier")
	})
}
