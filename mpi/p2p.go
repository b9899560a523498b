//go:build !ompi && !mpich

package mpi

// Send sends buf to rank dest of c with tag. It returns once buf may be
// reused: small messages are in the peer's channel at once, larger ones as
// soon as their last fragment is.
func (c *Comm) Send(buf []byte, dest, tag int) error {
	return c.blockingSend("Send", buf, dest, tag, false)
}

// Ssend is a synchronous send: it completes only after the receiver has
// matched the message with a receive.
func (c *Comm) Ssend(buf []byte, dest, tag int) error {
	return c.blockingSend("Ssend", buf, dest, tag, true)
}

// Rsend is a ready-mode send. MPI lets it assume the receive is already
// posted; hympi's eager path needs no such assumption, so it is a Send.
func (c *Comm) Rsend(buf []byte, dest, tag int) error {
	return c.blockingSend("Rsend", buf, dest, tag, false)
}

func (c *Comm) blockingSend(op string, buf []byte, dest, tag int, sync bool) error {
	if !c.p2pArgsOK(dest, tag) {
		if err := c.checkDest(op, dest, tag); err != nil {
			return err
		}
		if dest == ProcNull {
			return nil
		}
	}
	e := c.e
	w := c.peerWorld(dest)
	// The eager case unlocks by hand: a deferred unlock and the checks'
	// calls were a fifth of a small send's instructions.
	e.mu.Lock()
	if e.fatal == nil && !sync && w != e.rank && e.trySendInline(e.outTo(w), c.ctx, tag, buf) {
		e.mu.Unlock()
		return nil
	}
	return e.sendWait(c, w, buf, tag, sync)
}

// sendWait is a blocking send that the eager case did not take: it queues
// the send and waits for it. Called with e.mu held; releases it.
func (e *engine) sendWait(c *Comm, w int, buf []byte, tag int, sync bool) error {
	defer e.mu.Unlock()
	if e.fatal != nil {
		return e.fatal
	}
	r := e.newInternalReq(reqSend)
	e.startSend(r, c, c.ctx, w, buf, tag, sync)
	if err := e.waitUntil(func() bool { return r.done }); err != nil {
		return err // r may still be referenced by a dead engine: not recycled
	}
	err := r.err
	e.freeInternalReq(r)
	return err
}

// p2pArgsOK is the common case of checkDest and checkSource in a few
// inlined compares: a live intracommunicator, a rank of it (not ProcNull
// or AnySource) and a tag in 0..TagUB. False means "ask the full check",
// which also gives the error.
func (c *Comm) p2pArgsOK(peer, tag int) bool {
	return c != nil && c.inter == nil && !c.freed && uint(peer) < uint(c.size) &&
		uint(tag) <= TagUB && (c.private || active.Load())
}

// startSend queues r, a send of buf to world rank w.
func (e *engine) startSend(r *Request, c *Comm, ctx uint32, w int, buf []byte, tag int, sync bool) {
	r.comm, r.peer, r.sbuf, r.ctx, r.m.Tag, r.sync = c, w, buf, ctx, tag, sync
	if w == e.rank {
		e.sendSelf(r)
		return
	}
	if sync {
		e.registerSync(r)
	}
	e.enqueueSend(e.outTo(w), r)
}

// Isend starts a send and returns at once; buf must not be modified until
// the request completes.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	return c.isend(nil, "Isend", buf, dest, tag, false)
}

// Issend starts a synchronous send: the request completes once the receiver
// has matched it.
func (c *Comm) Issend(buf []byte, dest, tag int) (*Request, error) {
	return c.isend(nil, "Issend", buf, dest, tag, true)
}

// isend starts a send in old when the C ABI recycles a request (reuseReq),
// in a new request when old is nil.
func (c *Comm) isend(old *Request, op string, buf []byte, dest, tag int, sync bool) (*Request, error) {
	if !c.p2pArgsOK(dest, tag) {
		if err := c.checkDest(op, dest, tag); err != nil {
			return nil, err
		}
		if dest == ProcNull {
			r := c.e.reuseReq(old, reqSend)
			r.complete(Status{Source: ProcNull, Tag: AnyTag}, nil)
			return r, nil
		}
	}
	e := c.e
	w := c.peerWorld(dest)
	// Unlocked by hand, not deferred: osu_bw's window makes this call per
	// message, and nothing below panics short of a bug.
	e.mu.Lock()
	if err := e.fatal; err != nil {
		e.mu.Unlock()
		return nil, err
	}
	var r *Request
	if !sync && w != e.rank && e.trySendInline(e.outTo(w), c.ctx, tag, buf) {
		// Complete already: the request needs no state of its own
		// (doneSend) until it is collected.
		if old == nil {
			r = e.newHandle()
			r.reqBody = &e.doneSend
		} else {
			r = e.reuseReq(old, reqSend)
			r.done, r.quick = true, r.pool
		}
		e.mu.Unlock()
		return r, nil
	}
	if old == nil {
		r = e.newUserReq(reqSend)
	} else {
		r = e.reuseReq(old, reqSend)
	}
	e.startSend(r, c, c.ctx, w, buf, tag, sync)
	e.mu.Unlock()
	return r, nil
}

// Recv receives a message from source (or AnySource) with tag (or AnyTag)
// into buf. A message longer than buf fills buf and returns ErrTruncate.
func (c *Comm) Recv(buf []byte, source, tag int) (Status, error) {
	if !c.p2pArgsOK(source, tag) && (tag != AnyTag || !c.p2pArgsOK(source, 0)) {
		if err := c.checkSource("Recv", source, tag); err != nil {
			return Status{}, err
		}
		if source == ProcNull {
			return Status{Source: ProcNull, Tag: AnyTag}, nil
		}
	}
	e := c.e
	e.mu.Lock() // unlocked by hand on the fast lane, as in blockingSend
	if e.fatal == nil && source != AnySource {
		if st, ok := e.fastRecv(c, buf, source, tag); ok {
			e.mu.Unlock()
			return st, nil
		}
	}
	return e.recvWait(c, buf, source, tag)
}

