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

// The Go half of RMA windows: the engine windows C refers to by index
// (win.c keeps the C half: error handler, attributes, name). Datatypes
// arrive resolved to bytes: C packs non-contiguous origin buffers.

var wins table[mpi.Win]

const maxWins = 1024 // HC_MAX_WINS in win.c

// Window flavors as the C side passes them (MPI_WIN_FLAVOR_* - 310).
func winAt(wi C.int) (*mpi.Win, C.int) {
	w := wins.get(int(wi))
	if w == nil {
		return nil, C.MPI_ERR_WIN
	}
	return w, 0
}

// winCode is errCode plus the RMA classes, which the shared table does not
// know.
func winCode(err error) C.int {
	if err == nil {
		return 0
	}
	switch c := mpi.ClassOf(err); c {
	case mpi.ErrAssert, mpi.ErrBase, mpi.ErrDisp, mpi.ErrLocktype, mpi.ErrRMAAttach, mpi.ErrRMAConflict,
		mpi.ErrRMARange, mpi.ErrRMAShared, mpi.ErrRMASync, mpi.ErrSize, mpi.ErrWin, mpi.ErrRMAFlavor:
		setErrmsg(err.Error())
		return C.int(c) // the engine numbers these as the standard ABI
	}
	return errCode(err)
}

// winAccess is, per window, the C array (one byte per rank) that mirrors
// which access epochs are open (cabi.WinAccessMask): win.c reads it to do
// operations on allocated windows without calling into Go.
var winAccess [maxWins]struct {
	p unsafe.Pointer
	n int
}

func refreshAccess(wi C.int, w *mpi.Win) {
	a := winAccess[wi]
	if a.p != nil {
		cabi.WinAccessMask(w, unsafe.Slice((*byte)(a.p), a.n))
	}
}

// hympi_go_win_create makes a window. access, tbase, tsize and tunit are C
// arrays of one entry per rank: the epoch mirror, and for windows hympi
// allocated each rank's memory as this process maps it (else left alone).
//
//export hympi_go_win_create
func hympi_go_win_create(ci, flavor C.int, base unsafe.Pointer, size, unit C.int64_t, noncontig C.int, wi *C.int, mybase *unsafe.Pointer,
	access unsafe.Pointer, tbase *unsafe.Pointer, tsize, tunit *C.int64_t, tacc *unsafe.Pointer) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	if wi == nil || mybase == nil {
		return C.MPI_ERR_ARG
	}
	var w *mpi.Win
	var err error
	switch mpi.WinFlavor(flavor) {
	case mpi.FlavorCreate:
		if size > 0 && base == nil {
			return C.MPI_ERR_BASE
		}
		if size < 0 {
			// A slice cannot say -1: the engine's exchange, which
			// every flavor makes, refuses it on all ranks at once.
			w, err = c.WinAllocate(int(size), int(unit))
			break
		}
		w, err = c.WinCreate(bytesAt(base, size), int(unit))
	case mpi.FlavorAllocate:
		w, err = c.WinAllocate(int(size), int(unit))
	case mpi.FlavorShared:
		w, err = c.WinAllocateShared(int(size), int(unit), noncontig != 0)
	case mpi.FlavorDynamic:
		w, err = c.WinCreateDynamic()
	default:
		return C.MPI_ERR_ARG
	}
	if err != nil {
		return winCode(err)
	}
	i := wins.put(w)
	if i >= maxWins {
		wins.del(i)
		w.Free()
		return C.MPI_ERR_NO_MEM
	}
	*wi = C.int(i)
	*mybase = base
	if l := w.Local(); mpi.WinFlavor(flavor) != mpi.FlavorCreate && l != nil {
		*mybase = unsafe.Pointer(unsafe.SliceData(l))
	}
	if mpi.WinFlavor(flavor) == mpi.FlavorDynamic {
		*mybase = nil
	}
	n := c.Size()
	winAccess[i].p, winAccess[i].n = access, n
	refreshAccess(C.int(i), w)
	if f := mpi.WinFlavor(flavor); f == mpi.FlavorAllocate || f == mpi.FlavorShared {
		bases := unsafe.Slice(tbase, n)
		sizes := unsafe.Slice(tsize, n)
		units := unsafe.Slice(tunit, n)
		accs := unsafe.Slice(tacc, n)
		for r := 0; r < n; r++ {
			accs[r] = cabi.WinAccWordAddr(w, r)
			bases[r] = cabi.WinSharedBase(w, r)
			sizes[r] = C.int64_t(w.Size(r))
			units[r] = C.int64_t(w.DispUnit(r))
		}
	}
	return 0
}

