//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

// The offload engine: collectives as state machines the progress engine
// advances, after a NIC-offload design for collectives (there the card
// forwards collective traffic; here the progress engine plays the card).
//
// The collective microchannel. Every communicator owns two contexts: ctx for
// point-to-point and ctx+1 for its collectives. A collective whose messages
// fit a collective slot travels on each pair's collective ring
// (coll_ring.go, shm/coll.go), apart from the descriptor ring; a larger one
// travels the descriptor ring (cells, direct copy) on ctx+1. Either way the
// receiving engine files the arrival under ctx+1, a receive structure that
// no user receive can ever name: collective traffic never meets
// point-to-point matching. Within ctx+1 the tag is the collective's
// sequence number on the communicator, so a message that arrives for a
// collective this rank has not started yet (ranks may be several
// collectives ahead) waits, buffered, for exactly that collective, and any
// number of collectives may be in flight at once.
//
// The control entry. A started collective is a collOp: the communicator,
// its sequence number, and a schedule of rounds, each a set of receives and
// sends (peers from the operation's tree or ring) followed by local work
// (combining received data). The engine keeps the live ones on e.colls and
// advances each whenever it runs: inside any MPI call, in a blocking wait,
// or in the asynchronous progress goroutine. Start fills the entry; check
// (Request.Test) and wait (Request.Wait) observe its completion; a blocking
// collective is start followed by wait.
//
// Why no acknowledgement round (the thesis's loose synchronisation): there
// a broadcast's next collective had to wait for the children's acks because
// the card had one receive slot per channel. Here every message carries its
// collective's sequence number and early arrivals are buffered, so a fast
// root can run ahead by any number of collectives without a message being
// taken by the wrong one, and each ring keeps per-pair order (and all the
// messages of one collective take the same ring), so two messages
// of one collective between the same pair are received in the order sent.

// collOp is a collective's control entry and its schedule (coll_sched.go).
// A communicator keeps finished ones on a free list (getOp, putOp), so a
// collective in steady state, whichever its form, allocates nothing: the
// entry, its request, its schedule's arrays and scratch are all reused.
// Guarded by e.mu.
type collOp struct {
	c      *Comm
	tag    int
	req    *Request
	s      schedule
	cur    int  // index of the round in progress
	issued bool // the current round's messages are posted
	// skip marks the current round's transfers the direct run did
	// (coll_direct.go), which issue leaves out.
	skip uint64
	// deferred: a nonblocking start published its first round's sends
	// directly and left the rest for the wait, a test or any progress
	// pass, which resume the direct run (resumeColl) until it is refused.
	deferred bool
	pending  []*Request // the current round's receives and sends
	err      error
	small    bool // every message travels the collective ring
	// persistent: owned by a Persistent, which starts it again and
	// again; never recycled through its request.
	persistent bool
	// fixedTag: tag was drawn when the persistent collective was bound,
	// and every Start reuses it. MPI 4.0 matches persistent collectives
	// by the order of their *_init calls, not of their Starts, so ranks
	// may start two of them in different orders; each run of one op is
	// complete on a rank before its next Start, and a pair's messages
	// stay in order, so runs of one op never mix.
	fixedTag bool
	// pooled: taken from a communicator's free list (getOp), and so
	// returned there; an entry made elsewhere is its maker's.
	pooled bool
	// more and finish serve an entry made outside the free list whose
	// schedule is open-ended (a multi-attempt agreement, ctxagree.go):
	// when its rounds have run, more may append rounds to it, reporting
	// whether it did; finish runs once after the last round, before the
	// request completes.
	more   func() bool
	finish func()
	// key is the memo key of a nonblocking collective's call
	// (coll_memo.go), under which its entry is memoised once collected.
	key collKey
	// vkey is a v-collective's arrays as its key (saveCounts), copies
	// in vcounts: countsKey's four, then its more's moreKeys when vmore.
	vkey    [4 + moreKeys][]int
	vmore   bool
	vcounts []int
	// slot is the memo slot the entry was taken from while it runs
	// (coll_memo.go), -1 when none: it goes back there.
	slot     int8
	reqStore Request
	// bodyStore is reqStore's state (launchRun points it there).
	bodyStore reqBody
	pendBuf   [4]*Request
	// gateTicket orders the op's gate round among c's (coll_gate.go);
	// gateGen is the gate's generation when it arrived.
	gateTicket uint64
	gateGen    uint32
	// rx is s as a replay plan when rxState is replayYes: a memoised
	// blocking call may then replay the schedule (coll_replay.go).
	rx      []replayStep
	rxState replayState
}

