//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"strings"
	"testing"
)

// What a collective's schedules cost, counted from the schedules as data
// (no processes, no clock): per rank the bytes it receives, the bytes it
// copies locally (copy steps and the own copy) and the bytes it combines
// with the operator, and in how many operator calls. A large collective's
// time is mostly these passes over memory, so the counts show an extra
// staging copy or a repeated reduction whatever the machine's load.

// busiest is the most bytes any one rank receives, copies and combines
// (its passes over memory), which bounds the collective's time from below
// when every rank has a CPU.
type schedCost struct {
	recvd, copied, reduced, calls, rounds, busiest int
}

func (a schedCost) add(b schedCost) schedCost {
	return schedCost{a.recvd + b.recvd, a.copied + b.copied, a.reduced + b.reduced, a.calls + b.calls,
		max(a.rounds, b.rounds), max(a.busiest, b.recvd+b.copied+b.reduced)}
}

func costOf(s *schedule) schedCost {
	var c schedCost
	if s.own[0] != nil {
		c.copied += min(len(s.own[0]), len(s.own[1]))
	}
	c.rounds = len(s.rounds)
	for _, x := range s.xfers {
		if !x.send {
			c.recvd += len(x.buf)
		}
	}
	for _, st := range s.steps {
		switch st.kind {
		case stepReduce:
			c.reduced += len(st.dst)
			c.calls++
		default:
			c.copied += min(len(st.src), len(st.dst))
		}
	}
	return c
}

// costCase builds rank r's schedule of one collective over size bytes of
// Int64 (Sum), with fresh buffers.
type costCase struct {
	name  string
	build func(c *Comm, s *schedule, size int) error
}

var costCases = []costCase{
	{"Bcast", func(c *Comm, s *schedule, size int) error {
		return c.bcastBuild(s, "Bcast", make([]byte, size), 0)
	}},
	{"Reduce", func(c *Comm, s *schedule, size int) error {
		return c.reduceBuild(s, "Reduce", make([]byte, size), make([]byte, size), Int64, Sum, 0)
	}},
	{"Allreduce", func(c *Comm, s *schedule, size int) error {
		return c.allreduceBuild(s, "Allreduce", make([]byte, size), make([]byte, size), Int64, Sum)
	}},
	{"Scan", func(c *Comm, s *schedule, size int) error {
		return c.scanBuild(s, "Scan", make([]byte, size), make([]byte, size), Int64, Sum, false)
	}},
	{"Exscan", func(c *Comm, s *schedule, size int) error {
		return c.scanBuild(s, "Exscan", make([]byte, size), make([]byte, size), Int64, Sum, true)
	}},
	{"ReduceScatterBlock", func(c *Comm, s *schedule, size int) error {
		return c.reduceScatterBlockBuild(s, "ReduceScatterBlock", make([]byte, size), make([]byte, size/c.size), Int64, Sum)
	}},
	{"Gather", func(c *Comm, s *schedule, size int) error {
		return c.gatherBuild(s, "Gather", make([]byte, size), make([]byte, size*c.size), 0)
	}},
	{"Allgather", func(c *Comm, s *schedule, size int) error {
		return c.allgatherBuild(s, "Allgather", make([]byte, size), make([]byte, size*c.size))
	}},
	{"Alltoall", func(c *Comm, s *schedule, size int) error {
		return c.alltoallBuild(s, "Alltoall", make([]byte, size*c.size), make([]byte, size*c.size))
	}},
}

// costTotals is the sum over ranks of one collective's costs (rounds and
// busiest: the most of any rank).
func costTotals(t testing.TB, cc costCase, n, size int) schedCost {
	var tot schedCost
	for r := range n {
		s := new(schedule)
		s.reset()
		if err := cc.build(modelComm(r, n, n > 2), s, size); err != nil {
			t.Fatalf("%s n=%d rank %d: %v", cc.name, n, r, err)
		}
		tot = tot.add(costOf(s))
	}
	return tot
}

// TestCollCosts pins the large-message schedules to the minimum work of
// their collective (1 MiB each rank, Sum, not in place), in units of the
// message size summed over ranks: Scan moves the prefix down the chain
// once and combines it once per rank after 0, copying only rank 0's own
// result; Exscan combines on the middle ranks only; Reduce combines each
// contribution once and copies nothing (the last child lands in the
// root's receive buffer); Allreduce (two-rank halves, recursive halving)
// receives twice and combines once, copying nothing; Reduce_scatter receives and combines (n-1)/n of
// the input per rank and copies only the own block. Run with -v for the
// table of every collective.
func TestCollCosts(t *testing.T) {
	const size = 1 << 20
	type want struct{ recvd, copied, reduced float64 }
	wants := map[string]func(n float64) want{
		"Scan":               func(n float64) want { return want{n - 1, 1, n - 1} },
		"Exscan":             func(n float64) want { return want{n - 1, n - 2, n - 2} },
		"Reduce":             func(n float64) want { return want{n - 1, 0, n - 1} },
		"Allreduce":          func(n float64) want { return want{2 * (n - 1), 0, n - 1} },
		"ReduceScatterBlock": func(n float64) want { return want{n - 1, 1, n - 1} },
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %3s %8s %8s %8s %6s %6s %8s\n", "collective", "n", "recvd", "copied", "reduced", "calls", "rounds", "busiest")
	for _, n := range []int{2, 4, 8} {
		for _, cc := range costCases {
			c := costTotals(t, cc, n, size)
			u := func(v int) float64 { return float64(v) / size }
			fmt.Fprintf(&b, "%-20s %3d %8.2f %8.2f %8.2f %6d %6d %8.2f\n", cc.name, n, u(c.recvd), u(c.copied), u(c.reduced), c.calls, c.rounds, u(c.busiest))
			if f, ok := wants[cc.name]; ok {
				w := f(float64(n))
				if got := (want{u(c.recvd), u(c.copied), u(c.reduced)}); got != w {
					t.Errorf("%s n=%d: received, copied, reduced %v × the message summed over ranks, want %v", cc.name, n, got, w)
				}
			}
		}
	}
	t.Logf("per collective, summed over ranks, in units of the 1 MiB message:\n%s", b.String())
}
