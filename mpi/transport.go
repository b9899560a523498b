//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"math/bits"

	"github.com/hympi/hympi/shm"
)

// The eager protocol over the shared region. A message of up to
// shm.InlineMax bytes travels inside one descriptor. A larger one is cut into
// cell-sized fragments: the first descriptor (KindFirst) carries the
// envelope and the first fragment, the following ones (KindNext) the rest, in
// order, and a channel streams one message at a time, so the receiver needs no
// reassembly bookkeeping beyond "the message in progress on this channel".
// When the sender runs out of cells or slots it leaves the rest queued and the
// progress engine continues when the receiver hands cells back.

func trailingZeros64(x uint64) int { return bits.TrailingZeros64(x) }

// directNever is the threshold reported while every size goes through shared
// memory.
const directNever = int(^uint(0) >> 1)

// outChan is this rank's sending end toward one peer. Its channel is made
// by the first send (openOut); until then ch, prod, pool and collProd are
// unset.
type outChan struct {
	peer    int
	ch      shm.Channel
	prod    *shm.Producer
	pool    *shm.CellPool
	summary shm.Summary  // the peer's
	bell    shm.Doorbell // the peer's
	head    *Request     // queued sends, oldest first; head may be half sent
	tail    *Request
	ctl     []shm.Desc // acknowledgements and replies waiting for a slot
	queued  bool       // on engine.sending
	// The collective microchannel (coll_ring.go) and the collective
	// sends waiting for one of its slots, oldest first.
	collProd *shm.Producer
	collq    []*Request
}

// notify tells the peer that its channel from us has something: mark the
// summary (an atomic OR only if the bit is clear) and ring the doorbell (a
// syscall only if the peer sleeps).
func (oc *outChan) notify(self int) {
	oc.summary.Mark(self)
	oc.bell.Ring()
}

// inChan is this rank's receiving end from one peer, made when its channel
// is first found (inFrom).
type inChan struct {
	peer    int
	ch      shm.Channel
	cons    *shm.Consumer
	returns *shm.ReturnRing
	lim     shm.Limits
	bell    shm.Doorbell  // the sender's: it may wait for cells or slots
	cur     *inflight     // message whose fragments are still arriving
	idle    int           // consecutive empty polls
	coll    *shm.Consumer // the collective microchannel
}

// inflight is a multi-fragment message being received: into a matched
// receive's buffer, or into an unexpected entry until one matches it.
type inflight struct {
	total uint64
	got   uint64
	req   *Request
	un    *unexpected
	ctx   uint32
	tag   int32
}

const (
	// drainBudget caps descriptors taken from one channel per pass, so one
	// busy sender cannot starve the others.
	drainBudget = 32
	// idlePolls is how many empty polls a channel gets before the receiver
	// clears its summary bit and stops polling it.
	idlePolls = 256
)

// trySendInline is the small-message fast path: nothing queued toward the
// peer, a free slot, payload fits the descriptor. No allocation, no lock
// beyond the engine's, no syscall unless the peer sleeps.
func (e *engine) trySendInline(oc *outChan, ctx uint32, tag int, buf []byte) bool {
	if oc.head != nil || len(buf) > shm.InlineMax || (oc.prod == nil && !e.openOut(oc)) {
		return false
	}
	slot := oc.prod.Reserve()
	if slot == nil {
		return false
	}
	shm.EncodeInline(slot, ctx, int32(tag), uint32(len(buf)))
	copy(shm.InlineArea(slot), buf)
	if e.checksum {
		d := shm.Desc{Kind: shm.KindInline, Ctx: ctx, Tag: int32(tag), MsgLen: uint64(len(buf)), FragLen: uint32(len(buf))}
		shm.SetDescSum(slot, shm.MessageSum(&d, buf))
	}
	oc.prod.Publish(slot)
	// notify, inlined: its call and Ring's were ~25 instructions of a
	// ~290-instruction send.
	oc.summary.Mark(e.rank)
	if oc.bell.Asleep() {
		oc.bell.Ring()
	}
	c := &e.eps[oc.peer].counters
	c.EagerMsgs++
	c.EagerBytes += uint64(len(buf))
	return true
}

