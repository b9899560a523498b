//go:build !ompi && !mpich

package mpi

import (
	"slices"

	"github.com/hympi/hympi/shm"
)

// The blocking fast path of Barrier, Bcast and Allreduce. These run the
// same control entry as every collective (coll.go: rounds of receives and
// sends on the collective context, advanced by the engine), but a schedule
// built with closures and fresh slices costs several allocations per call
// (a 2-rank Barrier took 0.64 µs with them, 0.31 µs without) and puts the
// garbage collector in the loop of every collective benchmark. A blocking
// collective finishes before the next one on its communicator starts, so
// the communicator can own one control entry and its rounds, transfers,
// tree and scratch buffers, and a steady-state call allocates nothing
// (TestCollFastAllocs). Local work is a collStep (data) instead of a
// closure. Nonblocking collectives keep the general schedules: any number
// of them may be in flight, each with its own state.

// collFast is a communicator's reusable state for one blocking collective.
// Guarded by e.mu.
type collFast struct {
	op     collOp
	rounds []collRound
	xfers  []collXfer
	kids   []int // tree children
	bounds []int // ring block bounds
	red    reducer
	tmp    []byte
	// pend is the control entry's list of in-flight requests, kept
	// between calls: a round of more than len(collOp.pendBuf) messages
	// (Alltoall at 4 ranks posts 6) would otherwise grow a fresh one
	// every call.
	pend []*Request
	// own, when set, is a local copy (own[1] into own[0]) runFast makes
	// outside the lock, after starting the messages if ownAfter (so it
	// overlaps them), else before.
	own      [2][]byte
	ownAfter bool
	busy     bool // a blocking collective of this communicator is using it
}

// fastScratchMax bounds the scratch buffer a communicator keeps between
// calls: above it a call allocates its own, which a call that large
// amortises, and an occasional huge collective does not pin its memory for
// the communicator's lifetime.
const fastScratchMax = 8 << 20

// collStep is the local work a round ends with, as data rather than a
// closure, so building it allocates nothing.
type collStep struct {
	red *reducer
	// a, b: b = a op b; then, if dst is set, copy(dst, b).
	a, b, dst []byte
}

func (s *collStep) run() {
	s.red.apply(s.a, s.b)
	if s.dst != nil {
		copy(s.dst, s.b)
	}
}

// acquireFast returns c's fast state, marked busy. When another goroutine's
// blocking collective on c holds it (MPI forbids that on one communicator,
// but the engine must not corrupt itself if a program does it), the call
// gets a state of its own. Called with e.mu held.
func (c *Comm) acquireFast() *collFast {
	f := c.fast
	if f == nil {
		f = new(collFast)
		c.fast = f
	} else if f.busy {
		f = new(collFast)
	}
	f.busy = true
	return f
}

// reset empties f for a schedule of at most rounds rounds and xfers
// transfers. Capacity is reserved up front: the rounds' transfer lists are
// slices of f.xfers and must not move while the schedule is built.
func (f *collFast) reset(rounds, xfers int) {
	f.rounds = slices.Grow(f.rounds[:0], rounds)
	f.xfers = slices.Grow(f.xfers[:0], xfers)
}

// round appends an empty round and returns it.
func (f *collFast) round() *collRound {
	f.rounds = append(f.rounds, collRound{})
	return &f.rounds[len(f.rounds)-1]
}

// xfer appends one transfer and returns the one-element list holding it.
func (f *collFast) xfer(peer int, buf []byte) []collXfer {
	i := len(f.xfers)
	f.xfers = append(f.xfers, collXfer{peer: peer, buf: buf})
	return f.xfers[i : i+1 : i+1]
}

// exchange appends a round that sends sbuf to one peer and receives rbuf
// from another.
func (f *collFast) exchange(to int, sbuf []byte, from int, rbuf []byte) *collRound {
	rd := f.round()
	rd.sends = f.xfer(to, sbuf)
	rd.recvs = f.xfer(from, rbuf)
	return rd
}

// scratch returns n bytes of scratch space, kept for later calls up to
// fastScratchMax.
func (f *collFast) scratch(n int) []byte {
	if n <= cap(f.tmp) {
		return f.tmp[:n]
	}
	b := make([]byte, n)
	if n <= fastScratchMax {
		f.tmp = b
	}
	return b
}

