//go:build !ompi && !mpich

package mpi

import (
	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/shm"
)

// reqKind says what a request is waiting for.
type reqKind uint8

const (
	reqRecv reqKind = iota + 1
	reqSend
	reqColl // a collective's control entry (coll.go)
)

// Request is a pending nonblocking operation. It completes inside the
// engine; Wait, Test and friends observe that. Once Wait or a successful Test
// has returned its status, the request is spent: using it again is an
// ErrRequest error, like MPI_REQUEST_NULL after MPI_Wait.
//
// A Request is a handle: one pointer to the operation's state (reqBody),
// whose fields it promotes. The handle the user holds is never reused, so
// a spent one stays spent; the state of a spent Isend or Irecv is (spend):
// the handle then points at its engine's spent sentinel, and the next
// Isend or Irecv takes the state, still hot in the cache. A window of
// osu_bw allocated a 312-byte state per message before, ~20 GB of heap a
// minute at Open MPI's message rate: a garbage collection every
// millisecond or so, and every new request cold in the cache.
type Request struct {
	*reqBody
}

// reqBody is a request's state.
type reqBody struct {
	e    *engine
	kind reqKind
	done bool // set by the engine under e.mu
	// spent is set when the user has collected the completion.
	spent  bool
	status Status
	err    error
	comm   *Comm

	// Receive side.
	buf []byte
	// m holds the source (world rank or AnySource), the tag and the post
	// order, and links a posted receive into its queues (internal/match).
	m   match.Posted[Request]
	ctx uint32
	// late: when the receive was posted, the source's channel already held
	// an unread message, so whatever matches it did not wait for us.
	late bool
	// lane: queued in the receive lane (recvlane.go), not in the queues;
	// then sendNext links the source's queued receives. (Beside late, in
	// what would be padding: the request's size is part of every
	// request's cost.)
	lane   bool
	flight *inflight // the streaming message this receive is bound to

	// Send side.
	peer     int // world rank
	sbuf     []byte
	sent     int  // bytes handed to the channel so far
	started  bool // envelope (first descriptor) published
	sync     bool
	acked    bool // sync: the receiver matched it
	pushed   bool // every byte handed over
	syncID   uint64
	sendNext *Request // per-peer send queue; for a lane receive, the lane's link
	bsend    *bsendBlock
	// Rendezvous send: the pinned buffer's address, and after a NACK the
	// receiver's id for the resend stream.
	direct   bool
	addr     uint64
	pins     directcopy.Pins
	resendID uint64
	// Rendezvous receive in progress.
	read *directRead

	// Join requests (joinreq.go): the request following this one, and for
	// a join, how many requests (and holds) it still waits for.
	parent  *Request
	pending int
	// coll: a nonblocking collective's control entry, recycled once the
	// completion is collected (coll.go).
	coll *collOp
	// pcoll: a persistent collective's control entry while a run is
	// live; Wait and Test resume its deferred direct run as they do a
	// nonblocking one's, but never recycle it (its Persistent owns it).
	pcoll *collOp
	// cancelAsked: a KindCancel for this send awaits its reply (cancel.go).
	cancelAsked bool
	// pool: an Isend's or Irecv's state. quick: it completed where it
	// started, an Isend published in the call or an Irecv the receive
	// lane completed, so only the fields those paths set are set, and
	// spend can clear them one by one (zeroing the whole state, pointers
	// and all, was ~100 instructions of each message).
	pool, quick bool
}

// reqSlabLen is how many handles newUserReq carves from one allocation,
// and how many states at a time when none is free. A handle the user keeps
// holds its slab (1 KB) alive.
const reqSlabLen = 128

// bodyFreeMax bounds an engine's free states: more than any window of
// requests a program waits on at once is not needed.
const bodyFreeMax = 1024

// newUserReq is a new request for Isend or Irecv: a handle cut from a slab
// (never reused) with a recycled state, else one from a slab. Called with
// e.mu held.
func (e *engine) newUserReq(kind reqKind) *Request {
	b := e.newBody()
	b.kind = kind
	r := e.newHandle()
	r.reqBody = b
	return r
}

