// Command osu_bibw is OSU's osu_bibw for hympi's Go API: the bandwidth of
// two ranks sending to each other at once, with many messages in flight in
// both directions.
//
// Usage:
//
//	hympirun -n 2 bin/osu_bibw [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-W WINDOW] [-reps N] [-format osu|gobench]
//	                           [-buffers reuse|fresh] [-pool MiB]
//
// For each size, each iteration has both ranks post a window of -W
// non-blocking receives, then a window of -W non-blocking sends to the
// other, then wait for all the sends and all the receives. There is no
// acknowledgement: the receives each rank waits for are the other's sends.
// The rate is the bytes of both directions over rank 0's time, in MB/s
// (OSU's size/1e6 * iterations * window * 2 / t). Defaults follow OSU: sizes
// 1 B to 4 MiB, window 64, 100 iterations after 10 warm-ups up to 8 KiB, 20
// after 2 above. -reps N repeats the sweep and prints each size's median.
//
// -buffers reuse (the default) is OSU's: one send and one receive buffer
// per rank for every message. -buffers fresh gives each message the next
// slot of a pool larger than the caches (-pool MiB per side).
//
// The output is OSU's table:
//
//	# hympi osu_bibw (Go)
//	# Size      Bandwidth (MB/s)
//	1048576             21000.00
//
// With -format gobench each repetition prints Go benchmark lines
// (BenchmarkOSUBiBandwidth/window=W/size=N, ns/op per message and MB/s)
// for benchstat.
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/bench/internal/pt2pt"
	"github.com/hympi/hympi/mpi"
)

// osu_bibw's tags: rank 0 sends with tagToOne and receives tagToZero.
const (
	tagToOne  = 100
	tagToZero = 10
)

func main() {
	os.Exit(pt2pt.Main(pt2pt.Benchmark{
		Name:    "osu_bibw",
		Kind:    osu.Bandwidth,
		GoBench: "OSUBiBandwidth",
		Kernel:  window,
	}, os.Stdout, os.Stderr, os.Args[1:]))
}

// window is osu_bibw's loop, the same on both ranks but for the tags; only
// rank 0's clock counts. Receives are posted before sends, as in OSU, so
// that most messages find their receive already waiting.
func window(c *mpi.Comm, b *pt2pt.Buffers, size, iters, skip int) (pt2pt.Timing, error) {
	peer, sendTag, recvTag := 1, tagToOne, tagToZero
	if c.Rank() == 1 {
		peer, sendTag, recvTag = 0, tagToZero, tagToOne
	}
	recvReqs, sendReqs := b.Reqs[:b.Window], b.Reqs[b.Window:2*b.Window]
	send, recv := b.Send.Slots(size), b.Recv.Slots(size)
	var start float64
	for i := range iters + skip {
		if i == skip {
			start = mpi.Wtime()
		}
		for j := range recvReqs {
			r, err := c.Irecv(recv.Next(), peer, recvTag)
			if err != nil {
				return pt2pt.Timing{}, err
			}
			recvReqs[j] = r
		}
		for j := range sendReqs {
			r, err := c.Isend(send.Next(), peer, sendTag)
			if err != nil {
				return pt2pt.Timing{}, err
			}
			sendReqs[j] = r
		}
		if _, err := mpi.Waitall(sendReqs); err != nil {
			return pt2pt.Timing{}, err
		}
		if _, err := mpi.Waitall(recvReqs); err != nil {
			return pt2pt.Timing{}, err
		}
	}
	return pt2pt.Timing{Seconds: mpi.Wtime() - start, Messages: 2 * iters * b.Window}, nil
}
