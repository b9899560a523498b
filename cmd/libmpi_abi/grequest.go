package main

/*
#include "cabi.h"
int hc_greq_query(uintptr_t fn, void *extra, MPI_Status *st);
int hc_greq_free(uintptr_t fn, void *extra);
int hc_greq_cancel(uintptr_t fn, void *extra, int complete);
*/
import "C"

import (
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
)

// greqState is what a generalized request carries besides its engine join
// request: the application's callbacks and whether MPI_Request_free let
// go of the handle before the application completed it.
type greqState struct {
	query, free, cancel C.uintptr_t
	extra               unsafe.Pointer
	freed               bool
	completed           bool
}

//export hympi_go_grequest_start
func hympi_go_grequest_start(query, free, cancel C.uintptr_t, extra unsafe.Pointer, req *C.intptr_t) C.int {
	// The C entry point checks its pointers; this is the second line,
	// so that a new caller that forgets cannot panic the rank.
	if req == nil {
		return C.MPI_ERR_ARG
	}
	j := cabi.NewJoin()
	if j == nil {
		return C.MPI_ERR_OTHER
	}
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.active = j, true
	q.greq = &greqState{query: query, free: free, cancel: cancel, extra: extra}
	return 0
}

//export hympi_go_grequest_complete
func hympi_go_grequest_complete(h C.intptr_t) C.int {
	q, idx, ok := lookup(uintptr(h))
	if !ok || q == nil || q.greq == nil || q.greq.completed {
		return C.MPI_ERR_REQUEST
	}
	g := q.greq
	g.completed = true
	cabi.Release(q.r)
	if g.freed {
		// MPI_Request_free came first: the handle is gone, free now.
		rc := C.hc_greq_free(g.free, g.extra)
		reqs.del(idx, nil)
		return rc
	}
	return 0
}

// greqFinish completes a generalized request in a wait or test: query
// fills the status, then free releases the application's state; the first
// error of the two is the request's.
func greqFinish(q *creq, idx int, h *uintptr, st *C.MPI_Status, cache *C.hc_reqcache) C.int {
	g := q.greq
	rc := C.hc_greq_query(g.query, g.extra, st)
	if rc2 := C.hc_greq_free(g.free, g.extra); rc == 0 {
		rc = rc2
	}
	reqs.del(idx, cache)
	*h = hRequestNull
	return rc
}

// greqPeek is MPI_Request_get_status of a generalized request.
func greqPeek(q *creq, st *C.MPI_Status) (bool, C.int, bool) {
	if _, done, _ := cabi.Peek(q.r); !done {
		return false, 0, true
	}
	return true, C.hc_greq_query(q.greq.query, q.greq.extra, st), true
}

// greqFree is MPI_Request_free of a generalized request: free now if the
// application has completed it, else when it does.
func greqFree(q *creq, idx int, h *uintptr) C.int {
	*h = hRequestNull
	if q.greq.completed {
		rc := C.hc_greq_free(q.greq.free, q.greq.extra)
		reqs.del(idx, nil)
		return rc
	}
	q.greq.freed = true
	return 0
}

// greqCancel is MPI_Cancel of a generalized request.
func greqCancel(q *creq) C.int {
	_, done, _ := cabi.Peek(q.r)
	c := C.int(0)
	if done {
		c = 1
	}
	return C.hc_greq_cancel(q.greq.cancel, q.greq.extra, c)
}
