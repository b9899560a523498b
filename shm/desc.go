package shm

import (
	"encoding/binary"
	"fmt"
)

// Kind says what a descriptor carries. The values are part of the layout.
type Kind uint8

const (
	// KindInline is a whole message whose payload follows the header in the
	// slot (MsgLen == FragLen <= InlineMax).
	KindInline Kind = 1
	// KindFirst opens a message whose payload travels in cells; it carries
	// the envelope and the first fragment (in Cell, FragLen bytes).
	KindFirst Kind = 2
	// KindNext carries the next fragment of the message the previous
	// KindFirst opened on the same channel. A channel streams one message at
	// a time, so fragments need no message id.
	KindNext Kind = 3
	// KindAck tells the sender of a synchronous send (FlagSync) that its
	// message was matched; ReqID echoes the sender's request id.
	KindAck Kind = 4
	// KindControl carries a small protocol payload that bypasses matching;
	// Tag says which (owned by the engine).
	KindControl Kind = 5
	// KindRTS announces a message the receiver should read straight from
	// the sender's memory: Addr is the address of the MsgLen bytes in the
	// sender, ReqID the sender's request to name in the reply.
	KindRTS Kind = 6
	// KindFin tells the sender of an RTS that the receiver is done with its
	// buffer (ReqID echoes the RTS).
	KindFin Kind = 7
	// KindNack tells the sender of an RTS that the receiver could not read
	// its memory: the sender must resend the payload through cells, as a
	// stream whose KindFirst carries FlagResend and ReqID = Addr of the nack
	// (the receiver's own id for the waiting receive).
	KindNack Kind = 8
	// KindCancel asks the receiver to drop the unmatched message whose
	// synchronous or RTS request id is ReqID (MPI_Cancel of a send); the
	// receiver answers with KindCancelReply.
	KindCancel Kind = 9
	// KindCancelReply answers a KindCancel: ReqID echoes it, Tag is 1 when
	// the message was dropped unmatched and 0 when it had been matched.
	KindCancelReply Kind = 10
	// KindSpan is a whole message of InlineMax < MsgLen == FragLen <=
	// SpanMax bytes laid across consecutive slots of the ring (span.go): the
	// C ABI's fast lane sends them so that 1–4 KiB messages need neither
	// the cell pool nor a call into Go. It never wraps the ring's end.
	KindSpan Kind = 11

	kindMax = KindSpan
)

// Descriptor flags.
const (
	// FlagSync asks the receiver to answer with KindAck once the message is
	// matched (Ssend, Issend).
	FlagSync uint8 = 1 << 0
	// FlagResend marks a KindFirst that carries the payload of an RTS the
	// receiver already matched (see KindNack): it bypasses matching.
	FlagResend uint8 = 1 << 1

	flagsKnown = FlagSync | FlagResend
)

// Descriptor slot layout. The first cache line holds the publish word, the
// envelope and the first 40 bytes of inline payload, so a message of up to 40
// bytes costs the receiver one cache-line transfer. The fields only
// multi-fragment and synchronous messages need sit in the slot's last line,
// which tiny messages never touch.
const (
	descSeq     = 0  // uint64 publish word (see fifo.go)
	descKind    = 8  // uint8
	descFlags   = 9  // uint8
	descCtx     = 12 // uint32 context id
	descTag     = 16 // int32
	descFragLen = 20 // uint32 payload bytes carried by this descriptor

	// DescHeaderSize is where inline payload starts.
	DescHeaderSize = 24

	descExt     = SlotSize - descExtSize
	descCell    = descExt + 0  // uint32 cell index (KindFirst, KindNext); then the payload sum (sum.go)
	descAddr    = descExt + 0  // uint64 sender address (KindRTS) or receiver id (KindNack)
	descMsgLen  = descExt + 8  // uint64 whole message length (cell kinds)
	descReqID   = descExt + 16 // uint64 sender's request id (FlagSync, KindAck)
	descExtSize = 24
)

