//go:build !ompi && !mpich

package mpi

import (
	"sync"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/mpi/internal/progress"
	"github.com/hympi/hympi/mpi/internal/proto"
	"github.com/hympi/hympi/shm"
)

// engine is one rank's progress and matching engine. Every field is guarded
// by mu; blocking calls release mu only while they yield or sleep, so other
// goroutines of the process can make progress meanwhile.
type engine struct {
	mu sync.Mutex

	rank, size int
	region     *shm.Region // nil for a singleton
	bell       shm.Doorbell
	summary    shm.Summary
	eps        endpoints  // by world rank; nil until first use (endpoint.go)
	sending    []*outChan // peers with queued sends or acks
	// collHold: progress leaves the collective rings alone, for the C
	// collective lane's periodic pass (coll_cplan.go).
	collHold bool

	ctxs    map[uint32]*queues
	lastCtx uint32
	lastQ   *queues

	postSeq    uint64
	arrivalSeq uint64

	syncs      proto.Replies[Request] // sends waiting for a reply, by syncID
	wait       progress.Policy
	oversub    bool       // more ranks than CPUs (setCPUs)
	gateOp     *collOp    // the blocking collective being waited for (coll_gate.go)
	gated      uint64     // communicators given a gate (coll_gate.go)
	internalRq []*Request // recycled requests of blocking calls
	reqSlab    []Request  // requests for Isend and Irecv (request.go)
	reqNext    int        // the first of reqSlab not yet handed out

	// Collective messages of collEagerLo to collEagerHi bytes go eager
	// in auto mode (setCPUs, useDirect); pairEager: by the two-rank rule
	// (pairCollEagerMin), which pairBackoff suspends for that many
	// messages after two slow copies (enqueueEagerTimed).
	collEagerLo, collEagerHi int
	pairEager                bool
	pairBackoff              int
	pairSlow                 int // slow copies in a row (enqueueEagerTimed)

	// Request states: free ones, and a slab to cut new ones from
	// (request.go); spentBody is what a spent request's handle points at
	// once its state is recycled, doneSend the shared state of every
	// Isend published in the call until it is collected. Neither is
	// ever written after newEngine.
	bodyFree  []*reqBody
	bodySlab  []reqBody
	bodyNext  int
	spentBody reqBody
	doneSend  reqBody
	bufs      bufPool
	freeUnexp []*unexpected
	bsend     bsendState
	sessBsend map[int]*bsendState // MPI_Session_attach_buffer, by session index

	// Direct copy (direct.go).
	mode          directMode
	directReason  string // why direct copy is off for some peer, if it is
	reads         []*directRead
	resendWait    map[uint64]*Request
	resendGen     uint64
	pendingDirect int // RTSs sent and not yet finished
	// pendingDirectBytes is the payload of those RTSs: what peers still
	// have to read from us, which sets how long a wait may spin for their
	// FINs (readSpinFor).
	pendingDirectBytes int
	warnDirect         warnOnce
	skew               skewState
	skewReady          bool // setupSkew ran: endpoints get a controller
	// th sets thresholds toward peers, once Init has learnt where they
	// run (learnPeers); nil before.
	th *peer.Thresholds
	// blocked is the time this rank has spent in blocking waits, counted
	// from progress.BlockedAfter idle passes into each (waitStart: the start of the
	// one being counted, zero outside). Skew verdicts subtract it from the
	// application's absence (postVerdict): a rank blocked in MPI is not
	// late for anyone.
	blocked   time.Duration
	waitStart time.Time
	// readFrom is directcopy.ReadFrom; tests swap it to inject refusals
	// that happen after the Init probe said yes.
	readFrom func(pid int, local []byte, remote uintptr) error
	// thresholdSource says where thresholds came from: "default",
	// "profile" or "environment".
	thresholdSource string

	// The offload engine (coll.go): live collectives, and the lowest
	// context id no communicator of this process has used (commops.go).
	colls   []*collOp
	nextCtx uint64
	// Context agreements in flight and the ids they hold (ctxagree.go).
	agreeing int
	ctxHeld  map[uint64]bool
	async    *asyncProgress

	fatal error // the shared region was found corrupt: every call fails

	// The fast lane (fastlane.go): the state shared with the C ABI, the
	// matching counts (posted, unexpected) the queues keep in it, and
	// whether it was stopped for good.
	fl       *shm.FastLane
	live     *[2]int64
	flClosed bool

	// The receive lane (recvlane.go): how many receives it holds, per
	// world rank the queued ones, the ranks that have some, and the
	// flush's scratch list.
	laneN    int
	laneSrc  []laneList
	laneSrcs []int
	laneSort []*Request

	// Per peer: our read position in its channel at our last 1-4 KiB
	// send to it (transport.go's answered).
	spanIn []uint64

	checksum bool   // HYMPI_CHECKSUM: descriptors carry a CRC (checksum.go)
	sumBuf   []byte // the checked private copy of a payload (checksum.go)

	// The sweep (sweep.go): when it last ran; what this rank's own block
	// held at its first run, after Init wrote it, which later sweeps
	// expect to find there still; the summary bits it found lost.
	lastSweep time.Time
	selfKnown bool
	selfPID   int
	selfState shm.RankState
	lostBits  uint64
}

