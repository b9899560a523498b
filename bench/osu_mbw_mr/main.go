// Command osu_mbw_mr is OSU's osu_mbw_mr for hympi's Go API: the aggregate
// bandwidth and message rate of several sender/receiver pairs streaming at
// once.
//
// Usage:
//
//	hympirun -n N bin/osu_mbw_mr [-m [MIN:]MAX] [-i ITERS] [-x WARMUP] [-W WINDOW] [-reps N] [-format osu|gobench]
//	                             [-buffers reuse|fresh] [-pool MiB]
//
// N must be even: rank i < N/2 sends to rank i+N/2. For each size, each
// iteration has every sender post a window of -W non-blocking sends to its
// receiver and wait for them and for a 4-byte acknowledgement, which the
// receiver sends once its window of receives has completed (osu_bw's loop,
// in N/2 pairs at once). All ranks meet at a barrier when the warm-up ends.
// As in OSU, the time is the mean of the senders' times and the bandwidth
// is the bytes of all pairs over it, in MB/s (1 MB = 1e6 bytes); the
// message rate is messages of all pairs per second. Defaults follow OSU:
// sizes 1 B to 4 MiB, window 64, 100 iterations after 10 warm-ups up to
// 8 KiB, 20 after 2 above. -reps N repeats the sweep and prints each size's
// median.
//
// -buffers reuse (the default) is OSU's: one buffer per rank for every
// message. -buffers fresh gives each message the next slot of a pool larger
// than the caches (-pool MiB; senders have only a send pool, receivers only
// a receive pool).
//
// The output is OSU's table:
//
//	# hympi osu_mbw_mr (Go)
//	# [ pairs: 2 ] [ window size: 64 ]
//	# Size                  MB/s        Messages/s
//	1                       6.12        6123456.78
//
// With -format gobench each repetition prints Go benchmark lines
// (BenchmarkOSUMultiBandwidth/window=W/size=N, ns/op per message, MB/s and
// msgs/s) for benchstat; the config line "ranks" gives N.
package main

import (
	"os"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/bench/internal/pt2pt"
	"github.com/hympi/hympi/mpi"
)

// osu_mbw_mr's tags for the data and the acknowledgement, and hympi's for
// collecting the senders' times on rank 0.
const (
	tagData = 100
	tagAck  = 101
	tagTime = 102
)

func main() {
	os.Exit(pt2pt.Main(pt2pt.Benchmark{
		Name:    "osu_mbw_mr",
		Kind:    osu.Bandwidth,
		GoBench: "OSUMultiBandwidth",
		Kernel:  pairs,
		Ranks:   pt2pt.RankPairs,
		OneWay:  true,
		Rate:    true,
	}, os.Stdout, os.Stderr, os.Args[1:]))
}

// pairs is osu_mbw_mr's loop. OSU sums the senders' times with MPI_Reduce;
// the senders other than rank 0 send theirs to rank 0 instead, which needs
// nothing beyond point-to-point.
func pairs(c *mpi.Comm, b *pt2pt.Buffers, size, iters, skip int) (pt2pt.Timing, error) {
	rank, npairs := c.Rank(), c.Size()/2
	reqs := b.Reqs[:b.Window]
	if rank >= npairs {
		return pt2pt.Timing{}, receive(c, b, rank-npairs, size, iters, skip)
	}

	send, peer := b.Send.Slots(size), rank+npairs
	var start float64
	for i := range iters + skip {
		if i == skip {
			if err := c.Barrier(); err != nil {
				return pt2pt.Timing{}, err
			}
			start = mpi.Wtime()
		}
		for j := range reqs {
			r, err := c.Isend(send.Next(), peer, tagData)
			if err != nil {
				return pt2pt.Timing{}, err
			}
			reqs[j] = r
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return pt2pt.Timing{}, err
		}
		if _, err := c.Recv(b.Ack, peer, tagAck); err != nil {
			return pt2pt.Timing{}, err
		}
	}
	t := []float64{mpi.Wtime() - start}
	if rank != 0 {
		return pt2pt.Timing{}, mpi.SendSlice(c, t, 0, tagTime)
	}
	sum := t[0]
	for r := 1; r < npairs; r++ {
		if _, err := mpi.RecvSlice(c, t, r, tagTime); err != nil {
			return pt2pt.Timing{}, err
		}
		sum += t[0]
	}
	return pt2pt.Timing{Seconds: sum / float64(npairs), Messages: npairs * iters * len(reqs)}, nil
}

// receive is a receiver's side of pairs: a window of receives from peer,
// then the acknowledgement.
func receive(c *mpi.Comm, b *pt2pt.Buffers, peer, size, iters, skip int) error {
	reqs := b.Reqs[:b.Window]
	recv := b.Recv.Slots(size)
	for i := range iters + skip {
		if i == skip {
			if err := c.Barrier(); err != nil {
				return err
			}
		}
		for j := range reqs {
			r, err := c.Irecv(recv.Next(), peer, tagData)
			if err != nil {
				return err
			}
			reqs[j] = r
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return err
		}
		if err := c.Send(b.Ack, peer, tagAck); err != nil {
			return err
		}
	}
	return nil
}
