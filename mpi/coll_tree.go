//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

// Tree shapes for rooted collectives. Ranks are relative to the root
// (vr = (rank - root) mod n), so every root gets the same shape.

type treeShape int

const (
	// binomialTree: vr's parent is vr with its lowest set bit cleared;
	// its children are vr+1, vr+2, vr+4, ... below its lowest set bit.
	// Each child's subtree is a contiguous block of relative ranks just
	// above the ones before it, which is what lets Reduce apply a
	// non-commutative operator in rank order.
	binomialTree treeShape = iota
	// binaryTree: the thesis's default: vr's children are 2vr+1 and
	// 2vr+2, its parent (vr-1)/2.
	binaryTree
)

// tree is one rank's place in a collective's tree, in ranks of the
// communicator.
type tree struct {
	parent   int   // -1 at the root
	children []int // binomial: in increasing relative rank
}

func makeTree(shape treeShape, rank, root, n int) tree {
	return makeTreeInto(shape, rank, root, n, nil)
}

// makeTreeInto is makeTree with the children appended to kids[:0], so a
// schedule builds trees in its own scratch without allocating.
func makeTreeInto(shape treeShape, rank, root, n int, kids []int) tree {
	vr := (rank - root + n) % n
	abs := func(v int) int { return (v + root) % n }
	t := tree{parent: -1, children: kids[:0]}
	switch shape {
	case binaryTree:
		if vr > 0 {
			t.parent = abs((vr - 1) / 2)
		}
		for ch := 2*vr + 1; ch <= 2*vr+2 && ch < n; ch++ {
			t.children = append(t.children, abs(ch))
		}
	default:
		if vr > 0 {
			t.parent = abs(vr & (vr - 1))
		}
		for mask := 1; mask < n; mask <<= 1 {
			if vr&mask != 0 {
				break
			}
			if vr|mask < n {
				t.children = append(t.children, abs(vr|mask))
			}
		}
	}
	return t
}

// bcastTree is the shape broadcasts use (Allreduce's small-message tail
// too). Barriers are dissemination (barrierSched): one round per bit of
// n with every rank busy, where a tree's gather-then-release needs twice
// the depth.
const bcastTree = binaryTree

// barrierSched is a dissemination barrier (in round k every rank
// signals rank+2^k and hears from rank-2^k, so after ⌈log2 n⌉ rounds each
// has heard, transitively, from all), or when the job is oversubscribed
// (flat) and has more than 2 ranks, a gather and release through rank 0:
// every rank signals 0, and 0, once it has heard from all, signals every
// rank. (On 2 ranks that would be two hops in turn where dissemination is
// one exchange.)
//
// Oversubscribed, who leaves the barrier first decides what the next
// collective costs. The dissemination barrier lets every rank go in its
// last round, in whatever order the scheduler runs them; the flat one lets
// rank 0 go first, while the others still wait for its release, so a
// following broadcast from 0 is already in their channels when they reach
// it. At 4 ranks on 2 cores (osu_bcast, compare-coll) that took Bcast of
// 8 B from 2.0 to 0.5 µs and of 1 KiB from 2.4 to 1.1 µs; with 3000 warm-up
// iterations 8 B went from 1.0 to 0.37 µs and Bcast plus the barrier after
// it from 3.65 to 3.4 µs. The barrier alone (osu_barrier) tied at 4 ranks
// in compare-coll's 100 iterations (5.7 against 5.6 µs) and lost with 3000
// warm-ups (3.0 against 2.65 µs); at 8 ranks it won both ways (7.3
// against 10.9 µs warmed up, 14 against 18 in 100 iterations). An earlier
// measurement (flat 10-12 µs against 7-10) ran while Go's sysmon was still
// waking every ~95 µs after start (see oversubTimerSlack in hympirun). With
// a CPU per rank the dissemination barrier stays: every rank spins, and
// its log2 n rounds beat 0's n-1 receives and sends.
func barrierSched(s *schedule, rank, n int, flat bool) {
	s.fitsSlot(0)
	if flat && n > 2 {
		// Rank 0 hears from every other rank, then releases each: the
		// small Allreduce's gather and release, of nothing.
		flatAllreduce(s, rank, n, nil, nil)
		return
	}
	for k := 1; k < n; k <<= 1 {
		s.exchange((rank+k)%n, nil, (rank-k+n)%n, nil)
	}
}

