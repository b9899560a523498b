//go:build !ompi && !mpich

package mpi

// Nonblocking and persistent collectives. Each runs the schedule its
// blocking twin builds (coll_api.go): one algorithm per collective,
// whichever form starts it. A nonblocking collective's control entry comes
// from its communicator's free list and returns there when its request is
// collected; a persistent one owns its entry, built once at Init, and each
// Start launches it again over the same buffers, reading them afresh. Any
// number may be outstanding on a communicator and they complete in any
// order; the engine advances them in every MPI call, in Wait/Test, and
// from the progress goroutine under HYMPI_ASYNC_PROGRESS=1.
//
// The Request of a nonblocking collective lives in its control entry, so
// once Wait or Test has returned its completion it is spent for good, as
// MPI_REQUEST_NULL is after MPI_Wait: a later collective may reuse it.

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier() (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interBarrier})
	}
	return c.nonblockingKeyed("Ibarrier", kindKey(memoBarrier), nil, c.barrierBuild)
}

// Ibcast starts a broadcast; buf must not be touched until it completes.
func (c *Comm) Ibcast(buf []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interBcast, Root: root, Send: buf, Recv: buf})
	}
	return c.nonblockingKeyed("Ibcast", keyOf(memoBcast, buf, nil, 0, 0, root), nil, func(s *schedule) error { return c.bcastBuild(s, "Ibcast", buf, root) })
}

// Iallreduce starts an Allreduce.
func (c *Comm) Iallreduce(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAllreduce, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.nonblockingKeyed("Iallreduce", keyOf(memoAllreduce, send, recv, dt, op, 0), nil, func(s *schedule) error { return c.allreduceBuild(s, "Iallreduce", send, recv, dt, op) })
}

// Ireduce starts a reduction to root.
func (c *Comm) Ireduce(send, recv []byte, dt Datatype, op Op, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interReduce, Root: root, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.nonblockingKeyed("Ireduce", keyOf(memoReduce, send, recv, dt, op, root), nil, func(s *schedule) error { return c.reduceBuild(s, "Ireduce", send, recv, dt, op, root) })
}

// Iscan starts an inclusive prefix reduction.
func (c *Comm) Iscan(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.nonblockingKeyed("Iscan", keyOf(memoScan, send, recv, dt, op, 0), nil, func(s *schedule) error { return c.scanBuild(s, "Iscan", send, recv, dt, op, false) })
}

// Iexscan starts an exclusive prefix reduction.
func (c *Comm) Iexscan(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.nonblockingKeyed("Iexscan", keyOf(memoExscan, send, recv, dt, op, 0), nil, func(s *schedule) error { return c.scanBuild(s, "Iexscan", send, recv, dt, op, true) })
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func (c *Comm) IreduceScatterBlock(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interReduceScatterBlock, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.nonblockingKeyed("IreduceScatterBlock", keyOf(memoReduceScatterBlock, send, recv, dt, op, 0), nil, func(s *schedule) error {
		return c.reduceScatterBlockBuild(s, "IreduceScatterBlock", send, recv, dt, op)
	})
}

// IreduceScatter starts a ReduceScatter.
func (c *Comm) IreduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interReduceScatter, Send: send, Recv: recv, RecvCounts: counts, Datatype: dt, Op: op})
	}
	v := countsKey{a: [4][]int{counts}}
	return c.nonblockingKeyed("IreduceScatter", vkey(keyOf(memoReduceScatter, send, recv, dt, op, 0), &v), &v, func(s *schedule) error {
		return c.reduceScatterBuild(s, "IreduceScatter", send, recv, counts, dt, op)
	})
}

// Igather starts a Gather.
func (c *Comm) Igather(send, recv []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interGather, Root: root, Send: send, Recv: recv})
	}
	return c.nonblockingKeyed("Igather", keyOf(memoGather, send, recv, 0, 0, root), nil, func(s *schedule) error { return c.gatherBuild(s, "Igather", send, recv, root) })
}

