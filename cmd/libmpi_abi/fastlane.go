package main

/*
#include "cabi.h"
#include "fastlane.h"
*/
import "C"

import (
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

// hympi_go_fl_comm tells fastlane.c, once per communicator, where the
// process's fast-lane state is, the communicator's context and its ranks'
// world ranks (world has room for n). It returns 0 when C must not take the
// fast lane on ci.
//
//export hympi_go_fl_comm
func hympi_go_fl_comm(ci C.int, st *C.uintptr_t, ctx *C.uint32_t, world *C.int32_t, n C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return 0
	}
	addr, cx, w, ok := cabi.FastLaneState(c)
	if !ok || int(n) != c.Size() || (w != nil && len(w) != int(n)) {
		return 0
	}
	out := unsafe.Slice((*int32)(unsafe.Pointer(world)), int(n))
	for i := range out {
		out[i] = int32(i)
		if w != nil {
			out[i] = int32(w[i])
		}
	}
	*st, *ctx = C.uintptr_t(addr), C.uint32_t(cx)
	return 1
}

// The receive lane's request indexes (fastlane.h): the range just below
// hReqDone's, which reqTable never hands out itself. A queued lane receive
// lives in C alone; hympi_go_lane_flush gives it the slot of its index.
const (
	laneBase = C.HC_LANE_BASE
	laneCap  = C.HC_LANE_CAP
)

// laneGet is get for an index beyond the slots handed out: a lane slot
// Go has taken over, else nil.
func (t *reqTable) laneGet(i int) *creq {
	if i < laneBase || i >= laneBase+laneCap {
		return nil
	}
	ch := t.chunks[i>>reqChunkBits].Load()
	if ch == nil {
		return nil
	}
	if q := &ch[i&(reqChunk-1)]; q.used {
		return q
	}
	return nil
}

// laneSlot is lane index i's slot, its chunk made on first use.
func (t *reqTable) laneSlot(i int) *creq {
	if t.chunks[i>>reqChunkBits].Load() == nil {
		t.mu.Lock()
		if t.chunks[i>>reqChunkBits].Load() == nil {
			t.chunks[i>>reqChunkBits].Store(new([reqChunk]creq))
		}
		t.mu.Unlock()
	}
	return t.slot(i)
}

// hympi_go_lane_flush posts the receive lane's queued receives, oldest
// first, each in the slot of its handle's index: from here on they are
// ordinary requests. C has emptied its queue before the call.
//
//export hympi_go_lane_flush
func hympi_go_lane_flush(ents *C.hc_lane_post, n C.int) {
	for _, x := range unsafe.Slice(ents, int(n)) {
		q := reqs.laneSlot(laneBase + int(x.k))
		*q = creq{spare: q.spare, used: true, ci: x.ci, recv: true, active: true}
		c, rc := commAt(x.ci)
		var err error
		if rc == 0 {
			q.r, err = cabi.IrecvIn(c, q.spare, bytesAt(x.buf, x.n), int(x.source), tagIn(x.tag))
		} else {
			err = &mpi.Error{Class: mpi.ErrComm, Op: "Irecv", Msg: "communicator freed"}
		}
		if err != nil {
			// Cannot happen while every call into Go hands the queue
			// over first (the engine is as it was at MPI_Irecv); should
			// it, the request completes with the error.
			q.laneErr = err
			if world, rc := commAt(0); rc == 0 {
				q.r, _ = cabi.IrecvIn(world, q.spare, nil, mpi.ProcNull, 0)
			}
		}
		q.spare = nil
	}
}

// hympi_go_cc_area maps communicator ci's C plan area (collane.c) and
// returns its address, 0 when C must run ci's collectives in Go.
//
//export hympi_go_cc_area
func hympi_go_cc_area(ci C.int) C.uintptr_t {
	c, rc := commAt(ci)
	if rc != 0 {
		return 0
	}
	return C.uintptr_t(cabi.CollPlanArea(c))
}

// hympi_go_cc_run continues in Go the collective collane.c started from
// ci's plan number plan: tag drawn, rounds before cur done, round cur's transfers in
// skip done (tag < 0: none of it; Go runs it whole after a progress pass).
// A nonblocking call passes req (and its thread's cache) for the handle.
//
//export hympi_go_cc_run
func hympi_go_cc_run(ci, plan, tag, cur C.int, skip C.uint64_t, req *C.intptr_t, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	x, err := cabi.CollPlanRun(c, int(plan), int(tag), int(cur), uint64(skip), req != nil)
	if req == nil {
		return errCode(err)
	}
	return started(ci, x, err, req, cache)
}
