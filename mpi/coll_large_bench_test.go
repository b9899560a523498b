//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"
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

func benchLarge(b *testing.B, n, size int, lc largeColl) {
	b.SetBytes(int64(size))
	ins, outs := perRank(n, size), perRank(n, size)
	benchColl(b, n, func(c *Comm) error { return lc.run(c, ins[c.Rank()], outs[c.Rank()]) })
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
