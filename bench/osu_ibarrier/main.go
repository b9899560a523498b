// Command osu_ibarrier is OSU's osu_ibarrier for hympi's Go API: how much
// of a non-blocking barrier hides behind computation.
//
// Usage:
//
//	hympirun -n N bin/osu_ibarrier [-i ITERS] [-x WARMUP] [-t TESTS] [-f] [-reps N]
//
// First each rank times Ibarrier followed at once by Wait (the pure
// communication time). Then each iteration starts an Ibarrier, computes for
// that long (calling Request.Test -t times along the way), and waits. The
// row gives, averaged over ranks and in microseconds, the overall time of
// an iteration, the compute time, the pure communication time, and OSU's
// overlap: 100 - (overall - compute) / pure × 100, floored at 0 (100% means
// the barrier cost nothing beyond the computation). -f adds the start,
// test and wait times and the spread of the pure time over ranks. Defaults
// are OSU's: 100 iterations after 10 warm-ups.
//
// Set HYMPI_ASYNC_PROGRESS=1 to let a progress goroutine advance the barrier
// while the rank computes.
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/coll"
	"github.com/hympi/hympi/mpi"
)

func main() {
	os.Exit(coll.Main(coll.Benchmark{
		Name:  "osu_ibarrier",
		Title: "Barrier",
		Op:    "Ibarrier",
		PrepareNBC: func(c *mpi.Comm, _ int) (coll.Start, error) {
			return func(int) (*mpi.Request, error) { return c.Ibarrier() }, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
