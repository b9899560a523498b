package main

/*
#include "cabi.h"
*/
import "C"

import (
	"github.com/hympi/hympi/mpi"
)

// Intercommunicators (mpi/intercomm.go): the C half of one is an ordinary
// communicator entry whose rank and size are the local group's.

//export hympi_go_intercomm_create
func hympi_go_intercomm_create(ci, leader, pi, rleader, tag, ni C.int, rank, size *C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	var peer *mpi.Comm
	if c.Rank() == int(leader) {
		if peer, rc = commAt(pi); rc != 0 {
			return rc
		}
	}
	d, err := c.IntercommCreate(int(leader), peer, rankIn(rleader), int(tag))
	return publish(d, err, ni, rank, size)
}

//export hympi_go_intercomm_from_groups
func hympi_go_intercomm_from_groups(lg C.intptr_t, leader C.int, rg C.intptr_t, rleader, tag, ni C.int, rank, size *C.int) C.int {
	l, rc := groupOf(lg)
	if rc != 0 {
		return rc
	}
	r, rc := groupOf(rg)
	if rc != 0 {
		return rc
	}
	d, err := mpi.IntercommFromGroups(l, int(leader), r, int(rleader), int(tag))
	return publish(d, err, ni, rank, size)
}

//export hympi_go_intercomm_merge
func hympi_go_intercomm_merge(ci, high, ni C.int, rank, size *C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	d, err := c.Merge(high != 0)
	return publish(d, err, ni, rank, size)
}

// hympi_go_comm_inter reports whether ci is an intercommunicator and the
// size of its remote group.
//
//export hympi_go_comm_inter
func hympi_go_comm_inter(ci C.int, flag, rsize *C.int) C.int {
	// The C entry point checks its pointers; this is the second line,
	// so that a new caller that forgets cannot panic the rank.
	if flag == nil || rsize == nil {
		return C.MPI_ERR_ARG
	}
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	*flag, *rsize = 0, 0
	if c.IsInter() {
		*flag, *rsize = 1, C.int(c.RemoteSize())
	}
	return 0
}

//export hympi_go_comm_remote_group
func hympi_go_comm_remote_group(ci C.int, g *C.intptr_t) C.int {
	if g == nil {
		return C.MPI_ERR_ARG
	}
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	grp := c.RemoteGroup()
	if grp == nil {
		return C.MPI_ERR_COMM
	}
	*g = newGroup(grp)
	return 0
}
