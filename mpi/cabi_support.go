//go:build !ompi && !mpich

package mpi

import (
	_ "unsafe" // for go:linkname

	"github.com/hympi/hympi/shm"
)

// Engine support for the C ABI (cmd/libmpi_abi): the request operations MPI
// has and the Go API does not need. They are unexported; enginehook.go hands
// them to internal/cabi, which is what the C library calls.

// peek reports whether r has completed, and its status, without spending it
// (MPI_Request_get_status). It makes one progress pass when r is pending.
func (r *Request) peek() (Status, bool, error) {
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

// takeDone spends r and reports true when it has completed without error,
// after one progress pass if it was a nonblocking collective's whose
// start the direct run refused; otherwise it changes nothing.
// The C ABI asks right after starting a nonblocking collective: a complete
// one then needs no request slot and no second call into Go for its
// MPI_Wait. The pass matters: a start issues a round's messages, and the
// peers' messages already there are matched by the next pass, not by the
// start itself.
func (r *Request) takeDone() bool {
	if r == nil || r.spent {
		return false
	}
	e := r.e
	e.mu.Lock()
	if !r.done && !r.spent && r.coll != nil && !r.coll.c.nbDefer {
		// The C ABI keeps its nonblocking collectives completing at
		// their start when the peers are there: the direct run the start
		// deferred goes on here. Not when the communicator's starts
		// defer their receives to the tests (coll_cstart.go): taking
		// the message now would leave them nothing to overlap.
		e.resumeColl(r.coll, false)
	}
	// A deferred run has nothing posted for a pass to match (it looked
	// at the peers' rings just now; the pass cost a start that deferred
	// ~600 instructions): only a nonblocking start the direct run
	// refused, which posted its receives the general way, needs one. A
	// persistent start (MPI_Start asks too) is taken only if done.
	if !r.done && !r.spent && r.pcoll == nil && (r.coll == nil || !r.coll.deferred) {
		e.progress()
	}
	ok := r.done && r.err == nil && !r.spent
	if ok {
		r.collect()
	}
	e.mu.Unlock()
	return ok
}

// collIdle reports whether r is a nonblocking collective that waits, with
// nothing posted, for a peer's message on a collective ring, and is the
// engine's only live collective: until a collective message from one of
// its peers is consumed, no pass can complete it, which is what lets the
// C ABI answer an MPI_Test of it without entering Go (nbc_idle.c).
func (r *Request) collIdle() bool {
	if r == nil || r.coll == nil {
		return false
	}
	e := r.e
	e.mu.Lock()
	op := r.coll
	ok := !r.done && !r.spent && op.deferred && len(e.colls) == 1 && e.colls[0] == op && e.async == nil
	e.mu.Unlock()
	return ok
}

// cancelRecv cancels a receive that has not been matched yet (MPI_Cancel on
// a receive). It reports whether it did; a cancelled request is complete
// with an empty status, and Wait returns at once. Sends and receives already
// matched are not cancelled.
func (r *Request) cancelRecv() bool {
	if r == nil || r.spent || r.kind != reqRecv {
		return false
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.done || r.flight != nil || r.read != nil {
		return false
	}
	e.queues(r.ctx).Unpost(&r.m)
	r.complete(Status{Source: AnySource, Tag: AnyTag, Cancelled: true}, nil)
	r.buf = nil
	return true
}

// waitallInto is Waitall for the C ABI's MPI_Waitall: one lock and one wait
// for the whole batch instead of a Wait per request, and no allocation (the
// caller passes sts and errs, at least len(reqs) long). Nil entries are
// skipped. Each completed request's status and error go to sts[i] and
// errs[i]; a non-nil result is a failure of the wait itself (a spent
// request, a dead engine), and then no request has been collected.
// internal/cabi binds to it by name (no hook: see there).
//
//go:linkname waitallInto
func waitallInto(reqs []*Request, sts []Status, errs []error) error {
	e, err := reqsEngine("Waitall", reqs)
	if err != nil || e == nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	from := 0
	if (e.laneN == 0 || !e.laneWaitall(reqs)) && !allDoneFrom(reqs, &from) {
		if err := e.waitUntil(func() bool { return allDoneFrom(reqs, &from) }); err != nil {
			return err
		}
	}
	for i, r := range reqs {
		if r == nil {
			continue
		}
		if r.coll == nil { // collect, inlined as in collectAll
			if b := r.reqBody; b == &e.doneSend {
				sts[i], errs[i] = Status{}, nil
				r.reqBody = &e.spentBody
				continue
			} else if b.quick {
				sts[i], errs[i] = b.status, nil
				e.spendQuick(r, b)
				continue
			}
			r.spent = true
			sts[i], errs[i] = r.status, r.err
			r.buf, r.sbuf, r.comm = nil, nil, nil
			if r.pool {
				e.spend(r)
			}
			continue
		}
		sts[i], errs[i] = r.collect()
	}
	return nil
}

// isendIn, issendIn and irecvIn are Isend, Issend and Irecv for the C ABI,
// which keeps the engine request of a completed operation and passes it
// back as old for the next one: the steady state of a C program streaming
// messages then allocates nothing. old may be nil or any request: only one
// that reuseReq finds safe to reuse is reused.
func (c *Comm) isendIn(old *Request, buf []byte, dest, tag int) (*Request, error) {
	return c.isend(old, "Isend", buf, dest, tag, false)
}

func (c *Comm) issendIn(old *Request, buf []byte, dest, tag int) (*Request, error) {
	return c.isend(old, "Issend", buf, dest, tag, true)
}

func (c *Comm) irecvIn(old *Request, buf []byte, source, tag int) (*Request, error) {
	return c.irecv(old, buf, source, tag)
}

// sendNow is MPI_Isend's shortcut in the C ABI. A standard-mode message
// that can be published at once (nothing queued toward dest, it fits one
// descriptor, a slot is free) is sent as Send would send it, and SendNow
// reports true: the send is complete and needs no request at all. Else it
// does nothing and reports false, and the caller starts a request
// (IsendIn), which keeps the order of messages to dest. Errors are
// Isend's argument errors.
func (c *Comm) sendNow(buf []byte, dest, tag int) (bool, error) {
	if err := c.checkDest("Isend", dest, tag); err != nil {
		return false, err
	}
	if dest == ProcNull || len(buf) > shm.InlineMax {
		return false, nil
	}
	e := c.e
	w := c.peerWorld(dest)
	if w == e.rank {
		return false, nil
	}
	e.mu.Lock()
	ok := e.fatal == nil && e.trySendInline(e.outTo(w), c.ctx, tag, buf)
	e.mu.Unlock()
	return ok, nil
}

// reuseReq is newReq, recycling old when that is safe: a point-to-point
// request the engine completed and the caller collected (spent). The engine
// drops its last reference to a request when it completes it (blocking
// calls recycle their internal requests on the same ground); a request
// freed while active (MPI_Request_free) is never collected, so it is never
// reused, and collective requests belong to their operation.
func (e *engine) reuseReq(old *Request, kind reqKind) *Request {
	if old == nil || old.e != e || !old.spent || !old.done {
		return e.newReq(kind)
	}
	if old.reqBody == &e.spentBody {
		// Its state was recycled (spend) or shared (doneSend): the
		// handle takes a free one.
		old.reqBody = e.newBody()
		old.kind = kind
		return old
	}
	if old.kind != reqSend && old.kind != reqRecv {
		return e.newReq(kind)
	}
	*old.reqBody = reqBody{e: e, kind: kind}
	return old
}

// testallInto is Testall writing the statuses into sts (at least len(reqs)
// long) instead of a new slice: MPI_Testall is often polled in a loop.
func testallInto(reqs []*Request, sts []Status) (bool, error) {
	e, err := reqsEngine("Testall", reqs)
	if err != nil {
		return false, err
	}
	if e == nil {
		return true, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.progress() && !allDone(reqs) {
		e.pollIdle()
	}
	if !allDone(reqs) {
		return false, nil
	}
	return true, collectAll(reqs, sts)
}
