//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"runtime"

	"github.com/hympi/hympi/internal/enginehook"

	"github.com/hympi/hympi/shm"
)

// Gate collectives: Barrier, and small Allreduce, Allgather(v), Alltoall
// and Reduce_scatter(_block), of an oversubscribed job through the
// communicator's gate in the region (shm/gate.go). Each rank
// writes its contribution to its slot and adds itself to the arrival
// counter; the last one to arrive combines the slots in rank order into
// the result slot, opens the gate and rings the doorbells of the members
// asleep; the others copy the result out once the generation moves.
//
// Why: with many ranks per CPU every message of a collective waits for
// the scheduler to get round to its receiver. The flat gather and release
// through rank 0 needs rank 0 to run once per member (each wake-up a trip
// through a run queue of a hundred ranks) and every other rank twice; the
// gate needs each rank once, and the only futex wakes are the last
// arriver's. Context switches per barrier: docs/bench/scale.md.
//
// A communicator's members agree on whether it has a gate at its first
// blocking Barrier or small Allreduce (settleGate), and close it when they
// free it (dropGate), which gives its block back for later communicators
// (shm/gate.go).
//
// In a schedule the gate is one round of its own (schedule.gateRound),
// polled like any other: issuing it arrives, and it completes when the
// generation moves, so the nonblocking form is the same code. The gate
// holds one collective at a time, so a communicator's gate rounds run in
// the order they were started (the ticket), which is the same on every
// rank. Persistent collectives never use it: MPI lets ranks start them in
// different orders.

const (
	// gateMinRanks: communicators of at most this many ranks keep the
	// message-based algorithms (at 2 ranks one exchange).
	//
	// Small Allreduce takes the gate from 3 ranks: the last rank to
	// arrive finishes it at once, where the flat gather and release
	// (flatAllreduce) has it send to rank 0 and wait for rank 0 to be
	// scheduled and answer. At 4 ranks on 2 CPUs (osu_colls from Go, 8 B,
	// fastest of 5-7 alternating runs, machine loaded) it took 3.4-4.1
	// µs against 5.5-6.4, at 8 ranks 10.0 against 12.6; Open MPI (quiet)
	// 4.5 and 16.0.
	gateMinRanks = 2
	// gateBarrierMinRanks: Barrier keeps the flat gather and release on
	// communicators of at most this many ranks. Through the gate it was
	// faster itself (4 ranks: 3.1 against 5.2 µs) but it lets the last
	// arriver go first and rank 0 last, and the collective after it pays:
	// a Bcast from rank 0 after the gate's barrier took 1.7 µs against
	// 0.2 after the flat one, which lets rank 0 go first (coll_tree.go),
	// a Scan 2.7 against 1.3.
	gateBarrierMinRanks = 8
)

// gateState is whether a communicator uses a gate.
type gateState uint8

const (
	gateUnknown gateState = iota
	gateOn
	gateOff
)

// commGate is a communicator's gate and its order of use; guarded by e.mu.
type commGate struct {
	state gateState
	g     shm.Gate
	// next is the ticket the next gate collective started takes; done is
	// the number completed. A gate round arrives only when done reaches
	// its ticket.
	next, done uint64
}

// gateFits reports whether a collective of c whose contribution is size
// bytes may run through a gate. Called with e.mu held.
func (c *Comm) gateFits(size int) bool {
	e := c.e
	return e.oversub && c.size > gateMinRanks && size <= shm.GatePayloadMax && e.region != nil &&
		!c.private && c.inter == nil && c.tagBase == 0 // scratch communicators share their parent's context
}

// useGate reports whether a collective of c whose contribution is size
// bytes runs through the gate. Only a communicator whose members agreed on
// one (settleGate) has it: until then, a nonblocking collective keeps the
// message-based algorithm, on every member alike, since all start c's
// collectives in the same order.
func (c *Comm) useGate(s *schedule, size int) bool {
	return !s.noGate && c.gate.state == gateOn && c.gateFits(size)
}

