package shm

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
)

func TestCollSpanSlots(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 1}, {CollInlineMax, 1}, {CollInlineMax + 1, 2}, {2*CollSlotSize - collHeader, 2},
		{2*CollSlotSize - collHeader + 1, 3}, {1024, 5}, {4096, 17}, {CollMsgMax, CollSpanMaxSlots},
	} {
		if got := CollSpanSlots(tc.n); got != tc.want {
			t.Errorf("CollSpanSlots(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	if CollSpanMaxSlots != 33 {
		t.Errorf("a largest span takes %d of %d slots, want 33", CollSpanMaxSlots, CollSlots)
	}
}

// collPair is a channel's collective ring, both ends.
func collPair(t *testing.T) (*Producer, *Consumer) {
	t.Helper()
	r := newAnon(t, 2, Config{MinCells: 3, CellSize: 256, Slots: 8})
	ch := r.Channel(0, 1)
	return ch.CollProducer(), ch.CollConsumer()
}

// takeColl receives the message at the head the way the engine does
// (Peek, DecodeColl, CollSpan, GatherColl, ReleaseColl); nil payload when
// the ring is empty. The reserved word is the tests' to check (sum).
func takeColl(c *Consumer) (CollDesc, []byte, error) {
	d, pl, _, err := takeCollSum(c)
	return d, pl, err
}

func takeCollSum(c *Consumer) (CollDesc, []byte, uint32, error) {
	s, err := c.Peek()
	if err != nil || s == nil {
		return CollDesc{}, nil, 0, err
	}
	sum := CollSum(s)
	d, pl, err := takeHead(c, s)
	return d, pl, sum, err
}

func takeHead(c *Consumer, s []byte) (CollDesc, []byte, error) {
	d, head, err := DecodeCollSummed(s)
	if err != nil {
		return d, nil, err
	}
	k, err := c.CollSpan(d.Len)
	if err != nil {
		return d, nil, err
	}
	out := make([]byte, d.Len)
	if k == 1 {
		copy(out, head)
	} else {
		c.GatherColl(out)
	}
	c.ReleaseColl(k)
	return d, out, nil
}

// pattern is n bytes of 8-byte words 0, 2, 4, ... 14 (from seed on): in a
// continuation slot's publish word while a span is in flight, each looks
// like the word of a free position of one of the ring's first laps.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		if i%8 == 0 {
			b[i] = byte(2 * ((seed + i/8) % 8))
		}
	}
	for i := 1; i < n; i += 8 {
		b[i] = byte(seed) // tells messages apart
	}
	return b
}

// TestCollSpanRoundTrip: messages of every size class, mixed so spans
// meet and wrap the ring's end, arrive whole and in order; a producer that
// runs ahead is refused, writing nothing, until the consumer frees room.
func TestCollSpanRoundTrip(t *testing.T) {
	p, c := collPair(t)
	sizes := []int{0, 8, CollInlineMax, CollInlineMax + 1, 1024, 2*CollSlotSize - collHeader, 4096, 1000, CollMsgMax, 3}
	var want [][]byte
	sent, got := 0, 0
	for round := 0; got < 600; round++ {
		n := sizes[round%len(sizes)]
		payload := pattern(n, round)
		// Send until the ring refuses, then drain half of what waits.
		if p.PutColl(CollDesc{Ctx: 5, Tag: int32(sent), Len: uint32(n)}, payload, uint32(n)) {
			want = append(want, payload)
			sent++
			continue
		}
		before := *p.pos
		if p.PutColl(CollDesc{Ctx: 5, Tag: int32(sent), Len: uint32(n)}, payload, 0) || *p.pos != before {
			t.Fatalf("round %d: a refused put moved the producer", round)
		}
		if sent == got {
			t.Fatalf("round %d: an empty ring refused %d bytes", round, n)
		}
		for drain := (sent - got + 1) / 2; drain > 0; drain-- {
			d, pl, sum, err := takeCollSum(c)
			if err != nil || pl == nil {
				t.Fatalf("message %d: %v (empty %v)", got, err, pl == nil)
			}
			if d.Ctx != 5 || d.Tag != int32(got) || sum != d.Len || !bytes.Equal(pl, want[got]) {
				t.Fatalf("message %d: %+v, payload equal %v", got, d, bytes.Equal(pl, want[got]))
			}
			got++
		}
	}
}