// newHandle is a new handle with no state yet. Called with e.mu held.
func (e *engine) newHandle() *Request {
	// An index, not a reslice: storing the slice back was a dozen
	// instructions of each Isend and Irecv.
	if e.reqNext >= len(e.reqSlab) {
		e.reqSlab, e.reqNext = make([]Request, reqSlabLen), 0
	}
	r := &e.reqSlab[e.reqNext]
	e.reqNext++
	return r
}

// newBody is a request state of e, pooled and otherwise cleared,
// recycled when one is free (spend leaves e and pool set). Called with
// e.mu held.
func (e *engine) newBody() *reqBody {
	if n := len(e.bodyFree); n > 0 {
		b := e.bodyFree[n-1]
		e.bodyFree = e.bodyFree[:n-1]
		return b
	}
	if e.bodyNext >= len(e.bodySlab) {
		e.bodySlab, e.bodyNext = make([]reqBody, reqSlabLen/4), 0
	}
	b := &e.bodySlab[e.bodyNext]
	e.bodyNext++
	b.e, b.pool = e, true
	return b
}

// spend recycles the state of r, an Isend's or Irecv's request just
// collected: r then shares the engine's spent sentinel (done and spent,
// with nothing else set), which every use of a spent request reads and
// none writes. The engine holds no reference to a completed
// point-to-point request (reuseReq relies on the same), so nothing else
// sees the state go. Not recycled: a state something else still follows
// (a join, a cancel awaiting its reply), and any beyond bodyFreeMax.
// Called with e.mu held, after collect cleared the buffers and the
// communicator.
func (e *engine) spend(r *Request) {
	b := r.reqBody
	if b.quick {
		e.spendQuick(r, b)
		return
	}
	if len(e.bodyFree) >= bodyFreeMax || b.parent != nil || b.cancelAsked {
		return
	}
	*b = reqBody{e: e, pool: true}
	e.bodyFree = append(e.bodyFree, b)
	r.reqBody = &e.spentBody
}

// spendQuick is spend for b, r's state, when quick (and so with no error,
// no parent and no cancel): it clears what the quick paths set besides e,
// pool and kind, initRecv's and laneQueue's envelope and the completion,
// field by field. collect need not have run.
func (e *engine) spendQuick(r *Request, b *reqBody) {
	r.reqBody = &e.spentBody
	if len(e.bodyFree) >= bodyFreeMax {
		b.spent = true
		return
	}
	b.buf, b.comm = nil, nil
	b.m.Src, b.m.Tag, b.m.Seq, b.ctx, b.peer = 0, 0, 0, 0, 0
	b.status, b.done, b.spent, b.quick = Status{}, false, false, false
	e.bodyFree = append(e.bodyFree, b)
}

func (r *Request) complete(st Status, err error) {
	r.done = true
	r.status = st
	r.err = err
	if r.parent != nil {
		r.parent.childDone(r)
	}
}

// checkSendDone completes a send once its data is out and, for a synchronous
// send, the receiver has matched it.
func (r *Request) checkSendDone() {
	if r.pushed && (!r.sync || r.acked) && !r.done {
		r.done = true
		if r.bsend != nil {
			r.e.bsendRelease(r.bsend)
			r.bsend = nil
		}
		if r.parent != nil {
			r.parent.childDone(r)
		}
	}
}

// collect turns a completed request into what Wait returns and spends it.
// collectAll and waitallInto repeat its lines for a request without a
// collective (a window's sends and receives): keep them alike.
func (r *Request) collect() (Status, error) {
	// Through the state: each store through the handle made the next
	// field's access load the handle's pointer again.
	b := r.reqBody
	if b.pool {
		return b.e.collectPooled(r)
	}
	b.spent = true
	st, err := b.status, b.err
	b.buf, b.sbuf, b.comm = nil, nil, nil
	if op := b.coll; op != nil {
		b.coll = nil
		op.recycle()
	}
	return st, err
}

