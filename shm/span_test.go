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
