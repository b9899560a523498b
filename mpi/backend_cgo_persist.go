//go:build ompi || mpich

package mpi

// Persistent collectives of the system-MPI backend. Open MPI 4.1 has only
// MPIX_ forms of MPI 4.0's MPI_*_init, so every Start issues the
// nonblocking collective afresh over the bound buffers: one algorithm on
// every MPI, and the same reading of the buffers at each Start as the
// engine's.

// Persistent is a persistent collective (MPI 4.0's MPI_Barrier_init,
// MPI_Bcast_init, ...): its arguments are bound once, and each Start runs
// the collective again over the same buffers, reading them afresh. Every
// rank must start its persistent collectives of a communicator in the same
// order, as with any collective.
type Persistent struct {
	what  string
	start func() (*Request, error)
	req   *Request // the run in progress, nil when inactive
	freed bool
}

// persistent checks the arguments once (check is the collective in
// collCheck mode) and binds start.
func persistent(what string, check func() error, start func() (*Request, error)) (*Persistent, error) {
	if err := check(); err != nil {
		return nil, err
	}
	return &Persistent{what: what, start: start}, nil
}

// Start runs the collective once more. The previous run must be complete.
func (p *Persistent) Start() (*Request, error) {
	switch {
	case p == nil || p.freed:
		return nil, newErr(ErrRequest, "Start", "persistent collective freed or nil")
	case p.active():
		return nil, newErr(ErrRequest, p.what, "started again while active")
	}
	r, err := p.start()
	if err != nil {
		return nil, err
	}
	p.req = r
	return r, nil
}

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
	p.freed, p.req, p.start = true, nil, nil
	return nil
}

// bind is persistent for a collective written as one function of a mode.
func bind(what string, op func(collMode) (*Request, error)) (*Persistent, error) {
	return persistent(what, func() error { _, err := op(collCheck); return err },
		func() (*Request, error) { return op(collStart) })
}

// clone copies a count or displacement list the caller may change after
// binding a persistent collective (nil stays nil: a non-root's lists).
func clone(v []int) []int {
	if v == nil {
		return nil
	}
	return append([]int(nil), v...)
}

// BarrierInit binds a persistent barrier.
func (c *Comm) BarrierInit() (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interBarrier})
	}
	return persistent("BarrierInit", func() error { return c.check("BarrierInit") },
		func() (*Request, error) { return c.Ibarrier() })
}

// BcastInit binds a persistent broadcast.
func (c *Comm) BcastInit(buf []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interBcast, Root: root, Send: buf, Recv: buf})
	}
	return persistent("BcastInit", func() error { return c.checkRoot("BcastInit", root) },
		func() (*Request, error) { return c.Ibcast(buf, root) })
}

// ReduceInit binds a persistent reduction to root.
func (c *Comm) ReduceInit(send, recv []byte, dt Datatype, op Op, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interReduce, Root: root, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return bind("ReduceInit", func(m collMode) (*Request, error) {
		return c.reduceOp(m, "ReduceInit", send, recv, dt, op, root)
	})
}

// AllreduceInit binds a persistent allreduce.
func (c *Comm) AllreduceInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAllreduce, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return persistent("AllreduceInit", func() error {
		if err := c.check("AllreduceInit"); err != nil {
			return err
		}
		_, _, err := checkReduceArgs("AllreduceInit", send, recv, dt, op, true)
		return err
	}, func() (*Request, error) { return c.Iallreduce(send, recv, dt, op) })
}

// ScanInit binds a persistent inclusive prefix reduction.
func (c *Comm) ScanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return bind("ScanInit", func(m collMode) (*Request, error) {
		return c.scanOp(m, "ScanInit", 0, send, recv, dt, op)
	})
}

// ExscanInit binds a persistent exclusive prefix reduction.
func (c *Comm) ExscanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return bind("ExscanInit", func(m collMode) (*Request, error) {
		return c.scanOp(m, "ExscanInit", 1, send, recv, dt, op)
	})
}

