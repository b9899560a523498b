//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"math/bits"

	"github.com/hympi/hympi/mpi/internal/channel"
	"github.com/hympi/hympi/mpi/internal/proto"
	"github.com/hympi/hympi/shm"
)

// The eager protocol over the shared region: pushing queued sends into a
// peer's channel and draining what peers published, with delivery
// (matching, completing requests) handed to arrive and fragment. What the
// descriptors of each kind look like, how a message is cut into them and
// how a stream is checked and reassembled is package proto's (eager.go).

func trailingZeros64(x uint64) int { return bits.TrailingZeros64(x) }

// directNever is the threshold reported while every size goes through shared
// memory.
const directNever = int(^uint(0) >> 1)

// The channel ends (mpi/internal/channel), over this package's requests
// and unexpected messages.
type (
	outChan  = channel.Out[Request]
	inChan   = channel.In[Request, unexpected]
	inflight = proto.Flight[Request, unexpected]
)

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
	if oc.Head != nil || len(buf) > shm.InlineMax || (oc.Prod == nil && !e.openOut(oc)) {
		return len(buf) > shm.InlineMax && e.trySendSpan(oc, ctx, tag, buf)
	}
	slot := oc.Prod.Reserve()
	if slot == nil {
		return false
	}
	shm.EncodeInline(slot, ctx, int32(tag), uint32(len(buf)))
	shm.CopySmall(shm.InlineArea(slot), buf)
	if e.checksum {
		d := shm.Desc{Kind: shm.KindInline, Ctx: ctx, Tag: int32(tag), MsgLen: uint64(len(buf)), FragLen: uint32(len(buf))}
		shm.SetDescSum(slot, shm.MessageSum(&d, buf))
	}
	oc.Prod.Publish(slot)
	// notify, inlined: its call was ~25 instructions of a ~290-instruction
	// send.
	oc.Summary.Mark(e.rank)
	oc.Bell.Ring()
	c := &e.eps[oc.Peer].Counters
	c.EagerMsgs++
	c.EagerBytes += uint64(len(buf))
	return true
}

// trySendSpan is trySendInline for a message of InlineMax+1 to SpanMax
// bytes: published at once as a span over consecutive slots
// (shm/span.go), as the C ABI's fast lane sends it, instead of a cell of
// the pool and its return through the return ring, which cost a 2 KiB
// round trip more than twice the instructions. Only when the peer has
// answered since our last such send (answered): a send that waits for
// the reply to its predecessor is latency-bound, where the span's
// fewer instructions and cache lines count; a stream of sends (osu_bw's
// window) goes by cells, whose FIFO pool lets each cell go cold in the
// receiver's cache before it is rewritten, where the ring's slots come
// round four times as often (timed under load: spans 0.5-0.8x cells'
// rate at 2-4 KiB). Declines (the send is queued and goes by cells)
// where spanOK does, or at the ring's end. Apart from trySendInline, so
// that the inline case pays nothing for it.
func (e *engine) trySendSpan(oc *outChan, ctx uint32, tag int, buf []byte) bool {
	if oc.Head != nil || len(buf) <= shm.InlineMax || !e.spanOK(oc.Peer, len(buf)) || !e.answered(oc.Peer) ||
		(oc.Prod == nil && !e.openOut(oc)) || !oc.Prod.PutSpan(ctx, int32(tag), buf) {
		return false
	}
	oc.Summary.Mark(e.rank)
	oc.Bell.Ring()
	c := &e.eps[oc.Peer].Counters
	c.EagerMsgs++
	c.EagerBytes += uint64(len(buf))
	return true
}

// answered reports whether anything came from world rank peer since the
// last time it was asked about peer: whether this rank's read position
// in peer's channel moved. A channel not yet found has position 0.
func (e *engine) answered(peer int) bool {
	var at uint64
	if in := e.eps[peer].In; in != nil {
		at = in.Cons.Pos()
	}
	if e.spanIn == nil {
		e.spanIn = make([]uint64, e.size)
	}
	moved := at != e.spanIn[peer]
	e.spanIn[peer] = at
	return moved
}

// spanOK reports whether a message of n > InlineMax bytes to world rank
// peer may travel as a span: at most SpanMax, only where useDirect sends
// eager whatever the skew controller says (flSpan's rule, so that Go and
// C choose alike, and a span skips nothing useDirect would have counted),
// and not under checksums (a span carries no sum).
func (e *engine) spanOK(peer, n int) bool {
	if n > shm.SpanMax || e.checksum {
		return false
	}
	x := e.eps[peer]
	return !x.DirectOK || e.mode == directOff || (e.mode == directAuto && x.Sk.Ready && n <= x.Sk.Base)
}

