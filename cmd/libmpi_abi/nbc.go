package main

/*
#include "nbc.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
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
	// live is the word of the C lane's entry for this persistent
	// request (nbc_persist.c), C memory: 1 while Go holds a run of it
	// active, so that C's MPI_Start leaves it to Go's checks. nil when C
	// has no entry.
	live *C.int
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

// collCall is a collective's arguments in the engine's terms. Its start
// and bind methods stand where closures over the arguments stood: those
// put the arguments on the heap on every call, ~600 instructions of a
// small nonblocking collective from C.
type collCall struct {
	kind            C.int
	s, r            []byte
	t               mpi.Datatype
	o               mpi.Op
	root            int
	sc, sd, rcs, rd []int
}

func (k *collCall) start(c *mpi.Comm) (*mpi.Request, error) {
	s, r, t, o, root := k.s, k.r, k.t, k.o, k.root
	switch k.kind {
	case C.HC_NBC_BARRIER:
		return c.Ibarrier()
	case C.HC_NBC_BCAST:
		return c.Ibcast(s, root)
	case C.HC_NBC_REDUCE:
		return c.Ireduce(s, r, t, o, root)
	case C.HC_NBC_ALLREDUCE:
		return c.Iallreduce(s, r, t, o)
	case C.HC_NBC_SCAN:
		return c.Iscan(s, r, t, o)
	case C.HC_NBC_EXSCAN:
		return c.Iexscan(s, r, t, o)
	case C.HC_NBC_RSB:
		return c.IreduceScatterBlock(s, r, t, o)
	case C.HC_NBC_RS:
		return c.IreduceScatter(s, r, k.rcs, t, o)
	case C.HC_NBC_GATHER:
		return c.Igather(s, r, root)
	case C.HC_NBC_SCATTER:
		return c.Iscatter(s, r, root)
	case C.HC_NBC_ALLGATHER:
		return c.Iallgather(s, r)
	case C.HC_NBC_ALLTOALL:
		return c.Ialltoall(s, r)
	case C.HC_NBC_GATHERV:
		return c.Igatherv(s, r, k.rcs, k.rd, root)
	case C.HC_NBC_ALLGATHERV:
		return c.Iallgatherv(s, r, k.rcs, k.rd)
	case C.HC_NBC_SCATTERV:
		return c.Iscatterv(s, k.sc, k.sd, r, root)
	default: // C.HC_NBC_ALLTOALLV, checked by hympi_go_icoll
		return c.Ialltoallv(s, k.sc, k.sd, r, k.rcs, k.rd)
	}
}

// run is the blocking form, for the calls C would otherwise start and
// wait on at once.
func (k *collCall) run(c *mpi.Comm) error {
	s, r, t, o, root := k.s, k.r, k.t, k.o, k.root
	switch k.kind {
	case C.HC_NBC_BARRIER:
		return c.Barrier()
	case C.HC_NBC_BCAST:
		return c.Bcast(s, root)
	case C.HC_NBC_REDUCE:
		return c.Reduce(s, r, t, o, root)
	case C.HC_NBC_ALLREDUCE:
		return c.Allreduce(s, r, t, o)
	case C.HC_NBC_SCAN:
		return c.Scan(s, r, t, o)
	case C.HC_NBC_EXSCAN:
		return c.Exscan(s, r, t, o)
	case C.HC_NBC_RSB:
		return c.ReduceScatterBlock(s, r, t, o)
	case C.HC_NBC_RS:
		return c.ReduceScatter(s, r, k.rcs, t, o)
	case C.HC_NBC_GATHER:
		return c.Gather(s, r, root)
	case C.HC_NBC_SCATTER:
		return c.Scatter(s, r, root)
	case C.HC_NBC_ALLGATHER:
		return c.Allgather(s, r)
	case C.HC_NBC_ALLTOALL:
		return c.Alltoall(s, r)
	case C.HC_NBC_GATHERV:
		return c.Gatherv(s, r, k.rcs, k.rd, root)
	case C.HC_NBC_ALLGATHERV:
		return c.Allgatherv(s, r, k.rcs, k.rd)
	case C.HC_NBC_SCATTERV:
		return c.Scatterv(s, k.sc, k.sd, r, root)
	default:
		return c.Alltoallv(s, k.sc, k.sd, r, k.rcs, k.rd)
	}
}

func (k *collCall) bind(c *mpi.Comm) (*mpi.Persistent, error) {
	s, r, t, o, root := k.s, k.r, k.t, k.o, k.root
	switch k.kind {
	case C.HC_NBC_BARRIER:
		return c.BarrierInit()
	case C.HC_NBC_BCAST:
		return c.BcastInit(s, root)
	case C.HC_NBC_REDUCE:
		return c.ReduceInit(s, r, t, o, root)
	case C.HC_NBC_ALLREDUCE:
		return c.AllreduceInit(s, r, t, o)
	case C.HC_NBC_SCAN:
		return c.ScanInit(s, r, t, o)
	case C.HC_NBC_EXSCAN:
		return c.ExscanInit(s, r, t, o)
	case C.HC_NBC_RSB:
		return c.ReduceScatterBlockInit(s, r, t, o)
	case C.HC_NBC_RS:
		return c.ReduceScatterInit(s, r, k.rcs, t, o)
	case C.HC_NBC_GATHER:
		return c.GatherInit(s, r, root)
	case C.HC_NBC_SCATTER:
		return c.ScatterInit(s, r, root)
	case C.HC_NBC_ALLGATHER:
		return c.AllgatherInit(s, r)
	case C.HC_NBC_ALLTOALL:
		return c.AlltoallInit(s, r)
	case C.HC_NBC_GATHERV:
		return c.GathervInit(s, r, k.rcs, k.rd, root)
	case C.HC_NBC_ALLGATHERV:
		return c.AllgathervInit(s, r, k.rcs, k.rd)
	case C.HC_NBC_SCATTERV:
		return c.ScattervInit(s, k.sc, k.sd, r, root)
	default:
		return c.AlltoallvInit(s, k.sc, k.sd, r, k.rcs, k.rd)
	}
}

// countsInto converts n C byte counts at p into dst (nil when p is).
func countsInto(dst []int, p *C.int64_t) []int {
	if p == nil {
		return nil
	}
	for i, x := range unsafe.Slice(p, len(dst)) {
		dst[i] = int(x)
	}
	return dst
}

// hympi_go_icoll runs a collective as run says (RUN_NB, RUN_PERSISTENT,
// RUN_BLOCKING). A blocking one goes through the engine's blocking entry
// and makes no request: the caller (hc_icoll) packs before and unpacks
// after around C scratch (a.pk) itself, and Go does so here around its
// own (a.pdt).
//
//export hympi_go_icoll
func hympi_go_icoll(ci C.int, a *C.hc_nbc, run C.int, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	if a.kind < C.HC_NBC_BARRIER || a.kind > C.HC_NBC_ALLTOALLV {
		return C.MPI_ERR_INTERN
	}
	persistent, blocking := run == C.RUN_PERSISTENT, run == C.RUN_BLOCKING
	n := c.Size()
	k := collCall{kind: a.kind, root: int(a.root)}
	switch a.kind {
	case C.HC_NBC_REDUCE, C.HC_NBC_ALLREDUCE, C.HC_NBC_SCAN, C.HC_NBC_EXSCAN, C.HC_NBC_RSB, C.HC_NBC_RS:
		if k.t, k.o, rc = redOf(&a.red); rc != 0 {
			return rc
		}
	}
	k.s, k.r = bytesAt(a.sbuf, a.sn), bytesAt(a.rbuf, a.rn)
	var b *collBinding
	var scratch []byte // blocking and packed: the engine's buffers
	if a.pdt != 0 && blocking {
		scratch = make([]byte, a.sn)
		k.s, k.r = scratch, scratch
		if a.inplace == 0 && a.kind != C.HC_NBC_BCAST {
			k.r = make([]byte, a.sn)
		}
	} else if a.pdt != 0 {
		// Packed: the engine works on scratch buffers of ours.
		b = new(collBinding)
		s := make([]byte, a.sn)
		r := s
		if a.inplace == 0 && a.kind != C.HC_NBC_BCAST {
			r = make([]byte, a.sn)
		}
		k.s, k.r = s, r
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
		k.s = k.r
	}
	if pk := a.pk; pk != nil && !blocking {
		// C scratch, already in a.sbuf and a.rbuf.
		if b == nil {
			b = new(collBinding)
		}
		b.pre = func() { C.hc_pk_run(pk, 0) }
		b.post = func() { C.hc_pk_run(pk, 1) }
		b.owned = pk
		C.hc_pk_hold(pk)
	}
	// The byte counts in the engine's int: lent scratch, which the
	// engine reads only while it builds the schedule, inside this call.
	var ints []int
	lent := false
	if a.sc != nil || a.sd != nil || a.rc != nil || a.rd != nil {
		ints, lent = borrowInts(4 * n)
		defer returnInts(lent)
		k.sc, k.sd = countsInto(ints[:n:n], a.sc), countsInto(ints[n:2*n:2*n], a.sd)
		k.rcs, k.rd = countsInto(ints[2*n:3*n:3*n], a.rc), countsInto(ints[3*n:], a.rd)
	}
	switch a.kind {
	case C.HC_NBC_REDUCE:
		if k.root != c.Rank() && a.pdt == 0 && a.rbuf == nil {
			k.r = nil
		}
	case C.HC_NBC_RSB:
		// In place, the buffer holds every block on the way in.
		if a.inplace != 0 {
			k.s = bytesAt(a.rbuf, a.sn*C.int64_t(n))
			k.r = k.s
		} else {
			k.s = bytesAt(a.sbuf, a.sn*C.int64_t(n))
		}
	case C.HC_NBC_RS:
		total := 0
		for _, x := range k.rcs {
			total += x
		}
		if a.inplace != 0 {
			k.s = bytesAt(a.rbuf, C.int64_t(total))
			k.r = k.s
		} else {
			k.s = bytesAt(a.sbuf, C.int64_t(total))
			k.r = bytesAt(a.rbuf, C.int64_t(k.rcs[c.Rank()]))
		}
	case C.HC_NBC_GATHERV, C.HC_NBC_ALLGATHERV:
		// The receive side spans the blocks; the own block in place.
		if k.rcs != nil {
			k.r = bytesAt(a.rbuf, extentOf(k.rcs, k.rd))
		}
		if a.inplace != 0 {
			k.s = blockOf(k.r, k.rcs, k.rd, c.Rank())
		}
	case C.HC_NBC_SCATTERV:
		if k.sc != nil {
			k.s = bytesAt(a.sbuf, extentOf(k.sc, k.sd))
		}
		if a.inplace != 0 {
			k.r = blockOf(k.s, k.sc, k.sd, c.Rank())
		}
	case C.HC_NBC_ALLTOALLV:
		k.r = bytesAt(a.rbuf, extentOf(k.rcs, k.rd))
		if a.inplace != 0 {
			k.s, k.sc, k.sd = k.r, k.rcs, k.rd
		} else {
			k.s = bytesAt(a.sbuf, extentOf(k.sc, k.sd))
		}
	}
	if blocking {
		if scratch == nil {
			return errCode(k.run(c))
		}
		dt := a.pdt
		if a.pack_from != nil {
			C.hc_pack_h(dt, a.pcount, a.pack_from, unsafe.Pointer(unsafe.SliceData(scratch)))
		}
		err := k.run(c)
		if err == nil && a.unpack_to != nil {
			C.hc_unpack_h(dt, a.pcount, unsafe.Pointer(unsafe.SliceData(k.r)), C.int64_t(len(k.r)), a.unpack_to)
		}
		return errCode(err)
	}
	if persistent || b != nil {
		if b == nil {
			b = new(collBinding)
		}
		kk := new(collCall)
		*kk = k
		return collRequest(ci, persistent, b, func() (*mpi.Request, error) { return kk.start(c) },
			func() (*mpi.Persistent, error) { return kk.bind(c) }, req)
	}
	// The common case: plain data, started now, nothing kept past the
	// call but the request.
	x, err := k.start(c)
	return started(ci, x, err, req, cache)
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
	if cabi.TakeDone(x) {
		// Complete at once: unpack now and free what a request would
		// have kept, then hand out the complete operation's handle.
		if b.post != nil {
			b.post()
		}
		if b.owned != nil {
			C.hc_pk_free(b.owned)
		}
		b.drop()
		*req = hReqDone
		return 0
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

// hympi_go_pc_plan compiles persistent collective request h's schedule
// into the C plan at plan (nbc_persist.c), giving its messages' context
// and tag; live is the C entry's word collBinding.live names. 0 when C
// cannot run it.
//
//export hympi_go_pc_plan
func hympi_go_pc_plan(h C.intptr_t, plan unsafe.Pointer, ctx *C.uint32_t, tag *C.int, live *C.int) C.int {
	q, _, ok := lookup(uintptr(h))
	if !ok || q == nil || !q.persistent || q.active || q.coll == nil || q.coll.p == nil || q.coll.pre != nil ||
		q.coll.post != nil {
		return 0
	}
	x, t, ok := cabi.PersistPlan(q.coll.p, plan)
	if !ok || t < 0 || t > math.MaxInt32 {
		return 0
	}
	*ctx, *tag = C.uint32_t(x), C.int(t)
	q.coll.live = live
	return 1
}

// hympi_go_pc_start_at starts persistent collective request h in Go
// where C's run of its plan stopped (cur < 0: C did nothing; a progress
// pass first), as hympi_go_start would have started it.
//
//export hympi_go_pc_start_at
func hympi_go_pc_start_at(h C.intptr_t, cur C.int, skip C.uint64_t) C.int {
	q, _, ok := lookup(uintptr(h))
	if !ok || q == nil || !q.persistent || q.coll == nil || q.coll.p == nil {
		return C.MPI_ERR_REQUEST
	}
	if q.active {
		return packErr(q.ci, C.MPI_ERR_REQUEST)
	}
	r, err := cabi.PersistStartAt(q.coll.p, int(cur), uint64(skip))
	if err != nil {
		return packErr(q.ci, errCode(err))
	}
	q.r, q.spare, q.active, q.cancelled = r, nil, true, false
	q.coll.setLive(1)
	return 0
}

// setLive tells C's lane entry whether Go holds a run active.
func (b *collBinding) setLive(v C.int) {
	if b != nil && b.live != nil {
		*b.live = v
	}
}

// hympi_go_cn_reserve reserves up to n request handles for nonblocking
// collectives C keeps pending (nbc_pend.c) and writes them to out; it
// returns how many. A reserved slot is an inactive request until
// hympi_go_cn_adopt fills it; C hands out a handle only while it keeps the
// run, and adopts it before any other call into Go.
//
//export hympi_go_cn_reserve
func hympi_go_cn_reserve(out *C.intptr_t, n C.int) C.int {
	hs := unsafe.Slice(out, int(n))
	k := 0
	for k < len(hs) && newReq(&hs[k], nil) != nil {
		k++
	}
	return C.int(k)
}

// hympi_go_cn_adopt makes the run C kept pending under reserved handle h
// Go's: the collective of ci's plan number plan, tag drawn, rounds before
// cur and round cur's transfers in skip done (as hympi_go_cc_run
// continues one). *next gets a new reserved handle (0: none). Not wrapped
// in golane.h: C calls it from the hand-over itself.
//
//export hympi_go_cn_adopt
func hympi_go_cn_adopt(ci, plan, tag, cur C.int, skip C.uint64_t, h C.intptr_t, next *C.intptr_t) {
	*next = 0
	if newReq(next, nil) == nil {
		*next = 0
	}
	q, _, ok := lookup(uintptr(h))
	if !ok || q == nil {
		return
	}
	q.ci, q.active = ci, true
	c, rc := commAt(ci)
	var err error
	if rc == 0 {
		q.r, err = cabi.CollPlanRun(c, int(plan), int(tag), int(cur), uint64(skip), true)
	} else {
		err = &mpi.Error{Class: mpi.ErrComm, Op: "collective", Msg: "communicator freed"}
	}
	if err != nil {
		// Cannot happen while C hands the run over before any other
		// call into Go; should it, the request completes with the
		// error (as a lane receive's, hympi_go_lane_flush).
		q.laneErr = err
		if world, rc := commAt(0); rc == 0 {
			q.r, _ = cabi.IrecvIn(world, q.spare, nil, mpi.ProcNull, 0)
		}
	}
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
