//go:build !ompi && !mpich

package mpi

// Nonblocking duplication of an intercommunicator (MPI_Comm_idup).
//
// The blocking InterDup agrees a context in each group, then the leaders
// swap their groups' results. Blocking there deadlocks programs that make
// a leader wait for messages its own group sends only after starting the
// idup (MPICH's comm/comm_idup), and two groups agreeing apart cannot keep
// several idups in flight from landing on one context. So an idup runs the
// agreement of ctxagree.go once, over the view of both groups the
// intercommunicator's collectives run on (coll_inter.go's union): launched
// at the call, it takes its place among the intercommunicator's
// collectives as MPI orders them, completes through progress, and the id
// it agrees is free at every process of both groups. An intercommunicator
// uses four contexts (its own, the bridge, the local group and the local
// group's collectives), so the agreement is for four ids, not two.

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
	u := c.union()
	e := c.e
	world := in.local.Group().world
	remote := append([]int(nil), in.remote...)
	lc := &Comm{e: e, rank: in.local.rank, size: in.local.size, world: world, private: c.private}
	br := &Comm{e: e, rank: in.local.rank, size: in.local.size, world: world, private: c.private}
	d := &Comm{e: e, rank: in.local.rank, size: in.local.size, world: world, private: c.private}
	d.inter = &interPart{remote: remote, local: lc, bridge: br}
	br.inter = &interPart{remote: remote}

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return nil, nil, e.fatal
	}
	a := e.startAgreeWidth(u, red, 4, func(ctx uint32) {
		d.ctx, br.ctx, lc.ctx = ctx, ctx+1, ctx+2
	})
	return d, a.op.req, nil
}
