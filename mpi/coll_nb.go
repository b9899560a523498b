//go:build !ompi && !mpich

package mpi

// Nonblocking and persistent collectives. Each is the general schedule of
// its blocking twin (coll_api.go) handed to the engine without waiting:
// one algorithm per collective, whichever form starts it. Any number may be
// outstanding on a communicator and they complete in any order; the engine
// advances them in every MPI call, in Wait/Test, and from the progress
// goroutine under HYMPI_ASYNC_PROGRESS=1.

// startSched starts the schedule build makes (with the operation's name)
// and returns its request.
func (c *Comm) startSched(what string, build func(string) (*schedule, error)) (*Request, error) {
	s, err := build(what)
	if err != nil {
		return nil, err
	}
	return c.startNonblocking(s)
}

// Ireduce starts a reduction to root.
func (c *Comm) Ireduce(send, recv []byte, dt Datatype, op Op, root int) (*Request, error) {
	return c.startSched("Ireduce", func(w string) (*schedule, error) { return c.reduceSched(w, send, recv, dt, op, root) })
}

// Iscan starts an inclusive prefix reduction.
func (c *Comm) Iscan(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.startSched("Iscan", func(w string) (*schedule, error) { return c.scanSched(w, send, recv, dt, op, false) })
}

// Iexscan starts an exclusive prefix reduction.
func (c *Comm) Iexscan(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.startSched("Iexscan", func(w string) (*schedule, error) { return c.scanSched(w, send, recv, dt, op, true) })
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func (c *Comm) IreduceScatterBlock(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.startSched("IreduceScatterBlock", func(w string) (*schedule, error) {
		return c.reduceScatterBlockSched(w, send, recv, dt, op)
	})
}

// IreduceScatter starts a ReduceScatter.
func (c *Comm) IreduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) (*Request, error) {
	return c.startSched("IreduceScatter", func(w string) (*schedule, error) {
		return c.reduceScatterSched(w, send, recv, counts, dt, op)
	})
}

// Igather starts a Gather.
func (c *Comm) Igather(send, recv []byte, root int) (*Request, error) {
	return c.startSched("Igather", func(w string) (*schedule, error) { return c.gatherSched(w, send, recv, root) })
}

// Igatherv starts a Gatherv.
func (c *Comm) Igatherv(send, recv []byte, counts, displs []int, root int) (*Request, error) {
	return c.startSched("Igatherv", func(w string) (*schedule, error) {
		return c.gathervSched(w, send, recv, counts, displs, root)
	})
}

// Iscatter starts a Scatter.
func (c *Comm) Iscatter(send, recv []byte, root int) (*Request, error) {
	return c.startSched("Iscatter", func(w string) (*schedule, error) { return c.scatterSched(w, send, recv, root) })
}

// Iscatterv starts a Scatterv.
func (c *Comm) Iscatterv(send []byte, counts, displs []int, recv []byte, root int) (*Request, error) {
	return c.startSched("Iscatterv", func(w string) (*schedule, error) {
		return c.scattervSched(w, send, counts, displs, recv, root)
	})
}

// Iallgather starts an Allgather. send may be recv's own block (in place).
func (c *Comm) Iallgather(send, recv []byte) (*Request, error) {
	return c.startSched("Iallgather", func(w string) (*schedule, error) { return c.allgatherSched(w, send, recv) })
}

// Iallgatherv starts an Allgatherv.
func (c *Comm) Iallgatherv(send, recv []byte, counts, displs []int) (*Request, error) {
	return c.startSched("Iallgatherv", func(w string) (*schedule, error) {
		return c.allgathervSched(w, send, recv, counts, displs)
	})
}

// Ialltoall starts an Alltoall. send and recv may be the same slice (in
// place).
func (c *Comm) Ialltoall(send, recv []byte) (*Request, error) {
	return c.startSched("Ialltoall", func(w string) (*schedule, error) { return c.alltoallSched(w, send, recv) })
}

