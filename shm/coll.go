package shm

import (
	"encoding/binary"
	"fmt"
)

// The collective microchannel of a channel (the thesis's per-channel
// collective receive structure): a ring of CollSlots slots of CollSlotSize
// bytes at CollOff, beside the descriptor ring and apart from it, used only
// by the offload engine for collective messages of up to CollMsgMax bytes.
// The ring protocol is the descriptor ring's (fifo.go): the same publish
// word at the start of each slot, the same writers, readers and orderings;
// only the slot size differs.
//
// A message of up to CollInlineMax bytes takes one slot; a longer one (up
// to CollMsgMax) a span of CollSpanSlots(n) consecutive ring positions,
// its payload running on from the head's over the positions after it in
// one piece (two when the span wraps the ring's end), their publish words
// included. Before spans every collective message above one slot went
// through the descriptor ring as a point-to-point message, and at 1 KiB a
// 2-rank collective cost 1.5-3x Open MPI's time where at 8 B it was at
// par. The payload is in one piece rather than slot by slot after each
// slot's own publish word (the descriptor ring's spans, span.go) because a
// copy per slot cost Go ~100 instructions a slot (make
// bench-callgrind-coll, 1 KiB: Go's Bcast took more instructions on spans
// of that kind than on the descriptor ring).
//
// Head slot layout (little-endian):
//
//	0  uint64 publish word (fifo.go)
//	8  uint32 context (the communicator's collective context)
//	12 int32  tag (the collective's sequence number on the communicator)
//	16 uint32 payload length n, at most CollMsgMax
//	20 uint32 reserved: zero, or the payload's CRC-32C when the job checksums (sum.go)
//	24 payload: n bytes, running on over the next CollSpanSlots(n)-1
//	   positions' slots, from the ring's first byte on past its end
//
// Writer: the sending rank. It checks that all k positions of the span
// are free for their laps (2L), writes the payload and envelope and then,
// last, the head's publish word with a release store: a receiver's acquire
// load that sees the head published sees the whole span, so no torn span
// can be consumed. Reader: the receiving rank, after that acquire load; it
// validates the length before it computes k or slices anything, copies the
// payload out, and then hands the k positions back (2L+2 each): the
// continuations first, the head last. That order is what keeps a
// continuation's publish word, which holds payload bytes while the span is
// in flight and may look "free" for the next lap, from letting the
// producer reuse it early: the producer reaches a continuation only after
// (or while) checking the span's head position for the same lap, and finds
// the head free only once every continuation has been handed back (its
// acquire load pairs with the release store of the head). Every message of
// one collective between a pair travels this ring or the descriptor ring
// (mpi/coll_ring.go), never both, so their order is the order of
// publishing.
const (
	collCtx    = 8
	collTag    = 12
	collLen    = 16
	collRsvd   = 20
	collHeader = 24

	// CollInlineMax is the largest collective payload one slot carries.
	CollInlineMax = CollSlotSize - collHeader
	// CollMsgMax is the largest collective message the ring carries (a
	// span); larger ones take the descriptor ring. 8 KiB covers the sizes
	// where the descriptor ring's per-message cost dominated, and a span
	// of it (CollSpanMaxSlots) still leaves most of the ring to the next.
	CollMsgMax = 8192
	// CollSpanMaxSlots is the most positions one message takes.
	CollSpanMaxSlots = (collHeader + CollMsgMax + CollSlotSize - 1) / CollSlotSize
)

// A span must fit the ring, or a producer would wait for ever for room.
var _ [CollSlots - CollSpanMaxSlots]struct{}

// CollSpanSlots is the number of ring positions a collective message of n
// bytes (0 <= n <= CollMsgMax) takes.
func CollSpanSlots(n int) int { return (collHeader + n + CollSlotSize - 1) / CollSlotSize }

// CollDesc is the envelope of one collective message.
type CollDesc struct {
	Ctx uint32
	Tag int32
	Len uint32
}

func (c Channel) collSlots() []byte {
	return c.r.bytesAt(c.base+c.r.L.CollOff, CollSlots*CollSlotSize)
}

// CollProducer returns the sending end of the collective microchannel.
// Exactly one per channel may exist in the job (in the sender's process).
func (c Channel) CollProducer() *Producer {
	return newProducer(c.collSlots(), CollSlots, CollSlotSize)
}

// CollConsumer returns the receiving end of the collective microchannel.
func (c Channel) CollConsumer() *Consumer {
	return newConsumer(c.collSlots(), CollSlots, CollSlotSize)
}

// PutColl publishes one collective message, d's envelope (d.Len ==
// len(payload) <= CollMsgMax) with sum in the reserved word (0 unless the
// job checksums), in the CollSpanSlots positions at the ring's tail;
// false, with nothing written, when any of them is not free yet.
func (p *Producer) PutColl(d CollDesc, payload []byte, sum uint32) bool {
	pos := *p.pos
	head := p.slot(pos)
	// Acquire (each word here, in ring order: the head's first, see
	// above): the consumer is done reading the position's previous
	// contents.
	if seqOf(head).Load() != 2*(pos>>p.shift) {
		return false
	}
	k := uint64(1)
	if len(payload) > CollInlineMax {
		if len(payload) > CollMsgMax {
			panic("shm: collective message over CollMsgMax")
		}
		k = uint64(CollSpanSlots(len(payload)))
		for q := pos + 1; q < pos+k; q++ {
			if seqOf(p.slot(q)).Load() != 2*(q>>p.shift) {
				return false
			}
		}
		// To the ring's end, and the rest (if any) from its start.
		m := copy(p.slots[(pos&p.mask)*p.size+collHeader:], payload)
		copy(p.slots, payload[m:])
	} else {
		copy(head[collHeader:], payload)
	}
	binary.LittleEndian.PutUint32(head[collCtx:], d.Ctx)
	binary.LittleEndian.PutUint32(head[collTag:], uint32(d.Tag))
	binary.LittleEndian.PutUint32(head[collLen:], d.Len)
	binary.LittleEndian.PutUint32(head[collRsvd:], sum)
	// Release, last: everything above happens before the consumer's
	// acquire load sees the head published.
	seqOf(head).Store(2*(pos>>p.shift) + 1)
	*p.pos = pos + k
	return true
}