// Igatherv starts a Gatherv.
func (c *Comm) Igatherv(send, recv []byte, counts, displs []int, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interGatherv, Root: root, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	v := c.rootCounts(root, &countsKey{a: [4][]int{counts, displs}})
	return c.nonblockingKeyed("Igatherv", vkeyOf(keyOf(memoGatherv, send, recv, 0, 0, root), v), v, func(s *schedule) error { return c.gathervBuild(s, "Igatherv", send, recv, counts, displs, root) })
}

// Iscatter starts a Scatter.
func (c *Comm) Iscatter(send, recv []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interScatter, Root: root, Send: send, Recv: recv})
	}
	return c.nonblockingKeyed("Iscatter", keyOf(memoScatter, send, recv, 0, 0, root), nil, func(s *schedule) error { return c.scatterBuild(s, "Iscatter", send, recv, root) })
}

// Iscatterv starts a Scatterv.
func (c *Comm) Iscatterv(send []byte, counts, displs []int, recv []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interScatterv, Root: root, Send: send, Recv: recv, SendCounts: counts, SendDispls: displs})
	}
	v := c.rootCounts(root, &countsKey{a: [4][]int{counts, displs}})
	return c.nonblockingKeyed("Iscatterv", vkeyOf(keyOf(memoScatterv, send, recv, 0, 0, root), v), v, func(s *schedule) error { return c.scattervBuild(s, "Iscatterv", send, counts, displs, recv, root) })
}

// Iallgather starts an Allgather. send may be recv's own block (in place).
func (c *Comm) Iallgather(send, recv []byte) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAllgather, Send: send, Recv: recv})
	}
	return c.nonblockingKeyed("Iallgather", keyOf(memoAllgather, send, recv, 0, 0, 0), nil, func(s *schedule) error { return c.allgatherBuild(s, "Iallgather", send, recv) })
}

// Iallgatherv starts an Allgatherv.
func (c *Comm) Iallgatherv(send, recv []byte, counts, displs []int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAllgatherv, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	return c.nonblockingKeyed("Iallgatherv", vkey(keyOf(memoAllgatherv, send, recv, 0, 0, 0), &countsKey{a: [4][]int{counts, displs}}), &countsKey{a: [4][]int{counts, displs}}, func(s *schedule) error { return c.allgathervBuild(s, "Iallgatherv", send, recv, counts, displs) })
}

// Ialltoall starts an Alltoall. send and recv may be the same slice (in
// place).
func (c *Comm) Ialltoall(send, recv []byte) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAlltoall, Send: send, Recv: recv})
	}
	return c.nonblockingKeyed("Ialltoall", keyOf(memoAlltoall, send, recv, 0, 0, 0), nil, func(s *schedule) error { return c.alltoallBuild(s, "Ialltoall", send, recv) })
}

