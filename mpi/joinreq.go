//go:build !ompi && !mpich

package mpi

// Requests that stand for other requests or for work done outside the
// engine: a send-receive pair (Isendrecv), a partitioned transfer waiting
// for its partitions, a generalized request completed by the application.
//
// A join request completes once its hold is released and every request it
// follows has completed; it takes the status of the receive it follows (if
// any) and the first error. Followed requests report to it when they
// complete (Request.complete, checkSendDone), under the engine lock.

// reqJoin is the kind of a join request.
const reqJoin reqKind = 10

// newJoin returns a join request on the world's engine, held: it cannot
// complete before Release. nil before Init.
func newJoin() *Request {
	if world == nil {
		return nil
	}
	return &Request{&reqBody{e: world.e, kind: reqJoin, pending: 1}}
}

// follow makes r wait for child as well. child must be a request of the
// same engine that nothing else follows.
func (r *Request) follow(child *Request) {
	if child == nil {
		return
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if child.done {
		r.childDone(child)
		return
	}
	r.pending++
	child.parent = r
}

// release drops the hold NewJoin placed; r completes when what it follows
// has. A generalized request (MPI_Grequest_complete) is just a Release.
func (r *Request) release() {
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	r.pending--
	r.checkJoin()
	if e.region != nil {
		// The thread waiting for r may sleep on the doorbell.
		e.bell.Ring()
	}
}

// childDone accounts for a followed request that completed. Called with
// e.mu held.
func (r *Request) childDone(child *Request) {
	if child.kind == reqRecv {
		r.status = child.status
	}
	if child.err != nil && r.err == nil {
		r.err = child.err
	}
	if child.parent == r {
		child.parent = nil
		r.pending--
	}
	r.checkJoin()
}

func (r *Request) checkJoin() {
	if r.pending <= 0 && !r.done {
		r.done = true
		if r.parent != nil {
			r.parent.childDone(r)
		}
	}
}

// Isendrecv starts a send to dest and a receive from source at once; the
// request completes when both have, with the receive's status.
func (c *Comm) Isendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, source, recvtag int) (*Request, error) {
	if err := c.checkDest("Isendrecv", dest, sendtag); err != nil {
		return nil, err
	}
	if err := c.checkSource("Isendrecv", source, recvtag); err != nil {
		return nil, err
	}
	rr, err := c.Irecv(recvbuf, source, recvtag)
	if err != nil {
		return nil, err
	}
	sr, err := c.Isend(sendbuf, dest, sendtag)
	if err != nil {
		c.e.mu.Lock()
		c.e.abandonRecv(rr)
		c.e.mu.Unlock()
		return nil, err
	}
	j := &Request{&reqBody{e: c.e, kind: reqJoin, pending: 1}}
	j.follow(rr)
	j.follow(sr)
	j.release()
	return j, nil
}
