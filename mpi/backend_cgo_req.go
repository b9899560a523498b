//go:build ompi || mpich

package mpi

// #include "backend_cgo.h"
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Nonblocking point-to-point and the request operations of the system-MPI
// backend. A request pins the Go buffer MPI reads or writes from the start
// of the operation until it completes, and keeps only the MPI handle.

// start prepares r (a spent request to recycle, or nil) for a new operation
// on buf.
func start(old *Request, op string, buf []byte) *Request {
	r := old
	if r == nil || !r.spent {
		r = &Request{}
	}
	r.done, r.spent, r.st, r.err, r.op, r.n, r.join = false, false, Status{}, nil, op, len(buf), nil
	r.pinBuf(buf)
	return r
}

// Pinners are pooled: a fresh one costs a finalizer on its first Pin,
// which would dominate a small Isend.
var pinners = sync.Pool{New: func() any { return new(runtime.Pinner) }}

func (r *Request) pinBuf(b []byte) {
	if cap(b) == 0 {
		return
	}
	if r.pin == nil {
		r.pin = pinners.Get().(*runtime.Pinner)
	}
	r.pin.Pin(unsafe.SliceData(b))
}

func (r *Request) unpin() {
	if r.pin != nil {
		r.pin.Unpin()
		pinners.Put(r.pin)
		r.pin = nil
	}
}

// started finishes start with MPI's answer.
func (r *Request) started(q C.hy_rq) (*Request, error) {
	if q.err != 0 {
		r.unpin()
		r.spent = true
		return nil, mpiErr(r.op, q.err)
	}
	r.h = q.req
	return r, nil
}

// finish records a completion reported by MPI: the buffers are MPI's no
// longer.
func (r *Request) finish(s C.hy_st) {
	r.unpin()
	r.done, r.st, r.err = true, stIn(s, r.n), mpiErr(r.op, s.err)
}

func (r *Request) collect() (Status, error) {
	r.spent = true
	return r.st, r.err
}

func checkReq(op string, r *Request) error {
	if r == nil || r.spent {
		return newErr(ErrRequest, op, "nil or spent request")
	}
	return nil
}

// Isend starts a send and returns at once; buf must not be modified until
// the request completes.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	return c.isendIn(nil, buf, dest, tag)
}

// Issend starts a synchronous send: the request completes once the receiver
// has matched it.
func (c *Comm) Issend(buf []byte, dest, tag int) (*Request, error) {
	return c.issendIn(nil, buf, dest, tag)
}

// Irecv starts a receive and returns at once.
func (c *Comm) Irecv(buf []byte, source, tag int) (*Request, error) {
	return c.irecvIn(nil, buf, source, tag)
}

// isendIn, issendIn and irecvIn are Isend, Issend and Irecv recycling old
// when it is a spent request, so a stream of messages allocates nothing.
func (c *Comm) isendIn(old *Request, buf []byte, dest, tag int) (*Request, error) {
	return c.isend(old, "Isend", 0, buf, dest, tag)
}

// sendNow never completes a send at once here: the C ABI then starts a
// request with isendIn.
func (c *Comm) sendNow(buf []byte, dest, tag int) (bool, error) {
	return false, nil
}

func (c *Comm) issendIn(old *Request, buf []byte, dest, tag int) (*Request, error) {
	return c.isend(old, "Issend", 1, buf, dest, tag)
}

func (c *Comm) isend(old *Request, op string, kind C.int, buf []byte, dest, tag int) (*Request, error) {
	if err := c.checkSend(op, dest, tag); err != nil {
		return nil, err
	}
	r := start(old, op, buf)
	return r.started(C.hy_isend(kind, ptr(buf), C.longlong(len(buf)), C.int(dest), C.int(tag), c.h))
}

func (c *Comm) irecvIn(old *Request, buf []byte, source, tag int) (*Request, error) {
	if err := c.checkRecv("Irecv", source, tag); err != nil {
		return nil, err
	}
	r := start(old, "Irecv", buf)
	if source == ProcNull {
		// Answered here: MPICH 4.0 completes such a receive without
		// filling its status (source 0, tag 0).
		r.unpin()
		r.h, r.done, r.st = hReqNull, true, noProcStatus
		return r, nil
	}
	return r.started(C.hy_irecv(ptr(buf), C.longlong(len(buf)), C.int(source), C.int(tag), c.h))
}

// Wait blocks until the request completes and returns its status.
func (r *Request) Wait() (Status, error) {
	if err := checkReq("Wait", r); err != nil {
		return Status{}, err
	}
	r.block()
	return r.collect()
}

// Test reports whether the request has completed; when it has, it returns
// its status and spends the request.
func (r *Request) Test() (Status, bool, error) {
	if err := checkReq("Test", r); err != nil {
		return Status{}, false, err
	}
	if !r.poll() {
		return Status{}, false, nil
	}
	s, err := r.collect()
	return s, true, err
}

// poll makes one MPI_Test on a pending request and reports whether it is
// done (not collected).
func (r *Request) poll() bool {
	if !r.done && r.join != nil {
		return r.pollJoin()
	}
	if !r.done {
		s := C.hy_test(&r.h)
		if s.flag == 0 {
			return false
		}
		r.finish(s)
	}
	return true
}

