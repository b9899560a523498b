// Command cg_coll counts the instructions of small collectives, not their
// time: bench/callgrind_coll.sh runs one rank (the measured one) under
// valgrind --tool=callgrind and the others natively. A collective's wait
// polls for peers, and how many empty polls it makes depends on
// scheduling; so before each call the measured rank waits outside hympi,
// in awaitPeers, until every other rank has entered that call (a counter
// per rank in a shared file), then lets them publish their first messages
// (settle), and calls last: the messages it needs are there on its first
// look. Each collective and form is a function of its own (cgBarrier,
// cgIbarrier, ...) whose inclusive instructions the script reads.
//
// Usage:
//
//	hympirun -n N cg_coll -flags FILE -measured R [-i ITERS] [-m SIZE] [-only NAME]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hympi/hympi/bench/internal/sidechan"
	"github.com/hympi/hympi/mpi"
)

// bufs is every collective's arguments, sized once: size bytes per rank
// and block.
type bufs struct {
	c                *mpi.Comm
	send, recv, big  []byte
	bigRecv          []byte
	counts, displs   []int
	rcounts, rdispls []int
	types            []mpi.Datatype
	// The neighbourhood collectives' periodic ring (osu_colls's), with
	// its two blocks' counts and displacements.
	nb               *mpi.Neighbors
	nbSend, nbRecv   []byte
	nbCounts, nbDisp []int
	// A persistent collective's, bound before its loop (bind).
	p *mpi.Persistent
}

// One function per collective and form, kept out of line so that its
// inclusive count is the call's (the script reads main.cg<Name>).

//go:noinline
func cgBarrier(b *bufs) error { return b.c.Barrier() }

//go:noinline
func cgIbarrier(b *bufs) error { return wait(b.c.Ibarrier()) }

//go:noinline
func cgBcast(b *bufs) error { return b.c.Bcast(b.send, 0) }

//go:noinline
func cgIbcast(b *bufs) error { return wait(b.c.Ibcast(b.send, 0)) }

//go:noinline
func cgAllreduce(b *bufs) error { return b.c.Allreduce(b.send, b.recv, mpi.Float32, mpi.Sum) }

//go:noinline
func cgIallreduce(b *bufs) error { return wait(b.c.Iallreduce(b.send, b.recv, mpi.Float32, mpi.Sum)) }

//go:noinline
func cgReduce(b *bufs) error { return b.c.Reduce(b.send, b.recv, mpi.Float32, mpi.Sum, 0) }

//go:noinline
func cgIreduce(b *bufs) error { return wait(b.c.Ireduce(b.send, b.recv, mpi.Float32, mpi.Sum, 0)) }

//go:noinline
func cgScan(b *bufs) error { return b.c.Scan(b.send, b.recv, mpi.Float32, mpi.Sum) }

//go:noinline
func cgIscan(b *bufs) error { return wait(b.c.Iscan(b.send, b.recv, mpi.Float32, mpi.Sum)) }

//go:noinline
func cgReduceScatterBlock(b *bufs) error {
	return b.c.ReduceScatterBlock(b.big, b.recv, mpi.Float32, mpi.Sum)
}

//go:noinline
func cgIreduceScatterBlock(b *bufs) error {
	return wait(b.c.IreduceScatterBlock(b.big, b.recv, mpi.Float32, mpi.Sum))
}

//go:noinline
func cgScatterv(b *bufs) error { return b.c.Scatterv(b.big, b.counts, b.displs, b.recv, 0) }

//go:noinline
func cgIscatterv(b *bufs) error { return wait(b.c.Iscatterv(b.big, b.counts, b.displs, b.recv, 0)) }

//go:noinline
func cgAllgather(b *bufs) error { return b.c.Allgather(b.send, b.bigRecv) }

//go:noinline
func cgIallgather(b *bufs) error { return wait(b.c.Iallgather(b.send, b.bigRecv)) }

//go:noinline
func cgAlltoallv(b *bufs) error {
	return b.c.Alltoallv(b.big, b.counts, b.displs, b.bigRecv, b.rcounts, b.rdispls)
}

//go:noinline
func cgIalltoallv(b *bufs) error {
	return wait(b.c.Ialltoallv(b.big, b.counts, b.displs, b.bigRecv, b.rcounts, b.rdispls))
}

//go:noinline
func cgGather(b *bufs) error { return b.c.Gather(b.send, b.bigRecv, 0) }

//go:noinline
func cgIgather(b *bufs) error { return wait(b.c.Igather(b.send, b.bigRecv, 0)) }

//go:noinline
func cgScatter(b *bufs) error { return b.c.Scatter(b.big, b.recv, 0) }

//go:noinline
func cgIscatter(b *bufs) error { return wait(b.c.Iscatter(b.big, b.recv, 0)) }

//go:noinline
func cgAlltoall(b *bufs) error { return b.c.Alltoall(b.big, b.bigRecv) }

//go:noinline
func cgIalltoall(b *bufs) error { return wait(b.c.Ialltoall(b.big, b.bigRecv)) }