// bcastSched: receive the whole message from the parent, then send it
// to the children. A message above the direct-copy threshold reaches each
// child as one single-copy read of its parent's buffer. Pipelining the
// message down the tree in segments was measured and lost at every size (at
// 1 MiB, 2 ranks: 147 µs pipelined in 64 KiB pieces against 85 µs whole; 4
// ranks: 304 µs against 208 µs): the pieces fall below the direct-copy
// threshold and pay two copies each, which costs more than the depth the
// pipeline saves on a tree this shallow. So it is not kept. Nor is the
// flat "every rank reads the root's buffer directly" (point-to-point from
// the root, each large message a direct-copy read of the root's memory):
// at 2 ranks it is the same transfer, at 4 ranks on 2 cores it lost to the
// tree (1 MiB: 374 µs against 208 µs), the root's memory bus and CPU
// serving every reader at once. Measured again once schedules stopped
// allocating, it won at 4 ranks from 64 KiB (bcastFlatMin).
//
// flat (more ranks than CPUs), a message that fits a collective slot goes
// from the root to every rank at once as well, on up to bcastFlatSmallRanks
// ranks: the root writes one slot per rank, where the tree needs each inner
// rank scheduled in turn to forward it — and, for Ibcast, to call into MPI
// (a Test) between the root's start and the leaves' receipt. Scatter, flat
// already, took 0.3× Open MPI's time at 4 ranks and 0.03× at 8 where the
// tree's Bcast took 1.1× and 0.33× (compare-coll, 8 B).
func bcastSched(s *schedule, rank, root, n int, buf []byte, flat bool) {
	s.fitsSlot(len(buf))
	if n == 1 {
		return
	}
	large := len(buf) >= bcastFlatMin
	if large && (n <= bcastFlatRanks || flat && n <= bcastFlatOversubRanks) || flat && len(buf) <= shm.CollInlineMax && n <= bcastFlatSmallRanks {
		s.next()
		if rank != root {
			s.recv(root, buf)
			return
		}
		for p := range n {
			if p != root {
				s.send(p, buf)
			}
		}
		s.markReads(flat, rootReadMin)
		return
	}
	t := makeTreeInto(bcastTree, rank, root, n, s.ints(2))
	if t.parent >= 0 {
		s.next()
		s.recv(t.parent, buf)
	}
	if len(t.children) > 0 {
		s.next()
		for _, ch := range t.children {
			s.send(ch, buf)
		}
	}
}

// A blocking broadcast of at least bcastFlatMin bytes on at most
// bcastFlatRanks ranks is flat: the root sends to every rank, each large
// message a single-copy read of the root's buffer, instead of the binary
// tree's two hops. At 4 ranks on 2 cores (osu_bcast, this fast path) flat
// took 9 µs against the tree's 16-17 µs at 64 KiB and 117-210 µs against
// 220-270 µs at 1 MiB; from 2 to 32 KiB the two were within noise, and
// below that the tree's smaller fan-out at the root was no worse. Larger
// jobs keep the tree, where the root's memory would serve every reader at
// once (the loss coll_tree.go records); they were not measured here.
// Variables so benchmarks can move them.
var (
	bcastFlatMin   = 64 << 10
	bcastFlatRanks = 4
	// bcastFlatSmallRanks bounds the flat small broadcast of an
	// oversubscribed job (bcastSched): measured at 4 and 8 ranks only,
	// and beyond a few tens of ranks the root's one write per rank
	// would outlast the tree's few hops.
	bcastFlatSmallRanks = 16
	// bcastFlatOversubRanks: an oversubscribed job's large broadcast is
	// flat up to this many ranks as well. With more ranks than CPUs the
	// tree's inner ranks forward one after the other, each waiting to be
	// scheduled, while the root's readers keep both CPUs busy: at 8 ranks
	// on 2 cores (osu_colls from Go, alternating runs on a loaded
	// machine) 4 MiB took 1.2-1.4 ms flat against 3.3-3.9 ms down the
	// tree, and 1 MiB 150-170 µs (read: markReads) against 250.
	bcastFlatOversubRanks = 8
)

