// Command osu_reduce is OSU's osu_reduce for hympi's Go API: the average time of
// Comm.Reduce of float32 sums to rank 0 over all ranks, for each message size.
//
// Usage:
//
//	hympirun -n N bin/osu_reduce [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-f] [-reps N]
//
// For each size (OSU's doubling, default 1 B to 1 MiB; sizes start at 4 B, one float32 as in OSU) each rank times -i
// calls after -x warm-ups (1000 and 100 up to 8 KiB, 100 and 10 above), with
// a barrier after each call; the row is the mean over ranks of each rank's
// average, in microseconds. -f adds the smallest and largest rank average
// and the iteration count; -reps N repeats the sweep and prints medians.
//
//	# OSU MPI Reduce Latency Test
//	# hympi osu_reduce (Go), 2 ranks
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
		Name:  "osu_reduce",
		Title: "Reduce",
		Op:    "Reduce",
		Sized: true,
		Elem:  elem,
		Prepare: func(c *mpi.Comm, max int) (coll.Call, error) {
			send, recv := coll.Floats(max), coll.Floats(max)
			return func(size int) error {
				n := size / elem * elem
				return c.Reduce(send[:n], recv[:n], mpi.Float32, mpi.Sum, 0)
			}, nil
		},
	}, os.Stdout, os.Stderr, os.Args[1:]))
}
