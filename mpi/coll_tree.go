//go:build !ompi && !mpich

package mpi

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
// caller that keeps kids (coll_fast.go) builds trees without allocating.
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
// too). Barriers are dissemination (barrierSchedule): one round per bit of
// n with every rank busy, where a tree's gather-then-release needs twice
// the depth.
const bcastTree = binaryTree

// bcastSchedule: receive the whole message from the parent, then send it
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
// serving every reader at once. Measured again with the allocation-free
// blocking path (coll_fast.go) it won at 4 ranks from 64 KiB, so blocking
// broadcasts of up to 4 ranks use it there; this schedule (Ibcast) keeps
// the tree.
func bcastSchedule(s *schedule, shape treeShape, rank, root, n int, buf []byte) {
	if n == 1 {
		return
	}
	t := makeTree(shape, rank, root, n)
	if t.parent >= 0 {
		s.round(collRound{recvs: []collXfer{{peer: t.parent, buf: buf}}})
	}
	if len(t.children) > 0 {
		sends := make([]collXfer, len(t.children))
		for i, ch := range t.children {
			sends[i] = collXfer{peer: ch, buf: buf}
		}
		s.round(collRound{sends: sends})
	}
}

// reduceSchedule combines every rank's in into out at root, over a binomial
// tree. A non-commutative operator needs rank order, which the binomial
// tree gives only when relative and real ranks agree: then the tree is
// rooted at 0 and the result forwarded to root. in is this rank's
// contribution (left unchanged); out matters at root only (nil elsewhere).
//
// A ring reduce-scatter followed by a gather to root (Rabenseifner) was
// measured for large commutative reductions and not kept: at 2 ranks it
// tied with the tree (1 MiB: 0.79-0.83 ms against 0.62-0.90 ms), at 4 ranks
// on 2 cores it lost by 2× (1 MiB: 2.3-2.8 ms against 1.2-1.3 ms), its
// 2(n-1) synchronised steps costing a context switch each.
func reduceSchedule(s *schedule, rank, root, n int, in, out []byte, red reducer) {
	treeRoot := root
	if !red.commutative {
		treeRoot = 0
	}
	t := makeTree(binomialTree, rank, treeRoot, n)
	acc := make([]byte, len(in))
	copy(acc, in)
	if len(t.children) > 0 {
		tmps := make([][]byte, len(t.children))
		var recvs []collXfer
		for i, ch := range t.children {
			tmps[i] = make([]byte, len(in))
			recvs = append(recvs, collXfer{peer: ch, buf: tmps[i]})
		}
		s.round(collRound{recvs: recvs, after: func() {
			// Children in increasing relative rank: acc covers the
			// ranks just below each child's subtree, so it is the
			// lower operand.
			for _, tmp := range tmps {
				red.apply(acc, tmp)
				copy(acc, tmp)
			}
		}})
	}
	switch {
	case t.parent >= 0:
		s.round(collRound{sends: []collXfer{{peer: t.parent, buf: acc}}})
	case rank == root:
		s.local(func() { copy(out, acc) })
	default: // the tree's root, forwarding to the real one
		s.round(collRound{sends: []collXfer{{peer: root, buf: acc}}})
	}
	if rank == root && treeRoot != root {
		s.round(collRound{recvs: []collXfer{{peer: treeRoot, buf: out}}})
	}
}

// barrierSchedule is a dissemination barrier on the collective context: in
// round k every rank signals rank+2^k and hears from rank-2^k, so after
// ⌈log2 n⌉ rounds each has heard, transitively, from all.
func barrierSchedule(s *schedule, rank, n int) {
	for k := 1; k < n; k <<= 1 {
		s.round(collRound{
			sends: []collXfer{{peer: (rank + k) % n}},
			recvs: []collXfer{{peer: (rank - k + n) % n}},
		})
	}
}
