package shm

import (
	"bytes"
	"errors"
	"testing"
)

func TestCollSpanSlots(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 1}, {CollInlineMax, 1}, {CollInlineMax + 1, 2}, {CollInlineMax + CollNextMax, 2},
		{CollInlineMax + CollNextMax + 1, 3}, {1024, 5}, {4096, 17}, {CollMsgMax, CollSpanMaxSlots},
	} {
		if got := CollSpanSlots(tc.n); got != tc.want {
			t.Errorf("CollSpanSlots(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	if CollSpanMaxSlots > CollSlots/2+2 {
		t.Errorf("a largest span takes %d of %d slots", CollSpanMaxSlots, CollSlots)
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

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seed*13 + i>>8)
	}
	return b
}

// TestCollSpanRoundTrip: messages of every size class, mixed so spans
// meet and wrap the ring's end, arrive whole and in order; a producer that
// runs ahead is refused, writing nothing, until the consumer frees room.
func TestCollSpanRoundTrip(t *testing.T) {
	p, c := collPair(t)
	sizes := []int{0, 8, CollInlineMax, CollInlineMax + 1, 1024, CollInlineMax + CollNextMax, 4096, 1000, CollMsgMax, 3}
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

// TestCollSpanTorn: a head published over a continuation that is not (the
// producer publishes the head last, so this is never a span being written)
// is corruption; nothing is consumed.
func TestCollSpanTorn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		at    int // consumer position: spans that wrap the end too
		n     int
		spoil int // continuation whose word is left wrong
		word  func(lap uint64) uint64
	}{
		{"continuation free", 0, 1024, 1, func(l uint64) uint64 { return l }},
		{"last continuation free", 0, 4096, 16, func(l uint64) uint64 { return l }},
		{"continuation of the next lap", 3, 1024, 2, func(l uint64) uint64 { return l + 3 }},
		{"wrapped continuation free", CollSlots - 2, 1024, 3, func(l uint64) uint64 { return l }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, c := collPair(t)
			for range tc.at {
				if !p.PutColl(CollDesc{}, nil, 0) {
					t.Fatal("ring full")
				}
				if _, _, err := takeColl(c); err != nil {
					t.Fatal(err)
				}
			}
			if !p.PutColl(CollDesc{Ctx: 1, Len: uint32(tc.n)}, pattern(tc.n, 1), 0) {
				t.Fatal("put refused")
			}
			q := uint64(tc.at + tc.spoil)
			seqOf(c.slot(q)).Store(tc.word(2 * (q >> c.shift)))
			pos := *c.pos
			if _, _, err := takeColl(c); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("torn span: %v, want ErrCorrupt", err)
			}
			if *c.pos != pos {
				t.Fatalf("a torn span was consumed (position %d -> %d)", pos, *c.pos)
			}
		})
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

// FuzzCollSpan: whatever a peer leaves in the collective ring (publish
// words, the head's envelope) and wherever the consumer stands, taking the
// head either fails with ErrBadDesc or ErrCorrupt, leaving the position
// where it was, or takes exactly CollSpanSlots(len) positions, each
// published for its own lap, and copies a payload no longer than
// CollMsgMax.
func FuzzCollSpan(f *testing.F) {
	f.Add(uint8(0), uint32(1024), uint64(0x5555))
	f.Add(uint8(62), uint32(4096), uint64(0))
	f.Add(uint8(63), uint32(CollMsgMax), ^uint64(0))
	f.Add(uint8(100), uint32(CollMsgMax+1), uint64(0x1234))
	f.Fuzz(func(t *testing.T, at uint8, n uint32, words uint64) {
		_, c := collPair(t)
		pos := uint64(at)
		*c.pos = pos
		// Two bits a position: its word is free, published, or of
		// another lap, for the head and the positions after it.
		for j := uint64(0); j < CollSpanMaxSlots; j++ {
			q := pos + j
			lap := 2 * (q >> c.shift)
			w := []uint64{lap + 1, lap + 1, lap, lap + 2}[(words>>(2*(j%32)))&3]
			if j == 0 {
				w = lap + 1
			}
			seqOf(c.slot(q)).Store(w)
		}
		head := c.slot(pos)
		EncodeColl(head, CollDesc{Ctx: 1, Tag: 2}, nil)
		putLen(head, n)
		d, pl, err := takeColl(c)
		if err != nil {
			if !errors.Is(err, ErrBadDesc) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v", err)
			}
			if *c.pos != pos {
				t.Fatalf("a refused message moved the consumer")
			}
			return
		}
		k := CollSpanSlots(int(d.Len))
		if d.Len > CollMsgMax || len(pl) != int(d.Len) || *c.pos != pos+uint64(k) {
			t.Fatalf("took %d bytes over %d positions for length %d", len(pl), *c.pos-pos, d.Len)
		}
		for j := 1; j < k; j++ {
			q := pos + uint64(j)
			if (words>>(2*((j)%32)))&3 >= 2 {
				t.Fatalf("took a span whose position %d was not published", q)
			}
		}
	})
}