// Ialltoallv starts an Alltoallv.
func (c *Comm) Ialltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAlltoallv, Send: send, Recv: recv, SendCounts: scounts, SendDispls: sdispls, RecvCounts: rcounts, RecvDispls: rdispls})
	}
	return c.nonblockingKeyed("Ialltoallv", vkey(keyOf(memoAlltoallv, send, recv, 0, 0, 0), &countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}}), &countsKey{a: [4][]int{scounts, sdispls, rcounts, rdispls}}, func(s *schedule) error {
		return c.alltoallvBuild(s, "Ialltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// Persistent is a persistent collective (MPI 4.0's MPI_Barrier_init,
// MPI_Bcast_init, ...): its arguments are bound and its schedule built
// once, and each Start runs the collective again over the same buffers,
// reading them afresh. As MPI 4.0 has it, persistent collectives match by
// the order of their binding (which is collective), so ranks may start
// them in different orders.
type Persistent struct {
	c     *Comm
	what  string
	op    *collOp
	req   *Request // the run in progress, nil when inactive
	freed bool
}

// persist checks the arguments and builds the schedule (which moves no
// data) into a control entry of its own.
func (c *Comm) persist(what string, build func(s *schedule) error) (*Persistent, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	op := c.getOp()
	op.s.noGate = true // ranks may start persistent collectives in different orders
	if err := build(&op.s); err != nil {
		c.putOp(op)
		return nil, err
	}
	op.persistent, op.fixedTag, op.tag = true, true, c.nextTag()
	return &Persistent{c: c, what: what, op: op}, nil
}

// startable is nil when p may start: not freed, its last run complete,
// its communicator alive.
func (p *Persistent) startable() error {
	switch {
	case p == nil || p.freed || p.op == nil:
		return newErr(ErrRequest, "Start", "persistent collective freed or nil")
	case p.active():
		return newErr(ErrRequest, p.what, "started again while active")
	}
	return p.c.checkLive(p.what)
}

// lockStart is startable, then the engine locked (and returned) unless
// it has failed.
func (p *Persistent) lockStart() (*engine, error) {
	if err := p.startable(); err != nil {
		return nil, err
	}
	e := p.c.e
	e.mu.Lock()
	if e.fatal != nil {
		e.mu.Unlock()
		return nil, e.fatal
	}
	return e, nil
}

// Start runs the collective once more. The previous run must be complete.
func (p *Persistent) Start() (*Request, error) {
	e, err := p.lockStart()
	if err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	if p.op.rxState == replayUnknown {
		// Its direct runs follow the replay's plan (planRun), as a
		// memoised nonblocking start's do: 2 ranks, 8 B, a Start and
		// Wait of Bcast cost 850 instructions without it.
		e.replayPlan(p.c, p.op)
	}
	e.launch(p.c, p.op, false)
	p.req = p.op.req
	return p.req, nil
}

// active reports whether a run was started and its completion not yet
// collected (by p's Wait or Test or by those of the request Start returned).
func (p *Persistent) active() bool { return p.req != nil && !p.req.spent }

// Wait waits for the run in progress; an inactive one returns at once.
func (p *Persistent) Wait() (Status, error) {
	if p == nil || !p.active() {
		return Status{}, nil
	}
	r := p.req
	st, err := r.Wait()
	p.req = nil
	return st, err
}

// Test reports whether the run in progress (if any) is complete.
func (p *Persistent) Test() (Status, bool, error) {
	if p == nil || !p.active() {
		return Status{}, true, nil
	}
	st, done, err := p.req.Test()
	if done {
		p.req = nil
	}
	return st, done, err
}

// Free releases p; it must be inactive.
func (p *Persistent) Free() error {
	if p == nil || p.freed {
		return newErr(ErrRequest, "Free", "persistent collective freed or nil")
	}
	if p.active() {
		return newErr(ErrRequest, "Free", "persistent collective still active")
	}
	e := p.c.e
	e.mu.Lock()
	p.op.persistent = false
	p.c.putOp(p.op)
	e.mu.Unlock()
	p.freed, p.req, p.op = true, nil, nil
	return nil
}

// BarrierInit binds a persistent barrier.
func (c *Comm) BarrierInit() (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interBarrier})
	}
	return c.persist("BarrierInit", c.barrierBuild)
}

// BcastInit binds a persistent broadcast.
func (c *Comm) BcastInit(buf []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interBcast, Root: root, Send: buf, Recv: buf})
	}
	return c.persist("BcastInit", func(s *schedule) error { return c.bcastBuild(s, "BcastInit", buf, root) })
}

// AllreduceInit binds a persistent Allreduce.
func (c *Comm) AllreduceInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAllreduce, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.persist("AllreduceInit", func(s *schedule) error { return c.allreduceBuild(s, "AllreduceInit", send, recv, dt, op) })
}

// ReduceInit binds a persistent Reduce.
func (c *Comm) ReduceInit(send, recv []byte, dt Datatype, op Op, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interReduce, Root: root, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.persist("ReduceInit", func(s *schedule) error { return c.reduceBuild(s, "ReduceInit", send, recv, dt, op, root) })
}

