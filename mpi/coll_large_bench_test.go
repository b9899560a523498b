//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// Large-message reductions over an in-process job (go test -run '^$'
// -bench CollLarge ./mpi/): every reduction at 64 KiB and 1 MiB on 2 and 4
// ranks. BenchmarkCollLargeAlgo runs the algorithms a threshold chooses
// between in the same run, for same-run ratios.

type largeColl struct {
	name string
	run  func(c *Comm, in, out []byte) error
}

var largeColls = []largeColl{
	{"Reduce", func(c *Comm, in, out []byte) error { return c.Reduce(in, out, Float32, Sum, 0) }},
	{"Allreduce", func(c *Comm, in, out []byte) error { return c.Allreduce(in, out, Float32, Sum) }},
	{"Scan", func(c *Comm, in, out []byte) error { return c.Scan(in, out, Float32, Sum) }},
	{"Exscan", func(c *Comm, in, out []byte) error { return c.Exscan(in, out, Float32, Sum) }},
	{"ReduceScatterBlock", func(c *Comm, in, out []byte) error {
		return c.ReduceScatterBlock(in, out[:len(in)/c.Size()], Float32, Sum)
	}},
}

// benchLarge also reports the CPU time the whole job (every rank) spent
// per call, cpu-ns/op: on a loaded machine wall time mostly measures the
// wait for a CPU, CPU time the work.
func benchLarge(b *testing.B, n, size int, lc largeColl) {
	b.SetBytes(int64(size))
	ins, outs := perRank(n, size), perRank(n, size)
	before := cpuTime()
	benchColl(b, n, func(c *Comm) error { return lc.run(c, ins[c.Rank()], outs[c.Rank()]) })
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkCollLarge(b *testing.B) {
	for _, lc := range largeColls {
		for _, n := range []int{2, 4} {
			for _, size := range []int{64 << 10, 1 << 20} {
				b.Run(fmt.Sprintf("%s/n=%d/size=%d", lc.name, n, size), func(b *testing.B) { benchLarge(b, n, size, lc) })
			}
		}
	}
}