// TestCollSpanUnpublished: a span whose head is not published yet (all
// of it written but the head's word, the producer's last store) is not
// there for the consumer, whatever its continuations' words say.
func TestCollSpanUnpublished(t *testing.T) {
	for _, at := range []int{0, 7, CollSlots - 2} {
		p, c := collPair(t)
		for range at {
			if !p.PutColl(CollDesc{}, nil, 0) {
				t.Fatal("ring full")
			}
			if _, _, err := takeColl(c); err != nil {
				t.Fatal(err)
			}
		}
		if !p.PutColl(CollDesc{Ctx: 1, Len: 1024}, pattern(1024, 1), 0) {
			t.Fatal("put refused")
		}
		pos := uint64(at)
		seqOf(c.slot(pos)).Store(2 * (pos >> c.shift)) // unpublish the head
		for j := uint64(1); j < 5; j++ {
			seqOf(c.slot(pos + j)).Store(2*((pos+j)>>c.shift) + 1) // continuations "published"
		}
		if d, pl, err := takeColl(c); err != nil || pl != nil || *c.pos != pos {
			t.Fatalf("at %d: took %+v (%d bytes, %v) from an unpublished span", at, d, len(pl), err)
		}
	}
}

// TestCollSpanInFlight: while spans are in flight, their continuation
// words hold payload that looks like free positions of the next lap
// (pattern); the producer must still not reuse any position of a span
// before the consumer has handed it back, which it cannot reach without
// first finding the span's head free.
func TestCollSpanInFlight(t *testing.T) {
	p, c := collPair(t)
	var sent [][]byte
	for i := 0; ; i++ {
		pl := pattern(1024, i)
		if !p.PutColl(CollDesc{Ctx: 3, Tag: int32(i), Len: 1024}, pl, 0) {
			break
		}
		sent = append(sent, pl)
	}
	if len(sent) != CollSlots/5 {
		t.Fatalf("%d spans of 5 fit an empty ring of %d", len(sent), CollSlots)
	}
	got := 0
	for round := range 4 * CollSlots {
		// Take one, then offer every size: only what fits the freed
		// positions may go in, and nothing in flight may change.
		d, pl, err := takeColl(c)
		if err != nil || pl == nil || d.Tag != int32(got) || !bytes.Equal(pl, sent[got]) {
			t.Fatalf("round %d: message %d: %+v %v (equal %v)", round, got, d, err, pl != nil && bytes.Equal(pl, sent[got]))
		}
		got++
		for _, n := range []int{CollMsgMax, 4096, 1024, 300} {
			pl := pattern(n, len(sent))
			if p.PutColl(CollDesc{Ctx: 3, Tag: int32(len(sent)), Len: uint32(n)}, pl, 0) {
				sent = append(sent, pl)
			}
		}
	}
}

// TestCollLengthRejected: a head claiming more than CollMsgMax is refused
// before anything is sliced; CollSpan refuses such a length too.
func TestCollLengthRejected(t *testing.T) {
	s := make([]byte, CollSlotSize)
	for _, n := range []uint32{CollMsgMax + 1, 1 << 31, ^uint32(0)} {
		EncodeColl(s, CollDesc{}, nil)
		putLen(s, n)
		if _, _, err := DecodeColl(s); !errors.Is(err, ErrBadDesc) {
			t.Errorf("length %d: %v, want ErrBadDesc", n, err)
		}
		_, c := collPair(t)
		if _, err := c.CollSpan(n); !errors.Is(err, ErrBadDesc) {
			t.Errorf("CollSpan(%d): %v, want ErrBadDesc", n, err)
		}
	}
	EncodeColl(s, CollDesc{}, nil)
	putLen(s, CollMsgMax)
	if d, head, err := DecodeColl(s); err != nil || d.Len != CollMsgMax || len(head) != CollInlineMax {
		t.Errorf("length CollMsgMax: %+v %d %v", d, len(head), err)
	}
}

