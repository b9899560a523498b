package shm

import (
	"encoding/binary"
	"fmt"
)

// The collective microchannel of a channel (the thesis's per-channel
// collective receive structure): a ring of CollSlots slots of CollSlotSize
// bytes at CollOff, beside the descriptor ring and apart from it, used only
// by the offload engine for collective messages small enough to travel
// whole in a slot. The ring protocol is the descriptor ring's (fifo.go):
// the same publish word at the start of each slot, the same writers,
// readers and orderings; only the slot size differs.
//
// Collective slot layout (little-endian):
//
//	0  uint64 publish word (fifo.go)
//	8  uint32 context (the communicator's collective context)
//	12 int32  tag (the collective's sequence number on the communicator)
//	16 uint32 payload length, at most CollInlineMax
//	20 uint32 reserved: zero, or the payload's CRC-32C when the job checksums (sum.go)
//	24 payload
//
// Writer: the sending rank, before its release store of the publish word;
// reader: the receiving rank, after its acquire load of it. The receiver
// validates the length before it slices the payload, so a corrupt slot can
// never make it read outside the slot.
const (
	collCtx    = 8
	collTag    = 12
	collLen    = 16
	collRsvd   = 20
	collHeader = 24

	// CollInlineMax is the largest collective payload a slot carries.
	CollInlineMax = CollSlotSize - collHeader
)

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

// EncodeColl writes d and payload into a reserved collective slot. The
// caller guarantees len(payload) <= CollInlineMax (and d.Len equal to it).
func EncodeColl(slot []byte, d CollDesc, payload []byte) {
	binary.LittleEndian.PutUint32(slot[collCtx:], d.Ctx)
	binary.LittleEndian.PutUint32(slot[collTag:], uint32(d.Tag))
	binary.LittleEndian.PutUint32(slot[collLen:], d.Len)
	binary.LittleEndian.PutUint32(slot[collRsvd:], 0)
	copy(slot[collHeader:], payload)
}

// DecodeColl reads and validates the envelope of a published collective
// slot and returns it with a view of its payload (valid until Release).
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
	if d.Len > CollInlineMax {
		return CollDesc{}, nil, fmt.Errorf("%w: collective payload of %d bytes (max %d)", ErrBadDesc, d.Len, CollInlineMax)
	}
	return d, slot[collHeader : collHeader+d.Len : collHeader+d.Len], nil
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