//export hympi_go_win_free
func hympi_go_win_free(wi C.int) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	if err := w.Free(); err != nil {
		return winCode(err)
	}
	winAccess[wi].p = nil
	wins.del(int(wi))
	return 0
}

// segsAt views the (offset, length) pairs C listed for a non-contiguous
// target (nil for a contiguous one).
func segsAt(p *C.int64_t, n C.int64_t) []cabi.Seg {
	if p == nil {
		return nil
	}
	if n <= 0 {
		return []cabi.Seg{}
	}
	return unsafe.Slice((*cabi.Seg)(unsafe.Pointer(p)), int(n))
}

//export hympi_go_win_put
func hympi_go_win_put(wi C.int, buf unsafe.Pointer, n C.int64_t, target C.int, disp C.int64_t, get C.int, segs *C.int64_t, nsegs C.int64_t) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	if get != 0 {
		return winCode(cabi.WinGetSegs(w, bytesAt(buf, n), rankIn(target), int(disp), segsAt(segs, nsegs)))
	}
	return winCode(cabi.WinPutSegs(w, bytesAt(buf, n), rankIn(target), int(disp), segsAt(segs, nsegs)))
}

// Accumulate kinds: an operator through red, MPI_REPLACE, MPI_NO_OP.
const (
	accOp = iota
	accReplace
	accNoOp
)

//export hympi_go_win_acc
func hympi_go_win_acc(wi C.int, origin, result unsafe.Pointer, n C.int64_t, target C.int, disp C.int64_t, red *C.hc_red, kind C.int, segs *C.int64_t, nsegs C.int64_t) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	dt, op := mpi.Byte, mpi.Replace
	switch kind {
	case accNoOp:
		op = mpi.NoOp
	case accOp:
		if dt, op, rc = redOf(red); rc != 0 {
			return rc
		}
	}
	var res []byte
	if result != nil {
		res = bytesAt(result, n)
		if res == nil {
			res = []byte{}
		}
	}
	return winCode(cabi.WinGetAccumulateSegs(w, bytesAt(origin, n), res, dt, op, rankIn(target), int(disp), segsAt(segs, nsegs)))
}

//export hympi_go_win_cas
func hympi_go_win_cas(wi C.int, origin, compare, result unsafe.Pointer, n C.int64_t, target C.int, disp C.int64_t) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	return winCode(w.CompareAndSwap(bytesAt(origin, n), bytesAt(compare, n), bytesAt(result, n), rankIn(target), int(disp)))
}

// hympi_go_win_req makes the request of a request-based operation, which
// is complete already: the operation was done in the call.
//
//export hympi_go_win_req
func hympi_go_win_req(wi C.int, req *C.intptr_t) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	if req == nil { // win.c checks first; this only keeps Go from panicking
		return C.MPI_ERR_ARG
	}
	q, i := reqs.alloc(nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.r, q.spare, q.ci, q.active = cabi.WinDoneRequest(w), nil, 0, true
	*req = C.intptr_t(makeHandle(kindReq, i))
	return 0
}

// Synchronisation kinds (hympi_go_win_sync).
const (
	syncFence = iota
	syncPost
	syncStart
	syncComplete
	syncWait
	syncTest
	syncLock
	syncUnlock
	syncLockAll
	syncUnlockAll
	syncFlush
	syncFlushAll
	syncSync
)

// Lock types and assertions of the standard ABI.
const (
	cLockExclusive = 301
	cLockShared    = 302
	cModeNoCheck   = 1024
	cModeNoPrecede = 2048
	cModeNoPut     = 4096
	cModeNoStore   = 8192
	cModeNoSucceed = 16384
)

func assertIn(a C.int) (int, bool) {
	all := cModeNoCheck | cModeNoPrecede | cModeNoPut | cModeNoStore | cModeNoSucceed
	if int(a)&^all != 0 {
		return 0, false
	}
	out := 0
	for _, m := range [][2]int{{cModeNoCheck, mpi.ModeNoCheck}, {cModeNoPrecede, mpi.ModeNoPrecede},
		{cModeNoPut, mpi.ModeNoPut}, {cModeNoStore, mpi.ModeNoStore}, {cModeNoSucceed, mpi.ModeNoSucceed}} {
		if int(a)&m[0] != 0 {
			out |= m[1]
		}
	}
	return out, true
}

