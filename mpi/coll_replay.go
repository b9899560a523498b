//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/shm"

// The replay: a blocking collective that hits the memo (coll_memo.go) and
// whose schedule the direct run could do whole runs it again in one flat
// loop, with the channel ends of its transfers resolved when the entry was
// first replayed. It is the direct run (coll_direct.go) under the same rule
// — publish when nothing of ours is queued toward the peer and a slot is
// free; take the ring head when no receive is posted, no unexpected
// message waits and the head is this collective's message of the expected
// length — minus what a call that repeats the last one need not do again:
// resolve each peer's world rank and channel, open the channel, set up
// the request (a blocking call that finishes here never hands it out),
// decode the envelope field by field, and the layers between the memo's
// lookup and the transfers (runBlocking, launchRun, directRun,
// directRounds), each with its own checks. At 2 ranks those were more
// than half of a Barrier's instructions.
//
// The first transfer it may not do hands the collective to the ordinary
// path at that round, the transfers done marked (op.skip), exactly as a
// direct run stopped there: deferred when the peer's message is not there
// yet (the wait's progress passes resume it), else issued by the run loop.

// replayStep is one transfer of a replayed schedule, in the order the
// replay does them: per round its sends, then its receives (as
// directRounds). A round with local steps ends with a step of neither
// kind, or its last transfer carries them (steps).
type replayStep struct {
	oc  *outChan // a send's outgoing end
	ic  *inChan  // a receive's incoming end
	buf []byte
	// before marks the transfers of the round done ahead of this one
	// (op.skip's bits), for a hand-over here.
	before uint64
	round  int32
	x      int32 // the transfer's index in the schedule's xfers
	// steps: the round's local steps run after this transfer, the
	// round's last; one, when the round has a single step, is it (run
	// in line: runSteps' loop and call cost an Allreduce's two ≈100).
	steps bool
	one   *collStep
	// A message of more than one slot (shm's spans, up to CollMsgMax)
	// has its channel end here instead of in oc or ic: sent by putSpan,
	// taken by takeSpan. Apart, so that the one-slot transfers' path
	// tests nothing more (a flag tested there cost a 2-rank Barrier ~7
	// instructions).
	spanOut *outChan
	spanIn  *inChan
}

// replayState says whether an entry's schedule may be replayed.
type replayState uint8

const (
	replayUnknown replayState = iota // not looked at since the build
	replayYes                        // op.rx is its plan
	replayNo
)

// replayPlan decides whether op may be replayed, writing its plan (op.rx)
// the first time. A channel not made yet (the peer has not sent to us, or
// we have not sent to it) leaves the question open for the next call.
// Called with e.mu held.
func (e *engine) replayPlan(c *Comm, op *collOp) bool {
	if op.rxState != replayUnknown {
		return op.rxState == replayYes
	}
	s := &op.s
	// A persistent collective's plan serves its starts' direct runs
	// (planRun, with the tag drawn at its binding); only memo entries are
	// replayed whole (runMemo), and a persistent one never is in the memo.
	if !s.small || e.region == nil || op.more != nil || op.finish != nil ||
		len(s.own[0]) > shm.CollMsgMax {
		op.rxState = replayNo
		return false
	}
	rx := op.rx[:0]
	for r := range s.rounds {
		rd := &s.rounds[r]
		if rd.gate || rd.x1-rd.x0 > 64 {
			op.rxState = replayNo
			return false
		}
		xs := s.xfers[rd.x0:rd.x1]
		var done uint64
		for pass := range 2 {
			for j := range xs {
				x := &xs[j]
				if x.send != (pass == 0) {
					continue
				}
				w := c.worldOf(x.peer)
				if w == e.rank || len(x.buf) > shm.CollMsgMax {
					op.rxState = replayNo
					return false
				}
				st := replayStep{buf: x.buf, before: done, round: int32(r), x: rd.x0 + int32(j)}
				if x.send {
					if st.oc = e.outTo(w); st.oc.CollProd == nil {
						return false
					}
				} else if st.ic = e.inFrom(w); st.ic == nil {
					return false
				}
				if len(x.buf) > shm.CollInlineMax {
					st.spanOut, st.spanIn, st.oc, st.ic = st.oc, st.ic, nil, nil
				}
				done |= 1 << j
				rx = append(rx, st)
			}
		}
		if rd.s0 != rd.s1 {
			if len(xs) == 0 {
				rx = append(rx, replayStep{before: 0, round: int32(r)})
			}
			rx[len(rx)-1].steps = true
			if rd.s1-rd.s0 == 1 {
				rx[len(rx)-1].one = &s.steps[rd.s0]
			}
		}
	}
	op.rx, op.rxState = rx, replayYes
	return true
}

