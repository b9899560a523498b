package main

/*
#include "cabi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

// MPI_Isendrecv(_replace) and the MPI 4.1 status queries over arrays of
// requests.

//export hympi_go_isendrecv
func hympi_go_isendrecv(ci C.int, sbuf unsafe.Pointer, sn C.int64_t, dest, stag C.int, stmp unsafe.Pointer,
	rbuf unsafe.Pointer, rn C.int64_t, src, rtag C.int, tmp, ubuf unsafe.Pointer, dt C.intptr_t, count C.int64_t,
	req *C.intptr_t) C.int {
	// The C entry point checks its pointers; this is the second line,
	// so that a new caller that forgets cannot panic the rank.
	if req == nil {
		return C.MPI_ERR_ARG
	}
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	r, err := c.Isendrecv(bytesAt(sbuf, sn), rankIn(dest), int(stag), bytesAt(rbuf, rn), rankIn(src), tagIn(rtag))
	if err != nil {
		return errCode(err)
	}
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.ci, q.active, q.recv = r, ci, true, true
	q.tmp, q.ubuf, q.dt, q.count, q.stmp = tmp, ubuf, dt, count, stmp
	return 0
}

// peekStatus reports whether the request behind h has completed, filling
// st, without freeing it (MPI_Request_get_status). ok false: bad handle.
func peekStatus(h uintptr, st *C.MPI_Status) (done bool, code C.int, ok bool) {
	if h == hReqDone {
		fillStatus(st, mpi.Status{}, false)
		return true, 0, true
	}
	q, _, ok := lookup(h)
	if !ok {
		return false, 0, false
	}
	if q == nil || !q.active {
		emptyStatus(st)
		return true, 0, true
	}
	if q.greq != nil {
		return greqPeek(q, st)
	}
	s, done, err := cabi.Peek(q.r)
	if !done && err == nil {
		return false, 0, true
	}
	if err == nil || mpi.ClassOf(err) == mpi.ErrTruncate {
		fillStatus(st, s, q.cancelled)
	}
	code = errCode(err)
	if st != nil {
		st.MPI_ERROR = code
	}
	return true, code, true
}

// activeReq reports whether handle h stands for an active request (the
// complete operation's handle hReqDone, which owns no slot, is one); ok is
// false for an invalid handle.
func activeReq(h uintptr) (active, ok bool) {
	if h == hReqDone {
		return true, true
	}
	q, _, ok := lookup(h)
	return ok && q != nil && q.active, ok
}

//export hympi_go_get_status_all
func hympi_go_get_status_all(p unsafe.Pointer, n C.int, flag *C.int, sts *C.MPI_Status) C.int {
	if flag == nil || n > 0 && p == nil {
		return C.MPI_ERR_ARG
	}
	hs := reqView(p, n)
	*flag = 0
	for _, h := range hs {
		done, _, ok := peekStatus(h, nil)
		if !ok {
			return C.MPI_ERR_REQUEST
		}
		if !done {
			return 0
		}
	}
	*flag = 1
	failed := false
	for i, h := range hs {
		if _, code, _ := peekStatus(h, statusAt(sts, i)); code != 0 {
			failed = true
		}
	}
	if failed {
		return C.MPI_ERR_IN_STATUS
	}
	return 0
}

//export hympi_go_get_status_any
func hympi_go_get_status_any(p unsafe.Pointer, n C.int, index, flag *C.int, st *C.MPI_Status) C.int {
	if index == nil || flag == nil || n > 0 && p == nil {
		return C.MPI_ERR_ARG
	}
	hs := reqView(p, n)
	*flag, *index = 0, C.MPI_UNDEFINED
	active := false
	for _, h := range hs {
		a, ok := activeReq(h)
		if !ok {
			return C.MPI_ERR_REQUEST
		}
		active = active || a
	}
	if !active {
		*flag = 1
		emptyStatus(st)
		return 0
	}
	for i, h := range hs {
		if a, _ := activeReq(h); !a {
			continue
		}
		done, code, _ := peekStatus(h, st)
		if done {
			*flag, *index = 1, C.int(i)
			return code
		}
	}
	return 0
}

//export hympi_go_get_status_some
func hympi_go_get_status_some(p unsafe.Pointer, n C.int, outcount, indices *C.int, sts *C.MPI_Status) C.int {
	if outcount == nil || n > 0 && (p == nil || indices == nil) {
		return C.MPI_ERR_ARG
	}
	hs := reqView(p, n)
	active := false
	for _, h := range hs {
		a, ok := activeReq(h)
		if !ok {
			return C.MPI_ERR_REQUEST
		}
		active = active || a
	}
	if !active {
		*outcount = C.MPI_UNDEFINED
		return 0
	}
	idx := unsafe.Slice(indices, int(n))
	out := 0
	failed := false
	for i, h := range hs {
		if a, _ := activeReq(h); !a {
			continue
		}
		if done, code, _ := peekStatus(h, statusAt(sts, out)); done {
			idx[out] = C.int(i)
			out++
			failed = failed || code != 0
		}
	}
	*outcount = C.int(out)
	if failed {
		return C.MPI_ERR_IN_STATUS
	}
	return 0
}
