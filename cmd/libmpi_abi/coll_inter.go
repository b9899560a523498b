package main

/*
#include "nbc.h"
*/
import "C"

import (
	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

// hympi_go_iinter starts, binds or (with a wait in C) runs a collective on
// an intercommunicator (coll_inter.c) as the engine's schedule of it
// (mpi/coll_inter.go).
//
//export hympi_go_iinter
func hympi_go_iinter(ci C.int, g *C.hc_inter, persistent C.int, req *C.intptr_t) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	a := cabi.InterArgs{Kind: cabi.InterKind(g.kind), Root: rootIn(g.root)}
	switch a.Kind {
	case cabi.InterReduce, cabi.InterAllreduce, cabi.InterReduceScatterBlock, cabi.InterReduceScatter:
		if a.Root != mpi.ProcNull {
			if a.Datatype, a.Op, rc = redOf(&g.red); rc != 0 {
				return rc
			}
		}
	}
	if g.sc != nil {
		a.SendCounts, a.SendDispls = int64s(g.sc, int(g.ns)), int64s(g.sd, int(g.ns))
		a.Send = bytesAt(g.sbuf, extentOf(a.SendCounts, a.SendDispls))
	} else {
		a.Send = bytesAt(g.sbuf, g.sn)
	}
	switch {
	case a.Kind == cabi.InterReduceScatter:
		a.RecvCounts = int64s(g.rc, int(g.nrv))
		a.Recv = bytesAt(g.rbuf, g.rn)
	case g.rc != nil:
		a.RecvCounts, a.RecvDispls = int64s(g.rc, int(g.nrv)), int64s(g.rd, int(g.nrv))
		a.Recv = bytesAt(g.rbuf, extentOf(a.RecvCounts, a.RecvDispls))
	default:
		a.Recv = bytesAt(g.rbuf, g.rn)
	}
	var b collBinding
	if pk := g.pk; pk != nil {
		b.pre = func() { C.hc_pk_run(pk, 0) }
		b.post = func() { C.hc_pk_run(pk, 1) }
		b.owned = pk
		C.hc_pk_hold(pk)
	}
	start := func() (*mpi.Request, error) { return cabi.IinterColl(c, a) }
	bind := func() (*mpi.Persistent, error) { return cabi.InterCollInit(c, a) }
	return collRequest(ci, persistent != 0, &b, start, bind, req)
}

// rootIn maps a C root argument (MPI_ROOT, MPI_PROC_NULL or a rank).
func rootIn(r C.int) int {
	if r == C.MPI_ROOT {
		return mpi.Root
	}
	return rankIn(r)
}
