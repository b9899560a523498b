//go:build !ompi && !mpich

package mpi

// Large-message prefix reductions and reduce-scatter: schedules that move
// each byte once and combine it once, straight into the caller's buffer.
//
// The recursive-doubling scan (scanSched) copies the input into a
// partial, receives every round into fresh scratch and copies the result
// out at the end: at 2 ranks and 1 MiB that is four passes over the data
// on rank 1 where the work is one transfer and one reduction. The ring
// reduce-scatter copies the whole input into a work buffer first and the
// result out last. Both cost little for small messages, where a message's
// overhead dominates, and most of the time for large ones.

// scanChainMin: from this size (and always at 2 ranks, where the chain
// and recursive doubling exchange the same single message) Scan and
// Exscan run along the ranks in a chain, as Open MPI's do: rank r receives
// the prefix of ranks 0..r-1 from r-1, combines it with its own input and
// passes the result to r+1. Each rank receives and sends once and applies
// the operator at most once, where recursive doubling sends and combines
// log2 n times as much. Below 256 KiB the chain's n-1 hops in turn cost
// more than doubling's extra data: at 4 ranks on 2 cores (osu_colls from
// Go, 6 alternating runs) a 64 KiB Scan took 31 µs as a chain against 22
// by doubling, the two tied at 256 KiB, and at 1 MiB the chain took 259
// against 422. A variable so tests and benchmarks can move it.
var scanChainMin = 256 << 10

// reduceScatterPairMin: from this many bytes of input Reduce_scatter
// sends each block straight from the input to the rank that owns it, all
// in one round (as Alltoall does), and each rank combines the n blocks of
// its own part into its receive buffer. Each rank moves (n-1)/n of the
// input as the ring does, but without the ring's copy of the whole input
// first and of the result last, and in one round instead of n-1 (at 4 and
// 8 ranks on 2 cores each round waits for the scheduler to reach every
// rank; see alltoallvSched). It keeps rank order too, so non-commutative
// operators take it as well. A variable so tests and benchmarks can move
// it.
var reduceScatterPairMin = 64 << 10

// chainScan is the chain prefix reduction: incl gets the inclusive
// result (Scan), excl the exclusive one (Exscan; untouched on rank 0);
// the other is nil. in is not changed unless it is the result buffer (in
// place). The received prefix is always the lower operand.
func chainScan(s *schedule, rank, n int, in, incl, excl []byte, flat bool) {
	red := &s.red
	last := rank == n-1
	if rank == 0 {
		// The input goes on as it is; the own result is a copy
		// independent of the message, so it may overlap the peer's read.
		if incl != nil && !sameBuf(in, incl) {
			s.own = [2][]byte{incl, in}
			s.ownAfter = len(in) >= allgatherOverlapMin && !flat
		}
		if n > 1 {
			s.next()
			s.send(1, in)
		}
		return
	}
	if incl != nil {
		if red.commutative && !sameBuf(in, incl) {
			// incl = in op prefix, equal to prefix op in: the prefix
			// lands in place and nothing is copied.
			s.next()
			s.recv(rank-1, incl)
			s.reduce(in, incl)
		} else {
			if !sameBuf(in, incl) {
				s.own = [2][]byte{incl, in} // made before any step runs
			}
			tmp := s.scratch(len(in))
			s.next()
			s.recv(rank-1, tmp)
			s.reduce(tmp, incl)
		}
		if !last {
			s.next()
			s.send(rank+1, incl)
		}
		return
	}
	// Exscan: the prefix is the result; the prefix op in goes on.
	switch {
	case last:
		s.next()
		s.recv(rank-1, excl)
	case !sameBuf(in, excl):
		fwd := s.scratch(len(in))
		s.own = [2][]byte{fwd, in}
		s.next()
		s.recv(rank-1, excl)
		s.reduce(excl, fwd)
		s.next()
		s.send(rank+1, fwd)
	default:
		// In place: excl holds the input until the prefix op in has
		// been formed there and sent; then the prefix replaces it.
		tmp := s.scratch(len(in))
		s.next()
		s.recv(rank-1, tmp)
		s.reduce(tmp, excl)
		s.next()
		s.send(rank+1, excl)
		s.nextLocal()
		s.copyStep(excl, tmp)
	}
}

// pairReduceScatter: block j of the input (in[b[j]:b[j+1]]) goes to
// rank j, every block in one round; rank r's own part arrives from every
// other rank into scratch and is folded into out in rank order, from the
// highest rank down (out = blk_j op out), so a non-commutative operator
// sees its operands in order. out may be in itself (in place): it is
// written only after every send of the round has finished, and the own
// block is moved first (copy is a memmove) or kept aside when a later
// step still needs it.
func pairReduceScatter(s *schedule, rank, n int, in, out []byte, b []int) {
	red := &s.red
	inPlace := sameBuf(in, out)
	m := b[rank+1] - b[rank]
	own := in[b[rank]:b[rank+1]]
	out = out[:m]
	tmps := s.scratch(m * (n - 1))
	from := func(j int) []byte {
		switch {
		case j == rank:
			return own
		case j > rank:
			j--
		}
		return tmps[j*m : (j+1)*m]
	}
	s.next()
	for k := 1; k < n; k++ {
		j := (rank - k + n) % n
		s.recv(j, from(j))
	}
	for k := 1; k < n; k++ {
		j := (rank + k) % n
		s.send(j, in[b[j]:b[j+1]])
	}
	if m == 0 {
		return
	}
	if red.commutative {
		// Any order: start from the own block, wherever it is.
		s.copyStep(out, own)
		for j := n - 1; j >= 0; j-- {
			if j != rank {
				s.reduce(from(j), out)
			}
		}
		return
	}
	if inPlace && rank != n-1 {
		// The own block may lie under out, which the first step
		// overwrites, and a later step still needs it.
		keep := s.scratch(m)
		s.copyStep(keep, own)
		own = keep
	}
	s.copyStep(out, from(n-1))
	for j := n - 2; j >= 0; j-- {
		s.reduce(from(j), out)
	}
}
