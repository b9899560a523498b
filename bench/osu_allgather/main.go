// Command osu_allgather is OSU's osu_allgather for hympi's Go API: the average time of
// Comm.Allgather (size bytes from each rank) over all ranks, for each message size.
//
// Usage:
//
//	hympirun -n N bin/osu_allgather [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]
//
// For each size (OSU's doubling, default 1 B to 1 MiB) each rank times -i
// calls after -x warm-ups (1000 and 100 up to 8 KiB, 100 and 10 above), with
// a barrier after each call; the row is the mean over ranks of each rank's
// average, in microseconds. -f adds the smallest and largest rank average
// and the iteration count; -reps N repeats the sweep and prints medians.
//
//	# OSU MPI Allgather Latency Test
//	# hympi osu_allgather (Go), 2 ranks
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
		Name:  "osu_allgather",
		Title: "Allgather",
		Op:    "Allgather",
		Sized: true,
		Prepare: func(c *mpi.Comm, max int) (coll.Call, error) {
			send, recv := coll.Buffer(max), coll.Buffer(max*c.Size())
			n := c.Size()
			return func(size int) error { return c.Allgather(send[:size], recv[:size*n]) }, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
