package shm

import (
	"fmt"
	"testing"
)

// TestMessageSum: the sum the sender computes from its descriptor equals
// the one the receiver computes from the decoded slot, for every kind, and
// changes when any envelope field or payload byte does.
func TestMessageSum(t *testing.T) {
	lim := Limits{Cells: 8, CellSize: 4096}
	payload := []byte("payload bytes")
	descs := []Desc{
		{Kind: KindInline, Ctx: 2, Tag: 7, FragLen: uint32(len(payload)), MsgLen: uint64(len(payload))},
		{Kind: KindInline, Flags: FlagSync, Ctx: 2, Tag: 7, FragLen: uint32(len(payload)), MsgLen: uint64(len(payload)), ReqID: 99},
		{Kind: KindFirst, Ctx: 4, Tag: -3, Cell: 5, FragLen: 13, MsgLen: 50000, ReqID: 1},
		{Kind: KindNext, Ctx: 4, Tag: -3, Cell: 6, FragLen: 13, MsgLen: 50000},
		{Kind: KindRTS, Ctx: 4, Tag: 1, Addr: 0x7f0000001000, MsgLen: 1 << 20, ReqID: 77},
		{Kind: KindAck, ReqID: 5},
		{Kind: KindFin, ReqID: 6},
		{Kind: KindNack, ReqID: 6, Addr: 9},
	}
	for _, d := range descs {
		t.Run(fmt.Sprintf("kind=%d/flags=%d", d.Kind, d.Flags), func(t *testing.T) {
			slot := make([]byte, SlotSize)
			EncodeDesc(slot, &d)
			var p []byte
			switch d.Kind {
			case KindInline:
				copy(InlineArea(slot), payload)
				p = payload
			case KindFirst, KindNext:
				p = payload
			}
			SetDescSum(slot, MessageSum(&d, p))
			got, err := DecodeDesc(slot, lim)
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind == KindInline {
				if string(InlinePayload(slot, &got)) != string(payload) {
					t.Fatal("the sum overwrote the inline payload")
				}
			}
			if MessageSum(&got, p) != DescSum(slot) {
				t.Fatal("receiver's sum differs from the sender's")
			}
			// Every envelope field and the payload count, except those
			// the descriptor does not carry (an inline message's length
			// is its fragment's; its request id only when synchronous).
			inline := d.Kind == KindInline
			for _, ch := range []struct {
				name   string
				change func(*Desc)
				skip   bool
			}{
				{"ctx", func(c *Desc) { c.Ctx++ }, false},
				{"tag", func(c *Desc) { c.Tag++ }, false},
				{"kind", func(c *Desc) { c.Kind++ }, false},
				{"reqid", func(c *Desc) { c.ReqID ^= 1 << 40 }, inline && d.Flags&FlagSync == 0},
				{"msglen", func(c *Desc) { c.MsgLen++ }, inline},
			} {
				c := got
				ch.change(&c)
				if !ch.skip && MessageSum(&c, p) == DescSum(slot) {
					t.Errorf("a changed %s has the same sum", ch.name)
				}
			}
			if len(p) > 0 {
				q := append([]byte(nil), p...)
				q[3] ^= 1
				if MessageSum(&got, q) == DescSum(slot) {
					t.Error("a changed payload has the same sum")
				}
			}
		})
	}
}

// BenchmarkMessageSum is what HYMPI_CHECKSUM adds per descriptor, on each
// side: the sender sums before it publishes, the receiver before it
// delivers.
func BenchmarkMessageSum(b *testing.B) {
	for _, n := range []int{0, 8, 1024, 32 << 10} {
		b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
			p := make([]byte, n)
			d := Desc{Kind: KindFirst, FragLen: uint32(n), MsgLen: uint64(n)}
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				MessageSum(&d, p)
			}
		})
	}
}
