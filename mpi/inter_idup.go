//go:build !ompi && !mpich

package mpi

import (
	"math"
)

// Nonblocking duplication of an intercommunicator (MPI_Comm_idup).
//
// The blocking InterDup agrees a context in each group, then the leaders
// swap their groups' results and broadcast the maximum. Blocking there
// deadlocks programs that make a leader wait for messages its own group
// sends only after starting the idup (MPICH's comm/comm_idup). Here the
// group's agreement is launched on the spot, as Idup does on an
// intracommunicator, so its place among the group's collectives is fixed
// by the call order; the rest runs on a goroutine of its own: once the
// group has agreed, each leader sends its group's result to every member
// of the other group on the bridge context, and every member takes the
// maximum of its own group's result and the other leader's. Point-to-point
// only, with a tag per idup of the parent, so nothing it does can
// interleave with the parent's collectives, and idups in flight on one
// parent pair up in the order they were started, on both sides.

// tagInterIdup is the first of the bridge tags of idups; the idup sequence
// number of the parent, modulo interIdupTags, is added.
const (
	tagInterIdup  = 1 << 10
	interIdupTags = 1 << 20
)

// interIdup starts the duplication of the intercommunicator c. The
// returned communicator is an intercommunicator at once (callers may ask
// what it is), and gets its contexts when the request completes.
func (c *Comm) interIdup() (*Comm, *Request, error) {
	const op = "Idup"
	if err := c.checkLive(op); err != nil {
		return nil, nil, err
	}
	in := c.inter
	red, err := resolveOp(op, Uint64, Max)
	if err != nil {
		return nil, nil, err
	}
	r := NewJoin()
	if r == nil {
		return nil, nil, newErr(ErrOther, op, "MPI is not initialized")
	}
	e := c.e
	world := in.local.Group().world
	remote := append([]int(nil), in.remote...)
	lc := &Comm{e: e, rank: in.local.rank, size: in.local.size, world: world, private: c.private}
	br := &Comm{e: e, rank: in.local.rank, size: in.local.size, world: world, private: c.private}
	d := &Comm{e: e, rank: in.local.rank, size: in.local.size, world: world, private: c.private}
	d.inter = &interPart{remote: remote, local: lc, bridge: br}
	br.inter = &interPart{remote: remote}

	e.mu.Lock()
	if e.fatal != nil {
		e.mu.Unlock()
		return nil, nil, e.fatal
	}
	tag := tagInterIdup + int(in.idups%interIdupTags)
	in.idups++
	a := e.startAgree(in.local, red, nil)
	e.mu.Unlock()

	go func() {
		ctx, err := interIdupFinish(in, a, tag)
		e.mu.Lock()
		if err != nil {
			if r.err == nil {
				r.err = err
			}
		} else {
			e.nextCtx = max(e.nextCtx, uint64(ctx)+4)
			d.ctx, br.ctx, lc.ctx = ctx, ctx+1, ctx+2
		}
		e.mu.Unlock()
		r.Release()
	}()
	return d, r, nil
}

// interIdupFinish waits for the group's agreement a, then swaps results
// with the other group (see above) and returns the agreed context.
func interIdupFinish(in *interPart, a *ctxAgree, tag int) (uint32, error) {
	const op = "Idup"
	e := in.local.e
	e.mu.Lock()
	err := e.waitUntil(func() bool { return a.op.req.done })
	if err == nil {
		err = a.op.req.err
	}
	m := a.m
	e.mu.Unlock()
	if err != nil {
		return 0, wrapCollErr(op, err)
	}
	var sends []*Request
	if in.local.rank == 0 {
		msg := words(int64(m))
		for i := range in.remote {
			q, err := in.bridge.Isend(msg, i, tag)
			if err != nil {
				return 0, err
			}
			sends = append(sends, q)
		}
	}
	buf := make([]byte, 8)
	st, err := in.bridge.Recv(buf, 0, tag)
	if err != nil {
		return 0, err
	}
	if st.Count != 8 {
		return 0, newErr(ErrIntern, op, "bad message from the remote leader")
	}
	if _, err := Waitall(sends); err != nil {
		return 0, err
	}
	agreed := max(m, uint64(word(buf, 0)))
	if agreed > math.MaxUint32-4 {
		return 0, newErr(ErrIntern, op, "context ids exhausted")
	}
	return uint32(agreed), nil
}