// readSpinFor is how long a wait with a CPU of its own keeps spinning,
// past its pass budget, while peers have rendezvous sends of ours to read
// (progress.ReadSpin). An oversubscribed wait would take the reader's CPU.
func (e *engine) readSpinFor() time.Duration {
	if e.oversub || e.pendingDirect == 0 {
		return 0
	}
	return progress.ReadSpin(e.pendingDirectBytes)
}

func newEngine(rank, size int, region *shm.Region, cpus int) *engine {
	e := &engine{
		rank:       rank,
		size:       size,
		region:     region,
		ctxs:       make(map[uint32]*queues),
		eps:        make(endpoints, size),
		readFrom:   directcopy.ReadFrom,
		resendWait: make(map[uint64]*Request),
	}
	e.doneSend = reqBody{e: e, kind: reqSend, done: true, pool: true}
	e.spentBody = reqBody{e: e, done: true, spent: true}
	e.setCPUs(cpus)
	e.nextCtx = ctxSelf + 2
	e.flInit()
	if region == nil {
		return e
	}
	e.bell = region.Doorbell(rank)
	e.summary = region.Summary(rank)
	e.prefillUnexpected()
	return e
}

// setCPUs adapts the engine to a job whose ranks share cpus CPUs: how a
// wait spins, and which protocol collectives use (useDirect).
func (e *engine) setCPUs(cpus int) {
	e.oversub = e.size > cpus
	e.collEagerLo, e.collEagerHi = collEagerRange(e.size, e.oversub, e.skew.slowReads())
	e.pairEager = !e.oversub && e.collEagerLo <= e.collEagerHi
	e.wait = progress.NewPolicy(e.size, cpus)
	if e.fl != nil {
		e.fl.SetOversub(e.oversub)
	}
}

// queues returns the matching queues of context ctx, creating them. The
// common case (the last context asked for, no lane receives) stays small
// enough to inline.
func (e *engine) queues(ctx uint32) *queues {
	if e.laneN == 0 && e.lastQ != nil && e.lastCtx == ctx {
		return e.lastQ
	}
	return e.queuesSlow(ctx)
}

func (e *engine) queuesSlow(ctx uint32) *queues {
	if e.laneN != 0 {
		e.laneFlush() // nothing sees the queues without the lane's receives
	}
	if e.lastQ != nil && e.lastCtx == ctx {
		return e.lastQ
	}
	q := e.ctxs[ctx]
	if q == nil {
		q = match.New[Request, unexpected](e.size, e.live)
		e.ctxs[ctx] = q
	}
	e.lastCtx, e.lastQ = ctx, q
	return q
}