// replay runs op, the entry of memo slot i, taken out of it, to the end
// directly, and puts it back: true. Where it stops instead it leaves op's
// tag, round, done transfers (op.skip) and whether it waits for a
// message (op.deferred) for replayRest, and reports false. The caller
// checked what directRun checks of the engine. Called with e.mu held,
// which a true return released. Its loop is planRun's, in line: the call
// and the state planRun keeps in op cost a 2-rank Barrier ~25
// instructions of ~540. (Few arguments: each is spilled and reloaded
// around the loop's calls.)
func (c *Comm) replay(op *collOp, i int) bool {
	e := c.e
	seq := c.seqWord()
	*seq++
	tag := int(*seq & collSeqMask)
	if c.tagBase != 0 {
		tag = c.tagBase | int(*seq&(1<<collGroupSeqBits-1))
	}
	s := &op.s
	if s.own[0] != nil && !s.ownAfter {
		copy(s.own[0], s.own[1])
	}
	ctx, tag32 := c.ctx+1, int32(tag)
	for k := range op.rx {
		st := &op.rx[k]
		if oc := st.oc; oc != nil {
			var sl []byte
			if len(oc.CollQ) == 0 {
				sl = oc.CollProd.Reserve()
			}
			if sl == nil {
				// After a refusal the rest of the round goes the
				// ordinary way, behind it.
				op.replayStop(tag, st, false)
				return false
			}
			shm.EncodeCollMsg(sl, ctx, tag32, st.buf)
			oc.CollProd.Publish(sl)
			oc.Summary.Mark(e.rank)
			oc.Bell.Ring()
		} else if ic := st.ic; ic != nil {
			if e.live[0] != 0 || e.live[1] != 0 {
				// A receive posted (from C), or an unexpected message
				// that may be this one: directRecv knows.
				if res := e.directRecv(c, tag, &s.xfers[st.x], !e.oversub); res != directDone {
					op.replayStop(tag, st, res == directDeferred)
					return false
				}
			} else {
				sl := ic.Coll.Head()
				for n := 0; sl == nil && n < flSpins && !e.oversub; n++ {
					sl = ic.Coll.Head()
				}
				if sl == nil || !shm.CollMsgIs(sl, ctx, tag32, len(st.buf)) {
					op.replayStop(tag, st, sl == nil)
					return false
				}
				copy(st.buf, sl[shm.CollHeader:])
				ic.Coll.ReleaseHead(sl)
				ic.Idle = 0
				// The sender may be waiting for the slot just freed.
				ic.Bell.Ring()
			}
		} else if st.spanOut != nil || st.spanIn != nil {
			if res := e.spanStep(c, tag, s, st, !e.oversub); res != directDone {
				op.replayStop(tag, st, res == directDeferred)
				return false
			}
		}
		if st.steps {
			if one := st.one; one == nil {
				s.runSteps(&s.rounds[st.round])
			} else if one.kind != stepReduce {
				copy(one.dst, one.src)
			} else if !applySmall(s.red.small, one.src, one.dst) {
				s.red.apply(one.src, one.dst)
			}
		}
	}
	if s.own[0] != nil && s.ownAfter {
		copy(s.own[0], s.own[1])
	}
	c.directRuns++
	c.replays++
	// Back where it came from: e.mu was held throughout, so the slot is
	// as runMemo left it.
	c.memo[i&(memoSlots-1)].op = op
	if c.cp != nil {
		c.cplanKept(i, op)
	}
	e.mu.Unlock()
	return true
}

// putSpan publishes buf, a message of more than one slot (up to
// CollMsgMax), in the positions at oc's ring tail; false, nothing
// written, when they are not all free. Out of line, so that the one-slot
// path keeps its inlined Reserve and Publish. Before spans were replayed
// a 1 KiB collective took the direct run's layers (launchRun, directRun,
// directRounds, publishColl) on every call.
func putSpan(oc *outChan, ctx uint32, tag int32, buf []byte) bool {
	return oc.CollProd.PutColl(shm.CollDesc{Ctx: ctx, Tag: tag, Len: uint32(len(buf))}, buf, 0)
}

// takeSpan copies the message at ic's ring head, a span whose envelope
// (CollMsgIs) says len(buf) bytes, straight into buf and hands its
// positions back.
func takeSpan(ic *inChan, buf []byte) {
	ic.Coll.GatherColl(buf)
	ic.Coll.ReleaseColl(shm.CollSpanSlots(len(buf)))
}

// spanStep is st's transfer when its message spans slots (st.spanOut or
// st.spanIn), under the rule the one-slot transfers follow in line in
// replay and planRun: directDone, or directRefused or directDeferred
// where it stops (spin: look for the peer's message a while first).
func (e *engine) spanStep(c *Comm, tag int, s *schedule, st *replayStep, spin bool) directResult {
	ctx, tag32 := c.ctx+1, int32(tag)
	if oc := st.spanOut; oc != nil {
		if len(oc.CollQ) != 0 || !putSpan(oc, ctx, tag32, st.buf) {
			return directRefused
		}
		oc.Summary.Mark(e.rank)
		oc.Bell.Ring()
		return directDone
	}
	if e.live[0] != 0 || e.live[1] != 0 {
		return e.directRecv(c, tag, &s.xfers[st.x], spin)
	}
	ic := st.spanIn
	sl := ic.Coll.Head()
	for n := 0; sl == nil && spin && n < flSpins; n++ {
		sl = ic.Coll.Head()
	}
	if sl == nil {
		return directDeferred
	}
	if !shm.CollMsgIs(sl, ctx, tag32, len(st.buf)) {
		return directRefused
	}
	takeSpan(ic, st.buf)
	ic.Idle = 0
	// The sender may be waiting for the positions just freed.
	ic.Bell.Ring()
	return directDone
}

