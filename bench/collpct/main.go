// Command collpct times each call of one collective separately, in the
// manner of OSU (a barrier after each call), and prints per rank the 10th,
// 50th and 90th percentile and the mean of the timed calls. On a machine
// shared with other work the low percentiles are the calls during which
// every rank had a CPU, which an average over calls hides; the mean is
// what OSU prints.
//
// Usage: hympirun -n N bin/collpct -c bcast|allreduce|alltoall|allgather|gather|scatter|reduce -m SIZE [-i ITERS] [-x WARMUP]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/hympi/hympi/mpi"
)

func main() {
	op := flag.String("c", "bcast", "collective")
	size := flag.Int("m", 1<<20, "bytes per rank and block")
	iters := flag.Int("i", 100, "timed calls")
	skip := flag.Int("x", 10, "warm-up calls")
	flag.Parse()
	if err := run(*op, *size, *iters, *skip); err != nil {
		fmt.Fprintln(os.Stderr, "collpct:", err)
		os.Exit(1)
	}
}

func run(op string, size, iters, skip int) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	n := c.Size()
	send := make([]byte, size*n)
	recv := make([]byte, size*n)
	for i := range send {
		send[i] = 1
		recv[i] = 1
	}
	call := map[string]func() error{
		"bcast":     func() error { return c.Bcast(send[:size], 0) },
		"allreduce": func() error { return c.Allreduce(send[:size], recv[:size], mpi.Float32, mpi.Sum) },
		"reduce":    func() error { return c.Reduce(send[:size], recv[:size], mpi.Float32, mpi.Sum, 0) },
		"alltoall":  func() error { return c.Alltoall(send[:size*n], recv[:size*n]) },
		"allgather": func() error { return c.Allgather(send[:size], recv[:size*n]) },
		"gather":    func() error { return c.Gather(send[:size], recv[:size*n], 0) },
		"scatter":   func() error { return c.Scatter(send[:size*n], recv[:size], 0) },
	}[op]
	if call == nil {
		return fmt.Errorf("unknown collective %q", op)
	}
	ts := make([]float64, 0, iters)
	for i := range iters + skip {
		t := time.Now()
		if err := call(); err != nil {
			return err
		}
		d := time.Since(t)
		if i >= skip {
			ts = append(ts, float64(d.Nanoseconds())/1e3)
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	var sum float64
	for _, t := range ts {
		sum += t
	}
	mean := sum / float64(len(ts))
	slices.Sort(ts)
	p := func(q float64) float64 { return ts[int(q*float64(len(ts)-1))] }
	fmt.Printf("rank %d %s %d p10 %.1f p50 %.1f p90 %.1f mean %.1f\n", c.Rank(), op, size, p(.1), p(.5), p(.9), mean)
	return nil
}
