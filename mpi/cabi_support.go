package mpi

// Engine support for the C ABI (cmd/libmpi_abi): the request operations MPI
// has and the Go API does not need.

// Peek reports whether r has completed, and its status, without spending it
// (MPI_Request_get_status). It makes one progress pass when r is pending.
func (r *Request) Peek() (Status, bool, error) {
	if err := checkReq("Peek", r); err != nil {
		return Status{}, false, err
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if !r.done {
		e.progress()
	}
	if !r.done {
		return Status{}, false, nil
	}
	return r.status, true, r.err
}

// CancelRecv cancels a receive that has not been matched yet (MPI_Cancel on
// a receive). It reports whether it did; a cancelled request is complete
// with an empty status, and Wait returns at once. Sends and receives already
// matched are not cancelled.
func (r *Request) CancelRecv() bool {
	if r == nil || r.spent || r.kind != reqRecv {
		return false
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.done || r.flight != nil || r.read != nil {
		return false
	}
	e.queues(r.ctx).unpost(r)
	r.complete(Status{Source: AnySource, Tag: AnyTag}, nil)
	r.buf = nil
	return true
}
