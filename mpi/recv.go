//go:build !ompi && !mpich

package mpi

import (
	"github.com/hympi/hympi/mpi/internal/match"
	"github.com/hympi/hympi/shm"
)

// arrive matches a message that just appeared on a channel (its envelope,
// and for inline messages the whole payload) against the posted receives, or
// files it as unexpected.
func (e *engine) arrive(src int, d *shm.Desc, inline []byte, f *inflight) {
	if e.laneN != 0 && f == nil && e.laneArrive(src, d, inline) {
		return
	}
	q := e.queues(d.Ctx)
	rts := d.Kind == shm.KindRTS
	r := q.TakePosted(src, d.Tag)
	if r != nil && int(d.MsgLen) > e.skew.small && e.skewCounts(src, int(d.MsgLen)) {
		e.judged(src, r.late)
	}
	if r != nil {
		if rts {
			e.startRead(r, src, d)
			return
		}
		if d.Flags&shm.FlagSync != 0 {
			e.sendAck(src, d.ReqID)
		}
		if f == nil {
			copy(r.buf, inline)
			e.finishRecv(r, src, d.Tag, len(inline))
			return
		}
		f.Req, r.flight = r, f
		return
	}
	u := e.newUnexpected(d.Ctx, src, d.Tag, int(d.MsgLen), !rts)
	if rts {
		// Nothing to copy: the payload stays in the sender until matched.
		u.rtsAddr, u.rtsID = d.Addr, d.ReqID
		e.fileUnexpected(q, u)
		return
	}
	copy(u.data, inline)
	if d.Flags&shm.FlagSync != 0 {
		u.syncID = d.ReqID
	}
	if f != nil {
		f.Un, u.flight = u, f
	}
	e.fileUnexpected(q, u)
}

// arriveSpan is arrive for a span (shm/span.go) whose slots, from
// PeekSpan, are still the caller's: the payload is gathered straight into
// the receive it matches, or into an unexpected message's buffer, never
// through a staging copy. A span is never synchronous and never streams.
func (e *engine) arriveSpan(src int, d *shm.Desc, slots []byte) {
	n := int(d.FragLen)
	if e.laneN != 0 && src >= 0 && src < len(e.laneSrc) {
		// laneArrive's rule: the oldest queued receive of src takes it
		// if it matches and the message fits.
		if r := e.laneSrc[src].head; r != nil && d.Ctx == r.ctx && match.TagMatches(r.m.Tag, d.Tag) && n <= len(r.buf) {
			shm.GatherSpan(r.buf, slots, n)
			e.laneUnlink(r)
			e.laneDone(r, int(d.Tag), n)
			return
		}
	}
	q := e.queues(d.Ctx)
	if r := q.TakePosted(src, d.Tag); r != nil {
		if n > e.skew.small && e.skewCounts(src, n) {
			e.judged(src, r.late)
		}
		shm.GatherSpan(r.buf, slots, min(n, len(r.buf)))
		e.finishRecv(r, src, d.Tag, n)
		return
	}
	u := e.newUnexpected(d.Ctx, src, d.Tag, n, true)
	shm.GatherSpan(u.data, slots, n)
	e.fileUnexpected(q, u)
}

// fastSpan is fastRecv's case of a span (shm/span.go) at the head of
// ic, slot: the same rule as for an inline message (its context and tag,
// fits buf, not a size the skew controller counts), the payload gathered
// straight into buf. Apart, so that the inline case pays nothing for it.
func (e *engine) fastSpan(ic *inChan, c *Comm, buf []byte, source int, slot []byte, tag int) (Status, bool) {
	ctx, gotTag, n, ok := shm.DecodeSpanHead(slot)
	if !ok || ctx != c.ctx || !match.TagMatches(tag, gotTag) || int(n) > len(buf) || int(n) > e.skew.small {
		return Status{}, false
	}
	if ic.Cons.TakeSpan(buf, int(n)) != nil {
		return Status{}, false // a corrupt ring: progress reports it
	}
	ic.Idle = 0
	ic.Bell.Ring() // the sender may be waiting for the slots just freed
	return Status{Source: source, Tag: int(gotTag), Count: int(n)}, true
}