// replayStop records where a replay stopped: at st, with the transfers of
// st's round before it done, waiting for st's message (deferred) or
// refused.
func (op *collOp) replayStop(tag int, st *replayStep, deferred bool) {
	op.tag, op.cur, op.skip, op.deferred = tag, int(st.round), st.before, deferred
}

// planRun is the direct run (directRounds, or directSendsFirst when
// sendsFirst) of op, whose plan op.rx is, from its step k on: op.tag
// drawn, op.c set; spin as in directRecv. Where it stops it leaves op.cur
// and op.skip as directRounds would. (Few arguments and results: each is
// spilled and reloaded around the loop's calls.)
func (e *engine) planRun(op *collOp, k int, spin, sendsFirst bool) directResult {
	c := op.c
	ctx, tag32 := c.ctx+1, int32(op.tag)
	s := &op.s
	for ; k < len(op.rx); k++ {
		st := &op.rx[k]
		if oc := st.oc; oc != nil {
			var sl []byte
			if len(oc.CollQ) == 0 {
				sl = oc.CollProd.Reserve()
			}
			if sl == nil {
				// After a refusal the rest of the round goes the
				// ordinary way, behind it.
				op.cur, op.skip = int(st.round), st.before
				return directRefused
			}
			shm.EncodeCollMsg(sl, ctx, tag32, st.buf)
			oc.CollProd.Publish(sl)
			oc.Summary.Mark(e.rank)
			oc.Bell.Ring()
		} else if ic := st.ic; ic != nil {
			if sendsFirst {
				op.cur, op.skip = int(st.round), st.before
				return directDeferred
			}
			if e.live[0] != 0 || e.live[1] != 0 {
				// A receive posted (from C), or an unexpected message
				// that may be this one: directRecv knows.
				if res := e.directRecv(c, op.tag, &s.xfers[st.x], spin); res != directDone {
					op.cur, op.skip = int(st.round), st.before
					return res
				}
			} else {
				sl := ic.Coll.Head()
				for n := 0; sl == nil && spin && n < flSpins; n++ {
					sl = ic.Coll.Head()
				}
				if sl == nil || !shm.CollMsgIs(sl, ctx, tag32, len(st.buf)) {
					op.cur, op.skip = int(st.round), st.before
					if sl == nil {
						return directDeferred
					}
					return directRefused
				}
				copy(st.buf, sl[shm.CollHeader:])
				ic.Coll.ReleaseHead(sl)
				ic.Idle = 0
				// The sender may be waiting for the slot just freed.
				ic.Bell.Ring()
			}
		} else if st.spanOut != nil || st.spanIn != nil {
			res := directDeferred
			if st.spanOut != nil || !sendsFirst {
				res = e.spanStep(c, op.tag, s, st, spin)
			}
			if res != directDone {
				op.cur, op.skip = int(st.round), st.before
				return res
			}
		}
		if st.steps {
			if one := st.one; one == nil {
				s.runSteps(&s.rounds[st.round])
			} else if one.kind != stepReduce {
				copy(one.dst, one.src)
			} else if !applySmall(s.red.small, one.src, one.dst) {
				s.red.apply(one.src, one.dst)
			}
		}
	}
	op.cur, op.skip = len(s.rounds), 0
	return directDone
}

// planAt is the step of op's plan a direct run stopped at (op.cur, with
// op.skip done), or -1 when no step is: the direct run marks a round's
// sends and then its receives in the order of its transfers, as the plan
// lists them, so a stop is always at one, unless the run loop took over.
func (op *collOp) planAt() int {
	if op.cur >= len(op.s.rounds) {
		return len(op.rx)
	}
	for k := range op.rx {
		if st := &op.rx[k]; int(st.round) == op.cur && st.before == op.skip {
			return k
		}
		if int(op.rx[k].round) > op.cur {
			break
		}
	}
	return -1
}

// replayRest hands a replay that stopped (replayStop) to the ordinary
// path, as a direct run stopped there. Called with e.mu held; returns
// with it released, as runBlocking.
func (c *Comm) replayRest(what string, key *collKey, op *collOp, slot int) error {
	e := c.e
	deferred := op.deferred
	op.c, op.small, op.issued, op.err, op.deferred = c, true, false, nil, false
	b := &op.bodyStore
	op.reqStore.reqBody = b
	*b = reqBody{e: e, kind: reqColl, comm: c}
	if op.pooled {
		b.coll = op
	}
	op.req = &op.reqStore
	if deferred {
		op.deferred = true
		e.colls = append(e.colls, op)
		e.flBusy()
	} else if e.advance(op); !b.done {
		e.colls = append(e.colls, op)
		e.flBusy()
	}
	if s := &op.s; s.own[0] != nil && s.ownAfter {
		copy(s.own[0], s.own[1])
	}
	return c.finishBlocking(what, key, op, slot, c.memo[slot&(memoSlots-1)].gen)
}
