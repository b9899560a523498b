//go:build !ompi && !mpich

package mpi

import (
	"unsafe"

	"github.com/hympi/hympi/shm"
	"golang.org/x/sys/unix"
)

// C plans: a small collective's memoised schedule (coll_memo.go) written
// out as flat data the C ABI runs without entering Go
// (cmd/libmpi_abi/collane.c). From C each collective paid one C→Go
// transition, more than the whole collective costs once the direct run
// (coll_direct.go) serves it. The plan is not a second algorithm: it is
// the builders' schedule itself — its rounds, transfers and steps, with
// buffer addresses — and C runs it under the direct run's rules (publish
// when nothing is queued toward the peer and a slot is free, take the ring
// head when the engine holds no posted or unexpected receive and the head
// is this collective's message of the expected length). When C cannot go
// on it hands the collective to Go at the round it reached, with the
// transfers of that round it did (cplanRun), and Go finishes exactly as a
// direct run stopped there would have.
//
// The plan area is one private mapping per communicator (never Go heap: C
// keeps its address), a header and one plan per memo slot (memoSlots):
// plan i is compiled from the entry of memo slot i, so a loop of
// different collectives (a benchmark's collective and Barrier, a solver's
// step) finds each its own plan. C looks for the plan whose key is its
// call's, comparing the kind first. The header also holds the
// communicator's collective sequence number, so that C and Go draw the
// same tags.
//
// Who writes what. Go writes under e.mu: the header's version, size,
// nplans and ctx once (the hints are C's alone); gen and last whenever a
// plan becomes valid without a key (C reads them after the Go call that
// did it returned); each plan's valid, and everything else in a plan but
// key, keyed, vlen and vec. C writes the header's runs and served, and each plan's
// key, raw, vlen, vec (the v-collectives' arrays) and keyed (1; Go writes 0
// when it compiles a new plan into the slot, or when a blocking call ran
// the slot's entry in Go: cplanBack), only while the fast lane's run flag is set (then no Go code runs
// beside it; shm/fastlane.go); seq is advanced by both, each under the
// same rule; Go writes nbDefer. No word is written by both sides at once, so plain loads and
// stores suffice. A plan's buffers are its memo entry's (the caller's
// buffers and the schedule's scratch), which stay allocated while the
// entry is in its slot: valid is cleared whenever the entry leaves the
// slot to run in Go where C could start beside it (takeMemo, startMemo,
// cplanRun) or for good (putOp), and set again only when that same entry
// comes back to it. A blocking run from the memo (runMemo) leaves it set:
// C cannot run until it returns, and the entry goes back to its slot.

const (
	cpVersion   = 5
	cpPlans     = memoSlots
	cpMaxRounds = 32
	cpMaxXfers  = 64
	cpMaxSteps  = 64
	cpHints     = 32   // HC_CP_HINTS
	cpVecBytes  = 2048 // HC_CP_VEC
)

// cplanArea is the plan area's layout; cmd/libmpi_abi/collane.h repeats
// it (hc_cplan) and C checks version and size.
type cplanArea struct {
	version uint32 // cpVersion
	seq     uint32 // the communicator's collective sequence (nextTag); Go and C advance it
	size    uint64 // unsafe.Sizeof(cplanArea{})
	nplans  uint64 // cpPlans
	gen     uint64 // bumped by Go when a plan becomes valid without a key
	last    uint64 // that plan's index
	runs    uint64 // C's runs, for its every-directPassEvery Go pass; C writes
	served  uint64 // collectives C ran to the end; C writes
	ctx     uint64 // the collective context
	// C's own: per call kind, the plan it ran last (where it looks
	// first); Go never reads or writes it.
	_ [cpHints]uint8
	// nbDefer: 1 while the communicator's C nonblocking starts leave
	// their receives to the tests (coll_cadapt.go); C then leaves a
	// nonblocking call to Go, whose start defers. Go writes (under e.mu,
	// in a Go call: C reads it in its next call, on the same thread or
	// after the MPI call that switched it returned).
	nbDefer uint64
	_       [8 - cpHints/8 - 1]uint64
	plans   [cpPlans]cplan
}

