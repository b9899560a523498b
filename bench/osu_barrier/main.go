// Command osu_barrier is OSU's osu_barrier for hympi's Go API: the average
// time of Comm.Barrier over all ranks.
//
// Usage:
//
//	hympirun -n N bin/osu_barrier [-i ITERS] [-x WARMUP] [-f] [-reps N]
//
// Each rank times -i barriers after -x warm-ups (defaults 1000 and 100);
// the row is the mean over ranks of each rank's average, in microseconds
// (-f adds the smallest and largest rank average and the iteration count).
// Like OSU's, the table has no size column:
//
//	# OSU MPI Barrier Latency Test
//	# hympi osu_barrier (Go), 2 ranks
//	# Avg Latency(us)
//	             0.85
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/coll"
	"github.com/hympi/hympi/mpi"
)

func main() {
	os.Exit(coll.Main(coll.Benchmark{
		Name:  "osu_barrier",
		Title: "Barrier",
		Op:    "Barrier",
		Prepare: func(c *mpi.Comm, _ int) (coll.Call, error) {
			return func(int) error { return c.Barrier() }, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
