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
type Request struct {
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
}

// reqSlabLen is how many requests newUserReq carves from one allocation.
// A request the user holds keeps its whole slab (about 10 KB) alive.
const reqSlabLen = 32

// newUserReq is a new request for Isend or Irecv, cut from a slab: one
// allocation per reqSlabLen requests instead of one each (the allocation
// was ~350 of a ~750-instruction Isend in osu_bw's window). Every request
// is still a distinct object, never reused, so a spent one stays spent.
// Called with e.mu held.
func (e *engine) newUserReq(kind reqKind) *Request {
	// An index, not a reslice: storing the slice back was a dozen
	// instructions of each Isend and Irecv.
	if e.reqNext >= len(e.reqSlab) {
		e.reqSlab, e.reqNext = make([]Request, reqSlabLen), 0
	}
	r := &e.reqSlab[e.reqNext]
	e.reqNext++
	r.e, r.kind = e, kind
	return r
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
	r.spent = true
	st, err := r.status, r.err
	r.buf, r.sbuf, r.comm = nil, nil, nil
	if r.coll != nil {
		r.recycleColl()
	}
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
	// A window the lane completed needs no wait set-up.
	from := 0
	if (e.laneN == 0 || !e.laneWaitall(reqs)) && !allDoneFrom(reqs, &from) {
		if err := e.waitUntil(func() bool { return allDoneFrom(reqs, &from) }); err != nil {
			return sts, err
		}
	}
	return sts, collectAll(reqs, sts)
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
			r.spent = true
			sts[i] = r.status
			if r.err != nil && first == nil {
				first = r.err
			}
			r.buf, r.sbuf, r.comm = nil, nil, nil
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
