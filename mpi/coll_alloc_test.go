//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// allocBufs are one rank's buffers for the allocation test: m bytes per
// block, n blocks.
type allocBufs struct {
	in, out        []byte
	counts, displs []int
	rsCounts       []int // ReduceScatter's: m bytes in all
	m              int
	types          []Datatype // Alltoallw's: a byte type per rank
	wcounts        []int      // Alltoallw's counts, in elements of types
	nb             *Neighbors // a periodic ring, two neighbours each way
	nbCounts       []int      // m bytes per neighbour
	nbDispls       []int
	nbTypes        []Datatype
}

// allocCase is one collective in its three forms. root is the root of a
// rooted collective (others ignore it).
type allocCase struct {
	name  string
	block func(c *Comm, b *allocBufs, root int) error
	start func(c *Comm, b *allocBufs, root int) (*Request, error)
	init  func(c *Comm, b *allocBufs, root int) (*Persistent, error)
}

var allocCases = []allocCase{
	{"Barrier",
		func(c *Comm, _ *allocBufs, _ int) error { return c.Barrier() },
		func(c *Comm, _ *allocBufs, _ int) (*Request, error) { return c.Ibarrier() },
		func(c *Comm, _ *allocBufs, _ int) (*Persistent, error) { return c.BarrierInit() }},
	{"Bcast",
		func(c *Comm, b *allocBufs, root int) error { return c.Bcast(b.in[:b.m], root) },
		func(c *Comm, b *allocBufs, root int) (*Request, error) { return c.Ibcast(b.in[:b.m], root) },
		func(c *Comm, b *allocBufs, root int) (*Persistent, error) { return c.BcastInit(b.in[:b.m], root) }},
	{"Reduce",
		func(c *Comm, b *allocBufs, root int) error { return c.Reduce(b.in[:b.m], b.out, Int64, Sum, root) },
		func(c *Comm, b *allocBufs, root int) (*Request, error) {
			return c.Ireduce(b.in[:b.m], b.out, Int64, Sum, root)
		},
		func(c *Comm, b *allocBufs, root int) (*Persistent, error) {
			return c.ReduceInit(b.in[:b.m], b.out, Int64, Sum, root)
		}},
	{"Allreduce",
		func(c *Comm, b *allocBufs, _ int) error { return c.Allreduce(b.in[:b.m], b.out, Float64, Sum) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.Iallreduce(b.in[:b.m], b.out, Float64, Sum)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.AllreduceInit(b.in[:b.m], b.out, Float64, Sum)
		}},
	{"Allreduce/in-place",
		func(c *Comm, b *allocBufs, _ int) error { return c.Allreduce(b.out[:b.m], b.out, Int32, Max) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.Iallreduce(b.out[:b.m], b.out, Int32, Max)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.AllreduceInit(b.out[:b.m], b.out, Int32, Max)
		}},
	{"Scan",
		func(c *Comm, b *allocBufs, _ int) error { return c.Scan(b.in[:b.m], b.out, Int64, Sum) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) { return c.Iscan(b.in[:b.m], b.out, Int64, Sum) },
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.ScanInit(b.in[:b.m], b.out, Int64, Sum)
		}},
	{"Exscan",
		func(c *Comm, b *allocBufs, _ int) error { return c.Exscan(b.in[:b.m], b.out, Int64, Sum) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) { return c.Iexscan(b.in[:b.m], b.out, Int64, Sum) },
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.ExscanInit(b.in[:b.m], b.out, Int64, Sum)
		}},
	// The reduce-scatters reduce m bytes in all (blocks of m/n), so that
	// no message exceeds m.
	{"ReduceScatterBlock",
		func(c *Comm, b *allocBufs, _ int) error {
			return c.ReduceScatterBlock(b.in[:b.m], b.out[:b.m/c.Size()], Uint8, Sum)
		},
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IreduceScatterBlock(b.in[:b.m], b.out[:b.m/c.Size()], Uint8, Sum)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.ReduceScatterBlockInit(b.in[:b.m], b.out[:b.m/c.Size()], Uint8, Sum)
		}},
	{"ReduceScatter",
		func(c *Comm, b *allocBufs, _ int) error { return c.ReduceScatter(b.in, b.out, b.rsCounts, Uint8, Sum) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IreduceScatter(b.in, b.out, b.rsCounts, Uint8, Sum)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.ReduceScatterInit(b.in, b.out, b.rsCounts, Uint8, Sum)
		}},
	{"Gather",
		func(c *Comm, b *allocBufs, root int) error { return c.Gather(b.in[:b.m], b.out, root) },
		func(c *Comm, b *allocBufs, root int) (*Request, error) { return c.Igather(b.in[:b.m], b.out, root) },
		func(c *Comm, b *allocBufs, root int) (*Persistent, error) {
			return c.GatherInit(b.in[:b.m], b.out, root)
		}},
	{"Gatherv",
		func(c *Comm, b *allocBufs, root int) error {
			return c.Gatherv(b.in[:b.m], b.out, b.counts, b.displs, root)
		},
		func(c *Comm, b *allocBufs, root int) (*Request, error) {
			return c.Igatherv(b.in[:b.m], b.out, b.counts, b.displs, root)
		},
		func(c *Comm, b *allocBufs, root int) (*Persistent, error) {
			return c.GathervInit(b.in[:b.m], b.out, b.counts, b.displs, root)
		}},
	{"Scatter",
		func(c *Comm, b *allocBufs, root int) error { return c.Scatter(b.in, b.out[:b.m], root) },
		func(c *Comm, b *allocBufs, root int) (*Request, error) { return c.Iscatter(b.in, b.out[:b.m], root) },
		func(c *Comm, b *allocBufs, root int) (*Persistent, error) {
			return c.ScatterInit(b.in, b.out[:b.m], root)
		}},
	{"Scatterv",
		func(c *Comm, b *allocBufs, root int) error {
			return c.Scatterv(b.in, b.counts, b.displs, b.out[:b.m], root)
		},
		func(c *Comm, b *allocBufs, root int) (*Request, error) {
			return c.Iscatterv(b.in, b.counts, b.displs, b.out[:b.m], root)
		},
		func(c *Comm, b *allocBufs, root int) (*Persistent, error) {
			return c.ScattervInit(b.in, b.counts, b.displs, b.out[:b.m], root)
		}},
	{"Allgather",
		func(c *Comm, b *allocBufs, _ int) error { return c.Allgather(b.in[:b.m], b.out) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) { return c.Iallgather(b.in[:b.m], b.out) },
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) { return c.AllgatherInit(b.in[:b.m], b.out) }},
	{"Allgatherv",
		func(c *Comm, b *allocBufs, _ int) error { return c.Allgatherv(b.in[:b.m], b.out, b.counts, b.displs) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.Iallgatherv(b.in[:b.m], b.out, b.counts, b.displs)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.AllgathervInit(b.in[:b.m], b.out, b.counts, b.displs)
		}},
	{"Alltoall",
		func(c *Comm, b *allocBufs, _ int) error { return c.Alltoall(b.in, b.out) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) { return c.Ialltoall(b.in, b.out) },
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) { return c.AlltoallInit(b.in, b.out) }},
	{"Alltoall/in-place",
		func(c *Comm, b *allocBufs, _ int) error { return c.Alltoall(b.out, b.out) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) { return c.Ialltoall(b.out, b.out) },
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) { return c.AlltoallInit(b.out, b.out) }},
	{"Alltoallv",
		func(c *Comm, b *allocBufs, _ int) error {
			return c.Alltoallv(b.in, b.counts, b.displs, b.out, b.counts, b.displs)
		},
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.Ialltoallv(b.in, b.counts, b.displs, b.out, b.counts, b.displs)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.AlltoallvInit(b.in, b.counts, b.displs, b.out, b.counts, b.displs)
		}},
	{"Alltoallw",
		func(c *Comm, b *allocBufs, _ int) error {
			return c.Alltoallw(b.in, b.wcounts, b.displs, b.types, b.out, b.wcounts, b.displs, b.types)
		},
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.Ialltoallw(b.in, b.wcounts, b.displs, b.types, b.out, b.wcounts, b.displs, b.types)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.AlltoallwInit(b.in, b.wcounts, b.displs, b.types, b.out, b.wcounts, b.displs, b.types)
		}},
	{"ReduceLocal",
		func(_ *Comm, b *allocBufs, _ int) error { return ReduceLocal(b.in[:b.m], b.out[:b.m], Int64, Sum) },
		nil, nil},
	{"NeighborAllgather",
		func(c *Comm, b *allocBufs, _ int) error { return c.NeighborAllgather(b.nb, b.in[:b.m], b.out[:2*b.m]) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IneighborAllgather(b.nb, b.in[:b.m], b.out[:2*b.m])
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.NeighborAllgatherInit(b.nb, b.in[:b.m], b.out[:2*b.m])
		}},
	{"NeighborAllgatherv",
		func(c *Comm, b *allocBufs, _ int) error {
			return c.NeighborAllgatherv(b.nb, b.in[:b.m], b.out, b.nbCounts, b.nbDispls)
		},
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IneighborAllgatherv(b.nb, b.in[:b.m], b.out, b.nbCounts, b.nbDispls)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.NeighborAllgathervInit(b.nb, b.in[:b.m], b.out, b.nbCounts, b.nbDispls)
		}},
	{"NeighborAlltoall",
		func(c *Comm, b *allocBufs, _ int) error { return c.NeighborAlltoall(b.nb, b.in[:2*b.m], b.out[:2*b.m]) },
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IneighborAlltoall(b.nb, b.in[:2*b.m], b.out[:2*b.m])
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.NeighborAlltoallInit(b.nb, b.in[:2*b.m], b.out[:2*b.m])
		}},
	{"NeighborAlltoallv",
		func(c *Comm, b *allocBufs, _ int) error {
			return c.NeighborAlltoallv(b.nb, b.in, b.nbCounts, b.nbDispls, b.out, b.nbCounts, b.nbDispls)
		},
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IneighborAlltoallv(b.nb, b.in, b.nbCounts, b.nbDispls, b.out, b.nbCounts, b.nbDispls)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.NeighborAlltoallvInit(b.nb, b.in, b.nbCounts, b.nbDispls, b.out, b.nbCounts, b.nbDispls)
		}},
	{"NeighborAlltoallw",
		func(c *Comm, b *allocBufs, _ int) error {
			return c.NeighborAlltoallw(b.nb, b.in, b.nbCounts, b.nbDispls, b.nbTypes, b.out, b.nbCounts, b.nbDispls, b.nbTypes)
		},
		func(c *Comm, b *allocBufs, _ int) (*Request, error) {
			return c.IneighborAlltoallw(b.nb, b.in, b.nbCounts, b.nbDispls, b.nbTypes, b.out, b.nbCounts, b.nbDispls, b.nbTypes)
		},
		func(c *Comm, b *allocBufs, _ int) (*Persistent, error) {
			return c.NeighborAlltoallwInit(b.nb, b.in, b.nbCounts, b.nbDispls, b.nbTypes, b.out, b.nbCounts, b.nbDispls, b.nbTypes)
		}},
}