// reduceSched combines every rank's in into out at root, over a binomial
// tree. A non-commutative operator needs rank order, which the binomial
// tree gives only when relative and real ranks agree: then the tree is
// rooted at 0 and the result forwarded to root. in is this rank's
// contribution (left unchanged); out matters at root only (nil elsewhere).
//
// A ring reduce-scatter followed by a gather to root (Rabenseifner) was
// measured for large commutative reductions and not kept: at 2 ranks it
// tied with the tree (1 MiB: 0.79-0.83 ms against 0.62-0.90 ms), at 4 ranks
// on 2 cores it lost by 2× (1 MiB: 2.3-2.8 ms against 1.2-1.3 ms), its
// 2(n-1) synchronised steps costing a context switch each. Nor was the
// two-rank form of it (each rank combines one half, the root then receives
// the other's finished half: 1.5 passes over the data on the root against
// the tree's 2): at 2 ranks (osu_colls from Go, the fastest of 4
// alternating runs on a loaded machine) the tree took 10 µs against 48 at
// 64 KiB and 140 against 359 at 1 MiB; the extra round's synchronisation
// costs more than the half pass it saves.
//
// flat (more ranks than CPUs) with more than 2 ranks and a message that
// fits a collective slot, it is flatReduce instead.
func reduceSched(s *schedule, rank, root, n int, in, out []byte, red reducer, flat bool) {
	s.red = red
	if flat && n > 2 && len(in) <= shm.CollInlineMax {
		flatReduce(s, rank, root, n, in, out)
		return
	}
	if n == 1 {
		if !sameBuf(in, out) {
			s.nextLocal()
			s.copyStep(out, in)
		}
		return
	}
	treeRoot := root
	if !red.commutative {
		treeRoot = 0
	}
	t := makeTreeInto(binomialTree, rank, treeRoot, n, s.ints(bitsOf(n)))
	acc := in
	if k := len(t.children); k > 0 {
		// Each child's contribution is combined into the buffer it
		// arrived in (acc op tmp into tmp), which then holds the
		// accumulator: no copies between children. At the root the last
		// child arrives straight in out, so the result lands in place.
		// Children in increasing relative rank: acc covers the ranks just
		// below each child's subtree, so it is the lower operand.
		toOut := rank == root && treeRoot == root && !sameBuf(in, out)
		intoOut := rank == root && sameBuf(in, out) && red.commutative
		nt := k
		if toOut {
			nt--
		}
		tmps := s.scratch(len(in) * nt)
		s.next()
		for i, ch := range t.children {
			buf := out
			if i < nt {
				buf = tmps[i*len(in) : (i+1)*len(in)]
			}
			s.recv(ch, buf)
			if intoOut {
				// In place, any order: accumulate in out itself.
				s.reduce(buf, out)
				acc = out
				continue
			}
			s.reduce(acc, buf)
			acc = buf
		}
	}
	switch {
	case t.parent >= 0:
		s.next()
		s.send(t.parent, acc)
	case rank == root:
		if !sameBuf(acc, out) {
			s.nextLocal()
			s.copyStep(out, acc)
		}
	default: // the tree's root, forwarding to the real one
		s.next()
		s.send(root, acc)
	}
	if rank == root && treeRoot != root {
		s.next()
		s.recv(treeRoot, out)
	}
}

// flatReduce is a small reduction of an oversubscribed job: every rank
// sends its input straight to root, which combines them all in rank order.
// Each rank other than root runs once and leaves, and root waits for one
// round, where the binomial tree needs log2 n rounds in turn, each waiting
// for the scheduler to run the rank that sends it (with more ranks than
// CPUs a rank's turn is a context switch away). Root folds from the
// highest rank down (out = c_p op out), so a non-commutative operator sees
// rank order; its own contribution is read in place, or kept aside first
// when out is in (in place) and the first step would overwrite it.
func flatReduce(s *schedule, rank, root, n int, in, out []byte) {
	s.next()
	if rank != root {
		s.send(root, in)
		return
	}
	m := len(in)
	tmps := s.scratch(m * (n - 1))
	own := in
	from := func(p int) []byte {
		switch {
		case p == root:
			return own
		case p > root:
			p--
		}
		return tmps[p*m : (p+1)*m]
	}
	for k := 1; k < n; k++ {
		p := (root + k) % n
		s.recv(p, from(p))
	}
	if m == 0 {
		return // a barrier's gather (flatAllreduce): nothing to combine
	}
	inPlace := sameBuf(in, out)
	if inPlace && root != n-1 {
		keep := s.scratch(m)
		s.copyStep(keep, in)
		own = keep
	}
	if !inPlace || root != n-1 {
		s.copyStep(out, from(n-1))
	}
	for p := n - 2; p >= 0; p-- {
		s.reduce(from(p), out)
	}
}

// bitsOf is the number of bits of n-1: the rounds of a dissemination or a
// binomial tree of n ranks.
func bitsOf(n int) int {
	b := 0
	for k := 1; k < n; k <<= 1 {
		b++
	}
	return b
}
