package proto

import (
	"fmt"

	"github.com/hympi/hympi/shm"
)

// The eager protocol's framing. A message of up to shm.InlineMax bytes
// travels inside one descriptor (KindInline). A larger one is cut into
// cell-sized fragments: the first descriptor (KindFirst) carries the
// envelope and the first fragment, the following ones (KindNext) the rest,
// in order. A channel streams one message at a time, so the receiver's
// reassembly state is just "the message in progress on this channel"
// (Flight). A rendezvous send is one KindRTS naming the sender's buffer;
// when the receiver cannot read it, the sender streams it as fragments
// again, the first flagged FlagResend and naming the receiver's request.

// The two ways a stream of descriptors can be malformed, whatever the
// peer's intent: a new message while one is still streaming, and a
// fragment that belongs to no message.
var (
	ErrStreaming = fmt.Errorf("%w: new message while one is streaming", shm.ErrBadDesc)
	ErrStray     = fmt.Errorf("%w: stray fragment", shm.ErrBadDesc)
)

// Envelope is the descriptor every piece of a message starts from: its
// context, tag and length, and the id a synchronous send's reply echoes.
func Envelope(ctx uint32, tag int32, msgLen int, id uint64, sync bool) shm.Desc {
	d := shm.Desc{Ctx: ctx, Tag: tag, MsgLen: uint64(msgLen), ReqID: id}
	if sync {
		d.Flags = shm.FlagSync
	}
	return d
}

// Inline says whether a message of n bytes, none of it sent, goes whole in
// its descriptor, and makes d that descriptor if so.
func Inline(d *shm.Desc, started bool, n int) bool {
	if started || n > shm.InlineMax {
		return false
	}
	d.Kind, d.FragLen = shm.KindInline, uint32(n)
	return true
}

// RTS makes d the rendezvous announcement of a buffer at addr. It carries
// no sync flag: the FIN completes a rendezvous send whatever its mode.
func RTS(d *shm.Desc, addr uint64) {
	d.Kind, d.Addr, d.Flags = shm.KindRTS, addr, 0
}

// Resend marks d as the start of the cell stream that replaces a refused
// rendezvous read, naming the receiver's request id.
func Resend(d *shm.Desc, id uint64) {
	d.Flags, d.ReqID = shm.FlagResend, id
}

// Fragment makes d the descriptor of n bytes in cell: the first of its
// message (which keeps the envelope's flags) or a later one.
func Fragment(d *shm.Desc, first bool, cell uint32, n int) {
	if first {
		d.Kind = shm.KindFirst
	} else {
		d.Kind, d.Flags = shm.KindNext, 0
	}
	d.Cell, d.FragLen = cell, uint32(n)
}

// Payload is where the payload of a validated descriptor lies in the
// region: in its slot or in a cell of ch (nil for the kinds without one).
func Payload(ch shm.Channel, slot []byte, d *shm.Desc) []byte {
	switch d.Kind {
	case shm.KindInline:
		return shm.InlinePayload(slot, d)
	case shm.KindFirst, shm.KindNext:
		return ch.Cell(d.Cell)[:d.FragLen]
	}
	return nil
}

// Flight is a multi-fragment message being received: into a matched
// receive (Req), or into an unexpected entry (Un) until one matches it.
// R and U are the engine's request and unexpected-message types.
type Flight[R, U any] struct {
	Total uint64
	Got   uint64
	Req   *R
	Un    *U
	Ctx   uint32
	Tag   int32
}

// Start is the flight of the message whose first fragment d is.
func Start[R, U any](d *shm.Desc) *Flight[R, U] {
	return &Flight[R, U]{Total: d.MsgLen, Ctx: d.Ctx, Tag: d.Tag}
}

// Follows checks that d, a KindNext, continues the flight f (nil when no
// message is streaming).
func (f *Flight[R, U]) Follows(d *shm.Desc) error {
	if f == nil || d.MsgLen != f.Total || uint64(d.FragLen) > f.Total-f.Got {
		return ErrStray
	}
	return nil
}

// Advance accounts for a fragment of n bytes just copied and says whether
// the message is complete.
func (f *Flight[R, U]) Advance(n uint32) bool {
	f.Got += uint64(n)
	return f.Got >= f.Total
}