// enqueueSend queues a send request toward its peer and pushes what fits.
func (e *engine) enqueueSend(oc *outChan, r *Request) {
	if e.useDirect(oc.peer, r.ctx, len(r.sbuf)) {
		e.startDirectSend(r)
	} else {
		c := &e.eps[oc.peer].counters
		c.EagerMsgs++
		c.EagerBytes += uint64(len(r.sbuf))
	}
	e.enqueue(oc, r)
}

// enqueue appends r to the peer's send queue and pushes what fits.
func (e *engine) enqueue(oc *outChan, r *Request) {
	if oc.tail == nil {
		oc.head = r
		e.flOut(oc)
	} else {
		oc.tail.sendNext = r
	}
	oc.tail = r
	e.markSending(oc)
	e.push(oc)
}

func (e *engine) markSending(oc *outChan) {
	if !oc.queued {
		oc.queued = true
		e.sending = append(e.sending, oc)
	}
}

// pushAll pushes every queued peer and drops the ones that are done.
func (e *engine) pushAll() bool {
	did := false
	keep := e.sending[:0]
	for _, oc := range e.sending {
		if e.push(oc) {
			did = true
		}
		if oc.head != nil || len(oc.ctl) > 0 || len(oc.collq) > 0 {
			keep = append(keep, oc)
		} else {
			oc.queued = false
		}
	}
	clear(e.sending[len(keep):])
	e.sending = keep
	return did
}

// push hands as much queued traffic to the channel as slots and cells allow.
func (e *engine) push(oc *outChan) bool {
	if !e.openOut(oc) {
		return false
	}
	published := len(oc.collq) > 0 && e.pushColl(oc)
	for len(oc.ctl) > 0 {
		slot := oc.prod.Reserve()
		if slot == nil {
			break
		}
		shm.EncodeDesc(slot, &oc.ctl[0])
		if e.checksum {
			shm.SetDescSum(slot, shm.MessageSum(&oc.ctl[0], nil))
		}
		oc.prod.Publish(slot)
		oc.ctl = oc.ctl[1:]
		published = true
	}
	for oc.head != nil && len(oc.ctl) == 0 {
		r := oc.head
		if !e.pushOne(oc, r) {
			break
		}
		published = true
		if r.sent < len(r.sbuf) || !r.started {
			continue
		}
		oc.head = r.sendNext
		if oc.head == nil {
			oc.tail = nil
			e.flOut(oc)
		}
		r.sendNext = nil
		switch {
		case r.direct && r.resendID != 0:
			e.finishDirectSend(r) // the fallback stream is out
		case r.direct:
			// RTS out; the buffer stays pinned until the FIN.
		default:
			// Fully handed over: the user's buffer is free again.
			r.pushed = true
			r.checkSendDone()
		}
	}
	if published {
		oc.notify(e.rank)
	}
	return published
}

