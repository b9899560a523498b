//go:build !ompi && !mpich

package mpi

import (
	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/shm"
)

// The fast lane: a blocking receive of a small message that is already at
// the head of its channel, taken without a request, a progress pass or the
// matching queues; and the state (shm.FastLane) that lets the C ABI do the
// same, and the matching eager send, without entering Go.
//
// The receive rule is what keeps this from being a second matching engine.
// When the engine holds no posted receive and no unexpected message, a
// receive naming a source would be matched by Go against the next message
// that source's channel delivers, in channel order. So if that head
// descriptor is a published inline message of the receive's context with a
// matching tag that fits the buffer, taking it straight off the channel is
// exactly what drain+deliver+arrive would have done. Anything else (the head
// not there yet, another kind or context or tag, a synchronous flag, a
// truncation, a stream in progress, checksums on) goes the ordinary way.

// flInit starts the engine's matching counts on the heap; the fast-lane
// state shared with C is made only when C asks for it (flEnable), so a Go
// program or a calibration engine maps nothing.
func (e *engine) flInit() { e.live = new([2]int64) }

// flEnable makes the fast-lane state and binds the channels already open.
// From then on the matching counts live in it. Called under e.mu.
func (e *engine) flEnable() bool {
	if e.fl != nil || e.region == nil {
		return e.fl != nil
	}
	fl, err := shm.NewFastLane(e.rank, e.size)
	if err != nil {
		return false
	}
	if e.laneN != 0 {
		e.laneFlush() // C's fast paths read only the matching counts
	}
	live := fl.Counts()
	*live = *e.live
	e.fl, e.live = fl, live
	for _, q := range e.ctxs {
		q.SetLive(live)
	}
	for _, x := range e.eps {
		if x == nil {
			continue
		}
		if x.Out != nil && x.Out.Prod != nil {
			e.flBindOut(x.Out)
		}
		if x.In != nil {
			e.flBindIn(x.In)
		}
	}
	e.flRefresh()
	e.flBusy()
	return true
}

// flBindOut and flBindIn put a channel's position into the shared state.
func (e *engine) flBindOut(oc *outChan) {
	if e.fl != nil {
		e.fl.BindOut(oc.Peer, oc.Prod, oc.Summary, e.rank, oc.Bell)
		e.flOut(oc)
		e.flSpan(e.eps[oc.Peer])
		if oc.CollProd != nil {
			e.fl.BindCollOut(oc.Peer, oc.CollProd)
			e.flCollOut(oc)
		}
	}
}

// flSpan tells C the largest message it may send to x's peer as a span
// (shm/span.go): one useDirect sends eager whatever the skew controller
// says, so C's choice is always Go's. Run again whenever what useDirect
// reads of x changes (learnPeer, initSkew).
func (e *engine) flSpan(x *endpoint) {
	if e.fl == nil || x == nil || x.Out == nil || x.Out.Prod == nil {
		return
	}
	n := 0
	switch {
	case !x.DirectOK || e.mode == directOff:
		n = shm.SpanMax
	case e.mode == directAuto && x.Sk.Ready:
		n = min(shm.SpanMax, x.Sk.Base)
	}
	e.fl.SetSpanMax(x.Peer, n)
}

func (e *engine) flBindIn(ic *inChan) {
	if e.fl != nil {
		e.fl.BindIn(ic.Peer, ic.Cons, ic.Bell)
		e.flStream(ic)
		if ic.Coll != nil {
			e.fl.BindCollIn(ic.Peer, ic.Coll)
		}
	}
}

// flRefresh recomputes whether C may run: only while nothing but the
// caller's thread can enter the engine and every call would succeed.
// (MPI_THREAD_MULTIPLE is C's own check: the engine does not know the level.)
func (e *engine) flRefresh() {
	if e.fl == nil {
		return
	}
	e.fl.SetRun(e.region != nil && e.fatal == nil && e.async == nil && !e.checksum && !e.flClosed)
	e.fl.SetChecksum(e.checksum)
	e.fl.SetOversub(e.oversub)
	e.fl.SetSmall(e.skew.small)
}

