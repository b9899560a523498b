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

// Matched-probe messages: MPI_Message handles index this table until the
// message is received. MPI_MESSAGE_NO_PROC stands for ProcNull's message.
var messages table[mpi.Message]

const (
	hMessageNull   = 0x128
	hMessageNoProc = 0x129
)

func putMessage(m *mpi.Message, h *C.intptr_t) {
	if m.NoProc() {
		*h = hMessageNoProc
		return
	}
	*h = C.intptr_t(makeHandle(C.HK_MESSAGE, messages.put(m)))
}

//export hympi_go_mprobe
func hympi_go_mprobe(ci, src, tag C.int, block C.int, flag *C.int, msg *C.intptr_t, st *C.MPI_Status) C.int {
	// The C entry point checks its pointers; this is the second line,
	// so that a new caller that forgets cannot panic the rank.
	if msg == nil || block == 0 && flag == nil {
		return C.MPI_ERR_ARG
	}
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	var m *mpi.Message
	var s mpi.Status
	var err error
	ok := true
	if block != 0 {
		m, s, err = c.Mprobe(rankIn(src), tagIn(tag))
	} else {
		m, s, ok, err = c.Improbe(rankIn(src), tagIn(tag))
	}
	if err != nil {
		return errCode(err)
	}
	if flag != nil {
		*flag = 0
	}
	if !ok {
		return 0
	}
	if flag != nil {
		*flag = 1
	}
	putMessage(m, msg)
	fillStatus(st, s, false)
	return 0
}

// takeMessage finds and forgets the message behind *h, setting *h to
// MPI_MESSAGE_NULL: a message is received once.
func takeMessage(h *C.intptr_t) *mpi.Message {
	switch uintptr(*h) {
	case hMessageNoProc:
		*h = hMessageNull
		m, _, _, _ := mpi.Self().Improbe(mpi.ProcNull, mpi.AnyTag)
		return m
	case hMessageNull:
		return nil
	}
	i := handleIndex(uintptr(*h), C.HK_MESSAGE)
	m := messages.get(i)
	if m == nil {
		return nil
	}
	messages.del(i)
	*h = hMessageNull
	return m
}

//export hympi_go_imrecv
func hympi_go_imrecv(msg *C.intptr_t, buf unsafe.Pointer, n C.int64_t, tmp, ubuf unsafe.Pointer, dt C.intptr_t,
	count C.int64_t, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	if msg == nil || req == nil {
		return C.MPI_ERR_ARG
	}
	m := takeMessage(msg)
	if m == nil {
		return C.MPI_ERR_REQUEST
	}
	q, i := reqs.alloc(cache)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	r, err := cabi.MrecvIn(m, q.spare, bytesAt(buf, n))
	if err != nil {
		reqs.del(i, cache)
		return errCode(err)
	}
	q.r, q.spare, q.ci, q.active, q.recv = r, nil, 0, true, true
	q.tmp, q.ubuf, q.dt, q.count = tmp, ubuf, dt, count
	*req = C.intptr_t(makeHandle(kindReq, i))
	return 0
}