// TestCollAllocs fails when a steady-state collective allocates, in any of
// its forms: blocking, nonblocking (start and Wait) and persistent (Start
// and Wait of a collective bound once). Rank 0 measures with
// testing.AllocsPerRun while the other ranks make the same calls; the count
// is process-wide, so an allocation on any rank shows. Rooted collectives
// rotate the root (a persistent one rotates among one bound per root): a
// fixed root that only sends runs ahead of the others without bound, and
// their growing backlog of early messages outgrows the engine's buffer
// pools, which is a backlog's cost, not a call's.
func TestCollAllocs(t *testing.T) {
	const runs = 20
	forms := []string{"blocking", "nonblocking", "persistent"}
	figures := map[string]float64{}
	defer func() { logAllocTable(t, figures, forms) }()
	for _, n := range []int{2, 4} {
		comms := inProcessJob(t, n)
		for _, m := range allocSizes {
			if n > 2 && m > allocSizes[0] {
				continue // the larger size at 2 ranks only: time
			}
			for _, tc := range allocCases {
				for _, form := range forms {
					if (form == "nonblocking" && tc.start == nil) || (form == "persistent" && tc.init == nil) {
						continue // ReduceLocal: blocking only
					}
					t.Run(fmt.Sprintf("n=%d/m=%d/%s/%s", n, m, tc.name, form), func(t *testing.T) {
						allocs := measureAllocs(t, comms, m, runs, tc, form)
						figures[fmt.Sprintf("%d/%d/%s/%s", n, m, tc.name, form)] = allocs
						if allocs != 0 {
							t.Errorf("%v allocations per call, want 0", allocs)
						}
					})
				}
			}
		}
	}
}

