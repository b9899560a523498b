package main

/*
#include "nbc.h"
*/
import "C"

import (
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// Nonblocking (MPI_I*) and persistent (MPI_*_init) collectives. Both run
// the same schedule as the blocking collective (mpi/coll_nb.go); a
// persistent request is an mpi.Persistent, built once, that each
// MPI_Start runs again.

// collBinding is what a C collective request keeps past the call.
type collBinding struct {
	p *mpi.Persistent
	// pre and post pack and unpack non-contiguous data around each run.
	pre, post func()
	// owned is C memory the request frees when it goes (packing state).
	owned unsafe.Pointer
	// held is the hold on a packed bcast or reduction's datatype
	// (hc_type_hold), released with the request.
	held C.intptr_t
}

func int64s(p *C.int64_t, n int) []int {
	if p == nil {
		return nil
	}
	v := unsafe.Slice(p, n)
	out := make([]int, n)
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

//export hympi_go_icoll
func hympi_go_icoll(ci C.int, a *C.hc_nbc, persistent C.int, req *C.intptr_t) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	n, root := c.Size(), int(a.root)
	var t mpi.Datatype
	var o mpi.Op
	switch a.kind {
	case C.HC_NBC_REDUCE, C.HC_NBC_ALLREDUCE, C.HC_NBC_SCAN, C.HC_NBC_EXSCAN, C.HC_NBC_RSB, C.HC_NBC_RS:
		if t, o, rc = redOf(&a.red); rc != 0 {
			return rc
		}
	}
	s, r := bytesAt(a.sbuf, a.sn), bytesAt(a.rbuf, a.rn)
	var b collBinding
	if a.pdt != 0 {
		// Packed: the engine works on scratch buffers of ours.
		s = make([]byte, a.sn)
		r = s
		if a.inplace == 0 && a.kind != C.HC_NBC_BCAST {
			r = make([]byte, a.sn)
		}
		// The request holds the type: the caller may free it while
		// the collective is pending (MPICH's coll/nonblocking2).
		b.held = C.hc_type_hold_h(a.pdt)
		dt, cnt, from, to := b.held, a.pcount, a.pack_from, a.unpack_to
		if from != nil {
			b.pre = func() { C.hc_pack_h(dt, cnt, from, unsafe.Pointer(unsafe.SliceData(s))) }
		}
		if to != nil {
			b.post = func() { C.hc_unpack_h(dt, cnt, unsafe.Pointer(unsafe.SliceData(r)), C.int64_t(len(r)), to) }
		}
	} else if a.inplace != 0 {
		s = r
	}
	if pk := a.pk; pk != nil {
		// C scratch, already in a.sbuf and a.rbuf.
		b.pre = func() { C.hc_pk_run(pk, 0) }
		b.post = func() { C.hc_pk_run(pk, 1) }
		b.owned = pk
		C.hc_pk_hold(pk)
	}
	sc, sd := int64s(a.sc, n), int64s(a.sd, n)
	rcs, rd := int64s(a.rc, n), int64s(a.rd, n)
	var bind func() (*mpi.Persistent, error)
	var start func() (*mpi.Request, error)
	switch a.kind {
	case C.HC_NBC_BARRIER:
		start, bind = c.Ibarrier, c.BarrierInit
	case C.HC_NBC_BCAST:
		start = func() (*mpi.Request, error) { return c.Ibcast(s, root) }
		bind = func() (*mpi.Persistent, error) { return c.BcastInit(s, root) }
	case C.HC_NBC_REDUCE:
		if root != c.Rank() && a.pdt == 0 && a.rbuf == nil {
			r = nil
		}
		start = func() (*mpi.Request, error) { return c.Ireduce(s, r, t, o, root) }
		bind = func() (*mpi.Persistent, error) { return c.ReduceInit(s, r, t, o, root) }
	case C.HC_NBC_ALLREDUCE:
		start = func() (*mpi.Request, error) { return c.Iallreduce(s, r, t, o) }
		bind = func() (*mpi.Persistent, error) { return c.AllreduceInit(s, r, t, o) }
	case C.HC_NBC_SCAN:
		start = func() (*mpi.Request, error) { return c.Iscan(s, r, t, o) }
		bind = func() (*mpi.Persistent, error) { return c.ScanInit(s, r, t, o) }
	case C.HC_NBC_EXSCAN:
		start = func() (*mpi.Request, error) { return c.Iexscan(s, r, t, o) }
		bind = func() (*mpi.Persistent, error) { return c.ExscanInit(s, r, t, o) }
	case C.HC_NBC_RSB:
		// In place, the buffer holds every block on the way in.
		if a.inplace != 0 {
			s = bytesAt(a.rbuf, a.sn*C.int64_t(n))
			r = s
		} else {
			s = bytesAt(a.sbuf, a.sn*C.int64_t(n))
		}
		start = func() (*mpi.Request, error) { return c.IreduceScatterBlock(s, r, t, o) }
		bind = func() (*mpi.Persistent, error) { return c.ReduceScatterBlockInit(s, r, t, o) }
	case C.HC_NBC_RS:
		total := 0
		for _, k := range rcs {
			total += k
		}
		if a.inplace != 0 {
			s = bytesAt(a.rbuf, C.int64_t(total))
			r = s
		} else {
			s = bytesAt(a.sbuf, C.int64_t(total))
			r = bytesAt(a.rbuf, C.int64_t(rcs[c.Rank()]))
		}
		start = func() (*mpi.Request, error) { return c.IreduceScatter(s, r, rcs, t, o) }
		bind = func() (*mpi.Persistent, error) { return c.ReduceScatterInit(s, r, rcs, t, o) }
	case C.HC_NBC_GATHER:
		start = func() (*mpi.Request, error) { return c.Igather(s, r, root) }
		bind = func() (*mpi.Persistent, error) { return c.GatherInit(s, r, root) }
	case C.HC_NBC_SCATTER:
		start = func() (*mpi.Request, error) { return c.Iscatter(s, r, root) }
		bind = func() (*mpi.Persistent, error) { return c.ScatterInit(s, r, root) }
	case C.HC_NBC_ALLGATHER:
		start = func() (*mpi.Request, error) { return c.Iallgather(s, r) }
		bind = func() (*mpi.Persistent, error) { return c.AllgatherInit(s, r) }
	case C.HC_NBC_ALLTOALL:
		start = func() (*mpi.Request, error) { return c.Ialltoall(s, r) }
		bind = func() (*mpi.Persistent, error) { return c.AlltoallInit(s, r) }
	case C.HC_NBC_GATHERV, C.HC_NBC_ALLGATHERV:
		// The receive side spans the blocks; the own block in place.
		if rcs != nil {
			r = bytesAt(a.rbuf, extentOf(rcs, rd))
		}
		if a.inplace != 0 {
			me := c.Rank()
			s = blockOf(r, rcs, rd, me)
		}
		if a.kind == C.HC_NBC_GATHERV {
			start = func() (*mpi.Request, error) { return c.Igatherv(s, r, rcs, rd, root) }
			bind = func() (*mpi.Persistent, error) { return c.GathervInit(s, r, rcs, rd, root) }
		} else {
			start = func() (*mpi.Request, error) { return c.Iallgatherv(s, r, rcs, rd) }
			bind = func() (*mpi.Persistent, error) { return c.AllgathervInit(s, r, rcs, rd) }
		}
	case C.HC_NBC_SCATTERV:
		if sc != nil {
			s = bytesAt(a.sbuf, extentOf(sc, sd))
		}
		if a.inplace != 0 {
			me := c.Rank()
			r = blockOf(s, sc, sd, me)
		}
		start = func() (*mpi.Request, error) { return c.Iscatterv(s, sc, sd, r, root) }
		bind = func() (*mpi.Persistent, error) { return c.ScattervInit(s, sc, sd, r, root) }
	case C.HC_NBC_ALLTOALLV:
		r = bytesAt(a.rbuf, extentOf(rcs, rd))
		if a.inplace != 0 {
			s, sc, sd = r, rcs, rd
		} else {
			s = bytesAt(a.sbuf, extentOf(sc, sd))
		}
		start = func() (*mpi.Request, error) { return c.Ialltoallv(s, sc, sd, r, rcs, rd) }
		bind = func() (*mpi.Persistent, error) { return c.AlltoallvInit(s, sc, sd, r, rcs, rd) }
	default:
		return C.MPI_ERR_INTERN
	}
	return collRequest(ci, persistent != 0, &b, start, bind, req)
}

// collRequest makes the C request of a collective: a persistent one bound
// now (bind checks the arguments), or a nonblocking one started now.
func collRequest(ci C.int, persistent bool, b *collBinding, start func() (*mpi.Request, error),
	bind func() (*mpi.Persistent, error), req *C.intptr_t) C.int {
	if persistent {
		p, err := bind()
		if err != nil {
			b.drop()
			return errCode(err)
		}
		b.p = p
		q := newReq(req, nil)
		if q == nil {
			return C.MPI_ERR_NO_MEM
		}
		q.ci, q.persistent, q.coll, q.tmp = ci, true, b, b.owned
		return 0
	}
	if b.pre != nil {
		b.pre()
	}
	x, err := start()
	if err != nil {
		b.drop()
		return errCode(err)
	}
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.ci, q.active, q.tmp = x, ci, true, b.owned
	if b.post != nil || b.held != 0 {
		q.coll = b
	}
	return 0
}

// drop releases the datatype hold of a binding no request took (the C
// caller frees the packing state itself, hc_pk_free).
func (b *collBinding) drop() {
	if b.held != 0 {
		C.hc_type_release(b.held)
		b.held = 0
	}
}

// blockOf is rank i's block of a v-form buffer (nil when empty: an empty
// block's displacement may point anywhere).
func blockOf(buf []byte, counts, displs []int, i int) []byte {
	if counts[i] == 0 {
		return nil
	}
	return buf[displs[i] : displs[i]+counts[i]]
}

// startColl runs a persistent collective request once more.
func startColl(q *creq) (*mpi.Request, error) {
	if q.coll.pre != nil {
		q.coll.pre()
	}
	return q.coll.p.Start()
}

// collDone unpacks a completed collective's result where it is packed.
func collDone(q *creq) {
	if q.coll != nil && q.coll.post != nil {
		q.coll.post()
	}
}
