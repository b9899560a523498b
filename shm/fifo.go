package shm

import (
	"fmt"
	"math/bits"
)

// The descriptor ring of a channel is single-producer/single-consumer and has
// no shared head or tail: each slot's publish word says whose turn it is. For
// the slot at ring position p (lap L = p / Slots) the word is 2L while the
// slot is free for the producer and 2L+1 once the producer published it; the
// consumer hands it to the next lap by storing 2L+2. A zero-filled region is
// therefore an empty ring, and a poll touches only the one cache line the
// next message will arrive in.
//
// Publish word of each slot:
//   writers: the producer (2L → 2L+1, release: after the envelope and payload
//            stores) and the consumer (2L+1 → 2L+2, release: after it has read
//            everything it needs from the slot);
//   readers: both, with acquire loads that pair with the other side's store.

// Producer is the sending end of one channel; it lives in the sender's
// process memory and must be used by one goroutine at a time.
type Producer struct {
	slots []byte // the channel's slot array
	mask  uint64
	n     uint64
	shift uint   // log2(n): a lap is pos>>shift (a divide cost ~40 cycles on each publish and read)
	size  uint64 // bytes per slot: SlotSize, or CollSlotSize for the collective ring
	// pos is the next position to fill. It points at own until the
	// engine moves it into its fast-lane page (FastLane.BindOut), where
	// the C ABI's hot path advances the same index.
	pos *uint64
	own uint64
}

// Consumer is the receiving end of one channel.
type Consumer struct {
	slots []byte
	mask  uint64
	n     uint64
	shift uint
	size  uint64
	pos   *uint64 // next position to read; see Producer.pos
	own   uint64
}

func newProducer(slots []byte, n, size uint64) *Producer {
	p := &Producer{slots: slots, mask: n - 1, n: n, shift: uint(bits.TrailingZeros64(n)), size: size}
	p.pos = &p.own
	return p
}

func newConsumer(slots []byte, n, size uint64) *Consumer {
	c := &Consumer{slots: slots, mask: n - 1, n: n, shift: uint(bits.TrailingZeros64(n)), size: size}
	c.pos = &c.own
	return c
}

func (p *Producer) slot(pos uint64) []byte {
	i, z := pos&p.mask, p.size
	return p.slots[i*z : (i+1)*z : (i+1)*z]
}

// Reserve returns the next slot if the consumer has freed it, or nil when the
// ring is full. The caller fills it (EncodeDesc, inline payload) and then
// calls Publish; nothing is visible to the consumer before that.
func (p *Producer) Reserve() []byte {
	pos := *p.pos
	s := p.slot(pos)
	// Pairs with the consumer's release in Release: the consumer is done
	// reading the slot's previous contents before we overwrite them.
	if seqOf(s).Load() != 2*(pos>>p.shift) {
		return nil
	}
	return s
}

// Publish makes the reserved slot visible to the consumer.
func (p *Producer) Publish(slot []byte) {
	// Release: the envelope and payload stores above happen before the
	// consumer's acquire load sees 2L+1.
	pos := *p.pos
	seqOf(slot).Store(2*(pos>>p.shift) + 1)
	*p.pos = pos + 1
}

func (c *Consumer) slot(pos uint64) []byte {
	i, z := pos&c.mask, c.size
	return c.slots[i*z : (i+1)*z : (i+1)*z]
}

// Peek returns the next published slot, or nil when the ring is empty. The
// slot stays valid (the producer cannot reuse it) until Release. A publish
// word that is neither "free" nor "published" for this lap means a peer
// corrupted the ring.
func (c *Consumer) Peek() ([]byte, error) {
	pos := *c.pos
	s := c.slot(pos)
	lap := 2 * (pos >> c.shift)
	switch seqOf(s).Load() { // acquire: pairs with Publish
	case lap + 1:
		return s, nil
	case lap:
		return nil, nil
	}
	return nil, fmt.Errorf("%w: descriptor ring position %d", ErrCorrupt, pos)
}

// Head is Peek for a fast path that can leave every other case to Peek:
// the published slot at the head, or nil (empty, or a publish word Peek
// reports as corrupt). Small enough to inline.
func (c *Consumer) Head() []byte {
	pos := *c.pos
	s := c.slot(pos)
	if seqOf(s).Load() != 2*(pos>>c.shift)+1 { // acquire: pairs with Publish
		return nil
	}
	return s
}

// ReleaseHead is Release of s, the slot Head or Peek just returned,
// without finding it again.
func (c *Consumer) ReleaseHead(s []byte) {
	pos := *c.pos
	*c.pos = pos + 1
	seqOf(s).Store(2 * (pos>>c.shift + 1)) // release: as in Release
}

// Ready reports, with one load, whether Peek would return a slot.
func (c *Consumer) Ready() bool {
	pos := *c.pos
	return seqOf(c.slot(pos)).Load() == 2*(pos>>c.shift)+1
}

// Release hands the slot returned by Peek back to the producer.
func (c *Consumer) Release() {
	pos := *c.pos
	s := c.slot(pos)
	next := 2 * (pos>>c.shift + 1) // "free" for the producer's next lap
	*c.pos = pos + 1
	// Release store: our reads of the slot happen before the producer's
	// Reserve sees it free.
	seqOf(s).Store(next)
}