//go:noinline
func cgGatherv(b *bufs) error { return b.c.Gatherv(b.send, b.bigRecv, b.counts, b.displs, 0) }

//go:noinline
func cgIgatherv(b *bufs) error { return wait(b.c.Igatherv(b.send, b.bigRecv, b.counts, b.displs, 0)) }

//go:noinline
func cgAllgatherv(b *bufs) error { return b.c.Allgatherv(b.send, b.bigRecv, b.counts, b.displs) }

//go:noinline
func cgIallgatherv(b *bufs) error {
	return wait(b.c.Iallgatherv(b.send, b.bigRecv, b.counts, b.displs))
}

// The rest are measured only when named (ONLY=... in the script): the C
// program has no twins of them.

//go:noinline
func cgExscan(b *bufs) error { return b.c.Exscan(b.send, b.recv, mpi.Float32, mpi.Sum) }

//go:noinline
func cgIexscan(b *bufs) error { return wait(b.c.Iexscan(b.send, b.recv, mpi.Float32, mpi.Sum)) }

//go:noinline
func cgReduceScatter(b *bufs) error {
	return b.c.ReduceScatter(b.big, b.recv, b.counts, mpi.Byte, mpi.Bor)
}

//go:noinline
func cgIreduceScatter(b *bufs) error {
	return wait(b.c.IreduceScatter(b.big, b.recv, b.counts, mpi.Byte, mpi.Bor))
}

//go:noinline
func cgAlltoallw(b *bufs) error {
	return b.c.Alltoallw(b.big, b.counts, b.displs, b.types, b.bigRecv, b.counts, b.displs, b.types)
}

//go:noinline
func cgIalltoallw(b *bufs) error {
	return wait(b.c.Ialltoallw(b.big, b.counts, b.displs, b.types, b.bigRecv, b.counts, b.displs, b.types))
}

//go:noinline
func cgNeighborAllgather(b *bufs) error { return b.c.NeighborAllgather(b.nb, b.send, b.nbRecv) }

//go:noinline
func cgIneighborAllgather(b *bufs) error {
	return wait(b.c.IneighborAllgather(b.nb, b.send, b.nbRecv))
}

//go:noinline
func cgNeighborAlltoall(b *bufs) error { return b.c.NeighborAlltoall(b.nb, b.nbSend, b.nbRecv) }

//go:noinline
func cgIneighborAlltoall(b *bufs) error {
	return wait(b.c.IneighborAlltoall(b.nb, b.nbSend, b.nbRecv))
}

//go:noinline
func cgNeighborAlltoallv(b *bufs) error {
	return b.c.NeighborAlltoallv(b.nb, b.nbSend, b.nbCounts, b.nbDisp, b.nbRecv, b.nbCounts, b.nbDisp)
}

//go:noinline
func cgIneighborAlltoallv(b *bufs) error {
	return wait(b.c.IneighborAlltoallv(b.nb, b.nbSend, b.nbCounts, b.nbDisp, b.nbRecv, b.nbCounts, b.nbDisp))
}

//go:noinline
func cgPbarrier(b *bufs) error { return startWait(b.p) }

//go:noinline
func cgPbcast(b *bufs) error { return startWait(b.p) }

//go:noinline
func cgPallreduce(b *bufs) error { return startWait(b.p) }

//go:noinline
func cgPgather(b *bufs) error { return startWait(b.p) }

func startWait(p *mpi.Persistent) error {
	if _, err := p.Start(); err != nil {
		return err
	}
	_, err := p.Wait()
	return err
}

