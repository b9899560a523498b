// Command protomix runs osu_bibw's (or osu_bw's) window at one size and
// reports, per rank, which protocol the messages took (mpi.Counters: eager
// and direct sends, skew raises and lowers) beside the rate and the CPU
// time the rank spent. On a loaded machine the rate is noise, but the
// protocol counts do not depend on the load, and bytes per CPU-second
// compare two builds far better than bytes per second (docs/bench/bibw.md).
//
// Usage:
//
//	hympirun -n 2 bin/protomix [-s BYTES] [-i ITERS] [-w WINDOW] [-bi=false]
//
// Both ranks post a window of receives, then a window of sends, then wait
// for all of them (-bi, the default); with -bi=false rank 0 only sends and
// rank 1 only receives and answers each window with 4 bytes (osu_bw).
// Buffers are reused as in OSU. Two warm-up iterations are not counted.
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"

	"github.com/hympi/hympi/mpi"
)

func main() {
	size := flag.Int("s", 256<<10, "message `bytes`")
	iters := flag.Int("i", 20, "counted `iterations`")
	win := flag.Int("w", 64, "`window`: messages each way per iteration")
	bi := flag.Bool("bi", true, "both ranks send (osu_bibw); false: rank 0 to rank 1 (osu_bw)")
	flag.Parse()
	if err := run(*size, *iters, *win, *bi); err != nil {
		fmt.Fprintln(os.Stderr, "protomix:", err)
		os.Exit(1)
	}
}

func run(size, iters, win int, bi bool) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	if c.Size() != 2 {
		return fmt.Errorf("needs 2 ranks, has %d", c.Size())
	}
	me := c.Rank()
	peer := 1 - me
	sbuf, rbuf := make([]byte, size), make([]byte, size)
	reqs := make([]*mpi.Request, 0, 2*win)
	window := func() error {
		reqs = reqs[:0]
		if bi || me == 1 {
			for range win {
				r, err := c.Irecv(rbuf, peer, 1)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
		}
		if bi || me == 0 {
			for range win {
				r, err := c.Isend(sbuf, peer, 1)
				if err != nil {
					return err
				}
				reqs = append(reqs, r)
			}
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return err
		}
		if bi {
			return nil
		}
		if me == 1 {
			return c.Send(sbuf[:4], peer, 2)
		}
		_, err := c.Recv(rbuf[:4], peer, 2)
		return err
	}
	for range 2 {
		if err := window(); err != nil {
			return err
		}
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	before := mpi.Counters(peer)
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t := mpi.Wtime()
	for range iters {
		if err := window(); err != nil {
			return err
		}
	}
	t = mpi.Wtime() - t
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	after := mpi.Counters(peer)
	cpu := float64(ru1.Utime.Nano()-ru0.Utime.Nano()+ru1.Stime.Nano()-ru0.Stime.Nano()) / 1e9
	bytes := float64(size) * float64(win) * float64(iters)
	if bi {
		bytes *= 2
	}
	fmt.Fprintf(os.Stderr, "rank %d size %d: %.0f MB/s, cpu %.3f s, %.0f MB per cpu-s; sent eager %d direct %d; raises %d lowers %d; threshold %d\n",
		me, size, bytes/t/1e6, cpu, bytes/cpu/1e6,
		after.EagerMsgs-before.EagerMsgs, after.DirectMsgs-before.DirectMsgs,
		after.SkewRaises-before.SkewRaises, after.SkewLowers-before.SkewLowers, after.Threshold)
	return nil
}
