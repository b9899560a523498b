package shm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// The collective microchannel: round trip, wrap-around, full ring, and
// isolation from the descriptor ring of the same channel.
func TestCollRing(t *testing.T) {
	r := newAnon(t, 2, Config{MinCells: 3, CellSize: 256, Slots: 8})
	ch := r.Channel(0, 1)
	p, c := ch.CollProducer(), ch.CollConsumer()
	for lap := range 3 {
		for i := range CollSlots {
			s := p.Reserve()
			if s == nil {
				t.Fatalf("lap %d slot %d: ring full", lap, i)
			}
			payload := bytes.Repeat([]byte{byte(i)}, i%(CollInlineMax+1))
			EncodeColl(s, CollDesc{Ctx: 7, Tag: int32(lap*1000 + i), Len: uint32(len(payload))}, payload)
			p.Publish(s)
		}
		if p.Reserve() != nil {
			t.Fatalf("lap %d: a full ring gave a slot", lap)
		}
		if ch.Consumer().Ready() {
			t.Fatalf("collective traffic appeared on the descriptor ring")
		}
		for i := range CollSlots {
			s, err := c.Peek()
			if err != nil || s == nil {
				t.Fatalf("lap %d slot %d: Peek %v %v", lap, i, s == nil, err)
			}
			d, pl, err := DecodeColl(s)
			if err != nil || d.Ctx != 7 || d.Tag != int32(lap*1000+i) || !bytes.Equal(pl, bytes.Repeat([]byte{byte(i)}, i%(CollInlineMax+1))) {
				t.Fatalf("lap %d slot %d: %+v %v", lap, i, d, err)
			}
			c.Release()
		}
	}
}

func TestDecodeCollRejects(t *testing.T) {
	s := make([]byte, CollSlotSize)
	EncodeColl(s, CollDesc{Len: CollMsgMax + 1}, nil)
	if _, _, err := DecodeColl(s); !errors.Is(err, ErrBadDesc) {
		t.Fatalf("oversized payload: %v", err)
	}
	EncodeColl(s, CollDesc{Len: 1}, nil)
	s[collRsvd] = 1
	if _, _, err := DecodeColl(s); !errors.Is(err, ErrBadDesc) {
		t.Fatalf("reserved word: %v", err)
	}
	if _, _, err := DecodeColl(s[:10]); !errors.Is(err, ErrBadDesc) {
		t.Fatalf("short slot: %v", err)
	}
}

// FuzzDecodeColl: whatever a peer leaves in a collective slot, decoding
// either fails with ErrBadDesc or returns a payload inside the slot (the
// head's part of a longer message).
func FuzzDecodeColl(f *testing.F) {
	s := make([]byte, CollSlotSize)
	EncodeColl(s, CollDesc{Ctx: 3, Tag: 9, Len: 5}, []byte("hello"))
	f.Add(s)
	f.Add(make([]byte, CollSlotSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		slot := make([]byte, CollSlotSize)
		copy(slot, b)
		d, pl, err := DecodeColl(slot)
		if err != nil {
			if !errors.Is(err, ErrBadDesc) {
				t.Fatalf("error %v is not ErrBadDesc", err)
			}
			return
		}
		if int(min(d.Len, CollInlineMax)) != len(pl) || d.Len > CollMsgMax || cap(pl) != len(pl) {
			t.Fatalf("payload view len %d cap %d for %+v", len(pl), cap(pl), d)
		}
	})
}

// TestCollMsgFastPath: EncodeCollMsg writes what DecodeColl reads back,
// and CollMsgIs accepts exactly the envelope written: any other context,
// tag or length, or a reserved word set, is refused.
func TestCollMsgFastPath(t *testing.T) {
	payload := []byte("collective")
	slot := make([]byte, CollSlotSize)
	EncodeCollMsg(slot, 7, -3, payload)
	d, got, err := DecodeColl(slot)
	if err != nil || d != (CollDesc{Ctx: 7, Tag: -3, Len: uint32(len(payload))}) || !bytes.Equal(got, payload) {
		t.Fatalf("DecodeColl: %+v %q %v", d, got, err)
	}
	cases := []struct {
		name     string
		ctx      uint32
		tag      int32
		n        int
		reserved uint32
		want     bool
	}{
		{name: "the envelope written", ctx: 7, tag: -3, n: len(payload), want: true},
		{name: "other context", ctx: 9, tag: -3, n: len(payload)},
		{name: "other tag", ctx: 7, tag: 3, n: len(payload)},
		{name: "other length", ctx: 7, tag: -3, n: len(payload) - 1},
		{name: "reserved word set", ctx: 7, tag: -3, n: len(payload), reserved: 1},
	}
	for _, tc := range cases {
		s := slices.Clone(slot)
		binary.LittleEndian.PutUint32(s[collRsvd:], tc.reserved)
		if got := CollMsgIs(s, tc.ctx, tc.tag, tc.n); got != tc.want {
			t.Errorf("%s: CollMsgIs = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !bytes.Equal(slot[CollHeader:][:len(payload)], payload) {
		t.Errorf("payload at CollHeader: %q", slot[CollHeader:][:len(payload)])
	}
}