// recvWait is a blocking receive the fast lane did not take: it posts the
// receive and waits for it. Called with e.mu held; releases it.
func (e *engine) recvWait(c *Comm, buf []byte, source, tag int) (Status, error) {
	defer e.mu.Unlock()
	if e.fatal != nil {
		return Status{}, e.fatal
	}
	r := e.newInternalReq(reqRecv)
	c.initRecv(r, c.ctx, buf, source, tag)
	e.postRecv(r)
	// A message already published needs one progress pass, not a wait:
	// waitUntil's set-up (deferred accounting, the condition closure, its
	// pass counters) costs about as much as that pass does.
	if !r.done && e.fatal == nil {
		e.progress()
	}
	if !r.done {
		if err := e.waitUntil(func() bool { return r.done }); err != nil {
			e.abandonRecv(r)
			return Status{}, err
		}
	}
	st, err := r.status, r.err
	e.freeInternalReq(r)
	return st, err
}

func (c *Comm) initRecv(r *Request, ctx uint32, buf []byte, source, tag int) {
	// Through the state: each store through the handle would load its
	// pointer again (Irecv makes this call per message).
	b := r.reqBody
	b.comm, b.buf, b.m.Tag, b.ctx = c, buf, tag, ctx
	src := AnySource
	if source != AnySource {
		src = c.peerWorld(source)
	}
	b.m.Src = src
}

// abandonRecv takes a receive that will never complete off the posted queue,
// so the engine stops referring to its buffer.
func (e *engine) abandonRecv(r *Request) {
	if !r.done && r.flight == nil {
		e.queues(r.ctx).Unpost(&r.m)
	}
}

// Irecv starts a receive and returns at once.
func (c *Comm) Irecv(buf []byte, source, tag int) (*Request, error) {
	return c.irecv(nil, buf, source, tag)
}

// irecv is Irecv in old when the C ABI recycles a request (reuseReq).
func (c *Comm) irecv(old *Request, buf []byte, source, tag int) (*Request, error) {
	if !c.p2pArgsOK(source, tag) && (tag != AnyTag || !c.p2pArgsOK(source, 0)) {
		if err := c.checkSource("Irecv", source, tag); err != nil {
			return nil, err
		}
		if source == ProcNull {
			r := c.e.reuseReq(old, reqRecv)
			r.complete(Status{Source: ProcNull, Tag: AnyTag}, nil)
			return r, nil
		}
	}
	e := c.e
	e.mu.Lock() // unlocked by hand, as in isend
	if err := e.fatal; err != nil {
		e.mu.Unlock()
		return nil, err
	}
	var r *Request
	if old == nil {
		r = e.newUserReq(reqRecv)
	} else {
		r = e.reuseReq(old, reqRecv)
	}
	c.initRecv(r, c.ctx, buf, source, tag)
	if source != AnySource && e.laneOK(r.m.Src, len(buf)) {
		e.laneQueue(r, source, r.m.Src)
	} else {
		e.postRecv(r)
	}
	e.mu.Unlock()
	return r, nil
}

// Sendrecv sends sendbuf to dest and receives into recvbuf from source, as
// if both ran at once (so a ring of Sendrecvs cannot deadlock).
func (c *Comm) Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (Status, error) {
	if err := c.checkDest("Sendrecv", dest, sendtag); err != nil {
		return Status{}, err
	}
	if err := c.checkSource("Sendrecv", source, recvtag); err != nil {
		return Status{}, err
	}
	rr, err := c.Irecv(recvbuf, source, recvtag)
	if err != nil {
		return Status{}, err
	}
	sr, err := c.Isend(sendbuf, dest, sendtag)
	if err != nil {
		return Status{}, err
	}
	if _, err := sr.Wait(); err != nil {
		return Status{}, err
	}
	return rr.Wait()
}

// Iprobe reports whether a message from source with tag is waiting to be
// received, and its envelope, without receiving it.
func (c *Comm) Iprobe(source, tag int) (Status, bool, error) {
	if err := c.checkSource("Iprobe", source, tag); err != nil {
		return Status{}, false, err
	}
	if source == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, true, nil
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return Status{}, false, e.fatal
	}
	u := c.probe(source, tag)
	if u == nil {
		e.progress()
		u = c.probe(source, tag)
	}
	if u == nil {
		return Status{}, false, nil
	}
	return Status{Source: c.peerRank(u.Src), Tag: int(u.Tag), Count: u.length}, true, nil
}

// Probe blocks until a message from source with tag is waiting, and returns
// its envelope; the message stays to be received.
func (c *Comm) Probe(source, tag int) (Status, error) {
	if err := c.checkSource("Probe", source, tag); err != nil {
		return Status{}, err
	}
	if source == ProcNull {
		return Status{Source: ProcNull, Tag: AnyTag}, nil
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	var u *unexpected
	if err := e.waitUntil(func() bool { u = c.probe(source, tag); return u != nil }); err != nil {
		return Status{}, err
	}
	return Status{Source: c.peerRank(u.Src), Tag: int(u.Tag), Count: u.length}, nil
}

func (c *Comm) probe(source, tag int) *unexpected {
	src := AnySource
	if source != AnySource {
		src = c.peerWorld(source)
	}
	return c.e.queues(c.ctx).FindUnexpected(src, tag)
}
