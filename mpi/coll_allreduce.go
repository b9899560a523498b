//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

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

// allreduceHalvesMin: from this size a two-rank Allreduce exchanges halves
// (allreduce halves below) instead of whole buffers. A variable so the
// benchmarks can compare it with the alternatives at every size.
var allreduceHalvesMin = 64 << 10

// allreduceHalving: large commutative Allreduce on a power-of-two job is
// recursive halving and doubling rather than the ring. At 4 ranks on 2
// cores (osu_allreduce, 4 runs each) it took 920-1070 µs against the
// ring's 1140-1420 at 1 MiB and 180-245 against 228-350 at 256 KiB; at 64
// and 128 KiB the two were within noise, and below 64 KiB recursive
// doubling beat it (4 KiB: 14 µs against 20). A variable so benchmarks and
// tests can choose the ring.
var allreduceHalving = true

// noRecursiveDoubling lets the benchmarks compare doubling with the tree.
var noRecursiveDoubling = false

// allreduceSched chooses Allreduce's algorithm by job and message size:
// two-rank halves, recursive halving, the ring, a flat gather and release
// through rank 0 (small messages, flat: more ranks than CPUs), recursive
// doubling, or reduce to rank 0 and broadcast.
func allreduceSched(s *schedule, rank, n int, in, out []byte, red reducer, flat bool) {
	s.red = red
	s.fitsSlot(len(in))
	elems := len(in) / red.elem
	switch {
	case n == 1:
		if !sameBuf(in, out) {
			s.nextLocal()
			s.copyStep(out, in)
		}
	case n == 2 && len(in) >= allreduceHalvesMin && elems >= 2:
		halvesAllreduce(s, rank, in, out)
	case red.commutative && len(in) >= allreduceRingMin && elems >= n && n&(n-1) == 0 && allreduceHalving:
		halvingAllreduce(s, rank, n, in, out)
	case red.commutative && len(in) >= allreduceRingMin && elems >= n:
		ringAllreduce(s, rank, n, in, out)
	case flat && n > 2 && len(in) <= shm.CollInlineMax:
		flatAllreduce(s, rank, n, in, out)
	case n&(n-1) == 0 && !noRecursiveDoubling:
		doublingAllreduce(s, rank, n, in, out)
	default:
		var rootOut []byte
		if rank == 0 {
			rootOut = out
		}
		reduceSched(s, rank, 0, n, in, rootOut, red, flat)
		bcastSched(s, rank, 0, n, out, flat)
		s.fitsSlot(len(in))
	}
}

// copyIn opens a local round copying in to out unless they are one buffer
// (in place).
func copyIn(s *schedule, in, out []byte) {
	if !sameBuf(in, out) {
		s.nextLocal()
		s.copyStep(out, in)
	}
}

// halves is a two-rank Allreduce in two steps: each rank sends the half
// the other one owns and receives the other's copy of its own half,
// reduces its half (once, on one rank, so both ranks end with the same
// bits), and then the two swap their finished halves. Each rank moves one
// buffer in total where recursive doubling moves a whole buffer and
// reduces all of it on both ranks, and the ring does the same exchange in
// the same two steps but with a copy of the whole input first.
func halvesAllreduce(s *schedule, rank int, in, out []byte) {
	red := &s.red
	h := red.elem * (len(in) / red.elem / 2)
	lo, hi := 0, h // this rank's half
	olo, ohi := h, len(in)
	if rank == 1 {
		lo, hi, olo, ohi = h, len(in), 0, h
	}
	mine := out[lo:hi]
	// Rank 0's contribution is the lower operand: apply(in, inout)
	// computes inout = in op inout.
	switch {
	case !sameBuf(in, out) && (rank == 0 || red.commutative):
		// The peer's copy of this half lands in place and this rank's
		// half is the lower operand (rank 0) or commutes (rank 1):
		// neither a copy nor scratch.
		s.exchange(1-rank, in[olo:ohi], 1-rank, mine)
		s.reduce(in[lo:hi], mine)
	case rank == 1 || red.commutative:
		// mine = tmp op mine (rank 1), or mine op tmp (rank 0, equal
		// for a commutative operator) without a copy back.
		tmp := s.scratch(hi - lo)
		copyIn(s, in[lo:hi], mine)
		s.exchange(1-rank, in[olo:ohi], 1-rank, tmp)
		s.reduce(tmp, mine)
	default:
		// Rank 0 in place, non-commutative: tmp = in op tmp, then into
		// place.
		tmp := s.scratch(hi - lo)
		s.exchange(1-rank, in[olo:ohi], 1-rank, tmp)
		s.reduce(in[lo:hi], tmp)
		s.copyStep(mine, tmp)
	}
	s.exchange(1-rank, mine, 1-rank, out[olo:ohi])
}

