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

// collRound is one step of a schedule: post the receives, start the sends,
// and when all have completed run after (if any).
type collRound struct {
	recvs []collXfer
	sends []collXfer
	after func()
	// step is local work like after, as data instead of a closure, so
	// the blocking fast path (coll_fast.go) builds rounds without
	// allocating. Runs when after is nil and step.red is set.
	step collStep
}

// collXfer is one message of a round: the peer (a rank of the
// communicator) and the buffer sent from or received into.
type collXfer struct {
	peer int
	buf  []byte
}

// collOp is a collective's control entry. Guarded by e.mu.
type collOp struct {
	c       *Comm
	tag     int
	req     *Request
	rounds  []collRound
	cur     int        // index of the round in progress
	issued  bool       // the current round's messages are posted
	pending []*Request // the current round's receives and sends
	err     error
	small   bool // every message fits a collective slot (coll_ring.go)
	// finish runs once, after the last round, for results that need the
	// whole schedule (e.g. a copy out of a scratch buffer).
	finish func()
	// Inline storage, so a small collective allocates its entry once.
	reqStore Request
	pendBuf  [4]*Request
}

// schedule collects the rounds of a collective being built.
type schedule struct {
	rounds []collRound
	finish func()
	small  bool
}

// fitsSlot marks the schedule for the collective microchannel when its
// largest message, size bytes, fits a collective slot. size must be a value
// every rank computes alike (a length MPI requires to agree), so that all
// the messages of the collective travel the same ring.
func (s *schedule) fitsSlot(size int) { s.small = size <= shm.CollInlineMax }

func (s *schedule) round(r collRound) { s.rounds = append(s.rounds, r) }

// local adds a round with no messages, only local work.
func (s *schedule) local(f func()) { s.rounds = append(s.rounds, collRound{after: f}) }

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
	c.collSeq++
	if c.tagBase != 0 {
		return c.tagBase | int(c.collSeq&(1<<collGroupSeqBits-1))
	}
	return int(c.collSeq & collSeqMask)
}

// startColl turns a schedule into a live control entry, posts its first
// round and runs it as far as it goes without waiting. Called with e.mu
// held.
func (e *engine) startColl(c *Comm, s *schedule) *collOp {
	op := &collOp{rounds: s.rounds, finish: s.finish}
	e.launch(c, op, s.small)
	return op
}

// launch starts op, whose rounds are filled in: it draws the tag, posts
// the first round and files op with the live collectives unless it
// finished at once. Called with e.mu held.
func (e *engine) launch(c *Comm, op *collOp, small bool) {
	op.c, op.tag, op.small = c, c.nextTag(), small && e.region != nil
	op.req = &op.reqStore
	op.req.e, op.req.kind, op.req.comm = e, reqColl, c
	if cap(op.pending) < len(op.pendBuf) {
		// The inline array, unless the caller brought a larger list
		// (the fast path keeps one between calls).
		op.pending = op.pendBuf[:0]
	}
	e.advance(op)
	if !op.req.done {
		e.colls = append(e.colls, op)
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
		if !op.req.done {
			keep = append(keep, op)
		}
	}
	clear(e.colls[len(keep):])
	e.colls = keep
	return did
}

// advance runs op's rounds until one has a message still in flight.
func (e *engine) advance(op *collOp) bool {
	did := false
	for op.cur < len(op.rounds) {
		rd := &op.rounds[op.cur]
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
		if rd.after != nil {
			rd.after()
		} else if rd.step.red != nil {
			rd.step.run()
		}
		op.rounds[op.cur] = collRound{} // let the buffers go
		op.cur++
		op.issued = false
		did = true
	}
	if !op.req.done {
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
func (e *engine) issue(op *collOp, rd *collRound) {
	c := op.c
	for _, x := range rd.recvs {
		r := e.newInternalReq(reqRecv)
		c.initRecv(r, c.ctx+1, x.buf, x.peer, op.tag)
		e.postRecv(r)
		op.pending = append(op.pending, r)
	}
	for _, x := range rd.sends {
		r := e.newInternalReq(reqSend)
		w := c.worldOf(x.peer)
		if op.small && w != e.rank && len(x.buf) <= shm.CollInlineMax {
			r.comm, r.peer, r.sbuf, r.ctx, r.tag = c, w, x.buf, c.ctx+1, op.tag
			e.sendColl(e.outTo(w), r)
		} else {
			e.startSend(r, c, c.ctx+1, w, x.buf, op.tag, false)
		}
		op.pending = append(op.pending, r)
	}
}

// runColl is a blocking collective: start it and wait for it.
func (c *Comm) runColl(what string, s *schedule) error {
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return e.fatal
	}
	op := e.startColl(c, s)
	if err := e.waitUntil(func() bool { return op.req.done }); err != nil {
		return &Error{Class: ClassOf(err), Op: what, Msg: err.Error()}
	}
	return wrapCollErr(what, op.req.err)
}

// startNonblocking is a nonblocking collective: start it and hand back the
// request.
func (c *Comm) startNonblocking(s *schedule) (*Request, error) {
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return nil, e.fatal
	}
	return e.startColl(c, s).req, nil
}

func wrapCollErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Class: ClassOf(err), Op: what, Msg: err.Error()}
}