// runFast starts the schedule built in f and waits for it. Called with
// e.mu held.
func (c *Comm) runFast(what string, f *collFast, small bool) error {
	e := c.e
	if e.fatal != nil {
		f.busy, f.own = false, [2][]byte{}
		return e.fatal
	}
	op := &f.op
	*op = collOp{rounds: f.rounds, pending: f.pend[:0]}
	if f.own[0] != nil && !f.ownAfter {
		f.copyOwn(e)
	}
	e.launch(c, op, small)
	if f.own[0] != nil {
		f.copyOwn(e)
	}
	if err := e.waitUntil(func() bool { return op.req.done }); err != nil {
		// op may still be live in e.colls: never hand it out again.
		if c.fast == f {
			c.fast = nil
		}
		return &Error{Class: ClassOf(err), Op: what, Msg: err.Error()}
	}
	f.busy = false
	if cap(op.pending) > len(op.pendBuf) {
		f.pend = op.pending[:0]
	}
	err := op.req.err
	// Drop the references to the caller's buffers.
	clear(f.rounds)
	clear(f.xfers)
	f.red = reducer{}
	return wrapCollErr(what, err)
}

// barrier is barrierSchedule built in f, or when the job is oversubscribed
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
func (f *collFast) barrier(rank, n int, flat bool) {
	if flat && n > 2 {
		f.flatBarrier(rank, n)
		return
	}
	steps := 0
	for k := 1; k < n; k <<= 1 {
		steps++
	}
	f.reset(steps, 2*steps)
	for k := 1; k < n; k <<= 1 {
		f.exchange((rank+k)%n, nil, (rank-k+n)%n, nil)
	}
}

// flatBarrier: rank 0 receives an empty message from every other rank,
// then sends one to each; the others send, then receive.
func (f *collFast) flatBarrier(rank, n int) {
	f.reset(2, 2*(n-1))
	if rank != 0 {
		f.round().sends = f.xfer(0, nil)
		f.round().recvs = f.xfer(0, nil)
		return
	}
	f.round().recvs = f.others(n)
	f.round().sends = f.others(n)
}

// others appends a transfer with every rank but 0 and returns them as one
// list.
func (f *collFast) others(n int) []collXfer {
	i := len(f.xfers)
	for p := 1; p < n; p++ {
		f.xfers = append(f.xfers, collXfer{peer: p})
	}
	return f.xfers[i:len(f.xfers):len(f.xfers)]
}