// peek reports whether r has completed, and its status, without spending
// it (MPI_Request_get_status).
func (r *Request) peek() (Status, bool, error) {
	if err := checkReq("Peek", r); err != nil {
		return Status{}, false, err
	}
	if !r.poll() {
		return Status{}, false, nil
	}
	return r.st, true, r.err
}

// takeDone spends r and reports true when it is already known complete
// without error (the engine's takeDone; no MPI call here).
func (r *Request) takeDone() bool {
	if r == nil || r.spent || !r.done || r.err != nil {
		return false
	}
	r.collect()
	return true
}

// collIdle: the backends have no C ABI shortcut (the engine's collIdle).
func (r *Request) collIdle() bool { return false }

// cancelRecv cancels a receive that has not been matched yet (MPI_Cancel
// and MPI_Wait). It reports whether it did; a receive that matched first
// is complete, its status kept for Wait.
func (r *Request) cancelRecv() bool {
	if r == nil || r.spent || r.done || r.op != "Irecv" {
		return false
	}
	s := C.hy_cancel(&r.h)
	cancelled := s.err == 0 && s.flag != 0
	r.finish(s)
	if cancelled {
		r.st, r.err = Status{Source: AnySource, Tag: AnyTag, Cancelled: true}, nil
	}
	return cancelled
}

func checkReqs(op string, reqs []*Request) error {
	for _, r := range reqs {
		if r != nil && r.spent {
			return newErr(ErrRequest, op, "spent request")
		}
	}
	return nil
}

// Waitall waits for every request. Nil entries are skipped and get an
// empty status. The error is the first request's error, if any; every
// status is filled either way.
func Waitall(reqs []*Request) ([]Status, error) {
	sts := make([]Status, len(reqs))
	errs := make([]error, len(reqs))
	if err := waitallInto(reqs, sts, errs); err != nil {
		return sts, err
	}
	for _, e := range errs {
		if e != nil {
			return sts, e
		}
	}
	return sts, nil
}

// waitallInto is Waitall writing into sts and errs (at least len(reqs)
// long) instead of new slices. A non-nil result is a failure of the wait
// itself (a spent request), and then no request has been collected.
// internal/cabi binds to it by name.
//
//go:linkname waitallInto
func waitallInto(reqs []*Request, sts []Status, errs []error) error {
	if err := checkReqs("Waitall", reqs); err != nil {
		return err
	}
	// One cgo call per 64 requests, with scratch from a pool.
	sc := waitScratch.Get().(*waitBufs)
	defer waitScratch.Put(sc)
	hbuf, sbuf := &sc.h, &sc.s
	for lo := 0; lo < len(reqs); lo += len(hbuf) {
		batch := reqs[lo:min(lo+len(hbuf), len(reqs))]
		for i, r := range batch {
			hbuf[i] = hReqNull
			if r != nil && !r.done && r.join == nil {
				hbuf[i] = r.h
			}
		}
		C.hy_waitall(&hbuf[0], C.int(len(batch)), &sbuf[0])
		for i, r := range batch {
			if r == nil {
				continue
			}
			if r.join != nil {
				r.block()
			} else if !r.done {
				r.h = hbuf[i]
				r.finish(sbuf[i])
			}
			sts[lo+i], errs[lo+i] = r.collect()
		}
	}
	return nil
}

type waitBufs struct {
	h [64]C.hy_h
	s [64]C.hy_st
}

var waitScratch = sync.Pool{New: func() any { return new(waitBufs) }}

// Waitany waits until one of the requests completes and returns its index.
// With no active request it returns Undefined at once.
func Waitany(reqs []*Request) (int, Status, error) {
	if err := checkReqs("Waitany", reqs); err != nil {
		return Undefined, Status{}, err
	}
	for _, r := range reqs {
		if r != nil && r.join != nil {
			return waitanyPolling(reqs)
		}
	}
	hs := make([]C.hy_h, len(reqs))
	active := false
	for i, r := range reqs {
		hs[i] = hReqNull
		if r == nil {
			continue
		}
		if r.done {
			s, err := r.collect()
			return i, s, err
		}
		hs[i], active = r.h, true
	}
	if !active {
		return Undefined, Status{}, nil
	}
	var idx C.int
	s := C.hy_waitany(&hs[0], C.int(len(hs)), &idx)
	i := int(idx)
	if i < 0 || i >= len(reqs) {
		return Undefined, Status{}, mpiErr("Waitany", s.err)
	}
	r := reqs[i]
	r.h = hs[i]
	r.finish(s)
	st, err := r.collect()
	return i, st, err
}

// Testall reports whether every request has completed; only then are the
// statuses returned and the requests spent.
func Testall(reqs []*Request) ([]Status, bool, error) {
	sts := make([]Status, len(reqs))
	ok, err := testallInto(reqs, sts)
	if !ok {
		return nil, false, err
	}
	return sts, true, err
}

// testallInto is Testall writing the statuses into sts (at least len(reqs)
// long) instead of a new slice.
func testallInto(reqs []*Request, sts []Status) (bool, error) {
	if err := checkReqs("Testall", reqs); err != nil {
		return false, err
	}
	all := true
	for _, r := range reqs {
		if r != nil && !r.poll() {
			all = false
		}
	}
	if !all {
		return false, nil
	}
	var first error
	for i, r := range reqs {
		if r == nil {
			sts[i] = Status{}
			continue
		}
		var err error
		sts[i], err = r.collect()
		if first == nil {
			first = err
		}
	}
	return true, first
}
