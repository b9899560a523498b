package main

/*
#include "cabi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

// Kinds of reduction (hympi_go_reduce).
const (
	redReduce = iota
	redAllreduce
	redScan
	redExscan
	redScatterBlock
)

// Kinds of fixed-block data movement (hympi_go_gather).
const (
	movGather = iota
	movScatter
	movAllgather
	movAlltoall
)

// Kinds of vector data movement (hympi_go_gatherv).
const (
	vecGather = iota
	vecAllgather
	vecScatter
)

func redOf(r *C.hc_red) (mpi.Datatype, mpi.Op, C.int) {
	return reduction(uintptr(r.op), uintptr(r.dt), int64(r.esize), uintptr(r.base), int64(r.nbase), r.builtin_ok != 0)
}

// A C nonblocking collective completes at its start when it can
// (started, below), so that its MPI_Wait stays in C.
func init() { cabi.CompleteCollStarts() }

// The collectives below run blocking when req is nil and start the
// nonblocking twin otherwise (its handle into *req; cache is the calling
// thread's request cache): one entry per collective, one call from C.

// started turns a nonblocking collective the engine has started into the
// caller's handle: the complete operation's (hReqDone) when the start call
// completed it already, a request slot otherwise.
func started(ci C.int, x *mpi.Request, err error, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	if err != nil {
		return errCode(err)
	}
	if cabi.TakeDone(x) {
		// Complete already (the peers were there, or the result is
		// local): MPI_Wait, MPI_Test and MPI_Waitall answer the handle
		// in C, as for an MPI_Isend that went out at once.
		*req = hReqDone
		return 0
	}
	q := newReq(req, cache)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.ci, q.active = x, ci, true
	return 0
}

//export hympi_go_barrier
func hympi_go_barrier(ci C.int, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	if req != nil {
		x, err := c.Ibarrier()
		return started(ci, x, err, req, cache)
	}
	return errCode(c.Barrier())
}

//export hympi_go_bcast
func hympi_go_bcast(ci C.int, buf unsafe.Pointer, n C.int64_t, root C.int, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	if req != nil {
		x, err := c.Ibcast(bytesAt(buf, n), int(root))
		return started(ci, x, err, req, cache)
	}
	return errCode(c.Bcast(bytesAt(buf, n), int(root)))
}

// hympi_go_reduce: send and recv hold n bytes (for reduce-scatter-block, n
// is one block: send holds Size()*n). send == recv means in place; for
// reduce-scatter-block in place, recv holds all the blocks (blocking only:
// its nonblocking form goes through hympi_go_icoll).
//
//export hympi_go_reduce
func hympi_go_reduce(ci, kind C.int, send, recv unsafe.Pointer, n C.int64_t, red *C.hc_red, root C.int,
	req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	t, o, rc := redOf(red)
	if rc != 0 {
		return rc
	}
	s, r := bytesAt(send, n), bytesAt(recv, n)
	if send == recv {
		s = r
	}
	if int(root) != c.Rank() && recv == nil && kind == redReduce {
		r = nil
	}
	if req != nil {
		var x *mpi.Request
		var err error
		switch kind {
		case redReduce:
			x, err = c.Ireduce(s, r, t, o, int(root))
		case redAllreduce:
			x, err = c.Iallreduce(s, r, t, o)
		case redScan:
			x, err = c.Iscan(s, r, t, o)
		case redExscan:
			x, err = c.Iexscan(s, r, t, o)
		case redScatterBlock:
			// Not in place (coll.c sends that through nbc.c): the
			// input is every block.
			if send == recv {
				return C.MPI_ERR_INTERN
			}
			x, err = c.IreduceScatterBlock(bytesAt(send, n*C.int64_t(c.Size())), r, t, o)
		default:
			return C.MPI_ERR_INTERN
		}
		return started(ci, x, err, req, cache)
	}
	var err error
	switch kind {
	case redReduce:
		err = c.Reduce(s, r, t, o, int(root))
	case redAllreduce:
		err = c.Allreduce(s, r, t, o)
	case redScan:
		err = c.Scan(s, r, t, o)
	case redExscan:
		err = c.Exscan(s, r, t, o)
	case redScatterBlock:
		// In place, recv holds every block on the way in and the engine
		// keeps aside (in its reused scratch) what it still needs.
		all := n * C.int64_t(c.Size())
		if send == recv {
			s = bytesAt(recv, all)
			r = s
		} else {
			s = bytesAt(send, all)
		}
		err = c.ReduceScatterBlock(s, r, t, o)
	}
	return errCode(err)
}

func intsAt(p *C.int, n int) []C.int {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice(p, n)
}

// scaled writes v[i]*esize into dst (as long as v) and returns it.
func scaled(dst []int, v []C.int, esize C.int64_t) []int {
	dst = dst[:len(v):len(v)]
	for i, x := range v {
		dst[i] = int(C.int64_t(x) * esize)
	}
	return dst
}

// countScratch lends a collective call the memory of its count and
// displacement arrays in bytes. The engine reads them only while it
// builds the call's schedule, before the call returns, so one array
// serves every call; a call that finds it lent (another thread is in a
// collective) allocates its own. Without it a v-collective from C made
// two to four allocations per call.
var countScratch struct {
	lent atomic.Bool
	v    [4 * 256]int
}

// borrowInts returns n ints, lent reporting whether they are the scratch
// (then returnInts(true) must follow once the engine has built).
func borrowInts(n int) (v []int, lent bool) {
	if n <= len(countScratch.v) && countScratch.lent.CompareAndSwap(false, true) {
		return countScratch.v[:n:n], true
	}
	return make([]int, n), false
}

func returnInts(lent bool) {
	if lent {
		countScratch.lent.Store(false)
	}
}

// extentOf is the bytes a vector collective's buffer spans. Empty blocks
// count too: C programs place them anywhere (often just past the data),
// and the engine checks every displacement against the buffer; nothing
// is ever read or written there.
func extentOf(counts, displs []int) C.int64_t {
	var hi int
	for i := range counts {
		hi = max(hi, displs[i]+counts[i])
	}
	return C.int64_t(hi)
}

//export hympi_go_reduce_scatter
func hympi_go_reduce_scatter(ci C.int, send, recv unsafe.Pointer, counts *C.int, red *C.hc_red) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	t, o, rc := redOf(red)
	if rc != 0 {
		return rc
	}
	ints, lent := borrowInts(c.Size())
	defer returnInts(lent)
	bc := scaled(ints, intsAt(counts, c.Size()), red.esize)
	var total int
	for _, x := range bc {
		total += x
	}
	if send == recv {
		// In place: the engine's own form, no copy of the input here.
		s := bytesAt(recv, C.int64_t(total))
		return errCode(c.ReduceScatter(s, s, bc, t, o))
	}
	return errCode(c.ReduceScatter(bytesAt(send, C.int64_t(total)), bytesAt(recv, C.int64_t(bc[c.Rank()])), bc, t, o))
}

// hympi_go_gather moves fixed blocks: sn bytes of send, rn bytes of recv
// (the whole buffer). In-place cases are resolved by the C side, except
// Alltoall in place (send == recv), the engine's own in-place form.
//
//export hympi_go_gather
func hympi_go_gather(ci, kind C.int, send unsafe.Pointer, sn C.int64_t, recv unsafe.Pointer, rn C.int64_t, root C.int,
	req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	s, r := bytesAt(send, sn), bytesAt(recv, rn)
	if req != nil { // Alltoall in place comes through hympi_go_icoll
		var x *mpi.Request
		var err error
		switch kind {
		case movGather:
			x, err = c.Igather(s, r, int(root))
		case movScatter:
			x, err = c.Iscatter(s, r, int(root))
		case movAllgather:
			x, err = c.Iallgather(s, r)
		case movAlltoall:
			x, err = c.Ialltoall(s, r)
		default:
			return C.MPI_ERR_INTERN
		}
		return started(ci, x, err, req, cache)
	}
	var err error
	switch kind {
	case movGather:
		err = c.Gather(s, r, int(root))
	case movScatter:
		err = c.Scatter(s, r, int(root))
	case movAllgather:
		err = c.Allgather(s, r)
	case movAlltoall:
		if send == recv {
			s = r // in place: the engine copies aside into its scratch
		}
		err = c.Alltoall(s, r)
	}
	return errCode(err)
}

// hympi_go_gatherv: counts and displs are in elements of esize bytes;
// inplace says the root's (for Allgatherv: every rank's) own block is
// already in place.
//
//export hympi_go_gatherv
func hympi_go_gatherv(ci, kind C.int, send unsafe.Pointer, sn C.int64_t, recv unsafe.Pointer,
	counts, displs *C.int, esize C.int64_t, root, inplace C.int, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	me := c.Rank()
	var bc, bd []int
	if counts != nil {
		n := c.Size()
		ints, lent := borrowInts(2 * n)
		defer returnInts(lent)
		bc = scaled(ints[:n], intsAt(counts, n), esize)
		bd = scaled(ints[n:], intsAt(displs, n), esize)
	}
	var err error
	switch kind {
	case vecGather, vecAllgather:
		var r []byte
		if bc != nil {
			r = bytesAt(recv, extentOf(bc, bd))
		}
		s := bytesAt(send, sn)
		if inplace != 0 {
			s = blockOf(r, bc, bd, me)
		}
		switch {
		case req != nil:
			var x *mpi.Request
			if kind == vecGather {
				x, err = c.Igatherv(s, r, bc, bd, int(root))
			} else {
				x, err = c.Iallgatherv(s, r, bc, bd)
			}
			return started(ci, x, err, req, cache)
		case kind == vecGather:
			err = c.Gatherv(s, r, bc, bd, int(root))
		default:
			err = c.Allgatherv(s, r, bc, bd)
		}
	case vecScatter:
		var s []byte
		if bc != nil {
			s = bytesAt(send, extentOf(bc, bd))
		}
		r := bytesAt(recv, sn)
		if inplace != 0 {
			r = blockOf(s, bc, bd, me)
		}
		if req != nil {
			x, err := c.Iscatterv(s, bc, bd, r, int(root))
			return started(ci, x, err, req, cache)
		}
		err = c.Scatterv(s, bc, bd, r, int(root))
	}
	return errCode(err)
}

//export hympi_go_alltoallv
func hympi_go_alltoallv(ci C.int, send unsafe.Pointer, scounts, sdispls *C.int, sesize C.int64_t,
	recv unsafe.Pointer, rcounts, rdispls *C.int, resize C.int64_t, inplace C.int, req *C.intptr_t,
	cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	n := c.Size()
	ints, lent := borrowInts(4 * n)
	defer returnInts(lent)
	rc2, rd := scaled(ints[:n], intsAt(rcounts, n), resize), scaled(ints[n:2*n], intsAt(rdispls, n), resize)
	r := bytesAt(recv, extentOf(rc2, rd))
	var s []byte
	sc, sd := rc2, rd
	if inplace != 0 {
		s = r // the engine's in-place form copies aside into its scratch
	} else {
		sc, sd = scaled(ints[2*n:3*n], intsAt(scounts, n), sesize), scaled(ints[3*n:], intsAt(sdispls, n), sesize)
		s = bytesAt(send, extentOf(sc, sd))
	}
	if req != nil { // never in place: that comes through hympi_go_icoll
		x, err := c.Ialltoallv(s, sc, sd, r, rc2, rd)
		return started(ci, x, err, req, cache)
	}
	return errCode(c.Alltoallv(s, sc, sd, r, rc2, rd))
}
