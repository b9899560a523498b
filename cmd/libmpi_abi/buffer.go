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

// The Bsend buffers of MPI 4.1 (buffer.c, session.c): whose buffer a call
// means is given as a communicator index ci (>= 0), else a session index
// si (>= 0), else the process.

//export hympi_go_bufx_attach
func hympi_go_bufx_attach(ci, si C.int, buf unsafe.Pointer, n C.int64_t, automatic C.int) C.int {
	var b []byte
	if automatic == 0 {
		b = bytesAt(buf, n)
	}
	switch {
	case ci >= 0:
		c, rc := commAt(ci)
		if rc != 0 {
			return rc
		}
		return errCode(c.AttachBuffer(b, automatic != 0))
	case si >= 0:
		return errCode(cabi.SessionBufferAttach(int(si), b, automatic != 0))
	case automatic != 0:
		return errCode(mpi.BufferAttachAutomatic())
	}
	return errCode(mpi.BufferAttach(b))
}

//export hympi_go_bufx_detach
func hympi_go_bufx_detach(ci, si C.int, buf *unsafe.Pointer, n *C.int64_t, automatic *C.int) C.int {
	var b []byte
	var a bool
	var err error
	switch {
	case ci >= 0:
		c, rc := commAt(ci)
		if rc != 0 {
			return rc
		}
		b, a, err = c.DetachBuffer()
	case si >= 0:
		b, a, err = cabi.SessionBufferDetach(int(si))
	default:
		b, a, err = mpi.BufferDetachAuto()
	}
	if err != nil {
		return errCode(err)
	}
	*buf, *n, *automatic = nil, 0, 0
	if a {
		*automatic = 1
	} else if len(b) > 0 {
		*buf, *n = unsafe.Pointer(unsafe.SliceData(b)), C.int64_t(len(b))
	}
	return 0
}

//export hympi_go_bufx_iflush
func hympi_go_bufx_iflush(ci, si C.int, req *C.intptr_t) C.int {
	var r *mpi.Request
	var err error
	switch {
	case ci >= 0:
		c, rc := commAt(ci)
		if rc != 0 {
			return rc
		}
		r, err = c.IflushBuffer()
	case si >= 0:
		r, err = cabi.SessionBufferIflush(int(si))
	default:
		r, err = mpi.BufferIflush()
	}
	if err != nil {
		return errCode(err)
	}
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.active = r, true
	return 0
}

// hympi_go_bufx_session_end forgets a finalized session's buffer, so the
// next session given its index starts with none.
//
//export hympi_go_bufx_session_end
func hympi_go_bufx_session_end(si C.int) {
	cabi.SessionBufferForget(int(si))
}
