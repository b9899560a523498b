//go:build !ompi && !mpich

package mpi

import (
	"runtime"
	"time"

	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/shm"
)

// The direct run: a small collective's rounds done by the calling thread
// straight on the collective rings, without an internal request, a posted
// receive, a matching queue or a progress pass. At 2 ranks a barrier or an
// allreduce is one small message each way, and the general path (post a
// receive, publish a request's payload, drain the ring into the matching
// queues, match, complete, recycle both requests, a run-loop pass) cost
// 2-3× the instructions of the round trip it carries.
//
// It is the collective twin of the point-to-point fast lane (fastlane.go),
// under the same rule, and it runs the one schedule the builders wrote
// (launch tries it before the ordinary run loop takes over):
//   - a send is published in the peer's collective ring when nothing of
//     ours is queued toward that peer (the order of the pair's messages is
//     then the order of publishing, as sendColl keeps it) and a slot is
//     free;
//   - a receive, when the engine holds no posted receive, takes the
//     oldest unexpected message of this collective from the peer if there
//     is one, and otherwise the head of the peer's collective ring (what
//     matching would deliver next from that peer) if it is this
//     collective's message; either way of the length the schedule
//     expects.
// Anything else (a full ring, the head absent or another collective's or
// of an unexpected length, a posted receive, another collective in flight,
// point-to-point sends queued or reads in progress, checksums on)
// stops the direct run where it is: the transfers of the round not yet
// done are issued the ordinary way (op.skip marks the done ones), and the
// run loop, its error checks and its waits take over from there. So the
// direct run never waits for long: a blocking call spins on the ring head
// for at most flSpins looks (when ranks outnumber CPUs, where the sender
// may need this CPU, it yields a few times instead), as fastRecv does,
// and then waits the ordinary way, with progress passes for everything
// else the engine holds (MPI's progress rule).

// directPassEvery: a progress pass every so many direct runs of a
// communicator.
const directPassEvery = 64

// directResult is how far a direct run got.
type directResult uint8

const (
	// directRefused: stopped at a transfer it may not do directly; the
	// run loop issues the rest (op.skip marks what was done).
	directRefused directResult = iota
	// directDone: every round ran; op is complete without error.
	directDone
	// directDeferred: op waits, with nothing posted, for a peer's message
	// that has not arrived yet (or, at a nonblocking start, for the wait);
	// resumeDirect goes on from there.
	directDeferred
)

// directRun runs as many of op's rounds as can be done directly, as mode
// allows (coll.go). Called by launchRun with e.mu held, op's tag drawn and
// its own copy made.
func (e *engine) directRun(op *collOp, mode launchMode) directResult {
	if !op.small || len(e.colls) != 0 || e.checksum || e.fatal != nil || op.more != nil || op.finish != nil ||
		len(e.sending) != 0 || len(e.reads) != 0 {
		return directRefused
	}
	// A program of nothing but small collectives that keep finishing
	// here would make no progress pass at all, and a peer outside the
	// communicator could wait for ever for its messages to us to be
	// drained: every so often, one pass.
	// The pass leaves the collective rings alone (as C's lane's does,
	// coll_cplan.go): their messages are for this rank's coming
	// collectives, which take them straight off the rings; filed as
	// unexpected, each would cost its collective a matching queue's
	// insert and removal (a non-root that runs a ring ahead of its root
	// had the root's next 64 Reduces pay that). A head that is not the
	// next collective's stops the direct run, and the ordinary path
	// drains it.
	if op.c.directRuns%directPassEvery == directPassEvery-1 {
		e.collHold = true
		e.progress()
		e.collHold = false
		if e.fatal != nil || len(e.sending) != 0 || len(e.reads) != 0 {
			return directRefused
		}
	}
	if ctx := op.c.ctx + 1; op.c.directRuns == 0 && e.ctxs[ctx] == nil {
		// The matching queues of c's collective context, made before
		// c's first direct run finishes rather than when a message
		// first arrives before its receive: that can be deep into a
		// steady state (the direct run takes messages off the ring,
		// and only one a progress pass drained first is filed), and
		// the queues are an allocation.
		e.ctxs[ctx] = match.New[Request, unexpected](e.size, e.live)
	}
	if mode == runSendsFirst {
		return e.directSendsFirst(op)
	}
	res := e.directRounds(op, mode == runBlocking)
	op.deferred = res == directDeferred
	return res
}