// progress makes one pass over everything that can move: incoming channels
// that the summary marks, then queued sends. It reports whether anything
// happened, which the wait loop uses to decide whether to back off.
func (e *engine) progress() bool {
	if e.region == nil || e.fatal != nil {
		return false
	}
	did := false
	for w := 0; w < e.summary.Words(); w++ {
		bits := e.summary.Word(w)
		for bits != 0 {
			b := trailingZeros64(bits)
			bits &= bits - 1
			src := w*64 + b
			if src < e.size && src != e.rank {
				// A bit without a channel behind it is a stray write
				// (a sender publishes its channel before it marks):
				// drop it, or every pass would look again. Should a
				// sender's mark race with the clear, the sweep finds
				// its channel.
				ic := e.inFrom(src)
				if ic == nil {
					e.summary.Clear(src)
				} else if e.drain(ic) {
					did = true
				}
			}
		}
	}
	if len(e.reads) > 0 && e.progressReads() {
		did = true
	}
	if len(e.sending) > 0 && e.pushAll() {
		did = true
	}
	if len(e.colls) > 0 && e.advanceColls() {
		did = true
	}
	return did
}

// waitUntil runs the engine until cond holds: spin on progress, then yield
// the CPU, then sleep on the doorbell until a peer rings it. Called with mu
// held; releases it only while yielding or sleeping. It fails only when the
// engine can no longer make progress (a corrupt region), or when the
// condition depends on traffic and this process has no region to get it from.
func (e *engine) waitUntil(cond func() bool) error {
	if e.waitStart.IsZero() {
		// The outermost wait counts its time (nested waits are part of
		// it); a wait that ends before progress.BlockedAfter passes counts none.
		defer e.endBlocked()
	}
	return progress.Wait((*waiter)(e), cond, &e.wait, e.bell)
}

// waiter is the engine as progress.Wait sees it (progress.Engine), kept
// apart so that the engine's own method set stays unexported.
type waiter engine

func (w *waiter) Progress() bool             { return (*engine)(w).progress() }
func (w *waiter) SweepDue() bool             { return (*engine)(w).sweepDue() }
func (w *waiter) Sweep() bool                { return (*engine)(w).sweep() }
func (w *waiter) ReadSpinFor() time.Duration { return (*engine)(w).readSpinFor() }
func (w *waiter) GateSleep() bool            { return w.gateOp != nil && (*engine)(w).gateSleep() }
func (w *waiter) Unlock()                    { w.mu.Unlock() }
func (w *waiter) Lock()                      { w.mu.Lock() }

func (w *waiter) Stuck() error {
	if w.fatal != nil {
		return w.fatal
	}
	if w.region == nil {
		return newErr(ErrOther, "wait", "deadlock: waiting for a message that no rank can send")
	}
	return nil
}

func (w *waiter) Blocked() {
	if w.waitStart.IsZero() {
		w.waitStart = time.Now()
	}
}

// endBlocked adds the wait being counted, if any, to e.blocked.
func (e *engine) endBlocked() {
	if !e.waitStart.IsZero() {
		e.blocked += time.Since(e.waitStart)
		e.waitStart = time.Time{}
	}
}

// blockedSoFar is e.blocked including the wait in progress.
func (e *engine) blockedSoFar(now time.Time) time.Duration {
	if e.waitStart.IsZero() {
		return e.blocked
	}
	return e.blocked + now.Sub(e.waitStart)
}

// newInternalReq returns a cleared request for a blocking call's own use.
func (e *engine) newInternalReq(kind reqKind) *Request {
	var r *Request
	if n := len(e.internalRq); n > 0 {
		r = e.internalRq[n-1]
		e.internalRq = e.internalRq[:n-1]
		*r.reqBody = reqBody{}
	} else {
		r = &Request{new(reqBody)}
	}
	r.e, r.kind = e, kind
	return r
}

func (e *engine) freeInternalReq(r *Request) {
	r.buf, r.sbuf, r.comm = nil, nil, nil
	if len(e.internalRq) < 64 {
		e.internalRq = append(e.internalRq, r)
	}
}

func (e *engine) newReq(kind reqKind) *Request {
	return &Request{&reqBody{e: e, kind: kind}}
}

// flush waits until every queued send and reply is in its channel, every
// rendezvous send has been read by its receiver (a peer must not read our
// memory after we exit) and every read of ours is done.
func (e *engine) flush() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.waitUntil(func() bool { return len(e.sending) == 0 && e.pendingDirect == 0 && len(e.reads) == 0 })
}