// ScanInit binds a persistent Scan.
func (c *Comm) ScanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return c.persist("ScanInit", func(s *schedule) error { return c.scanBuild(s, "ScanInit", send, recv, dt, op, false) })
}

// ExscanInit binds a persistent Exscan.
func (c *Comm) ExscanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return c.persist("ExscanInit", func(s *schedule) error { return c.scanBuild(s, "ExscanInit", send, recv, dt, op, true) })
}

// ReduceScatterBlockInit binds a persistent ReduceScatterBlock.
func (c *Comm) ReduceScatterBlockInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interReduceScatterBlock, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.persist("ReduceScatterBlockInit", func(s *schedule) error {
		return c.reduceScatterBlockBuild(s, "ReduceScatterBlockInit", send, recv, dt, op)
	})
}

// ReduceScatterInit binds a persistent ReduceScatter.
func (c *Comm) ReduceScatterInit(send, recv []byte, counts []int, dt Datatype, op Op) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interReduceScatter, Send: send, Recv: recv, RecvCounts: counts, Datatype: dt, Op: op})
	}
	return c.persist("ReduceScatterInit", func(s *schedule) error {
		return c.reduceScatterBuild(s, "ReduceScatterInit", send, recv, counts, dt, op)
	})
}

// GatherInit binds a persistent Gather.
func (c *Comm) GatherInit(send, recv []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interGather, Root: root, Send: send, Recv: recv})
	}
	return c.persist("GatherInit", func(s *schedule) error { return c.gatherBuild(s, "GatherInit", send, recv, root) })
}

// GathervInit binds a persistent Gatherv.
func (c *Comm) GathervInit(send, recv []byte, counts, displs []int, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interGatherv, Root: root, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	return c.persist("GathervInit", func(s *schedule) error { return c.gathervBuild(s, "GathervInit", send, recv, counts, displs, root) })
}

// ScatterInit binds a persistent Scatter.
func (c *Comm) ScatterInit(send, recv []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interScatter, Root: root, Send: send, Recv: recv})
	}
	return c.persist("ScatterInit", func(s *schedule) error { return c.scatterBuild(s, "ScatterInit", send, recv, root) })
}

// ScattervInit binds a persistent Scatterv.
func (c *Comm) ScattervInit(send []byte, counts, displs []int, recv []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interScatterv, Root: root, Send: send, Recv: recv, SendCounts: counts, SendDispls: displs})
	}
	return c.persist("ScattervInit", func(s *schedule) error { return c.scattervBuild(s, "ScattervInit", send, counts, displs, recv, root) })
}

// AllgatherInit binds a persistent Allgather.
func (c *Comm) AllgatherInit(send, recv []byte) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAllgather, Send: send, Recv: recv})
	}
	return c.persist("AllgatherInit", func(s *schedule) error { return c.allgatherBuild(s, "AllgatherInit", send, recv) })
}

// AllgathervInit binds a persistent Allgatherv.
func (c *Comm) AllgathervInit(send, recv []byte, counts, displs []int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAllgatherv, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	return c.persist("AllgathervInit", func(s *schedule) error { return c.allgathervBuild(s, "AllgathervInit", send, recv, counts, displs) })
}

// AlltoallInit binds a persistent Alltoall.
func (c *Comm) AlltoallInit(send, recv []byte) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAlltoall, Send: send, Recv: recv})
	}
	return c.persist("AlltoallInit", func(s *schedule) error { return c.alltoallBuild(s, "AlltoallInit", send, recv) })
}

// AlltoallvInit binds a persistent Alltoallv.
func (c *Comm) AlltoallvInit(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAlltoallv, Send: send, Recv: recv, SendCounts: scounts, SendDispls: sdispls, RecvCounts: rcounts, RecvDispls: rdispls})
	}
	return c.persist("AlltoallvInit", func(s *schedule) error {
		return c.alltoallvBuild(s, "AlltoallvInit", send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// IreduceSlice starts a reduction of send into root's recv.
func IreduceSlice[T Numeric](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	return c.Ireduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op, root)
}