// cplan is one memo slot's plan (hc_cp_plan in collane.h).
type cplan struct {
	valid   uint64 // 1: the plan is the slot's memo entry's schedule
	keyed   uint64 // 1: C wrote key (C writes 1; Go writes 0 on a new plan)
	oversub uint64 // the engine's oversubscription when compiled
	// unsettled: c's gate is not settled yet, which the next blocking
	// Barrier or Allreduce does in Go (coll_gate.go) with every member.
	unsettled uint64
	nrounds   uint64
	nxfers    uint64
	nsteps    uint64
	ownDst    uint64 // the schedule's own copy (own[1] into own[0]), ownLen bytes
	ownSrc    uint64
	ownLen    uint64
	_         [6]uint64
	key       [8]int64
	rounds    [cpMaxRounds]cpRound
	xfers     [cpMaxXfers]cpXfer
	steps     [cpMaxSteps]cpStep
	// C's alone (Go never reads or writes them): a v-collective's
	// count, displacement and type arrays as the call that keyed the
	// plan gave them, vlen bytes of vec, written by C with key before
	// keyed. A call runs the plan only with these arrays: its memo
	// entry's schedule is built from them (countsKey).
	vlen uint64
	vec  [cpVecBytes]byte
	// C's alone too: the keying call's arguments as its caller gave
	// them, which a later call may match before its argument checks.
	raw [8]int64
	// C's alone too, set when it keys the plan: whether every round has
	// at most one send and one receive, and their indexes.
	csimple      uint64
	csend, crecv [cpMaxRounds]int8
}

type cpRound struct{ x0, x1, s0, s1 uint32 }

type cpXfer struct {
	peer    int64 // world rank
	ptr, n  uint64
	send, _ uint32
}

type cpStep struct {
	kind        uint64 // stepReduce or stepCopy
	src, dst, n uint64
}

// cplanState is a communicator's plan area and the memo entries its
// plans were compiled from, slot by slot.
type cplanState struct {
	mem []byte
	p   *cplanArea
	op  [cpPlans]*collOp
	// bad: the slot's entry whose schedule C cannot run (compilePlan
	// said no), not to be compiled again each time it comes back.
	bad [cpPlans]*collOp
}

// cpMapSize is the plan area's mapping, whole pages.
var cpMapSize = (int(unsafe.Sizeof(cplanArea{})) + 4095) &^ 4095