// MaxMessage bounds the length a descriptor may announce (1 TiB): larger is
// treated as corruption, and every length computation stays far from
// overflow.
const MaxMessage = 1 << 40

// Desc is a decoded descriptor: the envelope and where its payload is.
type Desc struct {
	Kind    Kind
	Flags   uint8
	Ctx     uint32
	Tag     int32
	Cell    uint32
	Addr    uint64 // KindRTS: address in the sender; KindNack: receiver's id
	MsgLen  uint64
	FragLen uint32
	ReqID   uint64
}

// Limits are what a decoder checks peer-written fields against.
type Limits struct {
	Cells    uint32 // cells in the sender's pool
	CellSize uint32
}

// EncodeDesc writes d's fields into slot (all but the publish word, which
// the producer stores last). Inline and control descriptors carry MsgLen
// implicitly (== FragLen) and write the extension line only when they need a
// request id.
func EncodeDesc(slot []byte, d *Desc) {
	_ = slot[SlotSize-1]
	le := binary.LittleEndian
	slot[descKind] = byte(d.Kind)
	slot[descFlags] = d.Flags
	le.PutUint32(slot[descCtx:], d.Ctx)
	le.PutUint32(slot[descTag:], uint32(d.Tag))
	le.PutUint32(slot[descFragLen:], d.FragLen)
	if d.Kind == KindInline || d.Kind == KindControl || d.Kind == KindSpan {
		// A span's payload runs over the extension line.
		if d.Flags&FlagSync != 0 && d.Kind != KindSpan {
			le.PutUint64(slot[descReqID:], d.ReqID)
		}
		return
	}
	if d.Kind == KindRTS || d.Kind == KindNack {
		le.PutUint64(slot[descAddr:], d.Addr)
	} else {
		le.PutUint32(slot[descCell:], d.Cell)
	}
	le.PutUint64(slot[descMsgLen:], d.MsgLen)
	le.PutUint64(slot[descReqID:], d.ReqID)
}

// EncodeInline is EncodeDesc for the commonest descriptor, an inline
// message of n <= InlineMax bytes without flags: two stores instead of a
// Desc built and taken apart field by field. Bytes 10 and 11, which no
// field uses, are written as zero.
func EncodeInline(slot []byte, ctx uint32, tag int32, n uint32) {
	_ = slot[SlotSize-1]
	le := binary.LittleEndian
	le.PutUint64(slot[descKind:], uint64(KindInline)|uint64(ctx)<<32)
	le.PutUint64(slot[descTag:], uint64(uint32(tag))|uint64(n)<<32)
}

// DecodeInline is DecodeDesc's commonest case on its own, for fast paths
// that leave the rest to DecodeDesc: ok when slot (at least SlotSize long)
// holds an inline message without flags, whose payload,
// slot[DescHeaderSize:][:n], is within InlineMax. Small enough to inline.
func DecodeInline(slot []byte) (ctx uint32, tag int32, n uint32, ok bool) {
	_ = slot[SlotSize-1]
	le := binary.LittleEndian
	if Kind(slot[descKind]) != KindInline || slot[descFlags] != 0 {
		return 0, 0, 0, false
	}
	n = le.Uint32(slot[descFragLen:])
	return le.Uint32(slot[descCtx:]), int32(le.Uint32(slot[descTag:])), n, n <= InlineMax
}