// flStop turns C's hot path off for good (fatal error, Finalize).
func (e *engine) flStop() {
	e.flClosed = true
	if e.fl != nil {
		e.fl.SetRun(false)
	}
}

// flOut updates whether C may publish toward oc's peer.
func (e *engine) flOut(oc *outChan) {
	if e.fl != nil && oc.Prod != nil {
		e.fl.SetOutOpen(oc.Peer, oc.Head == nil)
	}
}

// flCollOut updates whether C may publish a collective message toward
// oc's peer: nothing of ours queued on that ring.
func (e *engine) flCollOut(oc *outChan) {
	if e.fl != nil && oc.CollProd != nil {
		e.fl.SetCollOpen(oc.Peer, len(oc.CollQ) == 0)
	}
}

// flBusy updates whether the engine holds what keeps the direct run
// (coll_direct.go), and so C's collectives, off: a collective in flight,
// sends queued, reads in progress.
func (e *engine) flBusy() {
	if e.fl != nil {
		e.fl.SetBusy(len(e.colls) != 0 || len(e.sending) != 0 || len(e.reads) != 0)
	}
}

// flStream records whether a stream from ic's peer is in progress.
func (e *engine) flStream(ic *inChan) {
	if e.fl != nil {
		e.fl.SetInStream(ic.Peer, ic.Cur != nil)
	}
}

// flSpins bounds the looks fastRecv takes at an empty channel head
// (a few microseconds).
const flSpins = 512

// fastRecv serves a blocking receive from source (a rank of c, not
// AnySource) off the head of its channel, if the rule above allows; ok
// false means nothing was touched. Called under e.mu.
func (e *engine) fastRecv(c *Comm, buf []byte, source, tag int) (st Status, ok bool) {
	if e.live[0] != 0 || e.live[1] != 0 || e.checksum {
		return Status{}, false
	}
	w := c.peerWorld(source)
	if w == e.rank {
		return Status{}, false
	}
	ic := e.inFrom(w)
	if ic == nil || ic.Cur != nil {
		return Status{}, false
	}
	// Head and DecodeInline are Peek's and DecodeDesc's common case,
	// inlined; anything else (a corrupt slot too) is left to progress.
	slot := ic.Cons.Head()
	// A message not there yet may be on its way: a short spin here saves
	// the whole matching path when it lands. Not when ranks outnumber
	// CPUs (the sender may need this CPU), nor for a buffer the skew
	// controller watches (its verdict reads when the receive was posted).
	if slot == nil && !e.oversub && len(buf) <= e.skew.small {
		for i := 0; i < flSpins && slot == nil; i++ {
			slot = ic.Cons.Head()
		}
	}
	if slot == nil {
		return Status{}, false // empty, or corrupt: progress reports it
	}
	ctx, gotTag, n, ok := shm.DecodeInline(slot)
	if !ok {
		return e.fastSpan(ic, c, buf, source, slot, tag)
	}
	if ctx != c.ctx || !match.TagMatches(tag, gotTag) || int(n) > len(buf) || (int(n) > e.skew.small && e.skewCounts(w, int(n))) {
		return Status{}, false
	}
	shm.CopySmall(buf, slot[shm.DescHeaderSize:shm.DescHeaderSize+n])
	ic.Cons.ReleaseHead(slot)
	ic.Idle = 0
	// The sender may be waiting for the slot just freed.
	ic.Bell.Ring()
	return Status{Source: source, Tag: int(gotTag), Count: int(n)}, true
}

// fastLaneState is for the C ABI (cmd/libmpi_abi/fastlane.c): the address of
// the process's fast-lane state, c's point-to-point context and its
// rank-to-world-rank table (nil: the identity). ok is false when C must not
// take the fast lane on c (an intercommunicator, no shared region).
func (c *Comm) fastLaneState() (state uintptr, ctx uint32, world []int, ok bool) {
	if c == nil || c.inter != nil || c.freed || c.private {
		return 0, 0, nil, false
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.flEnable() {
		return 0, 0, nil, false
	}
	return e.fl.Addr(), c.ctx, c.world, true
}