// enqueueSend queues a send request toward its peer and pushes what fits.
func (e *engine) enqueueSend(oc *outChan, r *Request) {
	if e.useDirect(oc.Peer, r.ctx, len(r.sbuf)) {
		e.startDirectSend(r)
	} else {
		c := &e.eps[oc.Peer].Counters
		c.EagerMsgs++
		c.EagerBytes += uint64(len(r.sbuf))
		if e.pairEager && len(r.sbuf) >= e.collEagerLo && isCollCtx(r.ctx) {
			e.enqueueEagerTimed(oc, r)
			return
		}
	}
	e.enqueue(oc, r)
}

// enqueue appends r to the peer's send queue and pushes what fits.
func (e *engine) enqueue(oc *outChan, r *Request) {
	if oc.Tail == nil {
		oc.Head = r
		e.flOut(oc)
	} else {
		oc.Tail.sendNext = r
	}
	oc.Tail = r
	e.markSending(oc)
	e.push(oc)
}

func (e *engine) markSending(oc *outChan) {
	if !oc.Queued {
		oc.Queued = true
		e.sending = append(e.sending, oc)
		e.flBusy()
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
		if oc.Head != nil || len(oc.Ctl) > 0 || len(oc.CollQ) > 0 {
			keep = append(keep, oc)
		} else {
			oc.Queued = false
		}
	}
	clear(e.sending[len(keep):])
	e.sending = keep
	e.flBusy()
	return did
}