// DecodeDesc reads and validates the descriptor in slot. A peer wrote it, so
// every field that later indexes memory is checked here, once: after a nil
// error, Cell < lim.Cells, FragLen fits its container and MsgLen is sane.
func DecodeDesc(slot []byte, lim Limits) (Desc, error) {
	if len(slot) < SlotSize {
		return Desc{}, fmt.Errorf("%w: slot of %d bytes", ErrBadDesc, len(slot))
	}
	le := binary.LittleEndian
	// The commonest case first: an inline message without flags, whose
	// only check is its length.
	if ctx, tag, n, ok := DecodeInline(slot); ok {
		return Desc{Kind: KindInline, Ctx: ctx, Tag: tag, FragLen: n, MsgLen: uint64(n)}, nil
	}
	d := Desc{
		Kind:    Kind(slot[descKind]),
		Flags:   slot[descFlags],
		Ctx:     le.Uint32(slot[descCtx:]),
		Tag:     int32(le.Uint32(slot[descTag:])),
		FragLen: le.Uint32(slot[descFragLen:]),
	}
	if d.Kind == KindInline || d.Kind == KindControl || d.Kind == KindSpan {
		d.MsgLen = uint64(d.FragLen)
		if d.Flags&FlagSync != 0 && d.Kind != KindSpan {
			d.ReqID = le.Uint64(slot[descReqID:])
		}
	} else {
		if d.Kind == KindRTS || d.Kind == KindNack {
			d.Addr = le.Uint64(slot[descAddr:])
		} else {
			d.Cell = le.Uint32(slot[descCell:])
		}
		d.MsgLen = le.Uint64(slot[descMsgLen:])
		d.ReqID = le.Uint64(slot[descReqID:])
	}
	if d.Kind == 0 || d.Kind > kindMax {
		return Desc{}, fmt.Errorf("%w: kind %d", ErrBadDesc, d.Kind)
	}
	if d.Flags&^flagsKnown != 0 {
		return Desc{}, fmt.Errorf("%w: flags %#x", ErrBadDesc, d.Flags)
	}
	if d.MsgLen > MaxMessage {
		return Desc{}, fmt.Errorf("%w: length %d", ErrBadDesc, d.MsgLen)
	}
	switch d.Kind {
	case KindInline, KindControl:
		if d.MsgLen != uint64(d.FragLen) || d.FragLen > InlineMax {
			return Desc{}, fmt.Errorf("%w: inline length %d/%d", ErrBadDesc, d.FragLen, d.MsgLen)
		}
	case KindSpan:
		if d.Flags != 0 || d.FragLen <= InlineMax || d.FragLen > SpanMax {
			return Desc{}, fmt.Errorf("%w: span of %d bytes, flags %#x", ErrBadDesc, d.FragLen, d.Flags)
		}
	case KindFirst, KindNext:
		if d.Cell >= lim.Cells {
			return Desc{}, fmt.Errorf("%w: cell %d of %d", ErrBadDesc, d.Cell, lim.Cells)
		}
		if d.FragLen == 0 || d.FragLen > lim.CellSize || uint64(d.FragLen) > d.MsgLen {
			return Desc{}, fmt.Errorf("%w: fragment %d of message %d", ErrBadDesc, d.FragLen, d.MsgLen)
		}
	case KindAck, KindFin, KindNack, KindCancel, KindCancelReply:
		if d.FragLen != 0 {
			return Desc{}, fmt.Errorf("%w: kind %d with payload", ErrBadDesc, d.Kind)
		}
	case KindRTS:
		if d.FragLen != 0 || d.MsgLen == 0 || d.Addr == 0 || d.Addr+d.MsgLen < d.Addr {
			return Desc{}, fmt.Errorf("%w: RTS of %d bytes at %#x", ErrBadDesc, d.MsgLen, d.Addr)
		}
	}
	if d.Flags&FlagResend != 0 && d.Kind != KindFirst {
		return Desc{}, fmt.Errorf("%w: resend flag on kind %d", ErrBadDesc, d.Kind)
	}
	return d, nil
}

// InlinePayload is the inline payload of a decoded KindInline/KindControl
// descriptor (DecodeDesc bounded FragLen by InlineMax).
func InlinePayload(slot []byte, d *Desc) []byte {
	return slot[DescHeaderSize : DescHeaderSize+int(d.FragLen)]
}

// InlineArea is where a producer writes inline payload.
func InlineArea(slot []byte) []byte {
	return slot[DescHeaderSize : DescHeaderSize+InlineMax : DescHeaderSize+InlineMax]
}
