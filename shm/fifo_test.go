package shm

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// fifoPair is both ends of channel 0→1 of a fresh anonymous region.
func fifoPair(t *testing.T, slots int) (*Producer, *Consumer) {
	t.Helper()
	r := newAnon(t, 2, Config{MinCells: 1, CellSize: CacheLine, Slots: slots})
	ch := r.Channel(0, 1)
	return ch.Producer(), ch.Consumer()
}

// send reserves, stamps seq into the envelope and the first inline bytes,
// and publishes. It fails the test if the ring is full.
func send(t *testing.T, p *Producer, seq uint64) {
	t.Helper()
	s := p.Reserve()
	if s == nil {
		t.Fatalf("Reserve for message %d: ring full", seq)
	}
	if len(s) != SlotSize || cap(s) != SlotSize {
		t.Fatalf("Reserve gave a slot of len %d cap %d, want %d", len(s), cap(s), SlotSize)
	}
	if again := p.Reserve(); &again[0] != &s[0] {
		t.Fatalf("a second Reserve before Publish gave another slot")
	}
	d := Desc{Kind: KindInline, Tag: int32(seq), Ctx: uint32(seq >> 31), MsgLen: 8, FragLen: 8}
	EncodeDesc(s, &d)
	for i := range 8 {
		InlineArea(s)[i] = byte(seq >> (8 * i))
	}
	p.Publish(s)
}

// recv peeks, checks the message is seq, and releases.
func recv(t *testing.T, c *Consumer, seq uint64) {
	t.Helper()
	if !c.Ready() {
		t.Fatalf("message %d: Ready() = false", seq)
	}
	s, err := c.Peek()
	if err != nil || s == nil {
		t.Fatalf("message %d: Peek = %v, %v", seq, s, err)
	}
	d, err := DecodeDesc(s, Limits{})
	if err != nil {
		t.Fatalf("message %d: %v", seq, err)
	}
	var inl uint64
	for i, b := range InlinePayload(s, &d) {
		inl |= uint64(b) << (8 * i)
	}
	if got := uint64(d.Ctx)<<31 | uint64(uint32(d.Tag)); got != seq || inl != seq {
		t.Fatalf("got message %d (payload %d), want %d", got, inl, seq)
	}
	if again, err := c.Peek(); err != nil || &again[0] != &s[0] {
		t.Fatalf("a second Peek before Release moved on (%v)", err)
	}
	c.Release()
}

func expectEmpty(t *testing.T, c *Consumer) {
	t.Helper()
	if c.Ready() {
		t.Fatalf("Ready() = true on an empty ring")
	}
	if s, err := c.Peek(); s != nil || err != nil {
		t.Fatalf("Peek on an empty ring = %v, %v", s, err)
	}
}

func TestFIFOFillDrain(t *testing.T) {
	for _, slots := range []int{2, 8, 64} {
		p, c := fifoPair(t, slots)
		expectEmpty(t, c)
		var seq uint64
		for lap := range 3 {
			for i := range slots {
				send(t, p, seq+uint64(i))
			}
			if s := p.Reserve(); s != nil {
				t.Fatalf("%d slots, lap %d: Reserve on a full ring returned a slot", slots, lap)
			}
			// Releasing one slot frees exactly one.
			recv(t, c, seq)
			send(t, p, seq+uint64(slots))
			if s := p.Reserve(); s != nil {
				t.Fatalf("%d slots: Reserve returned a slot after one release and one publish", slots)
			}
			for i := 1; i <= slots; i++ {
				recv(t, c, seq+uint64(i))
			}
			expectEmpty(t, c)
			seq += uint64(slots) + 1
		}
	}
}

// TestFIFOWrap runs many laps with random batch sizes, checking order and the
// full/empty edges at every step against a count of messages in flight.
func TestFIFOWrap(t *testing.T) {
	const slots = 4
	p, c := fifoPair(t, slots)
	rng := rand.New(rand.NewPCG(1, 2))
	var sent, got uint64
	for sent < 5000*slots {
		for n := rng.IntN(slots + 1); n > 0; n-- {
			if sent-got == slots {
				if p.Reserve() != nil {
					t.Fatalf("at %d sent, %d received: Reserve on a full ring", sent, got)
				}
				break
			}
			send(t, p, sent)
			sent++
		}
		for n := rng.IntN(slots + 1); n > 0; n-- {
			if sent == got {
				expectEmpty(t, c)
				break
			}
			recv(t, c, got)
			got++
		}
	}
	// Every publish word now reads as "free" or "published" for its lap.
	for pos := got; pos < got+slots; pos++ {
		w := seqOf(c.slot(pos)).Load()
		lap := 2 * (pos / slots)
		if pos < sent && w != lap+1 || pos >= sent && w != lap {
			t.Errorf("position %d: publish word %d (lap word %d, sent %d)", pos, w, lap, sent)
		}
	}
}

// TestFIFOChannelsIndependent: traffic on one channel is invisible on every
// other.
func TestFIFOChannelsIndependent(t *testing.T) {
	const n = 4
	r := newAnon(t, n, Config{MinCells: 1, CellSize: CacheLine, Slots: 2})
	cons := map[[2]int]*Consumer{}
	for src := range n {
		for dst := range n {
			if src != dst {
				cons[[2]int{src, dst}] = r.Channel(src, dst).Consumer()
			}
		}
	}
	for pair := range cons {
		send(t, r.Channel(pair[0], pair[1]).Producer(), uint64(pair[0]*100+pair[1]))
		for other, c := range cons {
			if other != pair && c.Ready() {
				t.Fatalf("publishing on %v made %v ready", pair, other)
			}
		}
		recv(t, cons[pair], uint64(pair[0]*100+pair[1]))
	}
}

func TestFIFOCorruptPublishWord(t *testing.T) {
	const slots = 4
	for _, c := range []struct {
		name string
		pos  uint64 // consumer position when the word is forged
		word func(lap uint64) uint64
	}{
		{"next lap's free word", 0, func(lap uint64) uint64 { return lap + 2 }},
		{"next lap's publish word", 1, func(lap uint64) uint64 { return lap + 3 }},
		{"all ones", 2, func(uint64) uint64 { return ^uint64(0) }},
		{"stale publish of the previous lap", slots + 1, func(lap uint64) uint64 { return lap - 1 }},
		{"stale free word of the previous lap", 2*slots + 3, func(lap uint64) uint64 { return lap - 2 }},
		{"zero in a later lap", 3 * slots, func(uint64) uint64 { return 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, cons := fifoPair(t, slots)
			for seq := range c.pos {
				send(t, p, seq)
				recv(t, cons, seq)
			}
			lap := 2 * (c.pos / slots)
			seqOf(cons.slot(c.pos)).Store(c.word(lap))
			if cons.Ready() {
				t.Errorf("Ready() = true on a corrupt word")
			}
			s, err := cons.Peek()
			if s != nil || !errors.Is(err, ErrCorrupt) {
				t.Errorf("Peek = %v, %v; want nil, ErrCorrupt", s, err)
			}
			if p.Reserve() != nil {
				t.Errorf("the producer reserved a slot whose word is corrupt")
			}
		})
	}
}
