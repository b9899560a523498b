// Command osu_allreduce is OSU's osu_allreduce for hympi's Go API: the average time of
// Comm.Allreduce of float32 sums over all ranks, for each message size.
//
// Usage:
//
//	hympirun -n N bin/osu_allreduce [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]
//
// For each size (OSU's doubling, default 1 B to 1 MiB; sizes start at 4 B, one float32 as in OSU) each rank times -i
// calls after -x warm-ups (1000 and 100 up to 8 KiB, 100 and 10 above), with
// a barrier after each call; the row is the mean over ranks of each rank's
// average, in microseconds. -f adds the smallest and largest rank average
// and the iteration count; -reps N repeats the sweep and prints medians.
//
//	# OSU MPI Allreduce Latency Test
//	# hympi osu_allreduce (Go), 2 ranks
//	# Size       Avg Latency(us)
//	4                       1.02
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/coll"
	"github.com/hympi/hympi/mpi"
)

// elem is the size of the reduced element, OSU's MPI_FLOAT.
const elem = 4

func main() {
	os.Exit(coll.Main(coll.Benchmark{
		Name:  "osu_allreduce",
		Title: "Allreduce",
		Op:    "Allreduce",
		Sized: true,
		Elem:  elem,
		Prepare: func(c *mpi.Comm, max int) (coll.Call, error) {
			send, recv := coll.Floats(max), coll.Floats(max)
			return func(size int) error {
				n := size / elem * elem
				return c.Allreduce(send[:n], recv[:n], mpi.Float32, mpi.Sum)
			}, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