func wait(r *mpi.Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

type coll struct {
	name string
	fn   func(*bufs) error
	// bind makes the persistent collective fn starts, outside the count.
	bind func(*bufs) (*mpi.Persistent, error)
}

var colls = []coll{
	{"Barrier", cgBarrier, nil}, {"Ibarrier", cgIbarrier, nil},
	{"Bcast", cgBcast, nil}, {"Ibcast", cgIbcast, nil},
	{"Allreduce", cgAllreduce, nil}, {"Iallreduce", cgIallreduce, nil},
	{"Reduce", cgReduce, nil}, {"Ireduce", cgIreduce, nil},
	{"Scan", cgScan, nil}, {"Iscan", cgIscan, nil},
	{"ReduceScatterBlock", cgReduceScatterBlock, nil}, {"IreduceScatterBlock", cgIreduceScatterBlock, nil},
	{"Scatterv", cgScatterv, nil}, {"Iscatterv", cgIscatterv, nil},
	{"Allgather", cgAllgather, nil}, {"Iallgather", cgIallgather, nil},
	{"Alltoallv", cgAlltoallv, nil}, {"Ialltoallv", cgIalltoallv, nil},
	{"Gather", cgGather, nil}, {"Igather", cgIgather, nil},
	{"Scatter", cgScatter, nil}, {"Iscatter", cgIscatter, nil},
	{"Alltoall", cgAlltoall, nil}, {"Ialltoall", cgIalltoall, nil},
	{"Gatherv", cgGatherv, nil}, {"Igatherv", cgIgatherv, nil},
	{"Allgatherv", cgAllgatherv, nil}, {"Iallgatherv", cgIallgatherv, nil},
}

// extra: run only when named by -only.
var extra = []coll{
	{"Exscan", cgExscan, nil}, {"Iexscan", cgIexscan, nil},
	{"ReduceScatter", cgReduceScatter, nil}, {"IreduceScatter", cgIreduceScatter, nil},
	{"Alltoallw", cgAlltoallw, nil}, {"Ialltoallw", cgIalltoallw, nil},
	{"NeighborAllgather", cgNeighborAllgather, nil}, {"IneighborAllgather", cgIneighborAllgather, nil},
	{"NeighborAlltoall", cgNeighborAlltoall, nil}, {"IneighborAlltoall", cgIneighborAlltoall, nil},
	{"NeighborAlltoallv", cgNeighborAlltoallv, nil}, {"IneighborAlltoallv", cgIneighborAlltoallv, nil},
	// Persistent forms (Start + Wait), each paired with its blocking twin
	// in the script's ONLY (e.g. "Bcast Pbcast").
	{"Pbarrier", cgPbarrier, func(b *bufs) (*mpi.Persistent, error) { return b.c.BarrierInit() }},
	{"Pbcast", cgPbcast, func(b *bufs) (*mpi.Persistent, error) { return b.c.BcastInit(b.send, 0) }},
	{"Pallreduce", cgPallreduce, func(b *bufs) (*mpi.Persistent, error) {
		return b.c.AllreduceInit(b.send, b.recv, mpi.Float32, mpi.Sum)
	}},
	{"Pgather", cgPgather, func(b *bufs) (*mpi.Persistent, error) { return b.c.GatherInit(b.send, b.bigRecv, 0) }},
}

func main() {
	iters := flag.Int("i", 100, "calls of each collective")
	size := flag.Int("m", 8, "bytes per rank and block (a multiple of 4)")
	path := flag.String("flags", "", "file shared by the ranks for the side channel")
	measured := flag.Int("measured", 0, "the rank that calls last (the one under valgrind)")
	only := flag.String("only", "", "comma-separated collectives to run (default all)")
	flag.Parse()
	if err := run(*iters, *size, *path, *measured, *only); err != nil {
		fmt.Fprintln(os.Stderr, "cg_coll:", err)
		os.Exit(1)
	}
}

// awaitPeers spins until every other rank has entered call k, then a
// little longer so that they have published their first messages. It is
// outside every cg function, so none of its instructions is counted.
//
//go:noinline
func awaitPeers(cs []*atomic.Uint64, me int, k uint64) {
	for i, c := range cs {
		for i != me && c.Load() < k {
			spins++
		}
	}
	for t := time.Now(); time.Since(t) < settle; {
		spins++
	}
}

var spins uint64

// settle is the time the others get to publish: natively that takes a
// microsecond or two.
const settle = 100 * time.Microsecond

func run(iters, size int, path string, measured int, only string) error {
	if path == "" {
		return fmt.Errorf("-flags FILE is required")
	}
	if size < 4 || size%4 != 0 {
		return fmt.Errorf("-m takes a positive multiple of 4, got %d", size)
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	c := mpi.World()
	n, me := c.Size(), c.Rank()
	if measured < 0 || measured >= n {
		return fmt.Errorf("-measured %d: no such rank among %d", measured, n)
	}
	cs, err := sidechan.Counters(path, n)
	if err != nil {
		return err
	}
	// Every rank has the file before any counter moves.
	if err := c.Barrier(); err != nil {
		return err
	}
	b := &bufs{c: c, send: make([]byte, size), recv: make([]byte, size),
		big: make([]byte, n*size), bigRecv: make([]byte, n*size)}
	for i := range n {
		b.counts = append(b.counts, size)
		b.displs = append(b.displs, i*size)
	}
	b.rcounts, b.rdispls = b.counts, b.displs
	for range n {
		b.types = append(b.types, mpi.Byte)
	}
	b.nb = mpi.CartNeighbors([]int{n}, []bool{true}, me)
	b.nbSend, b.nbRecv = make([]byte, 2*size), make([]byte, 2*size)
	b.nbCounts, b.nbDisp = []int{size, size}, []int{0, size}
	want := map[string]bool{}
	for _, s := range strings.Split(only, ",") {
		if s != "" {
			want[s] = true
		}
	}
	var k uint64
	const warm = 10
	all := colls
	if len(want) > 0 {
		all = append(all, extra...)
	}
	for _, cl := range all {
		if len(want) > 0 && !want[cl.name] {
			continue
		}
		if cl.bind != nil {
			p, err := cl.bind(b)
			if err != nil {
				return fmt.Errorf("%s: %w", cl.name, err)
			}
			b.p = p
		}
		for range warm + iters {
			k++
			if me == measured {
				awaitPeers(cs, me, k)
			} else {
				cs[me].Store(k)
			}
			if err := cl.fn(b); err != nil {
				return fmt.Errorf("%s: %w", cl.name, err)
			}
		}
	}
	return mpi.Finalize()
}
