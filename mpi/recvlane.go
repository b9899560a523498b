//go:build !ompi && !mpich

package mpi

import (
	"cmp"
	"slices"

	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/shm"
)

// The receive lane: the Go twin of the C ABI's (cmd/libmpi_abi/fastlane.c).
// An Irecv naming a source, into a buffer the skew controller does not
// watch, made while the engine holds no posted receive and no unexpected
// message, is not put in the matching queues: it is queued here, in posting
// order and per source, and Wait, Waitall and Test complete it straight off
// the head of its source's channel.
//
// The rule that keeps this exact is the fast lane's (fastlane.go). While
// the lane is not empty its entries are all the posted receives of the
// process, none of them a wildcard source. The next message from source s
// would be matched by the queues to the earliest posted receive naming s
// that matches it; so if the oldest queued receive from s matches the
// message at the head of s's channel (an inline message of its context and
// tag that fits), taking it there is what the queues would have done. In
// every other case the lane is flushed first: its entries become ordinary
// posted receives, in posting order, and matching goes on as before. The
// flush happens in queues() (every use of the matching queues: a post, a
// probe, an arrival the lane does not take, a cancel), so nothing can see
// the queues without the lane's receives in them. arrive offers a message
// to the lane before it flushes, which keeps the lane alive through a wait
// that had to make progress passes.
//
// Off when the C ABI shares the fast-lane state (C has its own lane, and
// its blocking fast lane reads only the matching counts), under
// asynchronous progress, with checksums, and with no shared region.
//
// Queued receives count as posted ones in the engine's matching counts
// (e.live), so whatever reads only those, like the blocking fast lane,
// sees them without a test of its own.

// laneList is one source's queued receives, oldest first, linked by
// sendNext (a receive has no send queue to be in); listed says the
// source is in e.laneSrcs.
type laneList struct {
	head, tail *Request
	listed     bool
}

// laneOK reports whether an Irecv of buf from world rank w may be queued.
// Called under e.mu.
func (e *engine) laneOK(w int, n int) bool {
	return e.live[0] == int64(e.laneN) && e.live[1] == 0 &&
		w != e.rank && n <= e.skew.small && e.fl == nil && e.async == nil &&
		!e.checksum && e.region != nil
}

// laneQueue queues r, a receive from rank source (world rank w) of its
// communicator. Its posting order is a post sequence number, as a posted
// receive's is. Called under e.mu.
func (e *engine) laneQueue(r *Request, source, w int) {
	if e.laneSrc == nil {
		e.laneSrc = make([]laneList, e.size)
	}
	e.postSeq++
	b := r.reqBody // once, as in laneUnlink
	b.lane, b.peer, b.m.Seq = true, source, e.postSeq
	l := &e.laneSrc[w]
	if l.tail != nil {
		l.tail.sendNext = r
	} else {
		l.head = r
		if !l.listed {
			l.listed = true
			e.laneSrcs = append(e.laneSrcs, w)
		}
	}
	l.tail = r
	e.laneN++
	e.live[0]++
}

// laneUnlink takes r, the head of its source's list, out of the lane.
func (e *engine) laneUnlink(r *Request) {
	b := r.reqBody // once: each store through r would load it again
	l := &e.laneSrc[b.m.Src]
	next := b.sendNext
	if l.head = next; next == nil {
		l.tail = nil
	}
	b.lane, b.sendNext = false, nil
	e.live[0]--
	if e.laneN--; e.laneN == 0 {
		for _, w := range e.laneSrcs {
			e.laneSrc[w].listed = false
		}
		e.laneSrcs = e.laneSrcs[:0]
	}
}

// laneFlush turns every queued receive into an ordinary posted one, in
// posting order. Called under e.mu.
func (e *engine) laneFlush() {
	// First: postRecv uses queues(), which must not flush again, and
	// counts each receive it posts.
	e.live[0] -= int64(e.laneN)
	e.laneN = 0
	all := e.laneSort[:0]
	for _, w := range e.laneSrcs {
		l := &e.laneSrc[w]
		for r := l.head; r != nil; r = r.sendNext {
			all = append(all, r)
		}
		*l = laneList{}
	}
	e.laneSrcs = e.laneSrcs[:0]
	// Each source's receives are in order already; across sources, the
	// sequence numbers give it.
	slices.SortFunc(all, func(a, b *Request) int { return cmp.Compare(a.m.Seq, b.m.Seq) })
	for i, r := range all {
		all[i] = nil
		r.lane, r.sendNext = false, nil
		e.postRecv(r)
	}
	e.laneSort = all[:0]
}

// laneTake completes r, a queued receive, off the head of its source's
// channel: 1 when it did, 0 when the channel is empty after spins looks,
// -1 when the queues must decide (r is not the oldest queued receive of
// its source, the head message is another kind, context or tag, is
// synchronous, would truncate, or a stream is in progress). Nothing
// changes unless it returns 1. Called under e.mu.
func (e *engine) laneTake(r *Request, spins int) int {
	w := r.m.Src
	if e.laneSrc[w].head != r || e.fatal != nil {
		return -1
	}
	ic := e.inFrom(w)
	if ic == nil {
		return 0 // the peer has sent nothing yet
	}
	got := e.laneTakeFrom(ic, r, spins)
	if got == 1 {
		ic.Bell.Ring() // the sender may be waiting for the slots just freed
	}
	return got
}