// measureAllocs runs tc in the given form on every rank and returns rank
// 0's AllocsPerRun figure.
func measureAllocs(t *testing.T, comms []*Comm, m, runs int, tc allocCase, form string) float64 {
	var allocs float64
	runRanks(t, comms, func(c *Comm) error {
		n := c.Size()
		b := &allocBufs{in: make([]byte, n*m), out: make([]byte, n*m), m: m,
			counts: make([]int, n), displs: make([]int, n), rsCounts: make([]int, n)}
		b.types, b.wcounts = make([]Datatype, n), make([]int, n)
		for i := range n {
			b.counts[i], b.displs[i], b.rsCounts[i] = m, i*m, m/n
			b.types[i], b.wcounts[i] = Uint8, m
		}
		b.nb = CartNeighbors([]int{n}, []bool{true}, c.Rank())
		b.nbCounts, b.nbDispls, b.nbTypes = []int{m, m}, []int{0, m}, []Datatype{Uint8, Uint8}
		var ps []*Persistent
		if form == "persistent" {
			for root := range n {
				p, err := tc.init(c, b, root)
				if err != nil {
					return err
				}
				ps = append(ps, p)
			}
		}
		call := func(i int) error {
			root := i % n
			switch form {
			case "blocking":
				return tc.block(c, b, root)
			case "nonblocking":
				r, err := tc.start(c, b, root)
				if err != nil {
					return err
				}
				_, err = r.Wait()
				return err
			default:
				if _, err := ps[root].Start(); err != nil {
					return err
				}
				_, err := ps[root].Wait()
				return err
			}
		}
		// Warm up: schedules, request pools and unexpected-message
		// buffers reach their size.
		i := 0
		for ; i < 20; i++ {
			if err := call(i); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			var err error
			allocs = testing.AllocsPerRun(runs, func() {
				if e := call(i); e != nil && err == nil {
					err = e
				}
				i++
			})
			if err != nil {
				return err
			}
		} else {
			// AllocsPerRun calls f once more than runs.
			for range runs + 1 {
				if err := call(i); err != nil {
					return err
				}
				i++
			}
		}
		// The next case must not start while a rank still runs this
		// one's last collective: the counts are process-wide.
		if err := c.Barrier(); err != nil {
			return err
		}
		for _, p := range ps {
			if err := p.Free(); err != nil {
				return err
			}
		}
		return nil
	})
	return allocs
}