// CollSpan returns how many positions the n-byte message whose head Peek
// just returned takes (n from DecodeColl; larger than CollMsgMax is an
// error, ErrBadDesc).
func (c *Consumer) CollSpan(n uint32) (int, error) {
	if n > CollMsgMax {
		return 0, fmt.Errorf("%w: collective payload of %d bytes (max %d)", ErrBadDesc, n, CollMsgMax)
	}
	return CollSpanSlots(int(n)), nil
}

// GatherColl copies the payload of the message at the head, len(dst)
// bytes (its length, at most CollMsgMax), into dst.
func (c *Consumer) GatherColl(dst []byte) {
	if len(dst) > CollMsgMax {
		panic("shm: collective message over CollMsgMax")
	}
	m := copy(dst, c.slots[(*c.pos&c.mask)*c.size+collHeader:])
	copy(dst[m:], c.slots)
}

// ReleaseColl hands the k positions of the message at the head back to
// the producer: the continuations, then the head (see above).
func (c *Consumer) ReleaseColl(k int) {
	pos := *c.pos
	for q := pos + 1; q < pos+uint64(k); q++ {
		seqOf(c.slot(q)).Store(2 * (q>>c.shift + 1)) // release: as Release's
	}
	seqOf(c.slot(pos)).Store(2 * (pos>>c.shift + 1))
	*c.pos = pos + uint64(k)
}

// EncodeColl writes d and payload into a reserved collective slot, a
// message of one slot (PutColl's short form, for a caller that reserves
// and publishes the slot itself). The caller guarantees len(payload) <=
// CollInlineMax (and d.Len equal to it).
func EncodeColl(slot []byte, d CollDesc, payload []byte) {
	binary.LittleEndian.PutUint32(slot[collCtx:], d.Ctx)
	binary.LittleEndian.PutUint32(slot[collTag:], uint32(d.Tag))
	binary.LittleEndian.PutUint32(slot[collLen:], d.Len)
	binary.LittleEndian.PutUint32(slot[collRsvd:], 0)
	copy(slot[collHeader:], payload)
}

// DecodeColl reads and validates the envelope of a published collective
// head slot and returns it with a view of the payload's part in the head
// (all of it when d.Len <= CollInlineMax; valid until Release). A longer
// message's span is CollSpan's to check and GatherColl's to copy.
func DecodeColl(slot []byte) (CollDesc, []byte, error) {
	d, payload, err := DecodeCollSummed(slot)
	if err == nil && binary.LittleEndian.Uint32(slot[collRsvd:]) != 0 {
		return CollDesc{}, nil, fmt.Errorf("%w: collective slot reserved word set", ErrBadDesc)
	}
	return d, payload, err
}

// DecodeCollSummed is DecodeColl for a job that checksums payloads, whose
// reserved word holds the sum (CollSum), which the caller checks.
func DecodeCollSummed(slot []byte) (CollDesc, []byte, error) {
	if len(slot) < CollSlotSize {
		return CollDesc{}, nil, fmt.Errorf("%w: collective slot of %d bytes", ErrBadDesc, len(slot))
	}
	d := CollDesc{
		Ctx: binary.LittleEndian.Uint32(slot[collCtx:]),
		Tag: int32(binary.LittleEndian.Uint32(slot[collTag:])),
		Len: binary.LittleEndian.Uint32(slot[collLen:]),
	}
	if d.Len > CollMsgMax {
		return CollDesc{}, nil, fmt.Errorf("%w: collective payload of %d bytes (max %d)", ErrBadDesc, d.Len, CollMsgMax)
	}
	n := min(d.Len, CollInlineMax)
	return d, slot[collHeader : collHeader+n : collHeader+n], nil
}

// EncodeCollMsg is EncodeColl for a fast path: the envelope in two
// stores (reserved word zero) and the payload behind it. The caller
// guarantees len(payload) <= CollInlineMax.
func EncodeCollMsg(slot []byte, ctx uint32, tag int32, payload []byte) {
	_ = slot[CollSlotSize-1]
	le := binary.LittleEndian
	le.PutUint64(slot[collCtx:], uint64(ctx)|uint64(uint32(tag))<<32)
	le.PutUint64(slot[collLen:], uint64(uint32(len(payload))))
	copy(slot[collHeader:], payload)
}

// CollMsgIs reports, with two loads, whether a published collective slot
// holds exactly the envelope ctx, tag and n (reserved word zero, as
// DecodeColl wants it). When it does, slot[CollHeader:][:n] is the
// payload: n <= CollInlineMax is the caller's to guarantee (it expects n
// bytes), so nothing a peer wrote decides what is read.
func CollMsgIs(slot []byte, ctx uint32, tag int32, n int) bool {
	_ = slot[CollSlotSize-1]
	le := binary.LittleEndian
	return le.Uint64(slot[collCtx:]) == uint64(ctx)|uint64(uint32(tag))<<32 &&
		le.Uint64(slot[collLen:]) == uint64(uint32(n))
}

// CollHeader is where a collective slot's payload starts.
const CollHeader = collHeader
