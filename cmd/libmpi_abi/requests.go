package main

/*
#include <stdlib.h>
#include "cabi.h"
#include "nbc.h"
#include "fastlane.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

// creq is a request as C sees it: an engine request plus, for persistent
// requests, the arguments each MPI_Start replays. creqs live in reqTable's
// slots and are recycled: a request costs no Go allocation of its own.
type creq struct {
	r         *mpi.Request // the operation in flight (nil when inactive)
	ci        C.int        // communicator index, for its error handler
	active    bool
	recv      bool
	cancelled bool
	used      bool  // the slot holds a live request
	doneSend  bool  // stands for an hReqDone handle (materialize)
	laneErr   error // the receive lane could not post it (fastlane.go)
	nextFree  int32 // free list link while unused

	persistent bool
	buf        unsafe.Pointer // C memory
	n          C.int64_t
	peer, tag  int // engine values
	mode       int

	// spare is the engine request of the slot's last completed operation,
	// handed back to the engine for the next one (mpi.Comm.IsendIn): a
	// request then allocates nothing. It stays with the slot when the slot
	// is freed.
	spare *mpi.Request

	// A non-contiguous datatype travels packed through tmp (C memory the
	// request owns): count elements of dt at ubuf, packed before each send
	// starts and unpacked when a receive completes.
	tmp   unsafe.Pointer
	ubuf  unsafe.Pointer
	dt    C.intptr_t
	count C.int64_t

	// coll is set for a persistent collective (nbc.go), and for a
	// nonblocking one whose data travels packed.
	coll *collBinding

	// stmp is the packed send half of an Isendrecv (C memory it owns).
	stmp unsafe.Pointer

	// Generalized and partitioned requests (grequest.go, partitioned.go).
	greq *greqState
	part *partState
}

// release frees what the request owns once the engine is done with it.
func (q *creq) release() {
	if q.tmp != nil {
		if q.coll != nil && q.coll.owned == q.tmp {
			C.hc_pk_free(q.tmp) // a collective's packing state, with its holds
		} else {
			C.free(q.tmp)
		}
		q.tmp = nil
		C.hc_type_release(q.dt)
		q.dt = 0
	}
	if q.coll != nil && q.coll.held != 0 {
		C.hc_type_release(q.coll.held)
		q.coll.held = 0
	}
	if q.stmp != nil {
		C.free(q.stmp)
		q.stmp = nil
	}
}

// Request slots come in chunks that never move once allocated, so a *creq
// stays valid for the life of the process and lookups need no lock: the
// handle a thread passes was created before (MPI requires it), which orders
// the slot's writes before its reads. Only allocation and freeing, which
// change the free list, take the mutex.
const (
	reqChunkBits = 10
	reqChunk     = 1 << reqChunkBits
	reqMaxChunks = (indexMask + 1) / reqChunk
)

type reqTable struct {
	mu     sync.Mutex
	chunks [reqMaxChunks]atomic.Pointer[[reqChunk]creq]
	n      atomic.Int32 // slots ever handed out: indexes below n are allocated
	free   int32        // head of the free list, -1 when empty (under mu)
}

var reqs = reqTable{free: -1}

// alloc returns a cleared slot and its index (-1 when all 2^24 are in
// use). With a thread cache c it takes the slot from c, refilling c under
// the mutex when it is empty.
func (t *reqTable) alloc(c *C.hc_reqcache) (*creq, int) {
	if c == nil || c.n == 0 {
		t.mu.Lock()
		if c == nil {
			i := t.take()
			t.mu.Unlock()
			if i < 0 {
				return nil, -1
			}
			return t.use(i), i
		}
		// Half full: the next frees have room before a spill.
		for c.n < C.HC_REQCACHE/2 {
			i := t.take()
			if i < 0 {
				break
			}
			c.idx[c.n] = C.int(i)
			c.n++
		}
		t.mu.Unlock()
		if c.n == 0 {
			return nil, -1
		}
	}
	c.n--
	i := int(c.idx[c.n])
	return t.use(i), i
}

// take removes a slot from the free list, or a new one (-1: table full).
// Called with t.mu held.
func (t *reqTable) take() int {
	if i := t.free; i >= 0 {
		t.free = t.slot(int(i)).nextFree
		return int(i)
	}
	i := t.n.Load()
	if int(i) >= laneBase { // the top: the receive lane's, hReqDone, and one always bad
		return -1
	}
	if i%reqChunk == 0 {
		t.chunks[i/reqChunk].Store(new([reqChunk]creq))
	}
	t.n.Store(i + 1)
	return int(i)
}

func (t *reqTable) use(i int) *creq {
	q := t.slot(i)
	q.used = true
	return q
}

func (t *reqTable) slot(i int) *creq {
	return &t.chunks[i>>reqChunkBits].Load()[i&(reqChunk-1)]
}

// get is the live request at index i, nil if there is none.
func (t *reqTable) get(i int) *creq {
	if i < 0 || i >= int(t.n.Load()) {
		return t.laneGet(i)
	}
	if q := t.slot(i); q.used {
		return q
	}
	return nil
}

// del clears slot i (dropping its Go pointers but the spare request) and
// puts it in the thread cache c if there is one with room, else on the free
// list, with half of a full cache.
func (t *reqTable) del(i int, c *C.hc_reqcache) {
	if q := t.get(i); q != nil {
		t.delSlot(q, i, c)
	}
}

// delSlot is del for a caller that has looked slot i up already (q).
func (t *reqTable) delSlot(q *creq, i int, c *C.hc_reqcache) {
	*q = creq{spare: q.spare}
	if C.hc_nbc_idle_req != 0 || C.hc_nbc_pdone_req != 0 {
		// The handle stops being the idle collective's or the
		// completed persistent one's (nbc_idle.c).
		if h := C.intptr_t(makeHandle(kindReq, i)); C.hc_nbc_idle_req == h {
			C.hc_nbc_idle_req = 0
		} else if C.hc_nbc_pdone_req == h {
			C.hc_nbc_pdone_req = 0
		}
	}
	if i >= laneBase {
		C.hc_lane_give(C.int(i - laneBase))
		return
	}
	if c != nil && c.n < C.HC_REQCACHE {
		c.idx[c.n] = C.int(i)
		c.n++
		return
	}
	t.mu.Lock()
	t.put(i)
	for c != nil && c.n > C.HC_REQCACHE/2 {
		c.n--
		t.put(int(c.idx[c.n]))
	}
	t.mu.Unlock()
}

// put pushes slot i on the free list. Called with t.mu held.
func (t *reqTable) put(i int) {
	t.slot(i).nextFree = t.free
	t.free = int32(i)
}

// newReq allocates a request slot (from the thread cache c, if not nil)
// and writes its handle to *req; it is nil (and *req untouched) when the
// table is full.
func newReq(req *C.intptr_t, c *C.hc_reqcache) *creq {
	q, i := reqs.alloc(c)
	if q == nil {
		return nil
	}
	*req = C.intptr_t(makeHandle(kindReq, i))
	return q
}

// packErr carries the communicator whose error handler applies along with
// the code: hc_req_error in C unpacks it.
func packErr(ci, code C.int) C.int {
	if code == 0 {
		return 0
	}
	return code | (ci+1)<<16
}

// reqView is the C array of n request handles at p.
func reqView(p unsafe.Pointer, n C.int) []uintptr {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*uintptr)(p), int(n))
}

// liveView is reqView for the calls that complete requests of an array
// (Testall, Waitany, Testany, Waitsome, Testsome): each hReqDone
// handle in it is first given a slot of its own holding a completed send,
// so what follows needs no case for it. Only arrays that mix such handles
// with others get here (the C side completes arrays of hReqDone and
// MPI_REQUEST_NULL alone, and Waitall handles them itself); the new handles are as good as the old ones
// for the caller, should the call then fail.
func liveView(p unsafe.Pointer, n C.int) ([]uintptr, C.int) {
	hs := reqView(p, n)
	for i, h := range hs {
		if h != hReqDone {
			continue
		}
		q, idx := reqs.alloc(nil)
		if q == nil {
			return nil, C.MPI_ERR_NO_MEM
		}
		c, rc := commAt(0)
		if rc != 0 {
			reqs.del(idx, nil)
			return nil, rc
		}
		r, err := cabi.IsendIn(c, q.spare, nil, mpi.ProcNull, 0)
		if err != nil {
			reqs.del(idx, nil)
			return nil, errCode(err)
		}
		q.r, q.spare, q.active, q.doneSend = r, nil, true, true
		hs[i] = makeHandle(kindReq, idx)
	}
	return hs, 0
}

func statusAt(p *C.MPI_Status, i int) *C.MPI_Status {
	if p == nil {
		return nil
	}
	return (*C.MPI_Status)(unsafe.Add(unsafe.Pointer(p), uintptr(i)*unsafe.Sizeof(*p)))
}

// lookup finds the request behind handle h; ok is false for an invalid
// handle, q is nil for MPI_REQUEST_NULL.
func lookup(h uintptr) (q *creq, idx int, ok bool) {
	if h == hRequestNull {
		return nil, -1, true
	}
	idx = handleIndex(h, kindReq)
	q = reqs.get(idx)
	return q, idx, q != nil
}

// finish records the completion of q (status st, error err) in the
// caller's status and handle: a non-persistent request is freed and its
// handle set to MPI_REQUEST_NULL, a persistent one becomes inactive.
//
// cache is the calling thread's slot cache, or nil.
func finish(q *creq, idx int, h *uintptr, s mpi.Status, err error, st *C.MPI_Status, cache *C.hc_reqcache) C.int {
	if q.greq != nil {
		return greqFinish(q, idx, h, st, cache)
	}
	q.active = false
	// A persistent collective of C's lane (nbc_persist.c) is C's again.
	q.coll.setLive(0)
	q.spare, q.r = q.r, nil // reused only if the engine says it is safe
	if q.doneSend {
		s = mpi.Status{} // what a send's status says (not ProcNull's)
	}
	if q.laneErr != nil {
		s, err = mpi.Status{}, q.laneErr
	}
	if err == nil || mpi.ClassOf(err) == mpi.ErrTruncate {
		fillStatus(st, s, q.cancelled)
		if q.tmp != nil && q.recv {
			unpack(q, s.Count)
		}
		if err == nil && q.coll != nil {
			collDone(q)
		}
	}
	if !q.persistent {
		// The common request owns nothing: skip release's checks.
		if q.tmp != nil || q.coll != nil || q.stmp != nil {
			q.release()
		}
		reqs.delSlot(q, idx, cache)
		*h = hRequestNull
	}
	if err == nil { // errCode is too big to inline
		return 0
	}
	return errCode(err)
}

//export hympi_go_wait
func hympi_go_wait(hp unsafe.Pointer, st *C.MPI_Status, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	h := (*uintptr)(hp)
	q, idx, ok := lookup(*h)
	if !ok {
		return C.MPI_ERR_REQUEST
	}
	if q == nil || !q.active {
		emptyStatus(st)
		return 0
	}
	s, err := q.r.Wait()
	return packErr(q.ci, finish(q, idx, h, s, err, st, cache))
}

//export hympi_go_test
func hympi_go_test(hp unsafe.Pointer, flag *C.int, st *C.MPI_Status, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	h := (*uintptr)(hp)
	q, idx, ok := lookup(*h)
	if !ok {
		return C.MPI_ERR_REQUEST
	}
	*flag = 1
	if q == nil || !q.active {
		emptyStatus(st)
		return 0
	}
	s, done, err := q.r.Test()
	if !done && err == nil {
		*flag = 0
		if C.hc_fl_threads_ok != 0 && cabi.CollIdle(q.r) {
			// Nothing but a peer's collective message can move it:
			// C answers the next tests while none comes (nbc_idle.c).
			C.hc_nbc_idle_req = C.intptr_t(*h)
			C.hc_nbc_idle_mark(q.ci)
		}
		return 0
	}
	return packErr(q.ci, finish(q, idx, h, s, err, st, cache))
}

// multi is the state of one call over an array of requests. Its slices
// are scratch reused through multiPool (per-P, no lock in the common case),
// so that polling with MPI_Testall/Testany/Testsome allocates nothing.
type multi struct {
	hs    []uintptr
	qs    []*creq
	ids   []int
	rs    []*mpi.Request
	ss    []mpi.Status
	codes []C.int
	n     int // active requests
}

var multiPool = sync.Pool{New: func() any { return new(multi) }}

// newMulti looks up the n handles at p; the caller releases m when done.
func newMulti(p unsafe.Pointer, n C.int) (*multi, C.int) {
	hs, rc := liveView(p, n)
	if rc != 0 {
		return nil, rc
	}
	m := multiPool.Get().(*multi)
	m.hs = hs
	m.qs = resize(m.qs, len(m.hs))
	m.ids = resize(m.ids, len(m.hs))
	m.n = 0
	for i, h := range m.hs {
		q, idx, ok := lookup(h)
		if !ok {
			m.release()
			return nil, C.MPI_ERR_REQUEST
		}
		if q != nil && q.active {
			m.qs[i], m.ids[i] = q, idx
			m.n++
		}
	}
	return m, 0
}

// release returns m to the pool without references into C memory or to
// engine requests.
func (m *multi) release() {
	clear(m.qs)
	clear(m.rs)
	m.hs = nil
	multiPool.Put(m)
}

// resize is s with n zero elements, reusing its array when it is big enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (m *multi) engineReqs() []*mpi.Request {
	m.rs = resize(m.rs, len(m.qs))
	for i, q := range m.qs {
		if q != nil {
			m.rs[i] = q.r
		}
	}
	return m.rs
}

// waitBatch is how many requests MPI_Waitall hands the engine at once: the
// scratch arrays live on the stack, so a Waitall allocates nothing. Waiting
// for a long array batch by batch is the same as waiting for all of it.
const waitBatch = 64

//export hympi_go_waitall
func hympi_go_waitall(p unsafe.Pointer, n C.int, sts *C.MPI_Status, cache *C.hc_reqcache) C.int {
	defer sweepOrphans()
	// Not liveView: a send completed at once (hReqDone) is completed in
	// the loop below, so osu_bibw's windows, which mix such sends with
	// receives, cost no slot per send.
	hs := reqView(p, n)
	// Validate every handle before completing any. The slots of the first
	// batch are kept: an array of up to waitBatch requests (osu_bw's
	// window of 64) is then looked up once, not three times (the lookups
	// were ~100 instructions per request of a window).
	var qs [waitBatch]*creq
	var ids [waitBatch]int
	for i, h := range hs {
		q, idx, ok := lookup(h)
		if !ok && h != hReqDone {
			return C.MPI_ERR_REQUEST
		}
		if i < waitBatch {
			qs[i], ids[i] = q, idx
		}
	}
	var codes []C.int // allocated only when something failed
	firstComm := C.int(-1)
	var rs [waitBatch]*mpi.Request
	var ss [waitBatch]mpi.Status
	var es [waitBatch]error
	for base := 0; base < len(hs); base += waitBatch {
		batch := hs[base:min(base+waitBatch, len(hs))]
		for j, h := range batch {
			if base > 0 {
				// Later batches are looked up when their turn comes:
				// a handle repeated from an earlier batch (an erroneous
				// program) finds its slot freed, as inactive.
				qs[j], ids[j], _ = lookup(h)
			}
			rs[j] = nil
			if q := qs[j]; q != nil && q.active {
				rs[j] = q.r
			} else {
				qs[j] = nil
				if h == hReqDone {
					fillStatus(statusAt(sts, base+j), mpi.Status{}, false)
					batch[j] = hRequestNull
				} else {
					emptyStatus(statusAt(sts, base+j))
				}
			}
		}
		werr := cabi.WaitallInto(rs[:len(batch)], ss[:], es[:])
		for j := range batch {
			// The same handle twice in one batch finds the slot freed
			// (or, persistent, inactive) by its first finish: slots
			// never move, and nothing here allocates one.
			q := qs[j]
			if rs[j] == nil || !q.used || !q.active || q.r != rs[j] {
				continue
			}
			s, err := ss[j], es[j]
			if werr != nil {
				s, err = mpi.Status{}, werr
			}
			if err != nil {
				es[j] = nil // drop the reference for the collector
			}
			if code := finish(q, ids[j], &batch[j], s, err, statusAt(sts, base+j), cache); code != 0 {
				if codes == nil {
					codes = make([]C.int, len(hs))
					firstComm = q.ci
				}
				codes[base+j] = code
			}
		}
	}
	if codes == nil {
		return 0
	}
	if sts != nil {
		for i := range codes {
			statusAt(sts, i).MPI_ERROR = codes[i]
		}
	}
	return packErr(firstComm, C.MPI_ERR_IN_STATUS)
}

//export hympi_go_testall
func hympi_go_testall(p unsafe.Pointer, n C.int, flag *C.int, sts *C.MPI_Status) C.int {
	defer sweepOrphans()
	m, rc := newMulti(p, n)
	if rc != 0 {
		return rc
	}
	defer m.release()
	*flag = 1
	if m.n == 0 {
		for i := range m.hs {
			emptyStatus(statusAt(sts, i))
		}
		return 0
	}
	m.ss = resize(m.ss, len(m.qs))
	ss := m.ss
	done, err := cabi.TestallInto(m.engineReqs(), ss)
	if !done && err == nil {
		*flag = 0
		return 0
	}
	var first C.int
	firstComm := C.int(-1)
	for i, q := range m.qs {
		st := statusAt(sts, i)
		if q == nil {
			emptyStatus(st)
			continue
		}
		code := finish(q, m.ids[i], &m.hs[i], ss[i], nil, st, nil)
		if st != nil {
			st.MPI_ERROR = code
		}
	}
	if err != nil {
		first = errCode(err)
		for _, q := range m.qs {
			if q != nil {
				firstComm = q.ci
				break
			}
		}
		return packErr(firstComm, first)
	}
	return 0
}

//export hympi_go_waitany
func hympi_go_waitany(p unsafe.Pointer, n C.int, index *C.int, st *C.MPI_Status) C.int {
	defer sweepOrphans()
	m, rc := newMulti(p, n)
	if rc != 0 {
		return rc
	}
	defer m.release()
	if m.n == 0 {
		*index = C.MPI_UNDEFINED
		emptyStatus(st)
		return 0
	}
	i, s, err := mpi.Waitany(m.engineReqs())
	if i < 0 {
		*index = C.MPI_UNDEFINED
		return errCode(err)
	}
	*index = C.int(i)
	q := m.qs[i]
	return packErr(q.ci, finish(q, m.ids[i], &m.hs[i], s, err, st, nil))
}

//export hympi_go_testany
func hympi_go_testany(p unsafe.Pointer, n C.int, index, flag *C.int, st *C.MPI_Status) C.int {
	defer sweepOrphans()
	m, rc := newMulti(p, n)
	if rc != 0 {
		return rc
	}
	defer m.release()
	*index = C.MPI_UNDEFINED
	*flag = 1
	if m.n == 0 {
		emptyStatus(st)
		return 0
	}
	for i, q := range m.qs {
		if q == nil {
			continue
		}
		s, done, err := q.r.Test()
		if done || err != nil {
			*index = C.int(i)
			return packErr(q.ci, finish(q, m.ids[i], &m.hs[i], s, err, st, nil))
		}
	}
	*flag = 0
	return 0
}

// some completes every request of m that is done now, recording indices
// and statuses; skip is an index already completed by the caller.
func (m *multi) some(out *int, indices []C.int, sts *C.MPI_Status, codes []C.int) {
	for i, q := range m.qs {
		if q == nil || !q.active {
			continue
		}
		s, done, err := q.r.Test()
		if !done && err == nil {
			continue
		}
		indices[*out] = C.int(i)
		codes[*out] = finish(q, m.ids[i], &m.hs[i], s, err, statusAt(sts, *out), nil)
		*out++
	}
}

func someResult(m *multi, out int, outcount *C.int, sts *C.MPI_Status, codes []C.int) C.int {
	*outcount = C.int(out)
	failed := -1
	for k := 0; k < out; k++ {
		if codes[k] != 0 && failed < 0 {
			failed = k
		}
	}
	if failed < 0 {
		return 0
	}
	if sts != nil {
		for k := 0; k < out; k++ {
			statusAt(sts, k).MPI_ERROR = codes[k]
		}
	}
	return packErr(0, C.MPI_ERR_IN_STATUS)
}

//export hympi_go_testsome
func hympi_go_testsome(p unsafe.Pointer, n C.int, outcount *C.int, indices *C.int, sts *C.MPI_Status) C.int {
	defer sweepOrphans()
	m, rc := newMulti(p, n)
	if rc != 0 {
		return rc
	}
	defer m.release()
	if m.n == 0 {
		*outcount = C.MPI_UNDEFINED
		return 0
	}
	idx := unsafe.Slice(indices, int(n))
	m.codes = resize(m.codes, len(m.hs))
	codes := m.codes
	out := 0
	m.some(&out, idx, sts, codes)
	return someResult(m, out, outcount, sts, codes)
}

//export hympi_go_waitsome
func hympi_go_waitsome(p unsafe.Pointer, n C.int, outcount *C.int, indices *C.int, sts *C.MPI_Status) C.int {
	defer sweepOrphans()
	m, rc := newMulti(p, n)
	if rc != 0 {
		return rc
	}
	defer m.release()
	if m.n == 0 {
		*outcount = C.MPI_UNDEFINED
		return 0
	}
	idx := unsafe.Slice(indices, int(n))
	m.codes = resize(m.codes, len(m.hs))
	codes := m.codes
	out := 0
	m.some(&out, idx, sts, codes)
	if out == 0 {
		i, s, err := mpi.Waitany(m.engineReqs())
		if i < 0 {
			return errCode(err)
		}
		q := m.qs[i]
		idx[0] = C.int(i)
		codes[0] = finish(q, m.ids[i], &m.hs[i], s, err, statusAt(sts, 0), nil)
		out = 1
		m.some(&out, idx, sts, codes)
	}
	return someResult(m, out, outcount, sts, codes)
}

//export hympi_go_request_free
func hympi_go_request_free(hp unsafe.Pointer) C.int {
	h := (*uintptr)(hp)
	q, idx, ok := lookup(*h)
	if !ok || q == nil {
		return C.MPI_ERR_REQUEST
	}
	if q.greq != nil {
		return greqFree(q, idx, h)
	}
	// An active operation goes on inside the engine; only the handle goes
	// (and a packing buffer the engine may still use stays allocated).
	if q.coll != nil {
		q.coll.live = nil // C forgot its entry (nbc_persist.c)
	}
	if !q.active {
		q.release()
	} else if orphanColl(q) {
		// nbc_orphan.go finishes it; the slot keeps nothing.
		q.tmp, q.coll, q.dt, q.stmp = nil, nil, 0, nil
	}
	reqs.del(idx, nil)
	*h = hRequestNull
	return 0
}

//export hympi_go_request_get_status
func hympi_go_request_get_status(h C.intptr_t, flag *C.int, st *C.MPI_Status) C.int {
	q, _, ok := lookup(uintptr(h))
	if !ok {
		return C.MPI_ERR_REQUEST
	}
	*flag = 1
	if q == nil || !q.active {
		emptyStatus(st)
		return 0
	}
	if q.greq != nil {
		done, code, _ := greqPeek(q, st)
		if done {
			*flag = 1
		} else {
			*flag = 0
		}
		return code
	}
	s, done, err := cabi.Peek(q.r)
	if !done && err == nil {
		*flag = 0
		return 0
	}
	if err == nil || mpi.ClassOf(err) == mpi.ErrTruncate {
		fillStatus(st, s, q.cancelled)
	}
	return packErr(q.ci, errCode(err))
}

//export hympi_go_cancel
func hympi_go_cancel(h C.intptr_t) C.int {
	q, _, ok := lookup(uintptr(h))
	if !ok || q == nil {
		return C.MPI_ERR_REQUEST
	}
	if q.greq != nil {
		return greqCancel(q)
	}
	if q.active && cancelOp(q) {
		q.cancelled = true
	}
	return 0
}

// Persistent requests.

//export hympi_go_prequest
func hympi_go_prequest(ci C.int, buf unsafe.Pointer, n C.int64_t, peer, tag, mode, recv C.int,
	tmp, ubuf unsafe.Pointer, dt C.intptr_t, count C.int64_t, req *C.intptr_t) C.int {
	if _, rc := commAt(ci); rc != 0 {
		return rc
	}
	q := newReq(req, nil)
	if q == nil {
		return C.MPI_ERR_NO_MEM
	}
	q.ci, q.persistent, q.buf, q.n, q.mode, q.recv = ci, true, buf, n, int(mode), recv != 0
	q.tmp, q.ubuf, q.dt, q.count = tmp, ubuf, dt, count
	q.peer = rankIn(peer)
	q.tag = int(tag)
	if q.recv {
		q.tag = tagIn(tag)
	}
	return 0
}

//export hympi_go_start
func hympi_go_start(p unsafe.Pointer, n C.int) C.int {
	for _, h := range reqView(p, n) {
		q, _, ok := lookup(h)
		if !ok || q == nil || !q.persistent {
			return C.MPI_ERR_REQUEST
		}
		if C.hc_nbc_pdone_req == C.intptr_t(h) {
			// Its start completed it, but the caller has not: still
			// active to MPI (nbc_idle.c).
			return packErr(q.ci, C.MPI_ERR_REQUEST)
		}
		if q.active {
			return packErr(q.ci, C.MPI_ERR_REQUEST)
		}
		c, rc := commAt(q.ci)
		if rc != 0 {
			return rc
		}
		if q.part != nil {
			if err := startPart(q, c); err != nil {
				return packErr(q.ci, errCode(err))
			}
			continue
		}
		var r *mpi.Request
		var err error
		switch {
		case q.coll != nil:
			r, err = startColl(q)
		case q.recv:
			r, err = cabi.IrecvIn(c, q.spare, bytesAt(q.buf, q.n), q.peer, q.tag)
		default:
			if q.tmp != nil {
				pack(q)
			}
			r, err = startSend(c, q.spare, bytesAt(q.buf, q.n), q.peer, q.tag, q.mode)
		}
		if err != nil {
			return packErr(q.ci, errCode(err))
		}
		if n == 1 && q.coll != nil && q.coll.post == nil && C.hc_nbc_pdone_req == 0 && C.hc_fl_threads_ok != 0 && cabi.TakeDone(r) {
			// Ran to the end (the peers' messages were there): the
			// request is inactive again, and its MPI_Wait or MPI_Test
			// answers in C without a second call into Go.
			q.cancelled = false
			C.hc_nbc_pdone_req = C.intptr_t(h)
			C.hc_nbc_pstarts++
			continue
		}
		q.r, q.spare, q.active, q.cancelled = r, nil, true, false
		q.coll.setLive(1)
	}
	return 0
}

// pack and unpack move a non-contiguous request's data through its buffer.
func pack(q *creq) {
	C.hc_pack_h(q.dt, q.count, q.ubuf, q.tmp)
}

func unpack(q *creq, bytes int) {
	C.hc_unpack_h(q.dt, q.count, q.tmp, C.int64_t(bytes), q.ubuf)
}