// directSendsFirst is a nonblocking start's direct run: the rounds up to
// the first that receives, that one's sends included (those need nothing
// from the peers); the rest is deferred.
func (e *engine) directSendsFirst(op *collOp) directResult {
	if op.rxState == replayYes && op.cur == 0 && op.skip == 0 {
		res := e.planRun(op, 0, false, true)
		op.deferred = res == directDeferred
		return res
	}
	c := op.c
	for op.cur < len(op.s.rounds) {
		rd := &op.s.rounds[op.cur]
		if rd.gate || rd.x1-rd.x0 > 64 {
			return directRefused
		}
		xs := op.s.xfers[rd.x0:rd.x1]
		recvs := false
		bit := uint64(1)
		for i := range xs {
			x := &xs[i]
			if !x.send {
				recvs = true
			} else if op.skip&bit == 0 {
				// After a refusal the rest go the ordinary way (see
				// directRounds).
				if !e.directSend(c, op.tag, x) {
					return directRefused
				}
				op.skip |= bit
			}
			bit <<= 1
		}
		if recvs {
			op.deferred = true
			return directDeferred
		}
		op.skip = 0
		if rd.s0 != rd.s1 {
			op.s.runSteps(rd)
		}
		op.cur++
	}
	return directDone
}

// resumeDirect goes on with a deferred op's direct run from where it
// stopped; spin (or, oversubscribed, yield) as in directRecv. A refusal
// clears op.deferred. Called with e.mu held, op live on e.colls.
func (e *engine) resumeDirect(op *collOp, spin bool) directResult {
	if len(e.colls) != 1 || e.checksum || e.fatal != nil || len(e.sending) != 0 || len(e.reads) != 0 {
		op.deferred = false
		return directRefused
	}
	res := e.directRounds(op, spin)
	if res != directDeferred {
		op.deferred = false
		if res == directDone {
			op.c.directRuns++
		}
	}
	return res
}

// resumeColl is a wait's or test's first look at a deferred collective:
// it resumes the direct run, and when that finishes op, takes it off the
// live list (where it is alone: resumeDirect's rule), so that the caller
// needs no progress pass. Called with e.mu held.
func (e *engine) resumeColl(op *collOp, spin bool) {
	if !op.deferred || op.bodyStore.done {
		return
	}
	switch e.resumeDirect(op, spin) {
	case directDone:
		op.bodyStore.done = true
		e.colls[0] = nil
		e.colls = e.colls[:0]
		e.flBusy()
	case directRefused:
		// The run loop takes over; it may finish op here and now, and
		// the caller may then recycle it: it must not stay live.
		if e.advance(op); op.bodyStore.done {
			e.dropColl(op)
		}
	}
}

// dropColl takes op, complete, off the live list.
func (e *engine) dropColl(op *collOp) {
	for i, x := range e.colls {
		if x == op {
			last := len(e.colls) - 1
			copy(e.colls[i:], e.colls[i+1:])
			e.colls[last] = nil
			e.colls = e.colls[:last]
			e.flBusy()
			return
		}
	}
}

// directRounds runs op's rounds from op.cur until one cannot be done
// directly: each round's transfers not yet done (op.skip), sends first
// (the peers get our data sooner) and then receives, marking each done in
// op.skip. A round not finished is left for issue, which posts only the
// unmarked transfers, or, deferred, for a later resumeDirect. (One
// function for the rounds and their transfers: a small collective's
// calls cost as much as its checks.)
func (e *engine) directRounds(op *collOp, spin bool) directResult {
	if op.rxState == replayYes {
		// The replay's plan (coll_replay.go): the same transfers in the
		// same order, their channel ends resolved.
		if k := op.planAt(); k >= 0 {
			return e.planRun(op, k, spin, false)
		}
	}
	c := op.c
	for op.cur < len(op.s.rounds) {
		rd := &op.s.rounds[op.cur]
		if rd.gate || rd.x1-rd.x0 > 64 {
			return directRefused
		}
		xs := op.s.xfers[rd.x0:rd.x1]
		bit := uint64(1)
		for i := range xs {
			if x := &xs[i]; x.send && op.skip&bit == 0 {
				// After a refusal the rest go the ordinary way, behind
				// it: a slot freed meanwhile must not let a later
				// message of the round overtake an earlier one to the
				// same peer.
				if !e.directSend(c, op.tag, x) {
					return directRefused
				}
				op.skip |= bit
			}
			bit <<= 1
		}
		bit = 1
		for i := range xs {
			if x := &xs[i]; !x.send && op.skip&bit == 0 {
				if res := e.directRecv(c, op.tag, x, spin); res != directDone {
					return res
				}
				op.skip |= bit
			}
			bit <<= 1
		}
		op.skip = 0
		if rd.s0 != rd.s1 {
			op.s.runSteps(rd)
		}
		op.cur++
	}
	return directDone
}