// settleGate is called by a blocking Barrier or Allreduce (what) of size bytes
// before it builds: the first such call on c opens c's gate and has the
// members agree, with a message-based Allreduce, on whether every one of
// them got it (shm.OpenGate may answer differently on different members
// while gate blocks are being freed and reused). Without agreement each
// member that got it closes it again. A blocking call may wait for its
// peers, which is why a nonblocking one never settles.
func (c *Comm) settleGate(what string, size int) error {
	if c.check(what) != nil {
		return nil // the collective reports it
	}
	e := c.e
	e.mu.Lock()
	if c.gate.state != gateUnknown || !c.gateFits(size) {
		e.mu.Unlock()
		return nil
	}
	leader := c.worldOf(0)
	for r := 1; r < c.size; r++ {
		leader = min(leader, c.worldOf(r))
	}
	g, ok, err := e.region.OpenGate(c.ctx, leader, c.size)
	if err != nil {
		e.corrupt(err)
	}
	e.mu.Unlock()
	mine, all := []byte{0}, []byte{0}
	if ok {
		mine[0] = 1
	}
	err = c.blocking(what, func(s *schedule) error {
		s.noGate = true
		return c.allreduceBuild(s, what, mine, all, Uint8, Min)
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil && all[0] == 1 {
		c.gate.state, c.gate.g = gateOn, g
		e.gated++
	} else {
		c.gate.state = gateOff
		if cerr := e.region.CloseGate(g); cerr != nil {
			e.corrupt(cerr)
		}
	}
	// A memoised Barrier or Allreduce schedule, built before, would not
	// take the gate.
	c.memoDrop()
	return err
}

func init() { enginehook.GateStats = gateStats }

func gateStats() (gated, reused uint64, handedOut int) {
	e := theEngine
	if e == nil || e.region == nil {
		return 0, 0, 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gated, e.region.GateReuses(), e.region.GatesUsed()
}

// dropGate closes c's gate when c is freed, once its collectives have all
// completed: the last member to do so frees the gate block for another
// communicator. Called with e.mu held.
func (c *Comm) dropGate() {
	if c.gate.state != gateOn {
		return
	}
	if err := c.e.region.CloseGate(c.gate.g); err != nil {
		c.e.corrupt(err)
	}
	c.gate.state, c.gate.g = gateOff, shm.Gate{}
}

// gateRound makes s one gate round: in is this rank's contribution
// (nil for a barrier), out receives the result, combined with s.red.
func (s *schedule) gateRound(in, out []byte) {
	s.next()
	s.last().gate = true
	s.gateIn, s.gateOut = in, out
}

// gateKind is what a gate round makes of the members' contributions.
type gateKind uint8

const (
	// gateCombineAll: the last arriver combines them all in rank order
	// into the result slot, which every member copies out (Barrier,
	// Allreduce).
	gateCombineAll gateKind = iota
	// gateGather: each member copies blk bytes at at of every
	// contribution to its own place in the output (gateExchange).
	gateGather
	// gateReduceBlock: each member combines blk bytes at at of every
	// contribution, in rank order, into the output (Reduce_scatter).
	gateReduceBlock
)

// gateExchange makes s one gate round that moves blocks instead of
// combining them: every rank contributes in, and once the gate opens
// copies block p of out (blk bytes) from bytes at..at+blk of rank p's
// contribution, its own included. Allgather (at 0) and Alltoall (at
// rank×blk) of an oversubscribed job whose contribution fits a slot take
// it: each rank runs once, where the one round of n-1 sends and receives
// needs every rank scheduled and, asleep, woken for each message, and the
// only wake-ups are the last arriver's. out may hold in (in place): in is
// copied into the slot at arrival, before anything is written to out.
// At 8 ranks on 2 CPUs (osu_colls from Go, 8 B, fastest of 5 alternating
// runs, machine loaded) Allgather took 11.2 µs against 17.7 by messages
// and Allgatherv 13.6 against 16.5 (Open MPI, quiet: 15.8 and 15.6); at 4
// ranks the two were within the noise. Rank 0's instructions per
// Allgather at 4 ranks (callgrind, bench/callgrind_coll.sh): 2,276
// against 2,577.
func (s *schedule) gateExchange(in, out []byte, at, blk int) {
	s.gateRound(in, out)
	s.gateKind, s.gateBlk, s.gateAt = gateGather, blk, at
}

// gateReduceScatter makes s one gate round of a Reduce_scatter: every
// rank contributes its whole input, and once the gate opens combines its
// own part (blk bytes at at) of every contribution in rank order into
// out. Each member reduces only its part, as the one round of
// pairReduceScatter does, without a message. At 8 ranks on 2 CPUs
// (osu_colls from Go, 8 B, fastest of 5 alternating runs, machine loaded)
// Reduce_scatter took 10.0 µs against 13.5 by messages, and
// Reduce_scatter_block 10.4 against 14.2 (Open MPI, quiet: 14.0 and
// 14.9); rank 0's instructions per Reduce_scatter_block at 4 ranks 2,410
// against 2,832.
func (s *schedule) gateReduceScatter(in, out []byte, at, blk int) {
	s.gateRound(in, out)
	s.gateKind, s.gateBlk, s.gateAt = gateReduceBlock, blk, at
}

// gateCombine writes into res the contributions slot(0..n-1), each of m
// bytes, combined in rank order: res = c0 op (c1 op (... op c(n-1))).
func gateCombine(red *reducer, n, m int, slot func(int) []byte, res []byte) {
	res = res[:m]
	copy(res, slot(n - 1)[:m])
	for p := n - 2; p >= 0; p-- {
		red.apply(slot(p)[:m], res)
	}
}

// advanceGate moves op's gate round, reporting whether the round is over.
// Called with e.mu held.
func (e *engine) advanceGate(op *collOp) bool {
	c, s := op.c, &op.s
	cg := &c.gate
	g := cg.g
	if !op.issued {
		if cg.done != op.gateTicket {
			return false // an earlier gate collective of c is still open
		}
		op.gateGen = g.Gen()
		g.Put(op.gateGen, c.rank, s.gateIn)
		last, err := g.Arrive()
		if err == nil && last {
			err = e.closeGate(c, s, op.gateGen)
		}
		if err != nil {
			e.corrupt(err)
			op.err = e.fatal
			cg.done++
			return true
		}
		op.issued = true
	}
	if g.Gen() == op.gateGen {
		return false
	}
	cg.done++
	bad, m, err := g.Outcome(op.gateGen)
	switch {
	case err != nil:
		e.corrupt(err)
		op.err = e.fatal
	case bad >= 0:
		op.err = newErr(ErrCount, "collective", "the ranks gave different counts: rank %d %d bytes, this rank %d", bad, m, len(s.gateIn))
	case s.gateKind != gateCombineAll:
		if err := gateTake(g, op.gateGen, c.size, s); err != nil {
			e.corrupt(err)
			op.err = e.fatal
		}
	default:
		copy(s.gateOut, g.Result(op.gateGen))
	}
	return true
}

// gateTake is an exchange's or a Reduce_scatter's part once the gate
// is open: block p of s.gateOut from rank p's contribution, or the own
// part of every contribution combined in rank order. The contributions of generation
// gen stay until generation gen+2 is filled, which needs this rank's
// arrival at the next gate collective, after this. Every member's length
// was checked by the last arriver (it equals this rank's, which holds
// the block).
func gateTake(g shm.Gate, gen uint32, n int, s *schedule) error {
	blk, at := s.gateBlk, s.gateAt
	// From the highest rank down: out = c_p op out keeps rank order for
	// a non-commutative operator.
	for p := n - 1; p >= 0; p-- {
		in, err := g.Contribution(gen, p)
		if err != nil {
			return err
		}
		if len(in) < at+blk {
			return fmt.Errorf("%w: rank %d's gate contribution of %d bytes, %d agreed", shm.ErrCorrupt, p, len(in), at+blk)
		}
		part := in[at : at+blk]
		switch {
		case s.gateKind == gateGather:
			at := p * blk
			if s.gateDispls != nil {
				at = s.gateDispls[p] // checked against gateOut by the build
			}
			copy(s.gateOut[at:at+blk], part)
		case p == n-1:
			copy(s.gateOut[:blk], part)
		case blk > 0:
			if !applySmall(s.red.small, part, s.gateOut[:blk]) {
				s.red.apply(part, s.gateOut[:blk])
			}
		}
	}
	return nil
}

// closeGate is the last arriver's part: check that the contributions agree
// in length, combine them, record the outcome and open the gate.
func (e *engine) closeGate(c *Comm, s *schedule, gen uint32) error {
	g, m := c.gate.g, len(s.gateIn)
	bad, badLen := -1, 0
	for p := range c.size {
		in, err := g.Contribution(gen, p)
		if err != nil {
			return err
		}
		if len(in) != m && bad < 0 {
			bad, badLen = p, len(in)
		}
	}
	if bad < 0 && m > 0 && s.gateKind == gateCombineAll {
		// Lengths checked above: every contribution has m bytes.
		gateCombine(&s.red, c.size, m, func(p int) []byte { in, _ := g.Contribution(gen, p); return in }, g.Result(gen))
	}
	g.SetOutcome(gen, bad, badLen)
	g.Open()
	e.ringMembers(c)
	return nil
}

// ringMembers wakes the members of c asleep on their doorbells, at the gate
// (gateSleep) or waiting on anything else; an awake one costs a load.
func (e *engine) ringMembers(c *Comm) {
	for r := range c.size {
		if w := c.worldOf(r); w != e.rank {
			e.region.Doorbell(w).Ring()
		}
	}
}

// gateSleep sleeps while the blocking collective in progress waits at its
// gate, if it does, reporting whether it slept. waitUntil calls it, with
// e.mu held, where it would sleep on the doorbell: after the spins and the
// yield phase of the wait policy. Sleeping at once instead of yielding
// first measured worse at every size (osu_colls, 2 CPUs, barrier: 16 ranks
// 105 against 31 µs, 64 ranks 1143 against 502, 256 ranks 3957 against
// 2291): a rank that yields sees the gate open on its next turn, where a
// sleeper pays a wake-up.
//
// The sleep is on the rank's own doorbell, as any other wait's, so that a
// peer's message wakes it as promptly as the gate's opening does (the last
// arriver rings every member's doorbell, ringMembers). What differs from
// waitUntil's sleep: only a process whose one goroutine is the caller
// sleeps here (the C library's ranks, most Go ones), and it sleeps without
// the Go scheduler, whose bookkeeping wakes sysmon (shm's futexWaitRaw);
// e.gateOp is then surely its own. With other goroutines (asynchronous
// progress, an application's threads in MPI at once) the wait takes
// waitUntil's ordinary sleep.
func (e *engine) gateSleep() bool {
	op := e.gateOp
	if op == nil || op.req.done || op.cur >= len(op.s.rounds) || !op.s.rounds[op.cur].gate || !op.issued ||
		runtime.NumGoroutine() != 1 {
		return false
	}
	g, gen := op.c.gate.g, op.gateGen
	seq := e.bell.Arm()
	// Armed before the last look: either it sees the gate open (or
	// other work), or the opener or sender sees the arm and rings. The
	// sweep, as before waitUntil's sleep, finds work whose summary bit
	// was lost, and a corrupt region.
	if (e.sweepDue() && e.sweep()) || e.progress() || g.Gen() != gen || e.fatal != nil {
		e.bell.Disarm()
		return true
	}
	e.mu.Unlock()
	g.Sleep(e.bell, seq, e.wait.Sleep)
	e.mu.Lock()
	e.bell.Disarm()
	return true
}
