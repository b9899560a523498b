// Command cg_pingpong is a ping-pong for counting instructions, not for
// timing: bench/callgrind.sh runs it under valgrind --tool=callgrind in
// each of two ranks. hympi's own wait loop polls, and how many empty polls
// a receive makes depends on how the two ranks happen to be scheduled, so
// a count that includes them is not repeatable. Here a receiver first
// waits outside hympi, in awaitPeer, on a counter the sender bumps in a
// shared file after Send returns (the message is published by then); the
// receive then finds its message on its first look. callgrind.sh takes
// awaitPeer's instructions away, leaving what Send and Recv cost.
//
// Usage:
//
//	hympirun -n 2 cg_pingpong -flags FILE [-i ITERS] [-m SIZE]
//
// FILE is created if missing; the caller removes it.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/hympi/hympi/bench/internal/sidechan"
	"github.com/hympi/hympi/mpi"
)

func main() {
	iters := flag.Int("i", 100, "round trips")
	size := flag.Int("m", 8, "message size in bytes")
	path := flag.String("flags", "", "file shared by the two ranks for the side channel")
	flag.Parse()
	if err := run(*iters, *size, *path); err != nil {
		fmt.Fprintln(os.Stderr, "cg_pingpong:", err)
		os.Exit(1)
	}
}

// awaitPeer spins until the peer has sent n messages. callgrind.sh leaves
// it out of the count by name (--toggle-collect): keep it a function of its
// own, and keep the loop away from its first instruction, or callgrind
// reads every jump back as a new call.
//
//go:noinline
func awaitPeer(c *atomic.Uint64, n uint64) {
	if c.Load() >= n {
		return
	}
	for c.Load() < n {
		spins++
	}
}

// spins gives awaitPeer's loop a body, so that it is not compiled into one
// that starts at the function's entry.
var spins uint64

func run(iters, size int, path string) error {
	if path == "" {
		return fmt.Errorf("-flags FILE is required")
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	c := mpi.World()
	if c.Size() != 2 {
		return fmt.Errorf("needs 2 ranks, got %d", c.Size())
	}
	counts, err := sidechan.Counters(path, 2)
	if err != nil {
		return err
	}
	// Both ranks have the file before any counter moves; a counter left
	// over from an earlier run would be read as messages sent.
	if err := c.Barrier(); err != nil {
		return err
	}
	me, peer := c.Rank(), 1-c.Rank()
	buf := make([]byte, size)
	for i := uint64(1); i <= uint64(iters); i++ {
		if me == 1 {
			awaitPeer(counts[peer], i)
			if _, err := c.Recv(buf, peer, 1); err != nil {
				return err
			}
		}
		if err := c.Send(buf, peer, 1); err != nil {
			return err
		}
		counts[me].Add(1)
		if me == 0 {
			awaitPeer(counts[peer], i)
			if _, err := c.Recv(buf, peer, 1); err != nil {
				return err
			}
		}
	}
	return mpi.Finalize()
}
