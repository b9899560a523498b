// Command osu_scatter is OSU's osu_scatter for hympi's Go API: the average time of
// Comm.Scatter from rank 0 (size bytes to each rank) over all ranks, for each message size.
//
// Usage:
//
//	hympirun -n N bin/osu_scatter [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]
//
// For each size (OSU's doubling, default 1 B to 1 MiB) each rank times -i
// calls after -x warm-ups (1000 and 100 up to 8 KiB, 100 and 10 above), with
// a barrier after each call; the row is the mean over ranks of each rank's
// average, in microseconds. -f adds the smallest and largest rank average
// and the iteration count; -reps N repeats the sweep and prints medians.
//
//	# OSU MPI Scatter Latency Test
//	# hympi osu_scatter (Go), 2 ranks
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
		Name:  "osu_scatter",
		Title: "Scatter",
		Op:    "Scatter",
		Sized: true,
		Prepare: func(c *mpi.Comm, max int) (coll.Call, error) {
			recv := coll.Buffer(max)
			var send []byte
			if c.Rank() == 0 {
				send = coll.Buffer(max * c.Size())
			}
			n := c.Size()
			return func(size int) error {
				var s []byte
				if send != nil {
					s = send[:size*n]
				}
				return c.Scatter(s, recv[:size], 0)
			}, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
