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

// putSpan writes a span of payload at the producer's position with the Go
// producer's PutSpan, which must lay it out as the C fast lane does
// (cmd/libmpi_abi/fastlane.c). false: no room before the ring's end, or a
// slot not free.
func putSpan(p *Producer, payload []byte) bool {
	return p.PutSpan(3, 9, payload)
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
		if err != nil || d.Kind != KindSpan || int(d.FragLen) != n || d.Ctx != 3 || d.Tag != 9 || d.Flags != 0 {
			t.Fatalf("round %d: DecodeDesc = %+v, %v", round, d, err)
		}
		if ctx, tag, m, ok := DecodeSpanHead(head); !ok || ctx != 3 || tag != 9 || int(m) != n {
			t.Fatalf("round %d: DecodeSpanHead = %d, %d, %d, %v", round, ctx, tag, m, ok)
		}
		if round%3 == 0 {
			// TakeSpan: gather and hand back in one call.
			got := make([]byte, n)
			if err := c.TakeSpan(got, n); err != nil {
				t.Fatalf("round %d: TakeSpan: %v", round, err)
			}
			if string(got) != string(payload) {
				t.Fatalf("round %d: TakeSpan gathered another payload", round)
			}
			continue
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

// TestPutSpanDeclines: PutSpan writes nothing, and leaves the position,
// when the span would cross the ring's end or any of its slots is still
// the consumer's (not yet released from the last lap).
func TestPutSpanDeclines(t *testing.T) {
	payload := make([]byte, SpanMax) // 4 slots
	for i := range payload {
		payload[i] = byte(i*13 + 1)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, p *Producer, c *Consumer)
	}{
		{"at the ring's end", func(t *testing.T, p *Producer, c *Consumer) {
			for i := range 5 { // 3 slots left before the end
				send(t, p, uint64(i))
				recv(t, c, uint64(i))
			}
		}},
		{"last slot not released", func(t *testing.T, p *Producer, c *Consumer) {
			// A lap round: positions 0-7 published, 0-2 released, so
			// the span at 8-11 finds its head free and its last
			// slot (3) still the consumer's.
			for i := range 8 {
				send(t, p, uint64(i))
			}
			for i := range 3 {
				recv(t, c, uint64(i))
			}
		}},
		{"head not released", func(t *testing.T, p *Producer, c *Consumer) {
			for i := range 8 {
				send(t, p, uint64(i))
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, c := fifoPair(t, 8)
			tc.setup(t, p, c)
			pos := *p.pos
			before := make([]byte, len(p.slots))
			copy(before, p.slots)
			if p.PutSpan(3, 9, payload) {
				t.Fatalf("PutSpan at position %d succeeded", pos)
			}
			if *p.pos != pos || string(p.slots) != string(before) {
				t.Fatalf("a declined PutSpan moved the position (%d -> %d) or wrote the ring", pos, *p.pos)
			}
		})
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