func putLen(s []byte, n uint32) {
	s[collLen], s[collLen+1], s[collLen+2], s[collLen+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
}

// FuzzCollSpan: whatever a peer leaves in the collective ring (the
// head's length, the bytes of the positions after it) and wherever the
// consumer stands, taking the head either fails with ErrBadDesc, leaving
// the position where it was, or takes exactly CollSpanSlots(len) positions
// (each then free for its next lap) and copies out the len bytes after the
// head's envelope, wrapping at the ring's end, and nothing else.
func FuzzCollSpan(f *testing.F) {
	f.Add(uint8(0), uint32(1024), byte(7))
	f.Add(uint8(62), uint32(4096), byte(0))
	f.Add(uint8(63), uint32(CollMsgMax), byte(0xff))
	f.Add(uint8(100), uint32(CollMsgMax+1), byte(1))
	f.Add(uint8(31), uint32(233), byte(2))
	f.Fuzz(func(t *testing.T, at uint8, n uint32, fill byte) {
		_, c := collPair(t)
		pos := uint64(at)
		*c.pos = pos
		ring := c.slots
		for i := range ring {
			ring[i] = fill + byte(i*7)
		}
		head := c.slot(pos)
		seqOf(head).Store(2*(pos>>c.shift) + 1)
		EncodeColl(head, CollDesc{Ctx: 1, Tag: 2}, nil)
		putLen(head, n)
		want := make([]byte, 0, CollMsgMax)
		if n <= CollMsgMax {
			off := int(pos&c.mask)*CollSlotSize + collHeader
			for i := range int(n) {
				want = append(want, ring[(off+i)%len(ring)])
			}
		}
		d, pl, err := takeColl(c)
		if err != nil {
			if !errors.Is(err, ErrBadDesc) || n <= CollMsgMax {
				t.Fatalf("length %d: error %v", n, err)
			}
			if *c.pos != pos {
				t.Fatalf("a refused message moved the consumer")
			}
			return
		}
		k := uint64(CollSpanSlots(int(d.Len)))
		if d.Len != n || n > CollMsgMax || *c.pos != pos+k || !bytes.Equal(pl, want) {
			t.Fatalf("length %d at %d: took %d bytes over %d positions (payload equal %v)", n, pos, len(pl), *c.pos-pos, bytes.Equal(pl, want))
		}
		for q := pos; q < pos+k; q++ {
			if w := seqOf(c.slot(q)).Load(); w != 2*(q>>c.shift+1) {
				t.Fatalf("position %d handed back as %d", q, w)
			}
		}
	})
}

// TestCollSpanConcurrent: a producer and a consumer on two goroutines,
// each retrying when the ring is full or empty, pass messages of sizes up
// to CollMsgMax whose words look like free publish words of the next laps:
// every one arrives whole and in order, so no position was reused while
// the consumer still read it.
func TestCollSpanConcurrent(t *testing.T) {
	p, c := collPair(t)
	const msgs = 8000
	size := func(i int) int { return []int{0, 8, 232, 233, 1024, 4000, CollMsgMax, 777}[i%8] }
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range msgs {
			pl := pattern(size(i), i)
			for !p.PutColl(CollDesc{Ctx: 9, Tag: int32(i), Len: uint32(len(pl))}, pl, 0) {
				runtime.Gosched()
			}
		}
	}()
	for i := 0; i < msgs; {
		d, pl, err := takeColl(c)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if pl == nil {
			runtime.Gosched()
			continue
		}
		if d.Tag != int32(i) || !bytes.Equal(pl, pattern(size(i), i)) {
			t.Fatalf("message %d: %+v, payload of %d bytes differs", i, d, len(pl))
		}
		i++
	}
	<-done
}
