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

// Send modes (the C side passes one of these).
const (
	modeStd = iota
	modeSync
	modeReady
	modeBuffered
)

//export hympi_go_send
func hympi_go_send(ci C.int, buf unsafe.Pointer, n C.int64_t, dest, tag, mode C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	b := bytesAt(buf, n)
	var err error
	switch mode {
	case modeSync:
		err = c.Ssend(b, rankIn(dest), int(tag))
	case modeReady:
		err = c.Rsend(b, rankIn(dest), int(tag))
	case modeBuffered:
		err = c.Bsend(b, rankIn(dest), int(tag))
	default:
		err = c.Send(b, rankIn(dest), int(tag))
	}
	if err == nil { // errCode is too big to inline
		return 0
	}
	return errCode(err)
}

//export hympi_go_recv
func hympi_go_recv(ci C.int, buf unsafe.Pointer, n C.int64_t, src, tag C.int, st *C.MPI_Status) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	s, err := c.Recv(bytesAt(buf, n), rankIn(src), tagIn(tag))
	if err == nil {
		fillStatus(st, s, false)
		return 0
	}
	if mpi.ClassOf(err) == mpi.ErrTruncate {
		fillStatus(st, s, false)
	}
	return errCode(err)
}

//export hympi_go_isend
func hympi_go_isend(ci C.int, buf unsafe.Pointer, n C.int64_t, dest, tag, mode C.int, tmp unsafe.Pointer, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	if tmp == nil && (mode == modeStd || mode == modeReady) {
		// A message published at once is a complete send: no slot, no
		// engine request, and MPI_Wait/Waitall answer its handle in C
		// (osu_bw's window: ~300 instructions per message less here and
		// no Go call at all in the sender's MPI_Waitall).
		ok, err := cabi.SendNow(c, bytesAt(buf, n), rankIn(dest), int(tag))
		if err != nil {
			return errCode(err)
		}
		if ok {
			*req = hReqDone
			return 0
		}
	}
	// The slot first: its spare engine request carries the operation.
	q, i := reqs.alloc(cache)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	r, err := startSend(c, q.spare, bytesAt(buf, n), rankIn(dest), int(tag), int(mode))
	if err != nil {
		reqs.del(i, cache)
		return errCode(err)
	}
	q.r, q.spare, q.ci, q.active, q.tmp = r, nil, ci, true, tmp
	*req = C.intptr_t(makeHandle(kindReq, i))
	return 0
}

// startSend starts a send in the engine request old if it can be reused
// (mpi.Comm.IsendIn), else in a new one.
func startSend(c *mpi.Comm, old *mpi.Request, b []byte, dest, tag, mode int) (*mpi.Request, error) {
	switch mode {
	case modeSync:
		return cabi.IssendIn(c, old, b, dest, tag)
	case modeBuffered:
		// The engine has no nonblocking buffered send; a buffered send
		// completes locally, so doing it now and handing back a completed
		// request is what MPI_Ibsend promises.
		if err := c.Bsend(b, dest, tag); err != nil {
			return nil, err
		}
		return cabi.IsendIn(c, old, nil, mpi.ProcNull, 0)
	}
	return cabi.IsendIn(c, old, b, dest, tag)
}

//export hympi_go_irecv
func hympi_go_irecv(ci C.int, buf unsafe.Pointer, n C.int64_t, src, tag C.int,
	up *C.hc_recv_unpack, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	q, i := reqs.alloc(cache)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	r, err := cabi.IrecvIn(c, q.spare, bytesAt(buf, n), rankIn(src), tagIn(tag))
	if err != nil {
		reqs.del(i, cache)
		return errCode(err)
	}
	q.r, q.spare, q.ci, q.active, q.recv = r, nil, ci, true, true
	if up != nil {
		q.tmp, q.ubuf, q.dt, q.count = up.tmp, up.ubuf, up.dt, up.count
	}
	*req = C.intptr_t(makeHandle(kindReq, i))
	return 0
}

//export hympi_go_sendrecv
func hympi_go_sendrecv(ci C.int, sbuf unsafe.Pointer, sn C.int64_t, dest, stag C.int,
	rbuf unsafe.Pointer, rn C.int64_t, src, rtag C.int, st *C.MPI_Status) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	s, err := c.Sendrecv(bytesAt(sbuf, sn), rankIn(dest), int(stag), bytesAt(rbuf, rn), rankIn(src), tagIn(rtag))
	if err == nil || mpi.ClassOf(err) == mpi.ErrTruncate {
		fillStatus(st, s, false)
	}
	return errCode(err)
}

//export hympi_go_sendrecv_replace
func hympi_go_sendrecv_replace(ci C.int, buf unsafe.Pointer, n C.int64_t, dest, stag, src, rtag C.int, st *C.MPI_Status) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	b := bytesAt(buf, n)
	tmp := append([]byte(nil), b...)
	s, err := c.Sendrecv(tmp, rankIn(dest), int(stag), b, rankIn(src), tagIn(rtag))
	if err == nil || mpi.ClassOf(err) == mpi.ErrTruncate {
		fillStatus(st, s, false)
	}
	return errCode(err)
}

//export hympi_go_probe
func hympi_go_probe(ci, src, tag C.int, st *C.MPI_Status) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	s, err := c.Probe(rankIn(src), tagIn(tag))
	if err == nil {
		fillStatus(st, s, false)
	}
	return errCode(err)
}

//export hympi_go_iprobe
func hympi_go_iprobe(ci, src, tag C.int, flag *C.int, st *C.MPI_Status) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	s, ok, err := c.Iprobe(rankIn(src), tagIn(tag))
	*flag = 0
	if err == nil && ok {
		*flag = 1
		fillStatus(st, s, false)
	}
	return errCode(err)
}
