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
// which may wrap the ring's end (each position is a slot of its own lap).
// Before this every collective message above one slot went through the
// descriptor ring as a point-to-point message, and at 1 KiB a 2-rank
// collective cost 1.5-3x Open MPI's time where at 8 B it was at par.
//
// Head slot layout (little-endian):
//
//	0  uint64 publish word (fifo.go)
//	8  uint32 context (the communicator's collective context)
//	12 int32  tag (the collective's sequence number on the communicator)
//	16 uint32 payload length n, at most CollMsgMax
//	20 uint32 reserved: zero, or the payload's CRC-32C when the job checksums (sum.go)
//	24 payload: its first min(n, CollInlineMax) bytes
//
// Continuation slot j of a span (ring position head+j, 1 <= j < k):
//
//	0  uint64 publish word: 2L+1 for its own lap L while the span is in flight
//	8  the next CollNextMax bytes of the payload (the last slot, what is left)
//
// Writer: the sending rank. It checks that all k positions are free for
// their laps (2L), fills them, stores each continuation's publish word and
// then, last, the head's with a release store, so a receiver whose acquire
// load sees the head published finds every continuation published too (one
// that is not is corruption, never a span still being written: no torn
// span is ever consumed). Reader: the receiving rank, after that acquire
// load; it validates the length before it computes k or slices anything,
// checks the continuations' words, copies the payload out, and then hands
// the k positions back (2L+2 each, in any order). A continuation's word stays
// "published" until its own release, so the producer's next lap cannot
// reuse it while the receiver still reads it. Every message of one
// collective between a pair travels this ring or the descriptor ring
// (mpi/coll_ring.go), never both, so their order is the order of publishing.
const (
	collCtx    = 8
	collTag    = 12
	collLen    = 16
	collRsvd   = 20
	collHeader = 24
	collNext   = 8 // a continuation slot's payload, after its publish word

	// CollInlineMax is the largest collective payload one slot carries.
	CollInlineMax = CollSlotSize - collHeader
	// CollNextMax is the payload a continuation slot carries.
	CollNextMax = CollSlotSize - collNext
	// CollMsgMax is the largest collective message the ring carries (a
	// span); larger ones take the descriptor ring. 8 KiB covers the sizes
	// where the descriptor ring's per-message cost dominated, and a span
	// of it (CollSpanMaxSlots) still leaves most of the ring to the next.
	CollMsgMax = 8192
	// CollSpanMaxSlots is the most positions one message takes.
	CollSpanMaxSlots = 1 + (CollMsgMax-CollInlineMax+CollNextMax-1)/CollNextMax
)

// A span must fit the ring, or a producer would wait for ever for room.
var _ [CollSlots - CollSpanMaxSlots]struct{}

// CollSpanSlots is the number of ring positions a collective message of n
// bytes (0 <= n <= CollMsgMax) takes.
func CollSpanSlots(n int) int {
	if n <= CollInlineMax {
		return 1
	}
	return 1 + (n-CollInlineMax+CollNextMax-1)/CollNextMax
}

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
	// Acquire (each word here): the consumer is done reading the
	// position's previous contents.
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
		m := CollInlineMax
		for q := pos + 1; q < pos+k; q++ {
			s := p.slot(q)
			m += copy(s[collNext:], payload[m:])
			seqOf(s).Store(2*(q>>p.shift) + 1)
		}
	}
	binary.LittleEndian.PutUint32(head[collCtx:], d.Ctx)
	binary.LittleEndian.PutUint32(head[collTag:], uint32(d.Tag))
	binary.LittleEndian.PutUint32(head[collLen:], d.Len)
	binary.LittleEndian.PutUint32(head[collRsvd:], sum)
	copy(head[collHeader:], payload)
	// Release, last: everything above happens before the consumer's
	// acquire load sees the head published.
	seqOf(head).Store(2*(pos>>p.shift) + 1)
	*p.pos = pos + k
	return true
}

// CollSpan checks the span of the n-byte message whose head Peek just
// returned (n from DecodeColl, so at most CollMsgMax) and returns how many
// positions it takes: an error (ErrCorrupt) when a continuation is not
// published for its lap.
func (c *Consumer) CollSpan(n uint32) (int, error) {
	if n <= CollInlineMax {
		return 1, nil
	}
	if n > CollMsgMax {
		return 0, fmt.Errorf("%w: collective payload of %d bytes (max %d)", ErrBadDesc, n, CollMsgMax)
	}
	k := uint64(CollSpanSlots(int(n)))
	pos := *c.pos
	for q := pos + 1; q < pos+k; q++ {
		if seqOf(c.slot(q)).Load() != 2*(q>>c.shift)+1 { // acquire, as Peek's
			return 0, fmt.Errorf("%w: collective span continuation at ring position %d", ErrCorrupt, q&c.mask)
		}
	}
	return int(k), nil
}

// GatherColl copies the payload of the message at the head, len(dst)
// bytes (its length, which CollSpan checked), into dst.
func (c *Consumer) GatherColl(dst []byte) {
	pos := *c.pos
	m := copy(dst, c.slot(pos)[collHeader:])
	for q := pos + 1; m < len(dst) && q < pos+CollSpanMaxSlots; q++ {
		m += copy(dst[m:], c.slot(q)[collNext:])
	}
}

// ReleaseColl hands the k positions of the message at the head back to
// the producer.
func (c *Consumer) ReleaseColl(k int) {
	for ; k > 0; k-- {
		c.Release()
	}
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
