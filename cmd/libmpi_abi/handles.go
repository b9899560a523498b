package main

/*
#include "cabi.h"
*/
import "C"

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// Handle kinds (cabi.h) and the layout of created handles.
const (
	kindComm  = C.HK_COMM
	kindGroup = C.HK_GROUP
	kindReq   = C.HK_REQ
	kindOp    = C.HK_OP
	kindShift = C.HC_KIND_SHIFT
	indexMask = C.HC_INDEX_MASK
)

// Predefined handle values of the standard ABI used on the Go side.
const (
	hRequestNull = 0x180
	// hReqDone is the handle of every send that MPI_Isend completed at
	// once (cabi.SendNow); it owns no slot (reqTable never hands out
	// its index, nor the last one, which stays a bad handle) and completes
	// to MPI_REQUEST_NULL (cabi.h HC_REQ_DONE).
	hReqDone    = kindReq<<kindShift | (indexMask - 1)
	hGroupNull  = 0x108
	hGroupEmpty = 0x109
	hOpNull     = 0x20
)

func makeHandle(kind, idx int) uintptr { return uintptr(kind)<<kindShift | uintptr(idx) }

func handleIndex(h uintptr, kind int) int {
	if h>>kindShift != uintptr(kind) {
		return -1
	}
	return int(h & indexMask)
}

// comms is the Go half of the communicator table; the C side allocates the
// indexes and validates them before a call gets here.
var comms commTable

// commTable holds a *mpi.Comm per communicator index in chunks that are
// allocated on first use and never move, so lookups take no lock.
type commTable struct {
	mu     sync.Mutex
	chunks [C.HC_MAX_COMMS / commChunk]atomic.Pointer[[commChunk]atomic.Pointer[mpi.Comm]]
}

const commChunk = 4096

// at returns the slot of index i (which must be in range), allocating its
// chunk if needed.
func (t *commTable) at(i int) *atomic.Pointer[mpi.Comm] {
	ch := t.chunks[i/commChunk].Load()
	if ch == nil {
		t.mu.Lock()
		if ch = t.chunks[i/commChunk].Load(); ch == nil {
			ch = new([commChunk]atomic.Pointer[mpi.Comm])
			t.chunks[i/commChunk].Store(ch)
		}
		t.mu.Unlock()
	}
	return &ch[i%commChunk]
}

func commAt(ci C.int) (*mpi.Comm, C.int) {
	if uint(ci) >= C.HC_MAX_COMMS {
		return nil, C.MPI_ERR_COMM
	}
	// Not comms.at: a lookup has no chunk to allocate (none, no
	// communicator), and every point-to-point call comes here (the call
	// and the signed arithmetic were ~40 instructions of it).
	ch := comms.chunks[uint(ci)/commChunk].Load()
	if ch == nil {
		return nil, C.MPI_ERR_COMM
	}
	c := ch[uint(ci)%commChunk].Load()
	if c == nil {
		return nil, C.MPI_ERR_COMM
	}
	return c, 0
}

// table is a slot table with a free list, for objects that C refers to by
// index: groups and operators (requests have their own, reqTable).
type table[T any] struct {
	mu    sync.Mutex
	slots []*T
	free  []int
}

func (t *table[T]) put(v *T) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.free); n > 0 {
		i := t.free[n-1]
		t.free = t.free[:n-1]
		t.slots[i] = v
		return i
	}
	t.slots = append(t.slots, v)
	return len(t.slots) - 1
}

func (t *table[T]) get(i int) *T {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= len(t.slots) {
		return nil
	}
	return t.slots[i]
}

func (t *table[T]) del(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i >= 0 && i < len(t.slots) && t.slots[i] != nil {
		t.slots[i] = nil
		t.free = append(t.free, i)
	}
}