// halving is Rabenseifner's Allreduce for a power-of-two n and a
// commutative operator: a reduce-scatter by recursive halving (in the
// step of mask m, partners rank and rank^m each keep one half of their
// current range, send the other and reduce what comes back into the kept
// half) and an allgather by recursive doubling that retraces the steps.
// The same data as the ring, in 2 log2 n steps instead of 2(n-1). Each
// block is finished on one rank and copied to the others, so every rank
// ends with the same bits.
func halvingAllreduce(s *schedule, rank, n int, in, out []byte) {
	red := &s.red
	// Not in place, the first step sends from in and receives the
	// partner's half straight into out, instead of copying in to out
	// first: the rest of out is filled by later steps.
	direct := !sameBuf(in, out)
	// bounds: the partner's range (lo, hi in elements) of each step.
	bounds := s.ints(2 * bitsOf(n))[:0]
	elems := len(in) / red.elem
	lo, hi := 0, elems
	// Each step keeps at most the upper, larger half of its range.
	most := elems - elems/2
	if direct {
		most = (most + 1) / 2 // the first step needs none
	}
	tmp := s.scratch(red.elem * most)
	for mask := n / 2; mask >= 1; mask >>= 1 {
		partner := rank ^ mask
		mid := lo + (hi-lo)/2
		klo, khi, slo, shi := lo, mid, mid, hi
		if rank&mask != 0 {
			klo, khi, slo, shi = mid, hi, lo, mid
		}
		kept := out[red.elem*klo : red.elem*khi]
		if mask == n/2 && direct {
			s.exchange(partner, in[red.elem*slo:red.elem*shi], partner, kept)
			s.reduce(in[red.elem*klo:red.elem*khi], kept)
			bounds = append(bounds, slo, shi)
			lo, hi = klo, khi
			continue
		}
		t := tmp[:len(kept)]
		s.exchange(partner, out[red.elem*slo:red.elem*shi], partner, t)
		s.reduce(t, kept)
		bounds = append(bounds, slo, shi)
		lo, hi = klo, khi
	}
	for mask, i := 1, len(bounds)-2; mask < n; mask, i = mask<<1, i-2 {
		partner := rank ^ mask
		plo, phi := bounds[i], bounds[i+1]
		s.exchange(partner, out[red.elem*lo:red.elem*hi], partner, out[red.elem*plo:red.elem*phi])
		lo, hi = min(lo, plo), max(hi, phi)
	}
}

// doublingAllreduce is recursive doubling for a power-of-two n: in step k
// partners rank and rank^k exchange their partial results and both compute
// lower op higher, the same expression on the same operands, so they stay
// bit-identical (and a non-commutative operator keeps rank order: each
// partial covers a contiguous block of ranks). log2 n steps instead of the
// tree's 2 log2 n.
func doublingAllreduce(s *schedule, rank, n int, in, out []byte) {
	copyIn(s, in, out)
	tmp := s.scratch(len(out))
	for mask := 1; mask < n; mask <<= 1 {
		partner := rank ^ mask
		s.exchange(partner, out, partner, tmp)
		if partner < rank {
			s.reduce(tmp, out)
		} else {
			s.reduce(out, tmp)
			s.copyStep(out, tmp)
		}
	}
}