// ReduceScatterBlockInit binds a persistent ReduceScatterBlock.
func (c *Comm) ReduceScatterBlockInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interReduceScatterBlock, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return bind("ReduceScatterBlockInit", func(m collMode) (*Request, error) {
		return c.reduceScatterBlockOp(m, "ReduceScatterBlockInit", send, recv, dt, op)
	})
}

// ReduceScatterInit binds a persistent ReduceScatter.
func (c *Comm) ReduceScatterInit(send, recv []byte, counts []int, dt Datatype, op Op) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interReduceScatter, Send: send, Recv: recv, RecvCounts: counts, Datatype: dt, Op: op})
	}
	counts = clone(counts)
	return bind("ReduceScatterInit", func(m collMode) (*Request, error) {
		return c.reduceScatterOp(m, "ReduceScatterInit", send, recv, counts, dt, op)
	})
}

// GatherInit binds a persistent Gather.
func (c *Comm) GatherInit(send, recv []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interGather, Root: root, Send: send, Recv: recv})
	}
	return bind("GatherInit", func(m collMode) (*Request, error) {
		return c.gatherOp(m, "GatherInit", send, recv, root)
	})
}

// GathervInit binds a persistent Gatherv.
func (c *Comm) GathervInit(send, recv []byte, counts, displs []int, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interGatherv, Root: root, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	counts, displs = clone(counts), clone(displs)
	return bind("GathervInit", func(m collMode) (*Request, error) {
		return c.gathervOp(m, "GathervInit", send, recv, counts, displs, root)
	})
}

// ScatterInit binds a persistent Scatter.
func (c *Comm) ScatterInit(send, recv []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interScatter, Root: root, Send: send, Recv: recv})
	}
	return bind("ScatterInit", func(m collMode) (*Request, error) {
		return c.scatterOp(m, "ScatterInit", send, recv, root)
	})
}

// ScattervInit binds a persistent Scatterv.
func (c *Comm) ScattervInit(send []byte, counts, displs []int, recv []byte, root int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interScatterv, Root: root, Send: send, Recv: recv, SendCounts: counts, SendDispls: displs})
	}
	counts, displs = clone(counts), clone(displs)
	return bind("ScattervInit", func(m collMode) (*Request, error) {
		return c.scattervOp(m, "ScattervInit", send, counts, displs, recv, root)
	})
}

// AllgatherInit binds a persistent Allgather.
func (c *Comm) AllgatherInit(send, recv []byte) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAllgather, Send: send, Recv: recv})
	}
	return bind("AllgatherInit", func(m collMode) (*Request, error) {
		return c.allgatherOp(m, "AllgatherInit", send, recv)
	})
}

// AllgathervInit binds a persistent Allgatherv.
func (c *Comm) AllgathervInit(send, recv []byte, counts, displs []int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAllgatherv, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	counts, displs = clone(counts), clone(displs)
	return bind("AllgathervInit", func(m collMode) (*Request, error) {
		return c.allgathervOp(m, "AllgathervInit", send, recv, counts, displs)
	})
}

// AlltoallInit binds a persistent Alltoall.
func (c *Comm) AlltoallInit(send, recv []byte) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAlltoall, Send: send, Recv: recv})
	}
	return bind("AlltoallInit", func(m collMode) (*Request, error) {
		return c.alltoallOp(m, "AlltoallInit", send, recv)
	})
}

// AlltoallvInit binds a persistent Alltoallv.
func (c *Comm) AlltoallvInit(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	if c.IsInter() {
		return c.interCollInit(interArgs{Kind: interAlltoallv, Send: send, Recv: recv, SendCounts: scounts, SendDispls: sdispls, RecvCounts: rcounts, RecvDispls: rdispls})
	}
	scounts, sdispls, rcounts, rdispls = clone(scounts), clone(sdispls), clone(rcounts), clone(rdispls)
	return bind("AlltoallvInit", func(m collMode) (*Request, error) {
		return c.alltoallvOp(m, "AlltoallvInit", send, scounts, sdispls, recv, rcounts, rdispls)
	})
}