// bcast is bcastSchedule built in f.
func (f *collFast) bcast(rank, root, n int, buf []byte) {
	f.reset(2, n)
	if n == 1 {
		return
	}
	if n <= bcastFlatRanks && len(buf) >= bcastFlatMin {
		// Flat: the root sends to every rank itself.
		if rank != root {
			f.round().recvs = f.xfer(root, buf)
			return
		}
		rd := f.round()
		i := len(f.xfers)
		for p := range n {
			if p != root {
				f.xfers = append(f.xfers, collXfer{peer: p, buf: buf})
			}
		}
		rd.sends = f.xfers[i:len(f.xfers):len(f.xfers)]
		return
	}
	t := makeTreeInto(bcastTree, rank, root, n, f.kids)
	f.kids = t.children
	if t.parent >= 0 {
		f.round().recvs = f.xfer(t.parent, buf)
	}
	if len(t.children) > 0 {
		rd := f.round()
		i := len(f.xfers)
		for _, ch := range t.children {
			f.xfers = append(f.xfers, collXfer{peer: ch, buf: buf})
		}
		rd.sends = f.xfers[i:len(f.xfers):len(f.xfers)]
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
)

// allreduce builds Allreduce in f, the same algorithm choice as
// allreduceSchedule plus the two-rank halving, and reports false for the
// cases it leaves to the general schedule (reduce and broadcast, on job
// sizes that are not a power of two).
func (f *collFast) allreduce(rank, n int, in, out []byte, red reducer) bool {
	f.red = red
	switch {
	case n == 1:
		f.reset(0, 0)
		if !sameBuf(in, out) {
			copy(out, in)
		}
	case n == 2 && len(in) >= allreduceHalvesMin && len(in)/red.elem >= 2:
		f.halves(rank, in, out)
	case red.commutative && len(in) >= allreduceRingMin && len(in)/red.elem >= n && n&(n-1) == 0 && allreduceHalving:
		f.halving(rank, n, in, out)
	case red.commutative && len(in) >= allreduceRingMin && len(in)/red.elem >= n:
		f.ring(rank, n, in, out)
	case n&(n-1) == 0 && !noRecursiveDoubling:
		f.doubling(rank, n, in, out)
	default:
		return false
	}
	return true
}

// allreduceHalvesMin: from this size a two-rank Allreduce exchanges halves
// (allreduce halves below) instead of whole buffers. A variable so the
// benchmarks can compare it with the alternatives at every size.
var allreduceHalvesMin = 64 << 10

// halves is a two-rank Allreduce in two steps: each rank sends the half
// the other one owns and receives the other's copy of its own half,
// reduces its half (once, on one rank, so both ranks end with the same
// bits), and then the two swap their finished halves. Each rank moves one
// buffer in total where recursive doubling moves a whole buffer and
// reduces all of it on both ranks, and the ring does the same exchange in
// the same two steps but with a copy of the whole input first.
func (f *collFast) halves(rank int, in, out []byte) {
	red := &f.red
	h := red.elem * (len(in) / red.elem / 2)
	lo, hi := 0, h // this rank's half
	olo, ohi := h, len(in)
	if rank == 1 {
		lo, hi, olo, ohi = h, len(in), 0, h
	}
	mine := out[lo:hi]
	tmp := f.scratch(hi - lo)
	f.reset(2, 4)
	// Rank 0's contribution is the lower operand: apply(in, inout)
	// computes inout = in op inout.
	rd := f.exchange(1-rank, in[olo:ohi], 1-rank, tmp)
	switch {
	case rank == 1 || red.commutative:
		// mine = tmp op mine (rank 1), or mine op tmp (rank 0, equal
		// for a commutative operator) without a copy back.
		if !sameBuf(in, out) {
			copy(mine, in[lo:hi])
		}
		rd.step = collStep{red: red, a: tmp, b: mine}
	default:
		// Rank 0, non-commutative: tmp = in op tmp, then into place.
		rd.step = collStep{red: red, a: in[lo:hi], b: tmp, dst: mine}
	}
	f.exchange(1-rank, mine, 1-rank, out[olo:ohi])
}

// allreduceHalving: large commutative Allreduce on a power-of-two job is
// recursive halving and doubling rather than the ring. At 4 ranks on 2
// cores (osu_allreduce, 4 runs each) it took 920-1070 µs against the
// ring's 1140-1420 at 1 MiB and 180-245 against 228-350 at 256 KiB; at 64
// and 128 KiB the two were within noise, and below 64 KiB recursive
// doubling beat it (4 KiB: 14 µs against 20). A variable so benchmarks and
// tests can choose the ring.
var allreduceHalving = true

// halving is Rabenseifner's Allreduce for a power-of-two n and a
// commutative operator: a reduce-scatter by recursive halving (in the
// step of mask m, partners rank and rank^m each keep one half of their
// current range, send the other and reduce what comes back into the kept
// half) and an allgather by recursive doubling that retraces the steps.
// The same data as the ring, in 2 log2 n steps instead of 2(n-1). Each
// block is finished on one rank and copied to the others, so every rank
// ends with the same bits.
func (f *collFast) halving(rank, n int, in, out []byte) {
	red := &f.red
	if !sameBuf(in, out) {
		copy(out, in)
	}
	steps := 0
	for mask := 1; mask < n; mask <<= 1 {
		steps++
	}
	// f.bounds: the partner's range (lo, hi in bytes) of each step.
	f.bounds = slices.Grow(f.bounds[:0], 2*steps)
	f.reset(2*steps, 4*steps)
	elems := len(in) / red.elem
	lo, hi := 0, elems
	tmp := f.scratch(red.elem * (elems - elems/2))
	for mask := n / 2; mask >= 1; mask >>= 1 {
		partner := rank ^ mask
		mid := lo + (hi-lo)/2
		klo, khi, slo, shi := lo, mid, mid, hi
		if rank&mask != 0 {
			klo, khi, slo, shi = mid, hi, lo, mid
		}
		kept := out[red.elem*klo : red.elem*khi]
		t := tmp[:len(kept)]
		rd := f.exchange(partner, out[red.elem*slo:red.elem*shi], partner, t)
		rd.step = collStep{red: red, a: t, b: kept}
		f.bounds = append(f.bounds, slo, shi)
		lo, hi = klo, khi
	}
	for mask, i := 1, len(f.bounds)-2; mask < n; mask, i = mask<<1, i-2 {
		partner := rank ^ mask
		plo, phi := f.bounds[i], f.bounds[i+1]
		f.exchange(partner, out[red.elem*lo:red.elem*hi], partner, out[red.elem*plo:red.elem*phi])
		lo, hi = min(lo, plo), max(hi, phi)
	}
}

// doubling is doublingAllreduce built in f.
func (f *collFast) doubling(rank, n int, in, out []byte) {
	red := &f.red
	if !sameBuf(in, out) {
		copy(out, in)
	}
	tmp := f.scratch(len(out))
	steps := 0
	for mask := 1; mask < n; mask <<= 1 {
		steps++
	}
	f.reset(steps, 2*steps)
	for mask := 1; mask < n; mask <<= 1 {
		partner := rank ^ mask
		rd := f.exchange(partner, out, partner, tmp)
		if partner < rank {
			rd.step = collStep{red: red, a: tmp, b: out}
		} else {
			rd.step = collStep{red: red, a: out, b: tmp, dst: out}
		}
	}
}

// ring is ringAllreduce built in f: a ring reduce-scatter (block rank+1
// ends complete here) and a ring allgather.
func (f *collFast) ring(rank, n int, in, out []byte) {
	red := &f.red
	m := len(in) / red.elem
	f.bounds = slices.Grow(f.bounds[:0], n+1)
	largest := 0
	for j := 0; j <= n; j++ {
		f.bounds = append(f.bounds, red.elem*(j*m/n))
		if j > 0 {
			largest = max(largest, f.bounds[j]-f.bounds[j-1])
		}
	}
	b := f.bounds
	blk := func(j int) []byte { j = ((j % n) + n) % n; return out[b[j]:b[j+1]] }
	right, left := (rank+1)%n, (rank-1+n)%n
	if !sameBuf(in, out) {
		copy(out, in)
	}
	tmp := f.scratch(largest)
	f.reset(2*(n-1), 4*(n-1))
	// The same steps as ringReduceScatter with shift 1.
	for step := 0; step < n-1; step++ {
		dst := blk(rank - step - 1)
		t := tmp[:len(dst)]
		rd := f.exchange(right, blk(rank-step), left, t)
		rd.step = collStep{red: red, a: t, b: dst}
	}
	for step := 0; step < n-1; step++ {
		f.exchange(right, blk(rank+1-step), left, blk(rank-step))
	}
}

// copyOwn makes f's own copy with e.mu released, so the engine (the async
// progress goroutine) keeps serving the peers meanwhile; f is busy and the
// buffers are the caller's, so nothing else touches them.
func (f *collFast) copyOwn(e *engine) {
	e.mu.Unlock()
	copy(f.own[0], f.own[1])
	e.mu.Lock()
	f.own = [2][]byte{}
}

// alltoall is alltoallvSchedule built in f for blocks of m bytes: every
// receive and every send in one round, sends starting with the right
// neighbour. The caller copies the own block. At 2 ranks this is a single
// exchange with the partner. Pairwise exchange (n-1 rounds, one peer
// each) lost to the one round at every size at 4 ranks on 2 cores
// (osu_alltoall -i 100 -x 10, medians of 7: 8 B 4.5 against 2.7 µs, 1 KiB
// 6.9 against 4.4, 1 MiB 1089 against 899), so it was not kept; every
// rank posting all its messages at once lets whichever ranks the
// scheduler runs make progress. Nor was routing through rank 0 (each rank
// sends its whole buffer to 0, which regroups the blocks and sends each
// rank its receive buffer: 2(n-1) messages instead of n(n-1), the trick
// of the flat barrier): at 4 ranks on 2 cores it took 5.1 against 4.4 µs
// at 8 B, 6.4 against 4.4 at 1 KiB and 19 against 8.4 at 8 KiB, rank 0's
// serial regrouping and its two hops costing more than the messages
// saved. Off the general schedule (a closure, the
// counts and displacements, fresh rounds every call) osu_alltoall went
// from 1.5 to 0.6-0.8 µs at 8 B on 2 ranks and from 4.5-9 to 2.7-2.9 µs
// at 4 ranks on 2 cores.
func (f *collFast) alltoall(rank, n, m int, send, recv []byte) {
	f.oneRound(rank, n,
		func(from int) []byte { return recv[from*m : (from+1)*m] },
		func(to int) []byte { return send[to*m : (to+1)*m] })
}

// oneRound builds a single round in which rank receives recvBlk(from) from
// every other rank and sends sendBlk(to) to every other, both in the order
// of increasing distance so that no rank is everyone's first partner.
func (f *collFast) oneRound(rank, n int, recvBlk, sendBlk func(peer int) []byte) {
	f.reset(1, 2*(n-1))
	if n == 1 {
		return
	}
	rd := f.round()
	i := len(f.xfers)
	for k := 1; k < n; k++ {
		from := (rank - k + n) % n
		f.xfers = append(f.xfers, collXfer{peer: from, buf: recvBlk(from)})
	}
	j := len(f.xfers)
	for k := 1; k < n; k++ {
		to := (rank + k) % n
		f.xfers = append(f.xfers, collXfer{peer: to, buf: sendBlk(to)})
	}
	rd.recvs = f.xfers[i:j:j]
	rd.sends = f.xfers[j:len(f.xfers):len(f.xfers)]
}

// allgather is Allgather of m-byte blocks built in f: at most
// allgatherDirectMax bytes a block (and always at 2 ranks, where the two
// are the same exchange), every rank sends its block to every other in one
// round; above it, the ring of allgathervSchedule. The own block goes out
// from send, not from its place in recv, so the caller may copy it there
// while the messages are in flight (allgatherOverlapMin).
func (f *collFast) allgather(rank, n, m int, send, recv []byte) {
	blk := func(j int) []byte {
		if j == rank {
			return send
		}
		return recv[j*m : (j+1)*m]
	}
	if m <= allgatherDirectMax {
		f.oneRound(rank, n, blk, func(int) []byte { return send })
		return
	}
	f.reset(n-1, 2*(n-1))
	right, left := (rank+1)%n, (rank-1+n)%n
	for k := 0; k < n-1; k++ {
		f.exchange(right, blk((rank-k+n)%n), left, blk((rank-k-1+n)%n))
	}
}

// allgatherDirectMax: blocks up to this size are sent straight to every
// rank in one round rather than passed round the ring in n-1. At 4 ranks
// on 2 cores (osu_allgather, medians of 5) the one round took 2.7 µs
// against the ring's 4.1 at 8 B, 33 against 51 at 64 KiB, 177 against
// 231 at 256 KiB and tied at 1 MiB (943 against 1003); at 8 ranks it won
// up to 256 KiB (840 against 1316 µs) and lost at 1 MiB (6.2 against
// 5.3 ms), where every rank's buffer is read by all the others at once.
// A variable so benchmarks and tests can move it.
var allgatherDirectMax = 256 << 10

// alltoallOverlapMin: from this block size a blocking Alltoall with a CPU
// per rank copies its own block after starting the exchange instead of
// before, so the copy overlaps the peers' reads of its send buffer. At 2
// ranks (osu_alltoall, medians of 15) 1 MiB took 201 µs against 361 µs
// copying first; 256 KiB tied (31 against 32 µs). Oversubscribed the copy
// has no idle CPU to overlap with, and at 4 ranks on 2 cores 1 MiB came
// out 2-6% slower, so there the copy stays first. A variable so benchmarks
// can move it.
var alltoallOverlapMin = 64 << 10

// allgatherOverlapMin: from this block size a blocking Allgather with a
// CPU per rank copies its own block into place after starting the
// messages (which send it from the send buffer), as Alltoall does
// (alltoallOverlapMin). At 2 ranks (osu_allgather, medians of 15) 1 MiB
// took 168 against 193 µs and 256 KiB 28 against 31; 64 KiB tied.
var allgatherOverlapMin = 64 << 10

// fitsSlot is schedule.fitsSlot for the fast path.
func fitsSlot(size int) bool { return size <= shm.CollInlineMax }