// ringBlocks cuts length bytes of elem-byte elements into n blocks of
// whole elements, as even as possible: block j is [b[j], b[j+1]).
func ringBlocks(b []int, length, elem, n int) []int {
	m := length / elem
	for j := 0; j <= n; j++ {
		b[j] = elem * (j * m / n)
	}
	return b
}

// ringAllreduce is a ring reduce-scatter (block rank+1 ends complete
// here) and a ring allgather of the complete blocks.
func ringAllreduce(s *schedule, rank, n int, in, out []byte) {
	b := ringBlocks(s.ints(n+1), len(in), s.red.elem, n)
	right, left := (rank+1)%n, (rank-1+n)%n
	copyIn(s, in, out)
	ringReduceScatter(s, rank, n, out, b, 1)
	for step := 0; step < n-1; step++ {
		s.exchange(right, ringBlk(out, b, rank+1-step), left, ringBlk(out, b, rank-step))
	}
}

// ringBlk is block j (mod n) of work cut at bounds b.
func ringBlk(work []byte, b []int, j int) []byte {
	n := len(b) - 1
	j = ((j % n) + n) % n
	return work[b[j]:b[j+1]]
}

// ringReduceScatter reduces work (this rank's contribution, overwritten)
// block by block around the ring; block j is work[b[j]:b[j+1]]. In step s
// each rank sends block rank-s+shift-1 to the right and adds the block
// rank-s+shift-2 arriving from the left into its own, so after n-1 steps
// block rank+shift holds the reduction of every rank's contribution. Each
// block is combined on one rank at a time and in the same order whatever
// rank ends with it, which keeps float results deterministic. Commutative
// operators only: the ring does not combine in rank order.
func ringReduceScatter(s *schedule, rank, n int, work []byte, b []int, shift int) {
	right, left := (rank+1)%n, (rank-1+n)%n
	largest := 0
	for j := 0; j < n; j++ {
		largest = max(largest, b[j+1]-b[j])
	}
	tmp := s.scratch(largest)
	for step := 0; step < n-1; step++ {
		dst := ringBlk(work, b, rank-step+shift-2)
		t := tmp[:len(dst)]
		s.exchange(right, ringBlk(work, b, rank-step+shift-1), left, t)
		s.reduce(t, dst)
	}
}

// scanSched is a recursive-doubling prefix reduction. partial covers the
// window of ranks ending at this one; in round k it goes to rank+k and the
// window of rank-k (just below ours) comes in and is combined as the lower
// operand. incl gets the inclusive result (Scan), excl the exclusive one
// (Exscan; untouched on rank 0). Large ones, and every one at 2 ranks, are
// a chain instead (chainScan). flat: more ranks than CPUs.
func scanSched(s *schedule, rank, n int, in, incl, excl []byte, red reducer, flat bool) {
	s.red = red
	s.fitsSlot(len(in))
	if n == 2 || len(in) >= scanChainMin {
		chainScan(s, rank, n, in, incl, excl, flat)
		return
	}
	// partial covers the window of ranks ending here. For Scan it is the
	// result buffer itself, and for Exscan the prefix is gathered straight
	// in the result buffer: the input is read once, by the own copy made
	// before any message, so either may be the input (in place).
	partial := incl
	if partial == nil {
		partial = s.scratch(len(in))
	}
	if !sameBuf(partial, in) {
		s.own = [2][]byte{partial, in}
	}
	// One receive buffer does for every round: a round's steps finish
	// before the next round's receive is posted.
	var tmp []byte
	haveEx := false
	for k := 1; k < n; k <<= 1 {
		s.next()
		if rank+k < n {
			s.send(rank+k, partial)
		}
		if rank-k >= 0 {
			if tmp == nil {
				tmp = s.scratch(len(in))
			}
			s.recv(rank-k, tmp)
			if excl != nil {
				if haveEx {
					s.reduce(tmp, excl)
				} else {
					s.copyStep(excl, tmp)
					haveEx = true
				}
			}
			s.reduce(tmp, partial)
		}
	}
}