// push hands as much queued traffic to the channel as slots and cells allow.
func (e *engine) push(oc *outChan) bool {
	if !e.openOut(oc) {
		return false
	}
	published := len(oc.CollQ) > 0 && e.pushColl(oc)
	for len(oc.Ctl) > 0 {
		slot := oc.Prod.Reserve()
		if slot == nil {
			break
		}
		shm.EncodeDesc(slot, &oc.Ctl[0])
		if e.checksum {
			shm.SetDescSum(slot, shm.MessageSum(&oc.Ctl[0], nil))
		}
		oc.Prod.Publish(slot)
		oc.Ctl = oc.Ctl[1:]
		published = true
	}
	for oc.Head != nil && len(oc.Ctl) == 0 {
		r := oc.Head
		if !e.pushOne(oc, r) {
			break
		}
		published = true
		if r.sent < len(r.sbuf) || !r.started {
			continue
		}
		oc.Head = r.sendNext
		if oc.Head == nil {
			oc.Tail = nil
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
		oc.Notify(e.rank)
	}
	return published
}

// pushOne publishes the next descriptor of r, reporting false when the
// channel has no room.
func (e *engine) pushOne(oc *outChan, r *Request) bool {
	slot := oc.Prod.Reserve()
	if slot == nil {
		return false
	}
	d := proto.Envelope(r.ctx, int32(r.m.Tag), len(r.sbuf), r.syncID, r.sync)
	if r.direct && r.resendID == 0 {
		proto.RTS(&d, r.addr)
		shm.EncodeDesc(slot, &d)
		if e.checksum {
			shm.SetDescSum(slot, shm.MessageSum(&d, nil))
		}
		oc.Prod.Publish(slot)
		r.started, r.sent = true, len(r.sbuf)
		return true
	}
	if r.resendID != 0 {
		proto.Resend(&d, r.resendID)
	} else if proto.Inline(&d, r.started, len(r.sbuf)) {
		shm.EncodeDesc(slot, &d)
		copy(shm.InlineArea(slot), r.sbuf)
		if e.checksum {
			shm.SetDescSum(slot, shm.MessageSum(&d, r.sbuf))
		}
		oc.Prod.Publish(slot)
		r.started, r.sent = true, len(r.sbuf)
		return true
	}
	cell, ok, err := oc.Pool.Get()
	if err != nil {
		e.corrupt(err)
		return false
	}
	if !ok {
		return false
	}
	n := copy(oc.Ch.Cell(cell), r.sbuf[r.sent:])
	proto.Fragment(&d, !r.started, cell, n)
	shm.EncodeDesc(slot, &d)
	if e.checksum {
		shm.SetDescSum(slot, shm.MessageSum(&d, r.sbuf[r.sent:r.sent+n]))
	}
	oc.Prod.Publish(slot)
	r.started = true
	r.sent += n
	return true
}

// drain takes what a peer has published, up to drainBudget descriptors.
func (e *engine) drain(ic *inChan) bool {
	collDid := !e.collHold && e.drainColl(ic)
	n := 0
	for ; n < drainBudget; n++ {
		slot, err := ic.Cons.Peek()
		if err != nil {
			e.corrupt(err)
			return n > 0
		}
		if slot == nil {
			break
		}
		d, err := shm.DecodeDesc(slot, ic.Lim)
		if err == nil && d.Kind == shm.KindInline && ic.Cur == nil && !e.checksum {
			// deliver's commonest case without its dispatch: a whole
			// message in the slot, matched or filed at once.
			e.arrive(ic.Peer, &d, shm.InlinePayload(slot, &d), nil)
			ic.Cons.Release()
			continue
		}
		if err == nil && d.Kind == shm.KindSpan {
			if err = e.span(ic, &d); err == nil {
				continue
			}
		}
		var payload []byte
		if err == nil {
			payload = proto.Payload(ic.Ch, slot, &d)
			if e.checksum {
				payload, err = e.checkSum(ic, slot, &d, payload)
			}
		}
		if err == nil {
			err = e.deliver(ic, &d, payload)
		}
		ic.Cons.Release()
		if err != nil {
			e.corrupt(fmt.Errorf("from rank %d: %w", ic.Peer, err))
			return true
		}
	}
	if n == 0 && !collDid {
		ic.Idle++
		if ic.Idle >= idlePolls {
			ic.Idle = 0
			e.summary.Clear(ic.Peer)
			// A publish may have raced with the clear, seeing the bit
			// still set: look once more and restore the bit if so.
			if ic.Cons.Ready() || ic.Coll.Ready() {
				e.summary.Mark(ic.Peer)
			}
		}
		return false
	}
	ic.Idle = 0
	// The sender may be waiting for the slots or cells we just freed.
	ic.Bell.Ring()
	return true
}

// deliver handles one validated descriptor from ic, whose payload is
// payload.
func (e *engine) deliver(ic *inChan, d *shm.Desc, payload []byte) error {
	switch d.Kind {
	case shm.KindInline:
		if ic.Cur != nil {
			return proto.ErrStreaming
		}
		e.arrive(ic.Peer, d, payload, nil)
	case shm.KindRTS:
		if ic.Cur != nil {
			return proto.ErrStreaming
		}
		e.arrive(ic.Peer, d, nil, nil)
	case shm.KindFin:
		if r := e.takeSync(d.ReqID); r != nil && r.direct {
			e.finishDirectSend(r)
		}
	case shm.KindNack:
		e.nacked(d)
	case shm.KindFirst:
		if ic.Cur != nil {
			return proto.ErrStreaming
		}
		if d.Flags&shm.FlagResend != 0 {
			return e.resendArrived(ic, d, payload)
		}
		f := proto.Start[Request, unexpected](d)
		ic.Cur = f
		e.flStream(ic)
		e.arrive(ic.Peer, d, nil, f)
		e.fragment(ic, d, payload)
	case shm.KindNext:
		if err := ic.Cur.Follows(d); err != nil {
			return err
		}
		e.fragment(ic, d, payload)
	case shm.KindAck:
		e.acked(d.ReqID)
	case shm.KindCancel:
		e.cancelAsked(ic.Peer, d.ReqID)
	case shm.KindCancelReply:
		e.cancelAnswered(d.ReqID, d.Tag == 1)
	default:
		return fmt.Errorf("%w: unexpected kind %d", shm.ErrBadDesc, d.Kind)
	}
	return nil
}

// span delivers the multi-slot message d heads on ic (shm/span.go) and
// hands its slots back; on an error nothing was taken.
func (e *engine) span(ic *inChan, d *shm.Desc) error {
	if ic.Cur != nil {
		return proto.ErrStreaming
	}
	if e.checksum {
		// A span carries no payload sum: no hympi rank sends one under
		// checksums (spanOK, and C runs no fast lane then).
		return fmt.Errorf("%w: span without a payload sum", shm.ErrBadDesc)
	}
	k := shm.SpanSlots(int(d.FragLen))
	slots, err := ic.Cons.PeekSpan(k)
	if err != nil {
		return err
	}
	e.arriveSpan(ic.Peer, d, slots)
	ic.Cons.ReleaseSpan(k)
	return nil
}

// fragment copies one cell of the streaming message, src, to its
// destination and returns the cell.
func (e *engine) fragment(ic *inChan, d *shm.Desc, src []byte) {
	f := ic.Cur
	off := f.Got
	switch {
	case f.Req != nil:
		if off < uint64(len(f.Req.buf)) {
			copy(f.Req.buf[off:], src)
		}
	case f.Un != nil:
		copy(f.Un.data[off:], src)
	}
	// Give the cell back at once rather than at the end of the pass: a
	// sender streaming a large message is waiting for exactly this.
	ic.Returns.Put(d.Cell)
	ic.Returns.Publish()
	if !f.Advance(d.FragLen) {
		return
	}
	ic.Cur = nil
	e.flStream(ic)
	switch {
	case f.Req != nil:
		e.finishRecv(f.Req, ic.Peer, f.Tag, int(f.Total))
	case f.Un != nil:
		f.Un.flight = nil
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
	oc.Ctl = append(oc.Ctl, d)
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