// hympi_go_win_sync runs one synchronisation call; arg is the rank (lock,
// unlock, flush), the group handle (post, start) or the lock type (in
// lockType); flag receives Win_test's answer.
//
//export hympi_go_win_sync
func hympi_go_win_sync(wi, kind C.int, arg C.intptr_t, lockType, assert C.int, flag *C.int) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	a, ok := assertIn(assert)
	if !ok {
		return C.MPI_ERR_ASSERT
	}
	rank := rankIn(C.int(arg))
	defer refreshAccess(wi, w)
	switch kind {
	case syncFence:
		return winCode(w.Fence(a))
	case syncPost, syncStart:
		g, rc := groupOf(arg)
		if rc != 0 {
			return rc
		}
		if kind == syncPost {
			return winCode(w.Post(g, a))
		}
		return winCode(w.Start(g, a))
	case syncComplete:
		return winCode(w.Complete())
	case syncWait:
		return winCode(w.Wait())
	case syncTest:
		if flag == nil {
			return C.MPI_ERR_ARG
		}
		done, err := w.Test()
		*flag = 0
		if done {
			*flag = 1
		}
		return winCode(err)
	case syncLock:
		typ := 0
		switch lockType {
		case cLockExclusive:
			typ = mpi.LockExclusive
		case cLockShared:
			typ = mpi.LockShared
		}
		return winCode(w.Lock(typ, rank, a))
	case syncUnlock:
		return winCode(w.Unlock(rank))
	case syncLockAll:
		return winCode(w.LockAll(a))
	case syncUnlockAll:
		return winCode(w.UnlockAll())
	case syncFlush:
		return winCode(w.Flush(rank))
	case syncFlushAll:
		return winCode(w.FlushAll())
	case syncSync:
		return winCode(w.Sync())
	}
	return C.MPI_ERR_ARG
}

//export hympi_go_win_shared_query
func hympi_go_win_shared_query(wi, rank C.int, size *C.int64_t, unit *C.int64_t, base *unsafe.Pointer) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	if size == nil || unit == nil || base == nil {
		return C.MPI_ERR_ARG
	}
	r := int(rank)
	if rank == C.MPI_PROC_NULL {
		// The lowest rank with memory.
		r = 0
		for i := 0; i < w.Group().Size(); i++ {
			if w.Size(i) > 0 {
				r = i
				break
			}
		}
	}
	b, err := w.Shared(r)
	if err != nil {
		return winCode(err)
	}
	*size, *unit, *base = 0, 1, nil
	if b != nil {
		*size, *unit = C.int64_t(len(b)), C.int64_t(w.DispUnit(r))
		*base = cabi.WinSharedBase(w, r)
	}
	return 0
}

//export hympi_go_win_group
func hympi_go_win_group(wi C.int, group *C.intptr_t) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	if group == nil {
		return C.MPI_ERR_ARG
	}
	*group = newGroup(w.Group())
	return 0
}

//export hympi_go_win_attach
func hympi_go_win_attach(wi C.int, base unsafe.Pointer, size C.int64_t, detach C.int) C.int {
	w, rc := winAt(wi)
	if rc != 0 {
		return rc
	}
	if detach != 0 {
		return winCode(cabi.WinDetachAddr(w, uintptr(base)))
	}
	if size > 0 && base == nil {
		return C.MPI_ERR_BASE
	}
	return winCode(w.Attach(bytesAt(base, size)))
}

// hympi_go_win_ring wakes the window's sleeping ranks: win.c released an
// accumulate mutex that someone waits for.
//
//export hympi_go_win_ring
func hympi_go_win_ring(wi C.int) {
	if w, rc := winAt(wi); rc == 0 {
		cabi.WinRing(w)
	}
}

// hympi_go_win_separate says whether the window keeps separate public and
// private copies (MPI_WIN_SEPARATE: a created window without single copy).
//
//export hympi_go_win_separate
func hympi_go_win_separate(wi C.int) C.int {
	if w, rc := winAt(wi); rc == 0 && w.Separate() {
		return 1
	}
	return 0
}