// cplanArea maps c's plan area on first use and moves c's collective
// sequence into it; 0 when c cannot have one. Called by the C ABI.
func (c *Comm) cplanArea() uintptr {
	if c == nil || c.inter != nil || c.freed || c.private || c.tagBase != 0 {
		return 0
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.cp != nil {
		return uintptr(unsafe.Pointer(c.cp.p))
	}
	if e.region == nil {
		return 0
	}
	mem, err := unix.Mmap(-1, 0, cpMapSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0
	}
	p := (*cplanArea)(unsafe.Pointer(&mem[0]))
	p.version, p.size, p.nplans, p.seq = cpVersion, uint64(unsafe.Sizeof(cplanArea{})), cpPlans, c.collSeq
	p.ctx = uint64(c.ctx + 1)
	c.cp = &cplanState{mem: mem, p: p}
	if c.nbDefer {
		p.nbDefer = 1
	}
	return uintptr(unsafe.Pointer(p))
}

// seqWord is where c's collective sequence lives.
func (c *Comm) seqWord() *uint32 {
	if c.cp != nil {
		return &c.cp.p.seq
	}
	return &c.collSeq
}

// cplanTaken: op leaves memo slot i to run in Go.
func (c *Comm) cplanTaken(i int, op *collOp) {
	if c.cp != nil && c.cp.op[i] == op {
		c.cp.p.plans[i].valid = 0
	}
}

// cplanDropped: op is recycled; its plan must never run again.
func (c *Comm) cplanDropped(op *collOp) {
	if c.cp == nil {
		return
	}
	for i := range c.cp.op {
		if c.cp.op[i] == op {
			c.cp.p.plans[i].valid = 0
			c.cp.op[i] = nil
		}
		if c.cp.bad[i] == op {
			c.cp.bad[i] = nil
		}
	}
}

// cplanKept: op became (or is again) the entry of memo slot i. The same
// entry coming back revalidates its plan, and offers it to C again while
// C has not keyed it; another gets a new plan if C can run its schedule.
func (c *Comm) cplanKept(i int, op *collOp) {
	cp := c.cp
	if cp == nil || cp.bad[i] == op || op.persistent {
		return
	}
	a := cp.p
	p := &a.plans[i]
	if cp.op[i] == op {
		p.valid = 1
		if p.keyed == 0 {
			a.last = uint64(i)
			a.gen++
		}
		return
	}
	p.valid, cp.op[i] = 0, nil
	// op may come back to another slot than the one it left (that one
	// went to another shape meanwhile): its old plan must not run.
	c.cplanDropped(op)
	if !c.compilePlan(op, p) {
		cp.bad[i] = op
		return
	}
	cp.op[i] = op
	p.keyed, p.valid = 0, 1
	a.last = uint64(i)
	a.gen++
}

// cplanBack is cplanKept for op back in memo slot i after a blocking call
// ran it in Go from the memo: a call from C that came to Go although the
// plan was keyed had another key (C's Alltoallw shares the entry of an
// Alltoallv of the same bytes and buffers) or C declined to run it, so
// the plan is offered to C again, for that call to key.
func (c *Comm) cplanBack(i int, op *collOp) {
	if cp := c.cp; cp.op[i] == op && cp.bad[i] != op {
		cp.p.plans[i].keyed = 0
	}
	c.cplanKept(i, op)
}

// compilePlan writes op's schedule into p, reporting false when C cannot
// run it: a round the direct run would not do (a gate, a message off the
// collective ring or to this rank), or more than the plan holds.
func (c *Comm) compilePlan(op *collOp, p *cplan) bool {
	e := c.e
	s := &op.s
	if !s.small || e.region == nil || op.more != nil || op.finish != nil || c.tagBase != 0 ||
		len(s.rounds) > cpMaxRounds || len(s.xfers) > cpMaxXfers || len(s.steps) > cpMaxSteps {
		return false
	}
	for i := range s.rounds {
		rd := &s.rounds[i]
		if rd.gate {
			return false
		}
		p.rounds[i] = cpRound{uint32(rd.x0), uint32(rd.x1), uint32(rd.s0), uint32(rd.s1)}
	}
	for i := range s.xfers {
		x := &s.xfers[i]
		w := c.worldOf(x.peer)
		if w == e.rank || len(x.buf) > shm.CollMsgMax {
			return false
		}
		p.xfers[i] = cpXfer{peer: int64(w), ptr: cpAddr(x.buf), n: uint64(len(x.buf)), send: uint32(flag01(x.send))}
	}
	for i := range s.steps {
		st := &s.steps[i]
		if len(st.src) != len(st.dst) && st.kind == stepReduce {
			return false
		}
		p.steps[i] = cpStep{kind: uint64(st.kind), src: cpAddr(st.src), dst: cpAddr(st.dst), n: uint64(min(len(st.src), len(st.dst)))}
	}
	p.nrounds, p.nxfers, p.nsteps = uint64(len(s.rounds)), uint64(len(s.xfers)), uint64(len(s.steps))
	p.ownDst, p.ownSrc, p.ownLen = 0, 0, 0
	if s.own[0] != nil {
		p.ownDst, p.ownSrc, p.ownLen = cpAddr(s.own[0]), cpAddr(s.own[1]), uint64(min(len(s.own[0]), len(s.own[1])))
	}
	p.oversub = uint64(flag01(e.oversub))
	// settleGate leaves a communicator no gate could serve unknown for
	// good; size 0 fits whenever any size does.
	p.unsettled = uint64(flag01(c.gate.state == gateUnknown && c.gateFits(0)))
	return true
}

func cpAddr(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

func flag01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cplanFree unmaps c's plan area as c is freed (C forgets it with the
// handle).
func (c *Comm) cplanFree() {
	if c.cp != nil {
		_ = unix.Munmap(c.cp.mem)
		c.cp = nil
	}
}

// cplanRun continues in Go the collective C started from c's plan i: C
// drew tag and did rounds [0, cur) and the transfers of round cur marked
// in skip. tag < 0: C ran nothing; Go runs the whole collective after a
// progress pass (C's every directPassEvery-th run, MPI's progress rule).
// A nonblocking call (nb) gets the collective's request, as
// nonblockingKeyed would have returned it. Called by the C ABI.
func (c *Comm) cplanRun(i, tag, cur int, skip uint64, nb bool) (*Request, error) {
	const what = "collective"
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.cp == nil || i < 0 || i >= cpPlans {
		return nil, newErr(ErrIntern, what, "no plan to continue")
	}
	m := &c.memo[i]
	op := m.op
	if op == nil || op != c.cp.op[i] || c.cp.p.plans[i].valid == 0 || cur < 0 || cur > len(op.s.rounds) {
		return nil, newErr(ErrIntern, what, "no plan to continue")
	}
	key := m.key
	c.memoTakeSlot(i)
	if e.fatal != nil {
		c.putOp(op)
		return nil, e.fatal
	}
	if nb {
		op.key = key
	}
	// A C start completes at start when it can (C's MPI_Wait then stays
	// in C); a blocking call may spin briefly on a message about to land.
	mode := runBlocking
	if nb {
		mode = c.adaptiveMode()
	}
	if tag < 0 {
		// The pass the progress rule asks for, over everything but the
		// collective rings: their messages are for collectives this rank
		// has yet to call, which C takes straight off the rings, and filed
		// as unexpected they would keep C off until Go had taken them all.
		e.collHold = true
		e.progress()
		e.collHold = false
		own := op.s.own[0] != nil && !nb
		if own {
			e.copyOwn(&op.s)
		}
		e.launchRun(c, op, own, mode)
	} else {
		e.launchAt(c, op, tag, cur, skip, mode)
	}
	if nb {
		return op.req, nil
	}
	var err error
	if !op.req.done {
		e.gateOp = op
		err = e.waitUntil(func() bool { return op.req.done })
		e.gateOp = nil
	}
	if err != nil {
		return nil, &Error{Class: ClassOf(err), Op: what, Msg: err.Error()}
	}
	if err := op.req.err; err != nil {
		c.putOp(op)
		return nil, wrapCollErr(what, err)
	}
	c.keepMemo(&key, op)
	return nil, nil
}

// launchAt is launchRun for a collective whose tag is drawn and whose
// rounds before cur (and round cur's transfers in skip) are done.
func (e *engine) launchAt(c *Comm, op *collOp, tag, cur int, skip uint64, mode launchMode) {
	op.tag = tag
	op.c, op.small = c, op.s.small && e.region != nil
	op.cur, op.issued, op.err, op.skip, op.deferred = cur, false, nil, skip, false
	op.bodyStore = reqBody{e: e, kind: reqColl, comm: c}
	op.reqStore = Request{&op.bodyStore}
	op.req = &op.reqStore
	if op.pooled && !op.persistent {
		op.req.coll = op
	} else if op.persistent {
		op.req.pcoll = op // a persistent run C began (coll_cpersist.go)
	}
	// A call C handed over part-way through a round (its receive was not
	// there) goes on in the direct run from there, the transfers done
	// skipped: a blocking one waits for the rest as Go's own call does
	// (the run loop's posted receives cost oversubscribed ranks, where C
	// hands over at nearly every round, twice Go's time), and a
	// deferring start defers, so that the tests stay on the direct path
	// (and C answers the idle ones: nbc_idle.c); that one only after
	// sends, since directSendsFirst knows no receive done. What follows is
	// launchRun's end, kept in line there: a shared function cost every
	// Go collective ~15 instructions (make bench-callgrind-coll).
	if skip == 0 || mode != runSendsFirst || cur < len(op.s.rounds) && sendsOnly(op, cur, skip) {
		switch e.directRun(op, mode) {
		case directDone:
			op.req.done = true
			c.directRuns++
			return
		case directDeferred:
			e.colls = append(e.colls, op)
			e.flBusy()
			return
		}
	}
	e.advance(op)
	if !op.req.done {
		e.colls = append(e.colls, op)
		e.flBusy()
	}
}

// sendsOnly reports whether every transfer skip marks done in op's round
// cur is a send.
func sendsOnly(op *collOp, cur int, skip uint64) bool {
	rd := &op.s.rounds[cur]
	for i, x := range op.s.xfers[rd.x0:rd.x1] {
		if i < 64 && skip&(1<<uint(i)) != 0 && !x.send {
			return false
		}
	}
	return true
}

// cplanServed is how many collectives C ran to the end on c.
func (c *Comm) cplanServed() uint64 {
	if c.cp == nil {
		return 0
	}
	return c.cp.p.served
}