// laneTakeSpan is laneTakeFrom's case of a span at the head of ic, slot,
// under the same rule as an inline message (the doorbell too is the
// caller's).
func (e *engine) laneTakeSpan(ic *inChan, r *Request, slot []byte) int {
	b := r.reqBody
	ctx, tag, n, ok := shm.DecodeSpanHead(slot)
	if !ok || ctx != b.ctx || !match.TagMatches(b.m.Tag, tag) || int(n) > len(b.buf) {
		return -1
	}
	if ic.Cons.TakeSpan(b.buf, int(n)) != nil {
		return -1 // a corrupt ring: the queues' progress reports it
	}
	ic.Idle = 0
	e.laneUnlink(r)
	e.laneDone(r, int(tag), int(n))
	return 1
}

func (e *engine) newUnexpected(ctx uint32, src int, tag int32, n int, buffer bool) *unexpected {
	e.arrivalSeq++
	var u *unexpected
	if k := len(e.freeUnexp); k > 0 {
		u = e.freeUnexp[k-1]
		e.freeUnexp = e.freeUnexp[:k-1]
	} else {
		u = new(unexpected)
	}
	*u = unexpected{Arrived: match.Arrived[unexpected]{Src: src, Tag: tag}, ctx: ctx, length: n, arrival: e.arrivalSeq}
	if buffer {
		u.data = e.bufs.get(n)
	}
	return u
}

// freeUnexpMax bounds the engine's free list of unexpected entries.
const freeUnexpMax = 256

// unexpPrefill is how many unexpected entries, each with a buffer of the
// smallest class, an engine starts with. A small collective's messages
// that arrive before their receive (a peer a collective or two ahead) are
// filed as unexpected, and the pools grew whenever a burst outgrew the
// largest so far: in a steady state of small collectives that could be
// the 300th call as well as the 3rd (a test of the C ABI's neighbourhood
// collectives counting Go allocations over 400 calls after 200 warm-up
// ones saw 3-17). 16 cover a few collectives ahead of a peer, for ≈6 KiB.
const unexpPrefill = 16

// prefillUnexpected fills the free lists with unexpPrefill entries and
// buffers.
func (e *engine) prefillUnexpected() {
	us := make([]unexpected, unexpPrefill)
	bufs := make([]byte, unexpPrefill<<bufMinShift)
	for i := range us {
		e.bufs.put(bufs[i<<bufMinShift : i<<bufMinShift : (i+1)<<bufMinShift])
		e.freeUnexpected(&us[i])
	}
}

// freeUnexpected recycles a matched entry and its buffer.
func (e *engine) freeUnexpected(u *unexpected) {
	e.bufs.put(u.data)
	*u = unexpected{}
	if e.freeUnexp == nil {
		e.freeUnexp = make([]*unexpected, 0, freeUnexpMax) // as bufPool.put
	}
	if len(e.freeUnexp) < freeUnexpMax {
		e.freeUnexp = append(e.freeUnexp, u)
	}
}

// postRecv matches a new receive against the unexpected messages, or posts
// it.
func (e *engine) postRecv(r *Request) {
	q := e.queues(r.ctx)
	if u := q.FindUnexpected(r.m.Src, r.m.Tag); u != nil {
		e.takeUnexpected(q, u)
		e.matchUnexpected(r, u)
		return
	}
	e.postSeq++
	r.m.Seq = e.postSeq
	r.late = len(r.buf) > e.skew.small && e.messageWaiting(r)
	q.Post(&r.m, r)
}

