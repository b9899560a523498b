//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Collective benchmarks over an in-process job (one goroutine per rank):
// go test -run '^$' -bench Coll ./mpi/. Variants compare the offload
// engine's algorithms with each other and with point-to-point versions, to
// set (and justify) the switch points.

func benchColl(b *testing.B, n int, f func(c *Comm) error) {
	comms := inProcessJob(b, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	b.ResetTimer()
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < b.N && errs[r] == nil; i++ {
				errs[r] = f(c)
			}
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			b.Fatalf("rank %d: %v", r, err)
		}
	}
}

var benchSizes = []int{8, 1 << 10, 64 << 10, 1 << 20}

// perRank is one buffer of size bytes per rank, allocated once so the
// benchmark measures the collective, not the allocator.
func perRank(n, size int) [][]byte {
	bufs := make([][]byte, n)
	for i := range bufs {
		bufs[i] = make([]byte, size)
	}
	return bufs
}

func BenchmarkCollBarrier(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("n=%d/offload", n), func(b *testing.B) {
			benchColl(b, n, func(c *Comm) error { return c.Barrier() })
		})
		b.Run(fmt.Sprintf("n=%d/p2p", n), func(b *testing.B) {
			benchColl(b, n, func(c *Comm) error { return c.barrierOn(c.ctx+1, "Barrier") })
		})
	}
}

func BenchmarkCollBcast(b *testing.B) {
	for _, n := range []int{2, 4} {
		for _, size := range benchSizes {
			b.Run(fmt.Sprintf("n=%d/size=%d/offload", n, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				bufs := perRank(n, size)
				benchColl(b, n, func(c *Comm) error { return c.Bcast(bufs[c.Rank()], 0) })
			})
			b.Run(fmt.Sprintf("n=%d/size=%d/p2p-linear", n, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				bufs := perRank(n, size)
				benchColl(b, n, func(c *Comm) error { return p2pBcast(c, bufs[c.Rank()]) })
			})
		}
	}
}

// p2pBcast is the point-to-point baseline: the root sends to every rank.
func p2pBcast(c *Comm, buf []byte) error {
	if c.Rank() != 0 {
		_, err := c.Recv(buf, 0, 1)
		return err
	}
	reqs := make([]*Request, 0, c.Size())
	for p := 1; p < c.Size(); p++ {
		r, err := c.Isend(buf, p, 1)
		if err != nil {
			return err
		}
		reqs = append(reqs, r)
	}
	_, err := Waitall(reqs)
	return err
}

func BenchmarkCollAllreduce(b *testing.B) {
	for _, n := range []int{2, 4} {
		for _, size := range benchSizes {
			for _, v := range []struct {
				name      string
				ringMin   int
				halvesMin int
				doubling  bool
			}{
				{"auto", allreduceRingMin, allreduceHalvesMin, true},
				{"halves", allreduceRingMin, 0, true},
				{"ring", 0, math.MaxInt, true},
				{"doubling", math.MaxInt, math.MaxInt, true},
				{"tree", math.MaxInt, math.MaxInt, false},
			} {
				if v.name == "halves" && n != 2 {
					continue
				}
				b.Run(fmt.Sprintf("n=%d/size=%d/%s", n, size, v.name), func(b *testing.B) {
					oldMin, oldHalves, oldNo := allreduceRingMin, allreduceHalvesMin, noRecursiveDoubling
					allreduceRingMin, allreduceHalvesMin, noRecursiveDoubling = v.ringMin, v.halvesMin, !v.doubling
					defer func() { allreduceRingMin, allreduceHalvesMin, noRecursiveDoubling = oldMin, oldHalves, oldNo }()
					b.SetBytes(int64(size))
					bufs := make([][2][]byte, n)
					for i := range bufs {
						bufs[i] = [2][]byte{make([]byte, size), make([]byte, size)}
					}
					benchColl(b, n, func(c *Comm) error {
						return c.Allreduce(bufs[c.Rank()][0], bufs[c.Rank()][1], Float64, Sum)
					})
				})
			}
		}
	}
}