// collFreeMax bounds a communicator's free list of control entries.
const collFreeMax = 8

// getOp takes a control entry from c's free list, or a new one, with its
// schedule reset for a build. Called with e.mu held.
func (c *Comm) getOp() *collOp {
	var op *collOp
	if n := len(c.collFree); n > 0 {
		op = c.collFree[n-1]
		c.collFree[n-1] = nil
		c.collFree = c.collFree[:n-1]
	} else {
		op = &collOp{pooled: true}
		op.pending = op.pendBuf[:0]
		op.reqStore.reqBody = &op.bodyStore
	}
	op.s.reset()
	op.rxState = replayUnknown
	op.key = collKey{} // a caller that memoises sets its own
	op.slot = -1
	return op
}

// putOp returns a finished op to c's free list. Called with e.mu held.
func (c *Comm) putOp(op *collOp) {
	c.cplanDropped(op)
	op.s.release()
	clear(op.rx)
	op.rx, op.rxState = op.rx[:0], replayUnknown
	// reqStore stays as it is: a user still holding the request of a
	// recycled nonblocking collective sees it spent until the entry is
	// launched again.
	op.c, op.err, op.req, op.fixedTag = nil, nil, nil, false
	if op.pooled && len(c.collFree) < collFreeMax {
		c.collFree = append(c.collFree, op)
	}
}

// Collective tags: bit 30 clear for the communicator's own collectives (the
// sequence number), bit 30 set for the scratch communicators of CreateGroup
// (which run on the parent's collective context; see commops.go).
const (
	collSeqMask      = 1<<30 - 1
	collGroupTagBit  = 1 << 30
	collGroupSeqBits = 18
)

// nextTag draws the tag of c's next collective. Every rank starts the
// collectives of a communicator in the same order (MPI requires it), so the
// k-th collective gets the same tag everywhere.
func (c *Comm) nextTag() int {
	seq := c.seqWord()
	*seq++
	if c.tagBase != 0 {
		return c.tagBase | int(*seq&(1<<collGroupSeqBits-1))
	}
	return int(*seq & collSeqMask)
}

// launchMode is how far a collective's start goes on its own.
type launchMode uint8

const (
	// runStart: as far as the peers' messages already there allow,
	// without waiting (persistent starts, the C ABI's nonblocking
	// starts, which are spent at once when complete).
	runStart launchMode = iota
	// runBlocking: as runStart, spinning briefly on a message about to
	// land (only a blocking call should).
	runBlocking
	// runSendsFirst: publish the first round's sends and return, leaving
	// the receives and the reductions to the wait or test (a Go
	// nonblocking start: what is left then overlaps the caller's
	// computation, and a late rank's start stays cheap).
	runSendsFirst
	// runAdaptive: a C nonblocking start, runStart or runSendsFirst as
	// the communicator's last nonblocking collectives were completed
	// (coll_cstart.go, adaptiveMode).
	runAdaptive
)

// nbMode is how far a nonblocking start goes (coll_cstart.go).
func nbMode() launchMode {
	if collStartsComplete {
		return runAdaptive
	}
	return runSendsFirst
}

// launch starts op, whose schedule is built: it draws the tag, makes
// the own copy unless the caller (a blocking call, which makes it outside
// the lock) did, runs what it can directly (coll_direct.go), posts the
// next round and files op with the live collectives unless it finished at
// once. Called with e.mu held.
func (e *engine) launch(c *Comm, op *collOp, ownDone bool) { e.launchRun(c, op, ownDone, runStart) }