// matchUnexpected hands an unexpected message to the receive that matched
// it. A message still streaming in continues straight into the receive's
// buffer.
func (e *engine) matchUnexpected(r *Request, u *unexpected) {
	if u.syncID != 0 {
		e.sendAck(u.Src, u.syncID)
	}
	if s := u.selfSender; s != nil {
		s.acked = true
		s.checkSendDone()
	}
	if u.rtsAddr != 0 {
		e.startRead(r, u.Src, &shm.Desc{Addr: u.rtsAddr, MsgLen: uint64(u.length), Tag: u.Tag, ReqID: u.rtsID})
		e.freeUnexpected(u)
		return
	}
	if f := u.flight; f != nil {
		copy(r.buf, u.data[:f.Got])
		f.Un, f.Req, r.flight = nil, r, f
		e.freeUnexpected(u)
		return
	}
	copy(r.buf, u.data)
	e.finishRecv(r, u.Src, u.Tag, u.length)
	e.freeUnexpected(u)
}

// finishRecv completes a receive of an n-byte message from world rank src.
func (e *engine) finishRecv(r *Request, src int, tag int32, n int) {
	r.flight = nil
	if n > e.skew.small {
		e.largeDone(src, n)
	}
	st := Status{Source: r.comm.peerRank(src), Tag: int(tag), Count: n}
	var err error
	if n > len(r.buf) {
		st.Count = len(r.buf)
		err = newErr(ErrTruncate, "Recv", "message of %d bytes from rank %d tag %d, buffer of %d", n, st.Source, tag, len(r.buf))
	}
	r.complete(st, err)
}

// sendSelf delivers a message a rank sends to itself, without the region.
func (e *engine) sendSelf(r *Request) {
	q := e.queues(r.ctx)
	c := &e.ep(e.rank).Counters
	c.EagerMsgs++
	c.EagerBytes += uint64(len(r.sbuf))
	if rr := q.TakePosted(e.rank, int32(r.m.Tag)); rr != nil {
		copy(rr.buf, r.sbuf)
		e.finishRecv(rr, e.rank, int32(r.m.Tag), len(r.sbuf))
		r.pushed, r.acked = true, true
		r.checkSendDone()
		return
	}
	u := e.newUnexpected(r.ctx, e.rank, int32(r.m.Tag), len(r.sbuf), true)
	copy(u.data, r.sbuf)
	if r.sync {
		u.selfSender = r
	}
	e.fileUnexpected(q, u)
	r.pushed = true
	r.checkSendDone()
}

// bufPool recycles unexpected-message buffers by power-of-two size class, so
// a steady stream of unexpected small messages allocates nothing.
type bufPool struct {
	free [bufClasses][][]byte
}

const (
	bufMinShift = 8  // 256 B
	bufMaxShift = 20 // 1 MiB; larger buffers are left to the GC
	bufClasses  = bufMaxShift - bufMinShift + 1
	bufPerClass = 64
)

func bufClass(n int) int {
	c := 0
	for n > 1<<(bufMinShift+c) {
		c++
	}
	return c
}

func (p *bufPool) get(n int) []byte {
	if n > 1<<bufMaxShift {
		return make([]byte, n)
	}
	c := bufClass(n)
	if l := len(p.free[c]); l > 0 {
		b := p.free[c][l-1]
		p.free[c] = p.free[c][:l-1]
		return b[:n]
	}
	return make([]byte, n, 1<<(bufMinShift+c))
}

func (p *bufPool) put(b []byte) {
	n := cap(b)
	if n > 1<<bufMaxShift || n < 1<<bufMinShift || n&(n-1) != 0 {
		return
	}
	c := bufClass(n)
	if p.free[c] == nil {
		// The class's whole list at once: grown by doubling, it
		// allocated again whenever a burst of unexpected messages
		// outgrew the largest so far, long into a steady state.
		p.free[c] = make([][]byte, 0, bufPerClass)
	}
	if len(p.free[c]) < bufPerClass {
		p.free[c] = append(p.free[c], b[:0])
	}
}
