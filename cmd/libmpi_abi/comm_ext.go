package main

/*
#include "cabi.h"
*/
import "C"

import (
	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

// hympi_go_done_request makes a request that is already complete, for
// operations hympi finishes before returning (MPI_Comm_idup).
//
//export hympi_go_done_request
func hympi_go_done_request(req *C.intptr_t) C.int {
	// The C entry point checks its pointers; this is the second line,
	// so that a new caller that forgets cannot panic the rank.
	if req == nil {
		return C.MPI_ERR_ARG
	}
	j := cabi.NewJoin()
	if j == nil {
		return C.MPI_ERR_OTHER
	}
	cabi.Release(j)
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.active = j, true
	return 0
}

// hympi_go_comm_idup starts a nonblocking duplicate of communicator ci
// into index ni; req gets the request that completes when its context is
// agreed.
//
//export hympi_go_comm_idup
func hympi_go_comm_idup(ci, ni C.int, rank, size *C.int, req *C.intptr_t) C.int {
	if req == nil {
		return C.MPI_ERR_ARG
	}
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	d, r, err := c.Idup()
	if err != nil {
		return errCode(err)
	}
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.ci, q.active = r, ci, true
	comms.at(int(ni)).Store(d)
	*rank, *size = C.int(d.Rank()), C.int(d.Size())
	return 0
}

// hympi_go_comm_from_group creates the communicator of a group's members
// with no parent communicator (MPI_Comm_create_from_group): the world's
// group creation, whose tag keeps concurrent calls apart.
//
//export hympi_go_comm_from_group
func hympi_go_comm_from_group(g C.intptr_t, tag, ni C.int, rank, size *C.int) C.int {
	grp, rc := groupOf(g)
	if rc != 0 {
		return rc
	}
	w := mpi.World()
	if w == nil {
		return C.MPI_ERR_OTHER
	}
	d, err := w.CreateGroup(grp, int(tag))
	return publish(d, err, ni, rank, size)
}
