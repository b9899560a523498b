//go:build !ompi && !mpich

package mpi

import "unsafe"

// Persistent collectives in the C ABI's collective lane. A persistent
// collective's schedule is built once at its *_init and never changes:
// the C library keeps a plan of it (compiled here into memory C owns, in
// the layout of coll_cplan.go) beside the request, and MPI_Start runs the
// plan on the collective rings under the lane's rules (collane.c); when C
// cannot go on, startAt hands the run to Go at the round it reached. The
// plan's buffers are the persistent entry's (the caller's buffers and the
// schedule's scratch), which stay put until Free: C forgets the plan
// before it frees the request.

// cplanCompile writes p's schedule into the C plan at dst and reports the
// context and tag its messages carry; ok false when C cannot run it (the
// reasons of compilePlan, or p not a plain intracommunicator collective).
func (p *Persistent) cplanCompile(dst unsafe.Pointer) (ctx uint32, tag int, ok bool) {
	if p == nil || p.freed || p.op == nil || dst == nil {
		return 0, 0, false
	}
	c := p.c
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	op := p.op
	if c.inter != nil || c.freed || c.private || !op.fixedTag || e.fatal != nil {
		return 0, 0, false
	}
	cp := (*cplan)(dst)
	*cp = cplan{}
	if !c.compilePlan(op, cp) {
		return 0, 0, false
	}
	cp.valid = 1
	return uint32(c.ctx + 1), op.tag, true
}

// startAt is Start for a run C began from p's plan: rounds before cur
// done, and round cur's transfers marked in skip, the own copy made. cur
// < 0: C did nothing; a progress pass first (C's every 64th start, MPI's
// progress rule, as cplanRun's), then the whole run.
func (p *Persistent) startAt(cur int, skip uint64) (*Request, error) {
	e, err := p.lockStart()
	if err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	op := p.op
	if cur < 0 {
		// Over everything but the collective rings, as cplanRun's pass.
		e.collHold = true
		e.progress()
		e.collHold = false
		e.launch(p.c, op, false)
		p.req = op.req
		return p.req, nil
	}
	if cur > len(op.s.rounds) || cur == len(op.s.rounds) && skip != 0 {
		return nil, newErr(ErrIntern, p.what, "no plan to continue")
	}
	e.launchAt(p.c, op, op.tag, cur, skip, runStart)
	p.req = op.req
	return p.req, nil
}