// Error classes: the engine numbers its classes like classic MPI; the
// standard ABI renumbered some.
func errCode(err error) C.int {
	if err == nil {
		return 0
	}
	msg := err.Error()
	setErrmsg(msg)
	if strings.Contains(msg, "not implemented yet") {
		return C.MPI_ERR_UNSUPPORTED_OPERATION
	}
	switch mpi.ClassOf(err) {
	case mpi.ErrBuffer:
		return C.MPI_ERR_BUFFER
	case mpi.ErrCount:
		return C.MPI_ERR_COUNT
	case mpi.ErrType:
		return C.MPI_ERR_TYPE
	case mpi.ErrTag:
		return C.MPI_ERR_TAG
	case mpi.ErrComm:
		return C.MPI_ERR_COMM
	case mpi.ErrRank:
		return C.MPI_ERR_RANK
	case mpi.ErrRequest:
		return C.MPI_ERR_REQUEST
	case mpi.ErrRoot:
		return C.MPI_ERR_ROOT
	case mpi.ErrGroup:
		return C.MPI_ERR_GROUP
	case mpi.ErrOp:
		return C.MPI_ERR_OP
	case mpi.ErrArg:
		return C.MPI_ERR_ARG
	case mpi.ErrUnknown:
		return C.MPI_ERR_UNKNOWN
	case mpi.ErrTruncate:
		return C.MPI_ERR_TRUNCATE
	case mpi.ErrIntern:
		return C.MPI_ERR_INTERN
	case mpi.ErrInStatus:
		return C.MPI_ERR_IN_STATUS
	case mpi.ErrPending:
		return C.MPI_ERR_PENDING
	case mpi.ErrProcFailed:
		return C.MPI_ERR_PROC_ABORTED
	}
	return C.MPI_ERR_OTHER
}

// setErrmsg hands the engine's message to C, for the fatal-error line.
func setErrmsg(s string) {
	if s == "" {
		return
	}
	C.hc_set_errmsg((*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.int(len(s)))
}

// Ranks and tags: the engine's sentinels differ from the ABI's.
func rankIn(r C.int) int {
	switch r {
	case C.MPI_ANY_SOURCE:
		return mpi.AnySource
	case C.MPI_PROC_NULL:
		return mpi.ProcNull
	}
	return int(r)
}

func tagIn(t C.int) int {
	if t == C.MPI_ANY_TAG {
		return mpi.AnyTag
	}
	return int(t)
}

func rankOut(r int) C.int {
	switch r {
	case mpi.AnySource:
		return C.MPI_ANY_SOURCE
	case mpi.ProcNull:
		return C.MPI_PROC_NULL
	}
	return C.int(r)
}

func tagOut(t int) C.int {
	if t == mpi.AnyTag {
		return C.MPI_ANY_TAG
	}
	return C.int(t)
}

// fillStatus and emptyStatus write the status in Go rather than through
// hc_status_set: a Go->C call costs tens of nanoseconds, a large share of a
// small message. The layout is hc_status_set's: the byte count in
// MPI_internal[0..1], the cancelled flag in MPI_internal[2].
func fillStatus(st *C.MPI_Status, s mpi.Status, cancelled bool) {
	if st == nil {
		return
	}
	c := C.int(0)
	if cancelled || s.Cancelled {
		c = 1
	}
	setStatus(st, rankOut(s.Source), tagOut(s.Tag), int64(s.Count), c)
}

func setStatus(st *C.MPI_Status, source, tag C.int, bytes int64, cancelled C.int) {
	st.MPI_SOURCE = source
	st.MPI_TAG = tag
	// Two int halves (MPI_internal[0] is only 4-byte aligned), low half
	// first as C's memcpy of an int64 lays it out on little-endian targets.
	st.MPI_internal[0] = C.int(uint32(bytes))
	st.MPI_internal[1] = C.int(uint32(uint64(bytes) >> 32))
	st.MPI_internal[2] = cancelled
}

// emptyStatus is what MPI reports for a null or inactive request.
func emptyStatus(st *C.MPI_Status) {
	if st == nil {
		return
	}
	setStatus(st, C.MPI_ANY_SOURCE, C.MPI_ANY_TAG, 0, 0)
	st.MPI_ERROR = C.MPI_SUCCESS
}

// bytesAt views n bytes of C memory at p (nil for n == 0).
func bytesAt(p unsafe.Pointer, n C.int64_t) []byte {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}
