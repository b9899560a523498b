// Command osu_latency is OSU's osu_latency for hympi's Go API: the one-way
// latency of a blocking ping-pong between two ranks, for each message size.
//
// Usage:
//
//	hympirun -n 2 bin/osu_latency [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-reps N] [-format osu|gobench]
//	                              [-buffers reuse|fresh] [-pool MiB]
//
// For each size, rank 0 sends a message and waits for rank 1 to send it
// back; after -x warm-up round trips, -i timed ones give the latency as half
// the mean round trip, in microseconds. Defaults follow OSU: sizes 0 to
// 4 MiB, 10000 iterations after 100 warm-ups up to 8 KiB, 1000 after 10
// above. -reps N repeats the whole sweep and prints each size's median,
// because one sweep on a shared machine is noisy.
//
// -buffers reuse (the default) sends every message from one buffer and
// receives every message into one, as OSU does, so both stay in the caches;
// -buffers fresh gives each message the next slot of a pool larger than the
// caches (-pool MiB per side; see bench/internal/osu.FreshPoolSize), as an
// application sending fresh data would.
//
// The output is OSU's table, so OSU's tools and bench/cmd/osutable read it:
//
//	# hympi osu_latency (Go)
//	# Size          Latency (us)
//	0                       0.45
//
// With -format gobench each repetition prints Go benchmark lines
// (BenchmarkOSULatency/size=N, ns/op), to compare builds with benchstat.
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/bench/internal/pt2pt"
	"github.com/hympi/hympi/mpi"
)

// tag is osu_latency's message tag.
const tag = 1

func main() {
	os.Exit(pt2pt.Main(pt2pt.Benchmark{
		Name:    "osu_latency",
		Kind:    osu.Latency,
		GoBench: "OSULatency",
		Kernel:  pingPong,
	}, os.Stdout, os.Stderr, os.Args[1:]))
}

// pingPong is osu_latency's loop: rank 0 sends then receives, rank 1
// receives then sends, and rank 0's clock starts at iteration skip. Each
// round trip carries two messages.
func pingPong(c *mpi.Comm, b *pt2pt.Buffers, size, iters, skip int) (pt2pt.Timing, error) {
	send, recv := b.Send.Slots(size), b.Recv.Slots(size)
	if c.Rank() == 0 {
		var start float64
		for i := range iters + skip {
			if i == skip {
				start = mpi.Wtime()
			}
			if err := c.Send(send.Next(), 1, tag); err != nil {
				return pt2pt.Timing{}, err
			}
			if _, err := c.Recv(recv.Next(), 1, tag); err != nil {
				return pt2pt.Timing{}, err
			}
		}
		return pt2pt.Timing{Seconds: mpi.Wtime() - start, Messages: 2 * iters}, nil
	}
	for range iters + skip {
		if _, err := c.Recv(recv.Next(), 0, tag); err != nil {
			return pt2pt.Timing{}, err
		}
		if err := c.Send(send.Next(), 0, tag); err != nil {
			return pt2pt.Timing{}, err
		}
	}
	return pt2pt.Timing{}, nil
}