// collectPooled is collect for an Isend's or Irecv's request (pool, which
// doneSend also has): its state is shared or recycled. Kept out of
// collect, which a collective's wait inlines.
func (e *engine) collectPooled(r *Request) (Status, error) {
	b := r.reqBody
	if b == &e.doneSend {
		r.reqBody = &e.spentBody
		return Status{}, nil
	}
	b.spent = true
	st, err := b.status, b.err
	b.buf, b.sbuf, b.comm = nil, nil, nil
	e.spend(r)
	return st, err
}

func checkReq(op string, r *Request) error {
	if r == nil {
		return newErr(ErrRequest, op, "nil request")
	}
	if r.spent {
		return newErr(ErrRequest, op, "request already completed and freed")
	}
	return nil
}

// Wait blocks until the request completes and returns its status.
func (r *Request) Wait() (Status, error) {
	if r != nil && r.coll != nil {
		return r.waitColl() // coll.go
	}
	if err := checkReq("Wait", r); err != nil {
		return Status{}, err
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.spent {
		return Status{}, newErr(ErrRequest, "Wait", "request already completed and freed")
	}
	// A request already done (a collective the direct run finished at its
	// start) skips the wait's set-up.
	if !r.done && r.pcoll != nil {
		// A persistent collective's Start deferred what the peers had
		// not sent yet: go on directly, spinning briefly as a blocking
		// call does, before the general wait's progress passes (which
		// cost a persistent Barrier almost twice the blocking one).
		e.resumeColl(r.pcoll, true)
	}
	if !r.done && r.lane {
		spins := flSpins
		if e.oversub {
			spins = 0
		}
		e.laneTake(r, spins)
	}
	if !r.done {
		if err := e.waitUntil(func() bool { return r.done }); err != nil {
			return Status{}, err
		}
	}
	return r.collect()
}

// Test reports whether the request has completed; when it has, it returns
// its status and spends the request.
func (r *Request) Test() (Status, bool, error) {
	if err := checkReq("Test", r); err != nil {
		return Status{}, false, err
	}
	e := r.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.spent {
		return Status{}, false, newErr(ErrRequest, "Test", "request already completed and freed")
	}
	if !r.done && r.coll != nil {
		e.resumeColl(r.coll, false)
	} else if !r.done && r.pcoll != nil {
		e.resumeColl(r.pcoll, false)
	}
	if !r.done && r.lane {
		e.laneTake(r, 0)
	}
	if !r.done && !e.progress() && !r.done {
		e.pollIdle()
	}
	if !r.done {
		return Status{}, false, nil
	}
	if r.coll != nil {
		r.coll.c.nbTested()
	}
	st, err := r.collect()
	return st, true, err
}

// pollIdle is what a test (Test, Testall) does when a pass found nothing
// to do. In a job with more ranks than CPUs the peers it waits for are
// often runnable but off the CPU, and the caller, computing between tests,
// would keep them off it for a whole time slice: then nothing a
// nonblocking collective needs from them happens until the caller waits,
// and overlap is lost. So an oversubscribed test yields the CPU once and
// makes another pass; with a CPU per rank it returns at once. Called with
// e.mu held.
func (e *engine) pollIdle() {
	if !e.oversub || e.region == nil {
		return
	}
	e.mu.Unlock()
	shm.Yield()
	e.mu.Lock()
	e.progress()
}

// reqsEngine finds the engine behind a list of requests (nil entries are
// ignored, like MPI_REQUEST_NULL) and checks none is spent.
func reqsEngine(op string, reqs []*Request) (*engine, error) {
	var e *engine
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if r.spent {
			return nil, newErr(ErrRequest, op, "request already completed and freed")
		}
		e = r.e
	}
	return e, nil
}

