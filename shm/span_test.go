package shm

import (
	"errors"
	"testing"
)

func TestSpanSlots(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{InlineMax + 1, 1}, {SpanHeadMax, 1}, {SpanHeadMax + 1, 2},
		{SpanHeadMax + SpanNextMax, 2}, {SpanHeadMax + SpanNextMax + 1, 3},
		{2048, 2}, {SpanHeadMax + 2*SpanNextMax, 3}, {SpanHeadMax + 2*SpanNextMax + 1, 4}, {SpanMax, 4},
	} {
		if got := SpanSlots(tc.n); got != tc.want {
			t.Errorf("SpanSlots(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// putSpan writes a span of payload at the producer's position the way the
// C fast lane does (cmd/libmpi_abi/fastlane.c): all slots checked free,
// continuation words published, the head last. false: no room before the
// ring's end, or a slot not free.
func putSpan(p *Producer, payload []byte) bool {
	n, k := len(payload), SpanSlots(len(payload))
	pos := *p.pos
	i := pos & p.mask
	lap := 2 * (pos >> p.shift)
	if i+uint64(k) > p.n {
		return false
	}
	for j := range k {
		if seqOf(p.slot(pos+uint64(j))).Load() != lap {
			return false
		}
	}
	head := p.slot(pos)
	EncodeDesc(head, &Desc{Kind: KindSpan, Ctx: 3, Tag: 9, FragLen: uint32(n), MsgLen: uint64(n)})
	m := copy(head[DescHeaderSize:], payload)
	for j := 1; j < k; j++ {
		s := p.slot(pos + uint64(j))
		m += copy(s[8:], payload[m:])
		seqOf(s).Store(lap + 1)
	}
	seqOf(head).Store(lap + 1)
	*p.pos = pos + uint64(k)
	return true
}

// TestSpanRoundTrip sends spans of every size class round a small ring,
// with one-slot messages between them so spans meet the ring's end: every
// span that fits arrives whole, and its slots come back free for the next
// lap.
func TestSpanRoundTrip(t *testing.T) {
	p, c := fifoPair(t, 8)
	sizes := []int{InlineMax + 1, SpanHeadMax, SpanHeadMax + 1, 2048, SpanHeadMax + 2*SpanNextMax + 1, SpanMax}
	sent, skipped := 0, 0
	for round := range 200 {
		n := sizes[round%len(sizes)]
		payload := make([]byte, n)
		for i := range payload {
			payload[i] = byte(round*7 + i + i>>8)
		}
		if !putSpan(p, payload) {
			// At the ring's end: what the sender does instead is a
			// one-slot message, then the span goes at the start.
			skipped++
			send(t, p, uint64(round))
			recv(t, c, uint64(round))
			continue
		}
		sent++
		head, err := c.Peek()
		if err != nil || head == nil {
			t.Fatalf("round %d: Peek = %v, %v", round, head != nil, err)
		}
		d, err := DecodeDesc(head, Limits{})
		if err != nil || d.Kind != KindSpan || int(d.FragLen) != n {
			t.Fatalf("round %d: DecodeDesc = %+v, %v", round, d, err)
		}
		k := SpanSlots(n)
		slots, err := c.PeekSpan(k)
		if err != nil {
			t.Fatalf("round %d: PeekSpan(%d): %v", round, k, err)
		}
		got := make([]byte, n)
		GatherSpan(got, slots, n)
		for i := range got {
			if got[i] != payload[i] {
				t.Fatalf("round %d: byte %d of %d is %d, want %d", round, i, n, got[i], payload[i])
			}
		}
		c.ReleaseSpan(k)
	}
	if sent == 0 || skipped == 0 {
		t.Fatalf("%d spans sent, %d skipped at the ring's end: want both", sent, skipped)
	}
}

// TestPeekSpanCorrupt: a span that claims to run past the ring's end, or
// whose continuation slot is not published for the lap, is corruption.
func TestPeekSpanCorrupt(t *testing.T) {
	cases := []struct {
		name  string
		k     int
		setup func(t *testing.T, p *Producer)
	}{
		{"past the end", 9, func(t *testing.T, p *Producer) { send(t, p, 1) }},
		{"no slots", 0, func(t *testing.T, p *Producer) { send(t, p, 1) }},
		{"continuation free", 2, func(t *testing.T, p *Producer) { send(t, p, 1) }},
		{"continuation of another lap", 2, func(t *testing.T, p *Producer) {
			send(t, p, 1)
			seqOf(p.slot(1)).Store(3)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, c := fifoPair(t, 8)
			tc.setup(t, p)
			if head, err := c.Peek(); head == nil || err != nil {
				t.Fatalf("Peek = %v, %v", head != nil, err)
			}
			if _, err := c.PeekSpan(tc.k); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("PeekSpan(%d) = %v, want ErrCorrupt", tc.k, err)
			}
		})
	}
}

// FuzzPeekSpan: whatever a peer wrote into a ring (publish words, the head's
// envelope) and wherever the consumer stands, reading a span either fails
// with ErrCorrupt or yields slots that lie inside the ring, each published
// for the head's lap, and a payload that gathers without going out of
// bounds.
func FuzzPeekSpan(f *testing.F) {
	f.Add(uint8(0), uint32(2048), uint64(1), uint64(1), uint64(1), uint64(0))
	f.Add(uint8(6), uint32(SpanMax), uint64(1), uint64(1), uint64(1), uint64(1))
	f.Add(uint8(7), uint32(InlineMax+1), uint64(1), uint64(0), uint64(0), uint64(0))
	f.Add(uint8(13), uint32(SpanMax), uint64(3), uint64(3), uint64(3), uint64(3))
	f.Fuzz(func(t *testing.T, at uint8, n uint32, w0, w1, w2, w3 uint64) {
		const slots = 8
		_, c := fifoPair(t, slots)
		pos := uint64(at) % (2 * slots)
		*c.pos = pos
		lap := 2 * (pos >> c.shift)
		words := []uint64{w0, w1, w2, w3}
		for j, w := range words {
			seqOf(c.slot(pos + uint64(j))).Store(lap + w%4)
		}
		head, err := c.Peek()
		if head == nil || err != nil {
			return
		}
		EncodeDesc(head, &Desc{Kind: KindSpan, FragLen: n, MsgLen: uint64(n)})
		d, err := DecodeDesc(head, Limits{})
		if err != nil {
			return
		}
		k := SpanSlots(int(d.FragLen))
		got, err := c.PeekSpan(k)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("PeekSpan: %v, want ErrCorrupt", err)
			}
			return
		}
		i := pos & c.mask
		if i+uint64(k) > slots || len(got) != k*SlotSize {
			t.Fatalf("span of %d slots at %d of %d accepted (%d bytes)", k, i, slots, len(got))
		}
		for j := 1; j < k; j++ {
			if seqOf(c.slot(pos+uint64(j))).Load() != lap+1 {
				t.Fatalf("continuation %d not published, accepted", j)
			}
		}
		GatherSpan(make([]byte, d.FragLen), got, int(d.FragLen))
		c.ReleaseSpan(k)
	})
}
