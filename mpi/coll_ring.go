//go:build !ompi && !mpich

package mpi

import (
	"fmt"

	"github.com/hympi/hympi/shm"
)

// The collective microchannel on the engine's side. A collective whose
// messages are all small (up to shm.CollMsgMax bytes: one slot up to
// shm.CollInlineMax, a span of slots above; barriers, broadcasts and
// reductions of up to 8 KiB, context agreement) sends them on the pair's
// collective ring, never on the descriptor ring, so it never waits behind
// a point-to-point stream in progress toward the same peer, and the direct
// run and C's plans serve it. Larger collectives use the descriptor ring
// (cells, direct copy) on the same collective context. Either way an
// arrival is filed under the collective context, where only collectives
// look.
//
// All ranks pick the same ring for a given collective (the choice depends
// only on sizes MPI requires to agree), so the messages of one collective
// between a pair all travel one ring, in order, which is what matching by
// (source, tag) relies on.

// sendColl hands a collective message to the peer's collective ring, or
// queues it behind earlier ones when the ring is full. r completes when
// the payload is in the ring.
func (e *engine) sendColl(oc *outChan, r *Request) {
	if len(oc.CollQ) == 0 && e.putColl(oc, r) {
		oc.Notify(e.rank)
		return
	}
	oc.CollQ = append(oc.CollQ, r)
	e.flCollOut(oc)
	e.markSending(oc)
}

// putColl publishes r in a free collective slot, reporting false when the
// ring is full.
func (e *engine) putColl(oc *outChan, r *Request) bool {
	if !e.publishColl(oc, r.ctx, r.m.Tag, r.sbuf) {
		return false
	}
	r.pushed = true
	r.checkSendDone()
	return true
}

// publishColl writes one message into oc's collective ring, opening the
// channel first if need be; false when the channel or a slot is not there.
func (e *engine) publishColl(oc *outChan, ctx uint32, tag int, buf []byte) bool {
	if !e.openOut(oc) {
		return false
	}
	cd := shm.CollDesc{Ctx: ctx, Tag: int32(tag), Len: uint32(len(buf))}
	if len(buf) > shm.CollInlineMax {
		var sum uint32
		if e.checksum {
			sum = shm.CollSumOf(cd, buf)
		}
		return oc.CollProd.PutColl(cd, buf, sum)
	}
	// One slot: Reserve and Publish inline, which PutColl (a call) does
	// not (make bench-callgrind-coll counted the difference).
	slot := oc.CollProd.Reserve()
	if slot == nil {
		return false
	}
	shm.EncodeColl(slot, cd, buf)
	if e.checksum {
		shm.SetCollSum(slot, shm.CollSumOf(cd, buf))
	}
	oc.CollProd.Publish(slot)
	return true
}

// pushColl moves queued collective messages into freed slots.
func (e *engine) pushColl(oc *outChan) bool {
	k := 0
	for k < len(oc.CollQ) && e.putColl(oc, oc.CollQ[k]) {
		oc.CollQ[k] = nil
		k++
	}
	// Shift the rest down rather than reslicing forward, so the queue
	// keeps its array: a root that runs ahead of its children fills the
	// ring again and again, and must not allocate each time it does.
	rest := copy(oc.CollQ, oc.CollQ[k:])
	clear(oc.CollQ[rest:])
	oc.CollQ = oc.CollQ[:rest]
	e.flCollOut(oc)
	return k > 0
}

// drainColl takes what a peer published on its collective ring, up to
// drainBudget messages, and files each under its collective context.
func (e *engine) drainColl(ic *inChan) bool {
	n := 0
	for ; n < drainBudget; n++ {
		slot, err := ic.Coll.Peek()
		if err != nil {
			e.corrupt(err)
			return n > 0
		}
		if slot == nil {
			break
		}
		d, payload, k, err := e.decodeColl(ic, slot)
		if err == nil && d.Ctx&1 == 0 {
			err = fmt.Errorf("%w: collective message on point-to-point context %d", shm.ErrBadDesc, d.Ctx)
		}
		if err != nil {
			ic.Coll.Release()
			e.corrupt(fmt.Errorf("from rank %d: %w", ic.Peer, err))
			return true
		}
		desc := shm.Desc{Kind: shm.KindInline, Ctx: d.Ctx, Tag: d.Tag, MsgLen: uint64(d.Len), FragLen: d.Len}
		e.arrive(ic.Peer, &desc, payload, nil)
		ic.Coll.ReleaseColl(k)
	}
	if n > 0 {
		// The sender may be waiting for the slots we just freed.
		ic.Bell.Ring()
	}
	return n > 0
}

// decodeColl decodes the collective message at the head of ic's ring,
// slot, and, when the job checksums, verifies its payload; k is how many
// ring positions it takes. A span's payload is gathered into e.sumBuf
// (a private copy, as checkSum's), which arrive copies out of.
func (e *engine) decodeColl(ic *inChan, slot []byte) (d shm.CollDesc, payload []byte, k int, err error) {
	if !e.checksum {
		d, payload, err = shm.DecodeColl(slot)
	} else {
		d, payload, err = shm.DecodeCollSummed(slot)
	}
	if err != nil {
		return d, nil, 1, err
	}
	k = 1
	if d.Len > shm.CollInlineMax {
		if k, err = ic.Coll.CollSpan(d.Len); err != nil {
			return d, nil, 1, err
		}
	}
	if k == 1 && !e.checksum {
		return d, payload, 1, nil
	}
	if cap(e.sumBuf) < int(d.Len) {
		e.sumBuf = make([]byte, max(int(d.Len), e.region.L.CellSize, shm.InlineMax, shm.CollMsgMax))
	}
	if k == 1 {
		payload = e.sumBuf[:copy(e.sumBuf[:len(payload)], payload)]
	} else {
		payload = e.sumBuf[:d.Len]
		ic.Coll.GatherColl(payload)
	}
	if e.checksum {
		if got, want := shm.CollSumOf(d, payload), shm.CollSum(slot); got != want {
			return d, nil, k, e.sumMismatch(ic.Peer, d.Tag, got, want)
		}
	}
	return d, payload, k, nil
}