// allocSizes are the block sizes TestCollAllocs runs: a collective-slot
// message and a descriptor-ring one. (A message of more than one cell,
// 2 KiB, costs the receiving engine an inflight record per message:
// point-to-point's cost, not the collectives'.)
var allocSizes = []int{8, 1 << 10}

// logAllocTable prints (with -v) TestCollAllocs' figures as a table: one
// row per rank count, block size and collective, a column per form.
func logAllocTable(t *testing.T, figures map[string]float64, forms []string) {
	if len(figures) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "allocations per call in steady state:\n%-34s", "ranks/bytes/collective")
	for _, f := range forms {
		fmt.Fprintf(&b, " %12s", f)
	}
	b.WriteByte('\n')
	var rows []string
	seen := map[string]bool{}
	for k := range figures {
		row := k[:strings.LastIndexByte(k, '/')]
		if !seen[row] {
			seen[row] = true
			rows = append(rows, row)
		}
	}
	slices.Sort(rows)
	for _, row := range rows {
		fmt.Fprintf(&b, "%-34s", row)
		for _, f := range forms {
			if v, ok := figures[row+"/"+f]; ok {
				fmt.Fprintf(&b, " %12g", v)
			} else {
				fmt.Fprintf(&b, " %12s", "-")
			}
		}
		b.WriteByte('\n')
	}
	t.Log(b.String())
}
