// Command osu_bw is OSU's osu_bw for hympi's Go API: the unidirectional
// bandwidth from rank 0 to rank 1 with many messages in flight.
//
// Usage:
//
//	hympirun -n 2 bin/osu_bw [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-W WINDOW] [-reps N] [-format osu|gobench]
//	                         [-buffers reuse|fresh] [-pool MiB]
//
// For each size, each iteration has rank 0 post a window of -W non-blocking
// sends and wait for all of them, while rank 1 posts the matching window of
// non-blocking receives, waits for all, and answers with a 4-byte
// acknowledgement that rank 0 receives before the next window. The rate is
// the bytes of the timed windows over rank 0's time, in MB/s (1 MB = 1e6
// bytes). Defaults follow OSU: sizes 1 B to 4 MiB, window 64, 100 iterations
// after 10 warm-ups up to 8 KiB, 20 after 2 above. -reps N repeats the sweep
// and prints each size's median.
//
// -buffers reuse (the default) is OSU's: every message of a window uses the
// same send buffer and the same receive buffer, so the benchmark measures
// the transport over memory hot in the caches. -buffers fresh gives each
// message the next slot of a pool larger than the caches (-pool MiB; rank 0
// has only a send pool and rank 1 only a receive pool), as an application
// streaming fresh data would see.
//
// The output is OSU's table:
//
//	# hympi osu_bw (Go)
//	# Size      Bandwidth (MB/s)
//	1024                 3776.17
//
// With -format gobench each repetition prints Go benchmark lines
// (BenchmarkOSUBandwidth/window=W/size=N, ns/op per message and MB/s) for
// benchstat.
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/bench/internal/pt2pt"
	"github.com/hympi/hympi/mpi"
)

// osu_bw's tags for the data messages and the acknowledgement.
const (
	tagData = 100
	tagAck  = 101
)

func main() {
	os.Exit(pt2pt.Main(pt2pt.Benchmark{
		Name:    "osu_bw",
		Kind:    osu.Bandwidth,
		GoBench: "OSUBandwidth",
		Kernel:  window,
		OneWay:  true,
	}, os.Stdout, os.Stderr, os.Args[1:]))
}

// window is osu_bw's loop: rank 0 posts a window of sends, waits for all
// of them and for rank 1's acknowledgement, which rank 1 sends once its
// window of receives has completed.
func window(c *mpi.Comm, b *pt2pt.Buffers, size, iters, skip int) (pt2pt.Timing, error) {
	reqs := b.Reqs[:b.Window]
	if c.Rank() == 0 {
		send := b.Send.Slots(size)
		var start float64
		for i := range iters + skip {
			if i == skip {
				start = mpi.Wtime()
			}
			for j := range reqs {
				r, err := c.Isend(send.Next(), 1, tagData)
				if err != nil {
					return pt2pt.Timing{}, err
				}
				reqs[j] = r
			}
			if _, err := mpi.Waitall(reqs); err != nil {
				return pt2pt.Timing{}, err
			}
			if _, err := c.Recv(b.Ack, 1, tagAck); err != nil {
				return pt2pt.Timing{}, err
			}
		}
		return pt2pt.Timing{Seconds: mpi.Wtime() - start, Messages: iters * len(reqs)}, nil
	}
	recv := b.Recv.Slots(size)
	for range iters + skip {
		for j := range reqs {
			r, err := c.Irecv(recv.Next(), 0, tagData)
			if err != nil {
				return pt2pt.Timing{}, err
			}
			reqs[j] = r
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return pt2pt.Timing{}, err
		}
		if err := c.Send(b.Ack, 0, tagAck); err != nil {
			return pt2pt.Timing{}, err
		}
	}
	return pt2pt.Timing{}, nil
}