// laneTakeFrom is laneTake once r is known to head its source's list and
// ic is that source's channel, but leaves the sender's doorbell to the
// caller.
func (e *engine) laneTakeFrom(ic *inChan, r *Request, spins int) int {
	if ic.Cur != nil {
		return -1
	}
	slot := ic.Cons.Head()
	for ; slot == nil && spins > 0; spins-- {
		slot = ic.Cons.Head()
	}
	if slot == nil {
		return 0 // empty, or corrupt: the wait's progress pass reports it
	}
	b := r.reqBody
	ctx, tag, n, ok := shm.DecodeInline(slot)
	if !ok {
		return e.laneTakeSpan(ic, r, slot)
	}
	if ctx != b.ctx || !match.TagMatches(b.m.Tag, tag) || int(n) > len(b.buf) {
		return -1
	}
	shm.CopySmall(b.buf, slot[shm.DescHeaderSize:shm.DescHeaderSize+n])
	ic.Cons.ReleaseHead(slot)
	ic.Idle = 0
	e.laneUnlink(r)
	// laneDone, spelled out: as a call it was ~20 instructions of each
	// message of a window.
	b.done, b.quick = true, b.pool
	b.status = Status{Source: b.peer, Tag: int(tag), Count: int(n)}
	if b.parent != nil {
		b.parent.childDone(r)
	}
	return 1
}

// laneArrive gives an inline message that a progress pass found to the
// oldest queued receive of its source, if that one matches it as laneTake
// would; false means the caller matches it through the queues (which
// flushes the lane). Called under e.mu, only while the lane is not empty.
func (e *engine) laneArrive(src int, d *shm.Desc, inline []byte) bool {
	if src < 0 || src >= len(e.laneSrc) {
		return false
	}
	r := e.laneSrc[src].head
	if r == nil || d.Kind != shm.KindInline || d.Flags != 0 || d.Ctx != r.ctx ||
		!match.TagMatches(r.m.Tag, d.Tag) || len(inline) > len(r.buf) {
		return false
	}
	n := copy(r.buf, inline)
	e.laneUnlink(r)
	e.laneDone(r, int(d.Tag), n)
	return true
}

// laneDone completes r, a lane receive of a message of tag and n bytes:
// complete, spelled out so that it inlines through the handle, and quick
// (spend recycles it cheaply) when pooled.
func (e *engine) laneDone(r *Request, tag, n int) {
	b := r.reqBody
	b.done, b.quick = true, b.pool
	b.status = Status{Source: b.peer, Tag: tag, Count: n}
	if b.parent != nil {
		b.parent.childDone(r)
	}
}

// laneWaitall completes, in the order given, the queued receives of reqs
// that laneTake can, spinning a little at an empty channel; it stops at
// the first it cannot, and the caller's wait does the rest. It reports
// whether every request of reqs is complete (so the caller need not look
// again).
func (e *engine) laneWaitall(reqs []*Request) bool {
	spins := flSpins
	if e.oversub {
		spins = 0
	}
	if e.fatal != nil {
		return false
	}
	all := true
	var t laneTaker
	for _, r := range reqs {
		if r == nil {
			continue
		}
		b := r.reqBody
		if b.done {
			continue
		}
		if !b.lane {
			all = false
			continue
		}
		w := b.m.Src
		if e.laneSrc[w].head != r || !t.at(e, w) ||
			e.laneTakeFrom(t.ic, r, 0) != 1 && !t.takeSpinning(e, r, spins) {
			all = false
			break
		}
		t.took = true
	}
	t.ring()
	return all
}

// laneTaker takes a window's lane receives in order, one channel after
// another, with the doorbell rule of a window: the sender's bell once per
// run of takes from its channel, not per message (it wakes a sender
// asleep for anything, the acknowledgement osu_bw waits for too, and one
// wake-up per message of a window cost a loaded machine a third of its
// 2 KiB rate), and before any spin, since the next message may be one the
// sender cannot publish until it sees the slots just freed.
type laneTaker struct {
	ic   *inChan
	last int // world rank of ic; meaningful only while ic is set
	took bool
}

// at makes world rank w's channel the current one, ringing the previous
// one's bell for its takes; false when w's channel is not there. Small
// enough to inline: a window's messages mostly come from one channel.
func (t *laneTaker) at(e *engine, w int) bool {
	if t.ic != nil && w == t.last {
		return true
	}
	return t.switchTo(e, w)
}

// switchTo is at's change of channel, out of line.
func (t *laneTaker) switchTo(e *engine, w int) bool {
	t.ring()
	t.ic, t.last = e.inFrom(w), w
	return t.ic != nil
}

// takeSpinning is the take of r's message off the current channel after
// a laneTakeFrom that found it empty: it rings the bell, then spins up to
// spins passes. Callers take first themselves (e.laneTakeFrom(t.ic, r, 0)),
// so that the common take costs no call beyond laneTakeFrom's, and mark
// t.took after either succeeds.
func (t *laneTaker) takeSpinning(e *engine, r *Request, spins int) bool {
	if spins <= 0 {
		return false
	}
	t.ring()
	return e.laneTakeFrom(t.ic, r, spins) == 1
}

// ring rings the current channel's bell if anything was taken from it
// since it last rang.
func (t *laneTaker) ring() {
	if t.took {
		t.ic.Bell.Ring()
		t.took = false
	}
}
