package main

import (
	"fmt"

	"github.com/hympi/hympi/mpi"
)

func init() {
	register("bothways", bothWays)
}

// bothWays: ranks 0 and 1 exchange windows of large messages at once, as
// osu_bibw does, every message on one tag, so the non-overtaking rule fixes
// which receive each lands in whatever protocol carried it. Every byte is
// checked, each message with its own pattern (sender, window, index).
//
// First uniform windows above the size where messages may still go eager
// both ways (128 KiB, mpi's bothWaysEagerMax): once the first window has
// shown each side the other's traffic, every later message must be read,
// whatever the machine's load does to the skew feedback, where direct copy
// works at all. Then mixed windows whose sizes cycle through inline,
// eager and direct ones, odd lengths included (a read's last segment
// short), check the order across protocols. Ranks beyond 1 only take part
// in Init and Finalize.
func bothWays(c *mpi.Comm) {
	const tag, win, rounds = 9, 16, 4
	r := c.Rank()
	if r > 1 {
		return
	}
	peer := 1 - r
	exchange := func(sizes []int, round int) {
		sbufs := make([][]byte, len(sizes))
		rbufs := make([][]byte, len(sizes))
		for i, n := range sizes {
			sbufs[i] = make([]byte, n)
			rbufs[i] = make([]byte, n)
			pattern(sbufs[i], bothSeed(r, round, i))
		}
		reqs := make([]*mpi.Request, 0, 2*len(sizes))
		for i := range sizes {
			q, err := c.Irecv(rbufs[i], peer, tag)
			must(err, "Irecv %d", i)
			reqs = append(reqs, q)
		}
		for i := range sizes {
			q, err := c.Isend(sbufs[i], peer, tag)
			must(err, "Isend %d", i)
			reqs = append(reqs, q)
		}
		sts, err := mpi.Waitall(reqs)
		must(err, "Waitall round %d", round)
		for i, n := range sizes {
			if sts[i].Count != n {
				fail("round %d: receive %d got %d bytes, want %d (out of order?)", round, i, sts[i].Count, n)
			}
			checkPattern(rbufs[i], bothSeed(peer, round, i), fmt.Sprintf("round %d message %d of %d B", round, i, n))
		}
	}

	for _, size := range []int{256 << 10, 1<<20 + 3} {
		sizes := make([]int, win)
		for i := range sizes {
			sizes[i] = size
		}
		before := mpi.Counters(peer)
		exchange(sizes, 0)
		first := mpi.Counters(peer)
		for round := 1; round < rounds; round++ {
			exchange(sizes, round)
		}
		after := mpi.Counters(peer)
		if first.DirectMsgs == before.DirectMsgs && after.DirectMsgs == first.DirectMsgs {
			fmt.Printf("bothways: rank %d: no direct copy to rank %d here: protocol not checked\n", r, peer)
			continue
		}
		if eager := after.EagerMsgs - first.EagerMsgs; eager != 0 {
			fail("%d of %d later sends of %d B went eager both ways, want all read; %+v", eager, (rounds-1)*win, size, after)
		}
	}

	mixed := []int{1 << 10, 64 << 10, 1<<20 + 3, 128 << 10, 300<<10 + 1, 8, 2<<20 - 5, 100 << 10}
	sizes := make([]int, 3*len(mixed))
	for i := range sizes {
		sizes[i] = mixed[i%len(mixed)]
	}
	for round := rounds; round < 2*rounds; round++ {
		exchange(sizes, round)
	}
}

// bothSeed names message i of a window of round from rank r.
func bothSeed(r, round, i int) int { return r<<20 | round<<10 | i }