// Ialltoallv starts an Alltoallv.
func (c *Comm) Ialltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	return c.startSched("Ialltoallv", func(w string) (*schedule, error) {
		return c.alltoallvSched(w, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// Persistent is a persistent collective (MPI 4.0's MPI_Barrier_init,
// MPI_Bcast_init, ...): its arguments are bound once, and each Start runs
// the collective again over the same buffers, reading them afresh. Every
// rank must start its persistent collectives of a communicator in the same
// order, as with any collective.
type Persistent struct {
	c     *Comm
	what  string
	build func(string) (*schedule, error)
	req   *Request // the run in progress, nil when inactive
	freed bool
}

// persistent checks the arguments by building the schedule once (a build
// only allocates and captures buffers, it moves no data) and binds them.
func (c *Comm) persistent(what string, build func(string) (*schedule, error)) (*Persistent, error) {
	if _, err := build(what); err != nil {
		return nil, err
	}
	return &Persistent{c: c, what: what, build: build}, nil
}

// Start runs the collective once more. The previous run must be complete.
func (p *Persistent) Start() (*Request, error) {
	switch {
	case p == nil || p.freed:
		return nil, newErr(ErrRequest, "Start", "persistent collective freed or nil")
	case p.active():
		return nil, newErr(ErrRequest, p.what, "started again while active")
	}
	s, err := p.build(p.what)
	if err != nil {
		return nil, err
	}
	r, err := p.c.startNonblocking(s)
	if err != nil {
		return nil, err
	}
	p.req = r
	return r, nil
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
	p.freed, p.req, p.build = true, nil, nil
	return nil
}

// BarrierInit binds a persistent barrier.
func (c *Comm) BarrierInit() (*Persistent, error) {
	return c.persistent("BarrierInit", func(w string) (*schedule, error) { return c.barrierSched(w) })
}

// BcastInit binds a persistent broadcast.
func (c *Comm) BcastInit(buf []byte, root int) (*Persistent, error) {
	return c.persistent("BcastInit", func(w string) (*schedule, error) { return c.bcastSched(w, buf, root) })
}

// ReduceInit binds a persistent Reduce.
func (c *Comm) ReduceInit(send, recv []byte, dt Datatype, op Op, root int) (*Persistent, error) {
	return c.persistent("ReduceInit", func(w string) (*schedule, error) { return c.reduceSched(w, send, recv, dt, op, root) })
}

// AllreduceInit binds a persistent Allreduce.
func (c *Comm) AllreduceInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return c.persistent("AllreduceInit", func(w string) (*schedule, error) { return c.allreduceArgs(w, send, recv, dt, op) })
}

// ScanInit binds a persistent Scan.
func (c *Comm) ScanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return c.persistent("ScanInit", func(w string) (*schedule, error) { return c.scanSched(w, send, recv, dt, op, false) })
}

// ExscanInit binds a persistent Exscan.
func (c *Comm) ExscanInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return c.persistent("ExscanInit", func(w string) (*schedule, error) { return c.scanSched(w, send, recv, dt, op, true) })
}

// ReduceScatterBlockInit binds a persistent ReduceScatterBlock.
func (c *Comm) ReduceScatterBlockInit(send, recv []byte, dt Datatype, op Op) (*Persistent, error) {
	return c.persistent("ReduceScatterBlockInit", func(w string) (*schedule, error) {
		return c.reduceScatterBlockSched(w, send, recv, dt, op)
	})
}

// ReduceScatterInit binds a persistent ReduceScatter.
func (c *Comm) ReduceScatterInit(send, recv []byte, counts []int, dt Datatype, op Op) (*Persistent, error) {
	counts = append([]int(nil), counts...)
	return c.persistent("ReduceScatterInit", func(w string) (*schedule, error) {
		return c.reduceScatterSched(w, send, recv, counts, dt, op)
	})
}

// GatherInit binds a persistent Gather.
func (c *Comm) GatherInit(send, recv []byte, root int) (*Persistent, error) {
	return c.persistent("GatherInit", func(w string) (*schedule, error) { return c.gatherSched(w, send, recv, root) })
}

// GathervInit binds a persistent Gatherv.
func (c *Comm) GathervInit(send, recv []byte, counts, displs []int, root int) (*Persistent, error) {
	counts, displs = clone(counts), clone(displs)
	return c.persistent("GathervInit", func(w string) (*schedule, error) {
		return c.gathervSched(w, send, recv, counts, displs, root)
	})
}

// ScatterInit binds a persistent Scatter.
func (c *Comm) ScatterInit(send, recv []byte, root int) (*Persistent, error) {
	return c.persistent("ScatterInit", func(w string) (*schedule, error) { return c.scatterSched(w, send, recv, root) })
}

// ScattervInit binds a persistent Scatterv.
func (c *Comm) ScattervInit(send []byte, counts, displs []int, recv []byte, root int) (*Persistent, error) {
	counts, displs = clone(counts), clone(displs)
	return c.persistent("ScattervInit", func(w string) (*schedule, error) {
		return c.scattervSched(w, send, counts, displs, recv, root)
	})
}

// AllgatherInit binds a persistent Allgather.
func (c *Comm) AllgatherInit(send, recv []byte) (*Persistent, error) {
	return c.persistent("AllgatherInit", func(w string) (*schedule, error) { return c.allgatherSched(w, send, recv) })
}

// AllgathervInit binds a persistent Allgatherv.
func (c *Comm) AllgathervInit(send, recv []byte, counts, displs []int) (*Persistent, error) {
	counts, displs = clone(counts), clone(displs)
	return c.persistent("AllgathervInit", func(w string) (*schedule, error) {
		return c.allgathervSched(w, send, recv, counts, displs)
	})
}

// AlltoallInit binds a persistent Alltoall.
func (c *Comm) AlltoallInit(send, recv []byte) (*Persistent, error) {
	return c.persistent("AlltoallInit", func(w string) (*schedule, error) { return c.alltoallSched(w, send, recv) })
}

// AlltoallvInit binds a persistent Alltoallv.
func (c *Comm) AlltoallvInit(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Persistent, error) {
	scounts, sdispls, rcounts, rdispls = clone(scounts), clone(sdispls), clone(rcounts), clone(rdispls)
	return c.persistent("AlltoallvInit", func(w string) (*schedule, error) {
		return c.alltoallvSched(w, send, scounts, sdispls, recv, rcounts, rdispls)
	})
}

// clone copies a count or displacement list the caller may change after
// binding a persistent collective (nil stays nil: a non-root's lists).
func clone(v []int) []int {
	if v == nil {
		return nil
	}
	return append([]int(nil), v...)
}

// IreduceSlice starts a reduction of send into root's recv.
func IreduceSlice[T Numeric](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	return c.Ireduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op, root)
}
