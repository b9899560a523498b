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

// Partitioned communication, simply: the receive is an ordinary receive
// of the whole message posted at MPI_Start; the send goes as one message
// once every partition is ready. MPI_Parrived is true once the whole
// message is in, which the standard allows.
type partState struct {
	n      int
	ready  []bool
	nready int
}

//export hympi_go_pinit
func hympi_go_pinit(ci C.int, parts C.int, buf unsafe.Pointer, n C.int64_t, peer, tag, recv C.int, tmp, ubuf unsafe.Pointer,
	dt C.intptr_t, count C.int64_t, req *C.intptr_t) C.int {
	// The C entry point checks its pointers; this is the second line,
	// so that a new caller that forgets cannot panic the rank.
	if req == nil {
		return C.MPI_ERR_ARG
	}
	rc := hympi_go_prequest(ci, buf, n, peer, tag, modeStd, recv, tmp, ubuf, dt, count, req)
	if rc != 0 {
		return rc
	}
	q, _, _ := lookup(uintptr(*req))
	q.part = &partState{n: int(parts), ready: make([]bool, int(parts))}
	return 0
}

// startPart is MPI_Start of a partitioned request.
func startPart(q *creq, c *mpi.Comm) error {
	p := q.part
	clear(p.ready)
	p.nready = 0
	j := cabi.NewJoin()
	if j == nil {
		return &mpi.Error{Class: mpi.ErrOther, Op: "Start", Msg: "MPI is not initialized"}
	}
	if q.recv {
		r, err := c.Irecv(bytesAt(q.buf, q.n), q.peer, q.tag)
		if err != nil {
			return err
		}
		cabi.Follow(j, r)
		cabi.Release(j)
	}
	q.r, q.active, q.cancelled = j, true, false
	return nil
}

//export hympi_go_pready
func hympi_go_pready(h C.intptr_t, lo, hi C.int, list *C.int, nlist C.int) C.int {
	q, _, ok := lookup(uintptr(h))
	if !ok || q == nil || q.part == nil || q.recv {
		return C.MPI_ERR_REQUEST
	}
	if !q.active {
		return packErr(q.ci, C.MPI_ERR_REQUEST)
	}
	p := q.part
	var parts []int
	if list != nil {
		parts = intList(list, nlist)
	} else {
		for i := lo; i <= hi; i++ {
			parts = append(parts, int(i))
		}
	}
	for _, i := range parts {
		if i < 0 || i >= p.n {
			return packErr(q.ci, C.MPI_ERR_ARG)
		}
		if p.ready[i] {
			return packErr(q.ci, C.MPI_ERR_ARG)
		}
	}
	for _, i := range parts {
		p.ready[i] = true
		p.nready++
	}
	if p.nready < p.n {
		return 0
	}
	c, rc := commAt(q.ci)
	if rc != 0 {
		return rc
	}
	if q.tmp != nil {
		pack(q)
	}
	r, err := c.Isend(bytesAt(q.buf, q.n), q.peer, q.tag)
	if err != nil {
		return packErr(q.ci, errCode(err))
	}
	cabi.Follow(q.r, r)
	cabi.Release(q.r)
	return 0
}

//export hympi_go_parrived
func hympi_go_parrived(h C.intptr_t, part C.int, flag *C.int) C.int {
	if flag == nil {
		return C.MPI_ERR_ARG
	}
	q, _, ok := lookup(uintptr(h))
	if !ok || q == nil || q.part == nil || !q.recv {
		return C.MPI_ERR_REQUEST
	}
	if part < 0 || int(part) >= q.part.n {
		return packErr(q.ci, C.MPI_ERR_ARG)
	}
	*flag = 0
	if !q.active {
		*flag = 1
		return 0
	}
	if _, done, _ := cabi.Peek(q.r); done {
		*flag = 1
	}
	return 0
}