// Waitall waits for every request. Nil entries are skipped and get an empty
// status. The error is the first request's error, if any; every status is
// filled either way.
func Waitall(reqs []*Request) ([]Status, error) {
	e, err := reqsEngine("Waitall", reqs)
	if err != nil {
		return nil, err
	}
	sts := make([]Status, len(reqs))
	if e == nil {
		return sts, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// A window of sends published at once and of receives the lane takes
	// is settled in one pass; the rest waits.
	spins := flSpins
	if e.oversub {
		spins = 0
	}
	k, stuck := e.waitQuick(reqs, sts, spins)
	if k == len(reqs) {
		return sts, nil
	}
	from := k
	if (stuck || e.laneN == 0 || !e.laneWaitall(reqs[k:])) && !allDoneFrom(reqs, &from) {
		// Each look of the wait first settles what the lane can take:
		// after a yield or a sleep (with more ranks than CPUs, the
		// usual way a window arrives) the rest of the window is mostly
		// in, and a run of lane receives takes it for a fraction of
		// what a progress pass costs per message.
		if err := e.waitUntil(func() bool {
			if e.laneN != 0 {
				n, _ := e.waitQuick(reqs[k:], sts[k:], 0)
				k += n
				from = max(from, k)
			}
			return allDoneFrom(reqs, &from)
		}); err != nil {
			return sts, err
		}
	}
	return sts, collectAll(reqs[k:], sts[k:])
}

// allDone says whether every non-nil request has completed. Called with
// the engine locked.
func allDone(reqs []*Request) bool {
	for _, r := range reqs {
		if r != nil && !r.done {
			return false
		}
	}
	return true
}

// allDoneFrom is allDone for a wait that asks again on every pass: *from is
// the first request not yet seen done, and the ones before it are not
// looked at again (a request stays done while the wait lasts). Waiting on
// osu_bw's window of 64 scanned all 64 on every pass, 14% of a
// message-rate profile; requests complete mostly in order, so a pass now
// looks at one or two.
func allDoneFrom(reqs []*Request, from *int) bool {
	for ; *from < len(reqs); *from++ {
		if r := reqs[*from]; r != nil && !r.done {
			return false
		}
	}
	return true
}

// collectAll collects every non-nil completed request into sts and returns
// the first request's error. Called with the engine locked.
func collectAll(reqs []*Request, sts []Status) error {
	var first error
	for i, r := range reqs {
		if r == nil {
			continue
		}
		if r.coll == nil {
			// collect, inlined for Waitall's windows of sends and
			// receives: its call was a fifth of a lane receive's wait.
			b := r.reqBody
			if e := b.e; b == &e.doneSend {
				sts[i] = Status{}
				r.reqBody = &e.spentBody
				continue
			} else if b.quick {
				sts[i] = b.status // a quick request has no error
				e.spendQuick(r, b)
				continue
			}
			r.spent = true
			sts[i] = r.status
			if r.err != nil && first == nil {
				first = r.err
			}
			r.buf, r.sbuf, r.comm = nil, nil, nil
			if r.pool {
				r.e.spend(r)
			}
			continue
		}
		st, err := r.collect()
		sts[i] = st
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Waitany waits until one of the requests completes and returns its index.
// With no active request it returns Undefined at once.
func Waitany(reqs []*Request) (int, Status, error) {
	e, err := reqsEngine("Waitany", reqs)
	if err != nil {
		return Undefined, Status{}, err
	}
	if e == nil {
		return Undefined, Status{}, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	idx := -1
	if err := e.waitUntil(func() bool {
		for i, r := range reqs {
			if r != nil && r.done {
				idx = i
				return true
			}
		}
		return false
	}); err != nil {
		return Undefined, Status{}, err
	}
	st, err := reqs[idx].collect()
	return idx, st, err
}

// Testall reports whether every request has completed; only then are the
// statuses returned and the requests spent.
func Testall(reqs []*Request) ([]Status, bool, error) {
	sts := make([]Status, len(reqs))
	done, err := testallInto(reqs, sts)
	if !done {
		return nil, false, err
	}
	return sts, true, err
}