// TestCollMedianTable prints the median latency of each collective and
// variant at 2 ranks (HYMPI_COLL_TABLE=1 go test -run CollMedianTable -v
// ./mpi/). Medians, not means: on a shared 2-core machine a few preempted
// iterations dominate a mean.
func TestCollMedianTable(t *testing.T) {
	if os.Getenv("HYMPI_COLL_TABLE") == "" {
		t.Skip("set HYMPI_COLL_TABLE=1")
	}
	n := 2
	if s := os.Getenv("HYMPI_COLL_RANKS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	type variant struct {
		name string
		set  func() func() // sets the variant, returns the undo
		run  func(c *Comm, in, out []byte) error
	}
	keep := func() func() { return func() {} }
	setAR := func(ringMin, halvesMin int, doubling bool) func() func() {
		return func() func() {
			a, h, b := allreduceRingMin, allreduceHalvesMin, noRecursiveDoubling
			allreduceRingMin, allreduceHalvesMin, noRecursiveDoubling = ringMin, halvesMin, !doubling
			return func() { allreduceRingMin, allreduceHalvesMin, noRecursiveDoubling = a, h, b }
		}
	}
	ar := func(c *Comm, in, out []byte) error { return c.Allreduce(in, out, Float64, Sum) }
	bc := func(c *Comm, in, _ []byte) error { return c.Bcast(in, 0) }
	rd := func(c *Comm, in, out []byte) error { return c.Reduce(in, out, Float64, Sum, 0) }
	rsb := func(c *Comm, in, out []byte) error {
		m := len(in) / c.Size() / 8 * 8
		return c.ReduceScatterBlock(in[:m*c.Size()], out[:m], Float64, Sum)
	}
	vs := []struct {
		coll string
		vars []variant
	}{
		{"Barrier", []variant{
			{"offload", keep, func(c *Comm, _, _ []byte) error { return c.Barrier() }},
			{"p2p-dissemination", keep, func(c *Comm, _, _ []byte) error { return c.barrierOn(c.ctx+1, "Barrier") }},
		}},
		{"Bcast", []variant{
			{"binary-tree", keep, bc},
			{"p2p-linear", keep, func(c *Comm, in, _ []byte) error { return p2pBcast(c, in) }},
		}},
		{"Reduce", []variant{
			{"auto", keep, rd},
			{"binomial-tree", keep, rd},
		}},
		{"ReduceScatterBlock", []variant{
			{"auto", keep, rsb},
			{"reduce+scatter", setAR(math.MaxInt, math.MaxInt, true), rsb},
		}},
		{"Allreduce", []variant{
			{"auto", keep, ar},
			{"halves", setAR(allreduceRingMin, 0, true), ar},
			{"ring", setAR(0, math.MaxInt, true), ar},
			{"doubling", setAR(math.MaxInt, math.MaxInt, true), ar},
			{"reduce+bcast", setAR(math.MaxInt, math.MaxInt, false), ar},
		}},
	}
	for _, v := range vs {
		for _, size := range benchSizes {
			if v.coll == "Barrier" && size != 8 {
				continue
			}
			line := fmt.Sprintf("%-9s n=%d %8d B:", v.coll, n, size)
			for _, vr := range v.vars {
				undo := vr.set()
				iters := 2000
				if size >= 1<<20 {
					iters = 200
				}
				comms := inProcessJob(t, n)
				lat := make([][]time.Duration, n)
				runRanks(t, comms, func(c *Comm) error {
					in, out := make([]byte, size), make([]byte, size)
					for i := 0; i < iters; i++ {
						s := time.Now()
						if err := vr.run(c, in, out); err != nil {
							return err
						}
						lat[c.Rank()] = append(lat[c.Rank()], time.Since(s))
					}
					return nil
				})
				undo()
				// The slowest rank's median: a root that only sends
				// finishes long before the leaves.
				var med time.Duration
				for _, l := range lat {
					sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
					med = max(med, l[len(l)/2])
				}
				line += fmt.Sprintf("  %s %v", vr.name, med.Round(10*time.Nanosecond))
			}
			t.Log(line)
		}
	}
}

// BenchmarkCollForms compares a collective's three forms over the same
// schedule: blocking, nonblocking waited on at once, and persistent
// (bound once, Start and Wait per iteration).
func BenchmarkCollForms(b *testing.B) {
	for _, n := range []int{2, 4} {
		for _, tc := range allocCases {
			if tc.name != "Barrier" && tc.name != "Allreduce" && tc.name != "Bcast" {
				continue
			}
			for _, form := range []string{"blocking", "nonblocking", "persistent"} {
				b.Run(fmt.Sprintf("n=%d/%s/8/%s", n, tc.name, form), func(b *testing.B) {
					bufs := make([]*allocBufs, n)
					ps := make([]*Persistent, n)
					for r := range bufs {
						bufs[r] = &allocBufs{in: make([]byte, 8*n), out: make([]byte, 8*n), m: 8}
					}
					benchColl(b, n, func(c *Comm) error {
						bb := bufs[c.Rank()]
						switch form {
						case "blocking":
							return tc.block(c, bb, 0)
						case "nonblocking":
							r, err := tc.start(c, bb, 0)
							if err != nil {
								return err
							}
							_, err = r.Wait()
							return err
						}
						p := ps[c.Rank()]
						if p == nil {
							var err error
							if p, err = tc.init(c, bb, 0); err != nil {
								return err
							}
							ps[c.Rank()] = p
						}
						if _, err := p.Start(); err != nil {
							return err
						}
						_, err := p.Wait()
						return err
					})
				})
			}
		}
	}
}