// launchRun is launch in the given mode.
func (e *engine) launchRun(c *Comm, op *collOp, ownDone bool, mode launchMode) {
	if mode == runAdaptive {
		mode = c.adaptiveMode()
	}
	if !op.fixedTag {
		op.tag = c.nextTag()
	}
	op.c, op.small = c, op.s.small && e.region != nil
	if len(op.s.rounds) > 0 && op.s.rounds[0].gate {
		op.gateTicket = c.gate.next
		c.gate.next++
	}
	op.cur, op.issued, op.err, op.skip, op.deferred = 0, false, nil, 0, false
	// The request is reset field by field: it was a collective's request
	// before (or is new), so only what a run changes needs clearing, and
	// zeroing the whole struct cost a small collective ≈40 instructions.
	// Through the state itself, not the handle: the handle's pointer to
	// it (set once, where the op is made) would be loaded again for
	// every field.
	r, b := &op.reqStore, &op.bodyStore
	if r.reqBody == nil {
		r.reqBody = b
	}
	b.e, b.kind, b.comm, b.done, b.spent, b.status, b.err, b.parent = e, reqColl, c, false, false, Status{}, nil, nil
	b.coll, b.pcoll, b.pending, b.cancelAsked = nil, nil, 0, false
	op.req = r
	if op.pooled && !op.persistent {
		b.coll = op
	} else if op.persistent {
		b.pcoll = op
	}
	if !ownDone && op.s.own[0] != nil {
		copy(op.s.own[0], op.s.own[1])
	}
	switch e.directRun(op, mode) {
	case directDone:
		// Ran to the end: the run loop has nothing left to do.
		b.done = true
		c.directRuns++
		return
	case directDeferred:
		// Live with nothing posted: C's collective lane must stay off
		// the rings until it is done.
		e.colls = append(e.colls, op)
		e.flBusy()
		return
	}
	e.advance(op)
	if !b.done {
		e.colls = append(e.colls, op)
		e.flBusy()
	}
}

// advanceColls moves every live collective as far as it can go, and drops
// the finished ones. It reports whether anything moved.
func (e *engine) advanceColls() bool {
	did := false
	keep := e.colls[:0]
	for _, op := range e.colls {
		if e.advance(op) {
			did = true
		}
		if !op.bodyStore.done {
			keep = append(keep, op)
		}
	}
	clear(e.colls[len(keep):])
	e.colls = keep
	e.flBusy()
	return did
}

// advance runs op's rounds until one has a message still in flight.
func (e *engine) advance(op *collOp) bool {
	did := false
	if op.deferred {
		switch e.resumeDirect(op, false) {
		case directDone:
			op.req.complete(Status{}, nil)
			return true
		case directDeferred:
			return false
		}
		// Refused: the run loop issues the rest of the round (op.skip
		// marks what the direct run did) and takes over.
		did = true
	}
	for op.cur < len(op.s.rounds) || (op.more != nil && op.err == nil && !op.bodyStore.done && op.more()) {
		rd := &op.s.rounds[op.cur]
		if rd.gate {
			if !e.advanceGate(op) {
				return did
			}
			op.cur++
			op.issued = false
			did = true
			continue
		}
		if !op.issued {
			e.issue(op, rd)
			op.issued = true
			did = true
		}
		for _, r := range op.pending {
			if !r.done {
				return did
			}
		}
		for _, r := range op.pending {
			if op.err != nil {
				break
			}
			op.err = r.err
			if op.err == nil && r.kind == reqRecv && r.status.Count != len(r.buf) {
				// Shorter than this rank expected: the ranks disagree
				// on the counts.
				op.err = newErr(ErrCount, "collective", "rank %d sent %d bytes, %d expected", r.status.Source, r.status.Count, len(r.buf))
			}
		}
		// Complete and no longer referenced by the engine: recycle.
		for i, r := range op.pending {
			e.freeInternalReq(r)
			op.pending[i] = nil
		}
		op.pending = op.pending[:0]
		if op.err == nil {
			op.s.runSteps(rd)
		}
		op.cur++
		op.issued = false
		did = true
	}
	if !op.bodyStore.done {
		if op.finish != nil {
			op.finish()
		}
		op.req.complete(Status{}, op.err)
		did = true
	}
	return did
}