// pushOne publishes the next descriptor of r, reporting false when the
// channel has no room.
func (e *engine) pushOne(oc *outChan, r *Request) bool {
	slot := oc.prod.Reserve()
	if slot == nil {
		return false
	}
	d := shm.Desc{Ctx: r.ctx, Tag: int32(r.m.Tag), MsgLen: uint64(len(r.sbuf)), ReqID: r.syncID}
	if r.sync {
		d.Flags = shm.FlagSync
	}
	if r.direct && r.resendID == 0 {
		d.Kind, d.Addr, d.Flags = shm.KindRTS, r.addr, 0
		shm.EncodeDesc(slot, &d)
		if e.checksum {
			shm.SetDescSum(slot, shm.MessageSum(&d, nil))
		}
		oc.prod.Publish(slot)
		r.started, r.sent = true, len(r.sbuf)
		return true
	}
	if r.resendID != 0 {
		d.Flags, d.ReqID = shm.FlagResend, r.resendID
	} else if !r.started && len(r.sbuf) <= shm.InlineMax {
		d.Kind = shm.KindInline
		d.FragLen = uint32(len(r.sbuf))
		shm.EncodeDesc(slot, &d)
		copy(shm.InlineArea(slot), r.sbuf)
		if e.checksum {
			shm.SetDescSum(slot, shm.MessageSum(&d, r.sbuf))
		}
		oc.prod.Publish(slot)
		r.started, r.sent = true, len(r.sbuf)
		return true
	}
	cell, ok, err := oc.pool.Get()
	if err != nil {
		e.corrupt(err)
		return false
	}
	if !ok {
		return false
	}
	d.Kind = shm.KindNext
	if !r.started {
		d.Kind = shm.KindFirst
	} else {
		d.Flags = 0
	}
	n := copy(oc.ch.Cell(cell), r.sbuf[r.sent:])
	d.Cell, d.FragLen = cell, uint32(n)
	shm.EncodeDesc(slot, &d)
	if e.checksum {
		shm.SetDescSum(slot, shm.MessageSum(&d, r.sbuf[r.sent:r.sent+n]))
	}
	oc.prod.Publish(slot)
	r.started = true
	r.sent += n
	return true
}

// drain takes what a peer has published, up to drainBudget descriptors.
func (e *engine) drain(ic *inChan) bool {
	collDid := e.drainColl(ic)
	n := 0
	for ; n < drainBudget; n++ {
		slot, err := ic.cons.Peek()
		if err != nil {
			e.corrupt(err)
			return n > 0
		}
		if slot == nil {
			break
		}
		d, err := shm.DecodeDesc(slot, ic.lim)
		if err == nil && d.Kind == shm.KindInline && ic.cur == nil && !e.checksum {
			// deliver's commonest case without its dispatch: a whole
			// message in the slot, matched or filed at once.
			e.arrive(ic.peer, &d, shm.InlinePayload(slot, &d), nil)
			ic.cons.Release()
			continue
		}
		var payload []byte
		if err == nil {
			payload = payloadOf(ic, slot, &d)
			if e.checksum {
				payload, err = e.checkSum(ic, slot, &d, payload)
			}
		}
		if err == nil {
			err = e.deliver(ic, &d, payload)
		}
		ic.cons.Release()
		if err != nil {
			e.corrupt(fmt.Errorf("from rank %d: %w", ic.peer, err))
			return true
		}
	}
	if n == 0 && !collDid {
		ic.idle++
		if ic.idle >= idlePolls {
			ic.idle = 0
			e.summary.Clear(ic.peer)
			// A publish may have raced with the clear, seeing the bit
			// still set: look once more and restore the bit if so.
			if ic.cons.Ready() || ic.coll.Ready() {
				e.summary.Mark(ic.peer)
			}
		}
		return false
	}
	ic.idle = 0
	// The sender may be waiting for the slots or cells we just freed.
	ic.bell.Ring()
	return true
}

// payloadOf is where the payload of a validated descriptor from ic lies in
// the region: in its slot or in a cell (nil for the kinds without one).
func payloadOf(ic *inChan, slot []byte, d *shm.Desc) []byte {
	switch d.Kind {
	case shm.KindInline:
		return shm.InlinePayload(slot, d)
	case shm.KindFirst, shm.KindNext:
		return ic.ch.Cell(d.Cell)[:d.FragLen]
	}
	return nil
}