// reduceScatterSched leaves on each rank its block (counts, in bytes,
// in rank order) of the reduction. Large inputs, and any on at most
// reduceScatterPairRanks ranks, go straight to their owners in one round
// (pairReduceScatter); other large ones with a commutative operator go
// round the ring (each rank sends and receives (n-1)/n of the data);
// otherwise the whole input is reduced to rank 0 (in rank order) and the
// blocks scattered. flat: more ranks than CPUs.
func reduceScatterSched(s *schedule, rank, n int, in, out []byte, counts []int, red reducer, flat bool) {
	s.red = red
	total := 0
	for _, k := range counts {
		total += k
	}
	s.fitsSlot(total) // MPI requires the same counts on every rank
	pair := len(in) >= reduceScatterPairMin || n <= reduceScatterPairRanks
	if n > 1 && (pair || red.commutative && len(in) >= allreduceRingMin) {
		b := s.ints(n + 1)
		for j, k := range counts {
			b[j+1] = b[j] + k
		}
		if pair {
			pairReduceScatter(s, rank, n, in, out, b)
			// One message each way between every pair: each block
			// that fits a slot takes the collective ring, whatever
			// the total.
			s.onePerPair()
			return
		}
		work := s.scratch(len(in))
		s.nextLocal()
		s.copyStep(work, in)
		ringReduceScatter(s, rank, n, work, b, 0)
		s.nextLocal()
		s.copyStep(out, work[b[rank]:b[rank+1]])
		return
	}
	var full []byte
	if rank == 0 {
		full = s.scratch(len(in))
	}
	reduceSched(s, rank, 0, n, in, full, red, flat)
	displs := s.ints(n)
	for i := 1; i < n; i++ {
		displs[i] = displs[i-1] + counts[i-1]
	}
	scattervSched(s, rank, 0, n, full, counts, displs, out[:counts[rank]], false)
	s.fitsSlot(total)
}

// reduceScatterPairRanks: on at most this many ranks every
// Reduce_scatter is pairReduceScatter: one round in which every rank
// sends each block to its owner, where reducing to rank 0 and scattering
// is two (a binomial tree, three) rounds in turn. Oversubscribed, each
// round in turn waits for the scheduler to run the ranks it needs. It
// used to hold only for inputs that fit a collective slot; from 232 B
// the tree and scatter took over, and at 4 ranks on 2 CPUs a 1 KiB
// Reduce_scatter_block took 9.4 µs that way against 6.9 µs in one round
// (osu_colls from Go, fastest of 7 alternating runs, machine loaded),
// Open MPI 7.1 µs (quiet). A variable so tests and benchmarks can move it.
var reduceScatterPairRanks = 8

// flatAllreduce is a small Allreduce of an oversubscribed job: every rank
// sends its input to rank 0, which combines them in rank order
// (flatReduce) and sends the result back. Each rank other than 0 runs
// twice (send, then take the result), where recursive doubling needs every
// rank scheduled in each of its log2 n rounds: with more ranks than CPUs
// each of those rounds waits for the scheduler to get round to every rank.
func flatAllreduce(s *schedule, rank, n int, in, out []byte) {
	var rootOut []byte
	if rank == 0 {
		rootOut = out
	}
	flatReduce(s, rank, 0, n, in, rootOut)
	s.next()
	if rank != 0 {
		s.recv(0, out)
		return
	}
	for p := 1; p < n; p++ {
		s.send(p, out)
	}
}
