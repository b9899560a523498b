//go:build !ompi && !mpich

package mpi

// Matched probe (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv). A probe
// that matches takes the message off the unexpected lists at once, so that
// no other receive or probe, in this thread or another, can see it again;
// the Message then owns it until Recv or Irecv hands it to a receive. A
// message still streaming in keeps filling its buffer while it is owned.

// Message is a message taken by Mprobe or Improbe, to be received with
// Recv or Irecv exactly once. The message of a probe of ProcNull is a
// "no process" message whose receive completes at once, empty.
type Message struct {
	comm   *Comm
	u      *unexpected
	status Status
	noProc bool
	used   bool
}

// Status is the envelope of the probed message.
func (m *Message) Status() Status { return m.status }

// NoProc reports whether m is the message of a probe of ProcNull.
func (m *Message) NoProc() bool { return m != nil && m.noProc }

// Improbe is Iprobe that also takes the message: ok false means nothing
// matched (and m is nil).
func (c *Comm) Improbe(source, tag int) (*Message, Status, bool, error) {
	if err := c.checkSource("Improbe", source, tag); err != nil {
		return nil, Status{}, false, err
	}
	if source == ProcNull {
		st := Status{Source: ProcNull, Tag: AnyTag}
		return &Message{comm: c, status: st, noProc: true}, st, true, nil
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return nil, Status{}, false, e.fatal
	}
	u := c.probe(source, tag)
	if u == nil {
		e.progress()
		u = c.probe(source, tag)
	}
	if u == nil {
		return nil, Status{}, false, nil
	}
	m := c.own(u)
	return m, m.status, true, nil
}

// Mprobe blocks until a message from source with tag is waiting and takes
// it.
func (c *Comm) Mprobe(source, tag int) (*Message, Status, error) {
	if err := c.checkSource("Mprobe", source, tag); err != nil {
		return nil, Status{}, err
	}
	if source == ProcNull {
		st := Status{Source: ProcNull, Tag: AnyTag}
		return &Message{comm: c, status: st, noProc: true}, st, nil
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	var u *unexpected
	if err := e.waitUntil(func() bool { u = c.probe(source, tag); return u != nil }); err != nil {
		return nil, Status{}, err
	}
	m := c.own(u)
	return m, m.status, nil
}

// own detaches u from the matching queues for a Message. Called with e.mu.
func (c *Comm) own(u *unexpected) *Message {
	c.e.takeUnexpected(c.e.queues(c.ctx), u)
	return &Message{comm: c, u: u, status: Status{Source: c.peerRank(u.Src), Tag: int(u.Tag), Count: u.length}}
}

// Recv receives m into buf (MPI_Mrecv).
func (m *Message) Recv(buf []byte) (Status, error) {
	r, err := m.Irecv(buf)
	if err != nil {
		return Status{}, err
	}
	return r.Wait()
}

// Irecv starts the receive of m into buf (MPI_Imrecv).
func (m *Message) Irecv(buf []byte) (*Request, error) {
	return m.irecvIn(nil, buf)
}

// irecvIn is Irecv in old when the C ABI recycles a request (reuseReq).
func (m *Message) irecvIn(old *Request, buf []byte) (*Request, error) {
	if m == nil || m.used {
		return nil, newErr(ErrRequest, "Mrecv", "message is null or already received")
	}
	c := m.comm
	if err := c.checkLive("Mrecv"); err != nil && !m.noProc {
		return nil, err
	}
	e := c.e
	r := e.reuseReq(old, reqRecv)
	m.used = true
	if m.noProc {
		r.complete(Status{Source: ProcNull, Tag: AnyTag}, nil)
		return r, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c.initRecv(r, c.ctx, buf, AnySource, AnyTag)
	u := m.u
	m.u = nil
	e.matchUnexpected(r, u)
	return r, nil
}