// directSend publishes x in its peer's collective ring, as putColl does,
// when nothing of ours waits in front of it.
func (e *engine) directSend(c *Comm, tag int, x *collXfer) bool {
	w := c.worldOf(x.peer)
	if w == e.rank || len(x.buf) > shm.CollMsgMax {
		return false
	}
	oc := e.outTo(w)
	if len(oc.CollQ) != 0 || !e.publishColl(oc, c.ctx+1, tag, x.buf) {
		return false
	}
	oc.Notify(e.rank)
	return true
}

// A blocking call of an oversubscribed job does not spin on an empty ring
// head, whose sender may need this CPU, but yields it, up to directYields
// times and for directYieldFor, before it defers to the wait: deferring
// (filing the collective, the busy word, the wait's progress passes before
// its first yield) cost more than the message took to come when the peer
// was only waiting for a CPU. C's collective lane does the same
// (cmd/libmpi_abi/collane.c).
const (
	directYields   = 16
	directYieldFor = 50 * time.Microsecond
)

// soleGoroutine reports whether the caller is the process's one
// goroutine (a variable for the tests, which have more).
var soleGoroutine = func() bool { return runtime.NumGoroutine() == 1 }

// yieldForHead yields the CPU while ic's collective ring is empty, as
// above; e.mu stays held, so only a process whose one goroutine is the
// caller does (the C library's ranks, most Go ones): no other may need
// the engine meanwhile. It returns what Peek last saw.
func yieldForHead(ic *inChan) ([]byte, error) {
	if !soleGoroutine() {
		return nil, nil
	}
	start := time.Now()
	for range directYields {
		shm.Yield()
		if slot, err := ic.Coll.Peek(); slot != nil || err != nil {
			return slot, err
		}
		if time.Since(start) >= directYieldFor {
			break
		}
	}
	return nil, nil
}

// directRecv takes x's message off the head of its peer's collective ring
// when the rule above allows: directDone when it did, directDeferred when
// nothing from the peer is there yet, directRefused otherwise.
func (e *engine) directRecv(c *Comm, tag int, x *collXfer, spin bool) directResult {
	if e.live[0] != 0 {
		return directRefused
	}
	w := c.worldOf(x.peer)
	if w == e.rank {
		return directRefused
	}
	if e.live[1] != 0 {
		// A progress pass may have filed the message already (a peer
		// that runs ahead fills the ring, and a wait drains it): the
		// oldest match there is what a posted receive would take.
		q := e.queues(c.ctx + 1)
		if u := q.FindUnexpected(w, tag); u != nil {
			if u.flight != nil || u.rtsAddr != 0 || u.syncID != 0 || u.selfSender != nil || u.length != len(x.buf) {
				return directRefused
			}
			e.takeUnexpected(q, u)
			copy(x.buf, u.data)
			e.freeUnexpected(u)
			return directDone
		}
		// Not there: then it is the next from w on the ring, as below.
	}
	ic := e.inFrom(w)
	if ic == nil {
		return directRefused
	}
	slot, err := ic.Coll.Peek()
	if spin && slot == nil && err == nil {
		if e.oversub {
			slot, err = yieldForHead(ic)
		} else {
			for i := 0; i < flSpins && slot == nil && err == nil; i++ {
				slot, err = ic.Coll.Peek()
			}
		}
	}
	if err != nil {
		return directRefused // corrupt: the drain reports it
	}
	if slot == nil {
		return directDeferred
	}
	d, payload, err := shm.DecodeColl(slot)
	if err != nil || d.Ctx != c.ctx+1 || d.Tag != int32(tag) || int(d.Len) != len(x.buf) {
		return directRefused
	}
	if d.Len <= shm.CollInlineMax {
		copy(x.buf, payload)
		ic.Coll.Release()
	} else {
		// A span (shm/coll.go): copied straight into the receive
		// buffer, then its positions handed back.
		k, err := ic.Coll.CollSpan(d.Len)
		if err != nil {
			return directRefused // cannot be (DecodeColl bounded d.Len)
		}
		ic.Coll.GatherColl(x.buf)
		ic.Coll.ReleaseColl(k)
	}
	ic.Idle = 0
	// The sender may be waiting for the slot just freed.
	ic.Bell.Ring()
	return directDone
}
