package shm

import (
	"encoding/binary"
	"fmt"
)

// A span (KindSpan) is one message laid across k consecutive slots of a
// descriptor ring, for sizes between InlineMax and SpanMax: the head slot
// carries the envelope and the first SpanHeadMax bytes from DescHeaderSize
// on (its extension line too: a span has no flags), and each following slot
// SpanNextMax more from byte 8, after its own publish word. The producer
// checks that all k slots are free for the current lap, fills them, stores
// 2L+1 in each continuation slot's word and publishes the head last, so a
// consumer that sees the head published may read the whole span; it hands
// all k slots back (2L+2 each) once it has copied the payload. A span never
// wraps the ring's end (the producer sends such a message another way), so
// its slots are contiguous and share one lap.
//
// Keeping each continuation slot's publish word meaningful (instead of
// running the payload over it) matters: a free-looking word inside a span
// in flight would let the producer's next lap overwrite it early.
const (
	// SpanMax is the largest message a span carries.
	SpanMax = 4096
	// SpanHeadMax and SpanNextMax are the payload bytes of a span's head
	// slot and of each continuation slot.
	SpanHeadMax = SlotSize - DescHeaderSize
	SpanNextMax = SlotSize - 8
)

// SpanSlots is the number of slots a span of n bytes occupies (n > InlineMax).
func SpanSlots(n int) int {
	if n <= SpanHeadMax {
		return 1
	}
	return 1 + (n-SpanHeadMax+SpanNextMax-1)/SpanNextMax
}

// PeekSpan returns the k slots of the span whose head Peek just returned,
// checking that they lie before the ring's end and that every continuation
// slot is published for this lap; an error means a corrupt ring.
func (c *Consumer) PeekSpan(k int) ([]byte, error) {
	pos := *c.pos
	i := pos & c.mask
	if k < 1 || i+uint64(k) > c.n {
		return nil, fmt.Errorf("%w: span of %d slots at ring position %d of %d", ErrCorrupt, k, i, c.n)
	}
	want := 2*(pos>>c.shift) + 1
	for j := 1; j < k; j++ {
		if seqOf(c.slot(pos+uint64(j))).Load() != want { // acquire, as Peek's
			return nil, fmt.Errorf("%w: span continuation at ring position %d", ErrCorrupt, i+uint64(j))
		}
	}
	z := c.size
	return c.slots[i*z : (i+uint64(k))*z : (i+uint64(k))*z], nil
}

// ReleaseSpan hands the k slots of the span at the head back to the
// producer (Release for each).
func (c *Consumer) ReleaseSpan(k int) {
	for ; k > 0; k-- {
		c.Release()
	}
}

// GatherSpan copies the n-byte payload of the span in slots (from
// PeekSpan) to dst, which holds at least n bytes.
func GatherSpan(dst, slots []byte, n int) {
	m := copy(dst[:min(n, SpanHeadMax)], slots[DescHeaderSize:SlotSize])
	for s := SlotSize; m < n; s += SlotSize {
		m += copy(dst[m:n], slots[s+8:s+SlotSize])
	}
}

// PutSpan publishes payload (InlineMax < len <= SpanMax) as a span of
// context ctx and tag at the producer's position, the way the C fast lane
// does: every slot checked free for this lap, the continuation slots filled
// and their words stored, the head filled and published last. false, with
// nothing written, when the span would cross the ring's end (the caller
// sends the message another way) or a slot is still the consumer's.
func (p *Producer) PutSpan(ctx uint32, tag int32, payload []byte) bool {
	n := len(payload)
	k := uint64(SpanSlots(n))
	pos := *p.pos
	i := pos & p.mask
	if i+k > p.n || p.size != SlotSize {
		return false
	}
	lap := 2 * (pos >> p.shift)
	slots := p.slots[i*SlotSize : (i+k)*SlotSize]
	for s := uint64(0); s < uint64(len(slots)); s += SlotSize {
		// Acquire, as Reserve's: the consumer is done with the slot's
		// last lap before we overwrite it.
		if seqOf(slots[s:]).Load() != lap {
			return false
		}
	}
	EncodeSpanHead(slots, ctx, tag, uint32(n))
	m := copy(slots[DescHeaderSize:SlotSize], payload)
	for s := uint64(SlotSize); m < n; s += SlotSize {
		m += copy(slots[s+8:s+SlotSize], payload[m:])
		// Before the head's publish below, which makes it visible.
		seqOf(slots[s:]).Store(lap + 1)
	}
	seqOf(slots).Store(lap + 1)
	*p.pos = pos + k
	return true
}

// EncodeSpanHead writes the envelope of a span of n bytes into its head
// slot: EncodeInline's two stores with the span's kind.
func EncodeSpanHead(slot []byte, ctx uint32, tag int32, n uint32) {
	_ = slot[SlotSize-1]
	le := binary.LittleEndian
	le.PutUint64(slot[descKind:], uint64(KindSpan)|uint64(ctx)<<32)
	le.PutUint64(slot[descTag:], uint64(uint32(tag))|uint64(n)<<32)
}

// DecodeSpanHead is DecodeDesc's span case for fast paths: ok when slot
// heads a span without flags of a valid length, n bytes.
func DecodeSpanHead(slot []byte) (ctx uint32, tag int32, n uint32, ok bool) {
	_ = slot[SlotSize-1]
	le := binary.LittleEndian
	if Kind(slot[descKind]) != KindSpan || slot[descFlags] != 0 {
		return 0, 0, 0, false
	}
	n = le.Uint32(slot[descFragLen:])
	return le.Uint32(slot[descCtx:]), int32(le.Uint32(slot[descTag:])), n, n > InlineMax && n <= SpanMax
}

// TakeSpan copies the n-byte span whose head Head or Peek just returned
// into dst (at least n bytes) and hands its slots back: PeekSpan,
// GatherSpan and ReleaseSpan in one pass, for the receive fast paths. An
// error (the span runs past the ring's end, or a continuation slot is not
// published for the lap: a corrupt ring) takes nothing.
func (c *Consumer) TakeSpan(dst []byte, n int) error {
	k := uint64(SpanSlots(n))
	pos := *c.pos
	i := pos & c.mask
	if i+k > c.n || c.size != SlotSize {
		return fmt.Errorf("%w: span of %d slots at ring position %d of %d", ErrCorrupt, k, i, c.n)
	}
	want := 2*(pos>>c.shift) + 1
	slots := c.slots[i*SlotSize : (i+k)*SlotSize]
	for s := uint64(SlotSize); s < uint64(len(slots)); s += SlotSize {
		if seqOf(slots[s:]).Load() != want { // acquire, as Peek's
			return fmt.Errorf("%w: span continuation at ring position %d", ErrCorrupt, i+s/SlotSize)
		}
	}
	GatherSpan(dst, slots, n)
	*c.pos = pos + k
	for s := uint64(0); s < uint64(len(slots)); s += SlotSize {
		// Release, as Release's: the copy above happens before the
		// producer sees the slot free for its next lap.
		seqOf(slots[s:]).Store(want + 1)
	}
	return nil
}

// Pos is the consumer's read position: how many slots it has taken off
// the ring. A sender compares it between its sends to the same peer to
// tell whether the peer answered in between (mpi's trySendSpan).
func (c *Consumer) Pos() uint64 { return *c.pos }