// issue posts a round's receives (first, so a message from a fast peer
// finds its receive) and then its sends.
func (e *engine) issue(op *collOp, rd *schedRound) {
	c := op.c
	xs := op.s.xfers[rd.x0:rd.x1]
	skip := op.skip
	op.skip = 0
	for i := range xs {
		x := &xs[i]
		if x.send || skip&(1<<i) != 0 {
			continue
		}
		r := e.newInternalReq(reqRecv)
		c.initRecv(r, c.ctx+1, x.buf, x.peer, op.tag)
		e.postRecv(r)
		op.pending = append(op.pending, r)
	}
	for i := range xs {
		x := &xs[i]
		if !x.send || skip&(1<<i) != 0 {
			continue
		}
		r := e.newInternalReq(reqSend)
		w := c.worldOf(x.peer)
		if op.small && w != e.rank && len(x.buf) <= shm.CollMsgMax {
			r.comm, r.peer, r.sbuf, r.ctx, r.m.Tag = c, w, x.buf, c.ctx+1, op.tag
			e.sendColl(e.outTo(w), r)
		} else if x.read && w != e.rank {
			e.startReadSend(r, c, w, x.buf, op.tag)
		} else {
			e.startSend(r, c, c.ctx+1, w, x.buf, op.tag, false)
		}
		op.pending = append(op.pending, r)
	}
}

// blocking runs a blocking collective: build writes its schedule (and
// checks the arguments; an error leaves nothing started), then it runs to
// completion.
func (c *Comm) blocking(what string, build func(s *schedule) error) error {
	return c.blockingKeyed(what, collKey{}, nil, build)
}

// blockingKeyed is blocking for a call with a memo key (coll_memo.go): a
// call with the key of c's memoised schedule runs that schedule again
// without building it.
func (c *Comm) blockingKeyed(what string, key collKey, v *countsKey, build func(s *schedule) error) error {
	if ok, err := c.runMemo(what, &key, v, -1); ok {
		return err
	}
	return c.blockingBuild(what, key, v, build)
}

// blockingBuild is blockingKeyed after the memo's fast path missed.
func (c *Comm) blockingBuild(what string, key collKey, v *countsKey, build func(s *schedule) error) error {
	if err := c.check(what); err != nil {
		return err
	}
	e := c.e
	e.mu.Lock()
	key.setOversub(e.oversub)
	op := c.takeMemo(&key, v)
	if op == nil {
		op = c.getOp()
		if err := build(&op.s); err != nil {
			c.putOp(op)
			e.mu.Unlock()
			return err
		}
		if v != nil && key.kind() != memoNone {
			saveCounts(op, v)
		}
	}
	return c.runBlocking(what, &key, op, -1, 0)
}

// runBlocking runs op, built, to completion and memoises it under key;
// slot >= 0: op is the entry of that memo slot, taken out by runMemo,
// whose key is key while the slot's generation is gen. Called with e.mu
// held; returns with it released.
func (c *Comm) runBlocking(what string, key *collKey, op *collOp, slot int, gen uint32) error {
	e := c.e
	if e.fatal != nil {
		c.putOp(op)
		e.mu.Unlock()
		return e.fatal
	}
	own := op.s.own[0] != nil
	if own && !op.s.ownAfter {
		e.copyOwn(&op.s)
	}
	e.launchRun(c, op, own, runBlocking)
	if own && op.s.ownAfter {
		e.copyOwn(&op.s)
	}
	return c.finishBlocking(what, key, op, slot, gen)
}