// deliver handles one validated descriptor from ic, whose payload is
// payload.
func (e *engine) deliver(ic *inChan, d *shm.Desc, payload []byte) error {
	switch d.Kind {
	case shm.KindInline:
		if ic.cur != nil {
			return fmt.Errorf("%w: new message while one is streaming", shm.ErrBadDesc)
		}
		e.arrive(ic.peer, d, payload, nil)
	case shm.KindRTS:
		if ic.cur != nil {
			return fmt.Errorf("%w: new message while one is streaming", shm.ErrBadDesc)
		}
		e.arrive(ic.peer, d, nil, nil)
	case shm.KindFin:
		if r := e.takeSync(d.ReqID); r != nil && r.direct {
			e.finishDirectSend(r)
		}
	case shm.KindNack:
		e.nacked(d)
	case shm.KindFirst:
		if ic.cur != nil {
			return fmt.Errorf("%w: new message while one is streaming", shm.ErrBadDesc)
		}
		if d.Flags&shm.FlagResend != 0 {
			return e.resendArrived(ic, d, payload)
		}
		f := &inflight{total: d.MsgLen, ctx: d.Ctx, tag: d.Tag}
		ic.cur = f
		e.flStream(ic)
		e.arrive(ic.peer, d, nil, f)
		e.fragment(ic, d, payload)
	case shm.KindNext:
		f := ic.cur
		if f == nil || d.MsgLen != f.total || uint64(d.FragLen) > f.total-f.got {
			return fmt.Errorf("%w: stray fragment", shm.ErrBadDesc)
		}
		e.fragment(ic, d, payload)
	case shm.KindAck:
		e.acked(d.ReqID)
	case shm.KindCancel:
		e.cancelAsked(ic.peer, d.ReqID)
	case shm.KindCancelReply:
		e.cancelAnswered(d.ReqID, d.Tag == 1)
	default:
		return fmt.Errorf("%w: unexpected kind %d", shm.ErrBadDesc, d.Kind)
	}
	return nil
}

// fragment copies one cell of the streaming message, src, to its
// destination and returns the cell.
func (e *engine) fragment(ic *inChan, d *shm.Desc, src []byte) {
	f := ic.cur
	off := f.got
	switch {
	case f.req != nil:
		if off < uint64(len(f.req.buf)) {
			copy(f.req.buf[off:], src)
		}
	case f.un != nil:
		copy(f.un.data[off:], src)
	}
	// Give the cell back at once rather than at the end of the pass: a
	// sender streaming a large message is waiting for exactly this.
	ic.returns.Put(d.Cell)
	ic.returns.Publish()
	f.got += uint64(d.FragLen)
	if f.got < f.total {
		return
	}
	ic.cur = nil
	e.flStream(ic)
	switch {
	case f.req != nil:
		e.finishRecv(f.req, ic.peer, f.tag, int(f.total))
	case f.un != nil:
		f.un.flight = nil
	}
}

// acked completes the synchronous send the receiver matched.
func (e *engine) acked(id uint64) {
	if r := e.takeSync(id); r != nil && !r.direct {
		r.acked = true
		r.checkSendDone()
	}
}

// takeSync removes and returns the send waiting for a reply with this id, or
// nil for a late or forged id.
func (e *engine) takeSync(id uint64) *Request { return e.syncs.Take(id) }

// registerSync gives a send an id the receiver's reply (ACK, FIN, NACK,
// cancel answer) will echo.
func (e *engine) registerSync(r *Request) { r.syncID = e.syncs.Register(r) }

// sendAck queues an acknowledgement of a synchronous send toward peer.
func (e *engine) sendAck(peer int, id uint64) {
	e.queueCtl(peer, shm.Desc{Kind: shm.KindAck, ReqID: id})
}

// queueCtl sends a protocol reply to peer ahead of queued data.
func (e *engine) queueCtl(peer int, d shm.Desc) {
	oc := e.outTo(peer)
	oc.ctl = append(oc.ctl, d)
	e.markSending(oc)
	e.push(oc)
}

// corrupt records that the region can no longer be trusted. The job is
// beyond repair; the launcher reports the failed rank.
func (e *engine) corrupt(err error) {
	if e.fatal == nil {
		e.fatal = &Error{Class: ErrIntern, Op: "progress", Msg: "shared region: " + err.Error()}
		e.flStop()
	}
}
