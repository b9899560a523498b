//go:build !ompi && !mpich

package mpi

import (
	"encoding/binary"
	"math"
)

// Context-id agreement that may overlap other agreements (Idup, and the
// blocking creations while an Idup is in flight).
//
// A single Max-allreduce of nextCtx (commops.go's rule) is safe only when a
// process takes part in one agreement at a time: two agreements in flight
// at one process, on different parents, can each end at the same maximum
// (proposed by two other processes), and that process would get two
// communicators on one context. So an agreement is a schedule of attempts,
// each two allreduces on the parent's collective context:
//
//  1. every member proposes its nextCtx and holds it; Max gives m;
//  2. every member checks m against the ids it holds for other agreements
//     (their proposals and results), holds m if it is free, and a
//     Max-allreduce of "conflict" tells all whether every member could.
//
// Only the first agreement at a process to check an id can hold it, so no
// two agreements that share a process both succeed with one id; a
// conflicted attempt starts over with fresh, higher proposals. Holds are
// dropped when no agreement is in flight at the process: then nextCtx is
// above all of them. The attempts run as rounds the progress engine
// advances: the agreement's control entry is open-ended (collOp.more), and
// each time its rounds have run, the next step appends the following
// allreduce to it, so an Idup completes through progress, with any number
// of them in flight.

type agreePhase uint8

const (
	agreeCheck agreePhase = iota
	agreeDecide
)

type ctxAgree struct {
	c    *Comm
	op   *collOp
	red  reducer
	prop uint64 // this attempt's proposal
	m    uint64 // the attempt's maximum
	// width is how many consecutive ids the agreement is for: 2 (a
	// communicator and its collectives), or 4 for an intercommunicator
	// (inter_idup.go), held as two pairs.
	width uint64
	in    [8]byte
	out   [8]byte
	// phase: what the allreduce now in the schedule decides — agreeCheck
	// after a proposal, agreeDecide after a conflict vote.
	phase agreePhase
	// done runs under e.mu with the agreed id, before the request
	// completes; not on error.
	done func(ctx uint32)
}

// startAgree launches an agreement over c. Called with e.mu held.
func (e *engine) startAgree(c *Comm, red reducer, done func(uint32)) *ctxAgree {
	return e.startAgreeWidth(c, red, 2, done)
}

// startAgreeWidth launches an agreement on width ids (2 or 4). Called with
// e.mu held.
func (e *engine) startAgreeWidth(c *Comm, red reducer, width uint64, done func(uint32)) *ctxAgree {
	a := &ctxAgree{c: c, red: red, done: done, width: width}
	a.op = &collOp{more: a.more, finish: a.finish}
	e.agreeing++
	a.propose()
	e.launch(c, a.op, true)
	return a
}

func (e *engine) holdCtx(id uint64) {
	if e.ctxHeld == nil {
		e.ctxHeld = map[uint64]bool{}
	}
	e.ctxHeld[id] = true
}

// ctxTaken: id or its collective context id+1 overlaps a held pair.
func (e *engine) ctxTaken(id uint64) bool {
	return e.ctxHeld[id] || e.ctxHeld[id+1] || (id > 0 && e.ctxHeld[id-1])
}

// allreduce appends a Max-allreduce of v into a.out to the schedule; phase
// is what its result decides.
func (a *ctxAgree) allreduce(v uint64, phase agreePhase) {
	binary.LittleEndian.PutUint64(a.in[:], v)
	a.phase = phase
	allreduceSched(&a.op.s, a.c.rank, a.c.size, a.in[:], a.out[:], a.red, a.c.e.oversub)
}

// more runs when the appended allreduce has completed: it acts on its
// result and reports whether it appended another.
func (a *ctxAgree) more() bool {
	n := len(a.op.s.rounds)
	if a.phase == agreeCheck {
		a.check()
	} else {
		a.decide()
	}
	return len(a.op.s.rounds) > n
}

func (a *ctxAgree) propose() {
	e := a.c.e
	a.prop = e.nextCtx
	e.nextCtx += a.width
	for k := uint64(0); k < a.width; k += 2 {
		e.holdCtx(a.prop + k)
	}
	a.allreduce(a.prop, agreeCheck)
}

// taken: one of the pairs an agreement on id would use is held by another
// agreement. This attempt's own proposal does not count: four ids wide, a
// maximum two above it overlaps its second pair, and would conflict on
// every attempt.
func (a *ctxAgree) taken(id uint64) bool {
	e := a.c.e
	for k := uint64(0); k < a.width; k += 2 {
		delete(e.ctxHeld, a.prop+k)
	}
	t := false
	for k := uint64(0); k < a.width && !t; k += 2 {
		t = e.ctxTaken(id + k)
	}
	for k := uint64(0); k < a.width; k += 2 {
		e.holdCtx(a.prop + k)
	}
	return t
}

func (a *ctxAgree) check() {
	e := a.c.e
	a.m = binary.LittleEndian.Uint64(a.out[:])
	conflict := uint64(0)
	if a.m > math.MaxUint32-a.width {
		a.op.err = newErr(ErrIntern, "context agreement", "context ids exhausted")
		return
	}
	if a.m != a.prop {
		if a.taken(a.m) {
			conflict = 1
		} else {
			for k := uint64(0); k < a.width; k += 2 {
				e.holdCtx(a.m + k)
			}
		}
	}
	a.allreduce(conflict, agreeDecide)
}

func (a *ctxAgree) decide() {
	if binary.LittleEndian.Uint64(a.out[:]) != 0 {
		a.propose()
	}
}

// finish ends the agreement, agreed or failed, under e.mu.
func (a *ctxAgree) finish() {
	e := a.c.e
	if e.agreeing--; e.agreeing == 0 {
		clear(e.ctxHeld)
	}
	if a.op.err != nil {
		return
	}
	e.nextCtx = max(e.nextCtx, a.m+a.width)
	if a.done != nil {
		a.done(uint32(a.m))
	}
}

// agreeContext runs an agreement over c to its end and returns the context
// id every member can use.
func (c *Comm) agreeContext(op string) (uint32, error) {
	red, err := resolveOp(op, Uint64, Max)
	if err != nil {
		return 0, err
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return 0, e.fatal
	}
	a := e.startAgree(c, red, nil)
	if err := e.waitUntil(func() bool { return a.op.req.done }); err != nil {
		return 0, &Error{Class: ClassOf(err), Op: op, Msg: err.Error()}
	}
	if err := a.op.req.err; err != nil {
		return 0, wrapCollErr(op, err)
	}
	return uint32(a.m), nil
}

// Idup starts a Dup that completes through progress (MPI_Comm_idup). The
// returned communicator has c's group; it may be used only once the
// request has completed. On an intercommunicator the group's agreement
// starts here and the leaders' exchange completes the request
// (inter_idup.go).
func (c *Comm) Idup() (*Comm, *Request, error) {
	if c != nil && c.inter != nil {
		return c.interIdup()
	}
	if err := c.check("Idup"); err != nil {
		return nil, nil, err
	}
	red, err := resolveOp("Idup", Uint64, Max)
	if err != nil {
		return nil, nil, err
	}
	world := c.Group().world
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return nil, nil, e.fatal
	}
	d := &Comm{e: e, rank: c.rank, size: c.size, private: c.private}
	if len(world) != e.size || !isIdentity(world) {
		d.world = world
	}
	a := e.startAgree(c, red, func(ctx uint32) { d.ctx = ctx })
	return d, a.op.req, nil
}

func isIdentity(w []int) bool {
	for i, x := range w {
		if x != i {
			return false
		}
	}
	return true
}