// finishBlocking is runBlocking once op is launched: it waits for op and
// puts it back in the memo. Called with e.mu held; returns with it
// released.
func (c *Comm) finishBlocking(what string, key *collKey, op *collOp, slot int, gen uint32) error {
	e := c.e
	var err error
	if !op.bodyStore.done {
		e.gateOp = op
		err = e.waitUntil(func() bool { return op.bodyStore.done })
		e.gateOp = nil
	}
	if err != nil {
		e.mu.Unlock()
		// op may still be live in e.colls: never reuse it.
		return &Error{Class: ClassOf(err), Op: what, Msg: err.Error()}
	}
	if err := op.bodyStore.err; err != nil {
		c.putOp(op)
		e.mu.Unlock()
		return wrapCollErr(what, err)
	}
	if m := &c.memo[slot&(memoSlots-1)]; slot >= 0 && m.op == nil && m.gen == gen {
		// Back where it came from: the key is there already. Its C plan
		// stayed valid (C cannot run while this does); the C ABI's call
		// that came here may have found none yet, or an unkeyed one.
		m.op = op
		if c.cp != nil {
			c.cplanBack(slot, op)
		}
	} else {
		c.keepMemo(key, op)
	}
	e.mu.Unlock()
	return nil
}

// copyOwn makes a schedule's own copy with e.mu released when it is large,
// so the engine (the async progress goroutine) keeps serving the peers
// meanwhile; the buffers are the caller's and nothing else touches them.
func (e *engine) copyOwn(s *schedule) {
	if len(s.own[0]) < 4<<10 {
		copy(s.own[0], s.own[1])
		return
	}
	e.mu.Unlock()
	copy(s.own[0], s.own[1])
	e.mu.Lock()
}

// nonblocking starts a nonblocking collective and hands back its request.
// The control entry goes back to c's free list when the request's
// completion is collected (Request.collect).
func (c *Comm) nonblocking(what string, build func(s *schedule) error) (*Request, error) {
	return c.nonblockingKeyed(what, collKey{}, nil, build)
}

// nonblockingKeyed is nonblocking for a call with a memo key
// (coll_memo.go): it runs the memoised schedule when the key is its, and
// its entry becomes the memo when the request is collected.
func (c *Comm) nonblockingKeyed(what string, key collKey, v *countsKey, build func(s *schedule) error) (*Request, error) {
	if r := c.startMemo(&key, v); r != nil {
		return r, nil
	}
	if err := c.check(what); err != nil {
		return nil, err
	}
	e := c.e
	e.mu.Lock()
	key.setOversub(e.oversub)
	op := c.takeMemo(&key, v)
	if op == nil {
		op = c.getOp()
		if err := build(&op.s); err != nil {
			c.putOp(op)
			e.mu.Unlock()
			return nil, err
		}
		if v != nil && key.kind() != memoNone {
			saveCounts(op, v)
		}
	}
	op.key = key
	if e.fatal != nil {
		c.putOp(op)
		e.mu.Unlock()
		return nil, e.fatal
	}
	e.launchRun(c, op, false, nbMode())
	e.mu.Unlock()
	return op.req, nil
}

// waitColl is Wait for a nonblocking collective's request: a deferred
// collective goes on directly first (coll_direct.go), spinning briefly
// as a blocking call does, and only then waits the ordinary way.
func (r *Request) waitColl() (Status, error) {
	e := r.e
	e.mu.Lock()
	op := r.coll
	if r.spent || op == nil {
		e.mu.Unlock()
		return Status{}, newErr(ErrRequest, "Wait", "request already completed and freed")
	}
	if !r.done {
		op.c.nbWaited()
		e.resumeColl(op, true)
		if !r.done {
			if err := e.waitUntil(func() bool { return r.done }); err != nil {
				e.mu.Unlock()
				return Status{}, err
			}
		}
	}
	st, err := r.collect()
	e.mu.Unlock()
	return st, err
}

// recycle puts a nonblocking collective's entry back on its
// communicator's free list once the user has collected its request (and
// the request has let go of op). Called with e.mu held.
func (op *collOp) recycle() {
	switch {
	case op.c == nil:
	case op.err == nil:
		op.c.keepMemo(&op.key, op)
	default:
		op.c.putOp(op)
	}
}

func wrapCollErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Class: ClassOf(err), Op: what, Msg: err.Error()}
}
