// Command osu_bcast is OSU's osu_bcast for hympi's Go API: the average time of
// Comm.Bcast from rank 0 over all ranks, for each message size.
//
// Usage:
//
//	hympirun -n N bin/osu_bcast [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]
//
// For each size (OSU's doubling, default 1 B to 1 MiB) each rank times -i
// calls after -x warm-ups (1000 and 100 up to 8 KiB, 100 and 10 above), with
// a barrier after each call; the row is the mean over ranks of each rank's
// average, in microseconds. -f adds the smallest and largest rank average
// and the iteration count; -reps N repeats the sweep and prints medians.
//
//	# OSU MPI Broadcast Latency Test
//	# hympi osu_bcast (Go), 2 ranks
//	# Size       Avg Latency(us)
//	1                       1.02
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/coll"
	"github.com/hympi/hympi/mpi"
)

func main() {
	os.Exit(coll.Main(coll.Benchmark{
		Name:  "osu_bcast",
		Title: "Broadcast",
		Op:    "Bcast",
		Sized: true,
		Prepare: func(c *mpi.Comm, max int) (coll.Call, error) {
			buf := coll.Buffer(max)
			return func(size int) error { return c.Bcast(buf[:size], 0) }, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
