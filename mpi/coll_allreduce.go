//go:build !ompi && !mpich

package mpi

// Allreduce, prefix reductions and reduce-scatter.

// Above allreduceRingMin bytes (and for a commutative operator) Allreduce
// is a ring reduce-scatter followed by a ring allgather: every rank sends
// and receives 2(n-1)/n of the data instead of log n times all of it. Below
// it, reduce to rank 0 and broadcast: fewer, smaller steps. Either way each
// element is combined once, on one rank, and copied to the others, so every
// rank ends with bit-identical results even for floats.
//
// A variable so the benchmarks can compare both algorithms at every size.
var allreduceRingMin = 64 << 10

func allreduceSchedule(s *schedule, rank, n int, in, out []byte, red reducer) {
	if n == 1 {
		s.local(func() { copy(out, in) })
		return
	}
	if red.commutative && len(in) >= allreduceRingMin && len(in)/red.elem >= n {
		ringAllreduce(s, rank, n, in, out, red)
		return
	}
	if n&(n-1) == 0 && !noRecursiveDoubling {
		doublingAllreduce(s, rank, n, in, out, red)
		return
	}
	var rootOut []byte
	if rank == 0 {
		rootOut = out
	}
	reduceSchedule(s, rank, 0, n, in, rootOut, red)
	bcastSchedule(s, bcastTree, rank, 0, n, out)
}

// noRecursiveDoubling lets the benchmarks compare doubling with the tree.
var noRecursiveDoubling = false

// doublingAllreduce is recursive doubling for a power-of-two n: in step k
// partners rank and rank^k exchange their partial results and both compute
// lower op higher, the same expression on the same operands, so they stay
// bit-identical (and a non-commutative operator keeps rank order: each
// partial covers a contiguous block of ranks). log2 n steps instead of the
// tree's 2 log2 n.
func doublingAllreduce(s *schedule, rank, n int, in, out []byte, red reducer) {
	if !sameBuf(in, out) {
		copy(out, in)
	}
	tmp := make([]byte, len(out))
	for mask := 1; mask < n; mask <<= 1 {
		partner := rank ^ mask
		s.round(collRound{
			sends: []collXfer{{peer: partner, buf: out}},
			recvs: []collXfer{{peer: partner, buf: tmp}},
			after: func() {
				if partner < rank {
					red.apply(tmp, out)
					return
				}
				red.apply(out, tmp)
				copy(out, tmp)
			},
		})
	}
}

// ringBlocks cuts len bytes of elem-byte elements into n blocks of whole
// elements, as even as possible.
func ringBlocks(length, elem, n int) []int {
	m := length / elem
	bounds := make([]int, n+1)
	for j := 0; j <= n; j++ {
		bounds[j] = elem * (j * m / n)
	}
	return bounds
}

func ringAllreduce(s *schedule, rank, n int, in, out []byte, red reducer) {
	b := ringBlocks(len(in), red.elem, n)
	blk := func(j int) []byte { j = ((j % n) + n) % n; return out[b[j]:b[j+1]] }
	right, left := (rank+1)%n, (rank-1+n)%n
	if !sameBuf(in, out) {
		copy(out, in)
	}
	// Block rank+1 ends complete here.
	ringReduceScatter(s, rank, n, out, b, 1, red)
	// Allgather the complete blocks around the ring.
	for step := 0; step < n-1; step++ {
		s.round(collRound{
			sends: []collXfer{{peer: right, buf: blk(rank + 1 - step)}},
			recvs: []collXfer{{peer: left, buf: blk(rank - step)}},
		})
	}
}

// ringReduceScatter reduces work (this rank's contribution, overwritten)
// block by block around the ring; block j is work[b[j]:b[j+1]]. In step s
// each rank sends block rank-s+shift-1 to the right and adds the block
// rank-s+shift-2 arriving from the left into its own, so after n-1 steps
// block rank+shift holds the reduction of every rank's contribution. Each
// block is combined on one rank at a time and in the same order whatever
// rank ends with it, which keeps float results deterministic. Commutative
// operators only: the ring does not combine in rank order.
func ringReduceScatter(s *schedule, rank, n int, work []byte, b []int, shift int, red reducer) {
	blk := func(j int) []byte { j = ((j % n) + n) % n; return work[b[j]:b[j+1]] }
	right, left := (rank+1)%n, (rank-1+n)%n
	largest := 0
	for j := 0; j < n; j++ {
		largest = max(largest, b[j+1]-b[j])
	}
	tmp := make([]byte, largest)
	for step := 0; step < n-1; step++ {
		dst := blk(rank - step + shift - 2)
		t := tmp[:len(dst)]
		s.round(collRound{
			sends: []collXfer{{peer: right, buf: blk(rank - step + shift - 1)}},
			recvs: []collXfer{{peer: left, buf: t}},
			after: func() { red.apply(t, dst) },
		})
	}
}

// scanSchedule is a recursive-doubling prefix reduction. partial covers the
// window of ranks ending at this one; in round k it goes to rank+k and the
// window of rank-k (just below ours) comes in and is combined as the lower
// operand. incl gets the inclusive result (Scan), excl the exclusive one
// (Exscan; untouched on rank 0).
func scanSchedule(s *schedule, rank, n int, in, incl, excl []byte, red reducer) {
	partial := make([]byte, len(in))
	copy(partial, in)
	var ex []byte // reduction of the ranks below, once anything came in
	if excl != nil {
		ex = make([]byte, len(in))
	}
	haveEx := false
	for k := 1; k < n; k <<= 1 {
		var rd collRound
		if rank+k < n {
			rd.sends = []collXfer{{peer: rank + k, buf: partial}}
		}
		if rank-k >= 0 {
			tmp := make([]byte, len(in))
			rd.recvs = []collXfer{{peer: rank - k, buf: tmp}}
			rd.after = func() {
				if ex != nil {
					if haveEx {
						red.apply(tmp, ex)
					} else {
						copy(ex, tmp)
						haveEx = true
					}
				}
				red.apply(tmp, partial)
			}
		}
		s.round(rd)
	}
	s.local(func() {
		if incl != nil {
			copy(incl, partial)
		}
		if excl != nil && haveEx {
			copy(excl, ex)
		}
	})
}

// reduceScatterSchedule leaves on each rank its block (counts, in bytes,
// in rank order) of the reduction. Large inputs with a commutative operator
// go round the ring (each rank sends and receives (n-1)/n of the data);
// otherwise the whole input is reduced to rank 0 (in rank order) and the
// blocks scattered.
func reduceScatterSchedule(s *schedule, rank, n int, in, out []byte, counts []int, red reducer) {
	if n > 1 && red.commutative && len(in) >= allreduceRingMin {
		b := make([]int, n+1)
		for j, k := range counts {
			b[j+1] = b[j] + k
		}
		work := make([]byte, len(in))
		copy(work, in)
		ringReduceScatter(s, rank, n, work, b, 0, red)
		s.local(func() { copy(out, work[b[rank]:b[rank+1]]) })
		return
	}
	var full []byte
	if rank == 0 {
		full = make([]byte, len(in))
	}
	reduceSchedule(s, rank, 0, n, in, full, red)
	displs := make([]int, n)
	for i := 1; i < n; i++ {
		displs[i] = displs[i-1] + counts[i-1]
	}
	scattervSchedule(s, rank, 0, n, full, counts, displs, out[:counts[rank]])
}
