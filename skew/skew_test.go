package skew

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// seg is a stretch of a trace: queue length q observed count times (size
// is the message size for ObserveSize; 0 means Observe). After it, the
// threshold must be thr and the stretch must have made exactly raises
// raisings and lowers lowerings.
type seg struct {
	q, count, size int
	thr            int
	raises, lowers int
}

// run plays segs on c and reports every mismatch with the trace so far.
func run(t *testing.T, c Controller, segs []seg) {
	t.Helper()
	var trace strings.Builder
	for i, s := range segs {
		var up, down int
		for range s.count {
			var thr int
			var m Move
			if s.size > 0 {
				thr, m = c.ObserveSize(s.q, s.size)
			} else {
				thr, m = c.Observe(s.q)
			}
			switch m {
			case Raised:
				up++
			case Lowered:
				down++
			}
			if thr != c.Threshold() {
				t.Fatalf("segment %d: Observe returned %d, Threshold() = %d", i, thr, c.Threshold())
			}
		}
		fmt.Fprintf(&trace, "  q=%d ×%d → %d (+%d -%d)\n", s.q, s.count, c.Threshold(), up, down)
		if c.Threshold() != s.thr || up != s.raises || down != s.lowers {
			t.Fatalf("segment %d: threshold %d, %d raises, %d lowers; want %d, %d, %d\ntrace:\n%s",
				i, c.Threshold(), up, down, s.thr, s.raises, s.lowers, trace.String())
		}
	}
}

func TestTraces(t *testing.T) {
	// Base 8 KiB, ceiling 1 MiB: Observe raises 8K→32K→128K→512K→1M, and
	// decay from 1 MiB takes 7 halvings (log2(1M/8K)) of 8 quiet
	// observations each.
	def := DefaultConfig(8*KiB, MiB)
	tests := []struct {
		name string
		cfg  Config
		segs []seg
	}{
		{"burst: spike raises at once, drain decays to base after 56 quiet observations", def, []seg{
			{q: 0, count: 20, thr: 8 * KiB},
			{q: 6, count: 1, thr: 32 * KiB, raises: 1}, // one observation is enough
			{q: 9, count: 1, thr: 128 * KiB, raises: 1},
			{q: 12, count: 2, thr: MiB, raises: 2}, // 512K, then clamped to 1M
			{q: 3, count: 5, thr: MiB},             // draining through the band: hold
			{q: 1, count: 7, thr: MiB},             // not yet patient enough
			{q: 0, count: 1, thr: 512 * KiB, lowers: 1},
			{q: 0, count: 8 * 5, thr: 16 * KiB, lowers: 5},
			{q: 0, count: 7, thr: 16 * KiB},
			{q: 0, count: 1, thr: 8 * KiB, lowers: 1},
			{q: 0, count: 100, thr: 8 * KiB}, // at base: nothing more
		}},
		{"steady skew: ceiling within 4 observations, then no oscillation", def, []seg{
			{q: 16, count: 4, thr: MiB, raises: 4},
			{q: 16, count: 1000, thr: MiB},
			{q: 5, count: 1000, thr: MiB},
			{q: 4, count: 1000, thr: MiB}, // RaiseAt itself counts as ahead
		}},
		{"recovery: skew ends, back to base, skew again reacts at once", def, []seg{
			{q: 10, count: 50, thr: MiB, raises: 4},
			{q: 0, count: 56, thr: 8 * KiB, lowers: 7},
			{q: 10, count: 1, thr: 32 * KiB, raises: 1},
			{q: 0, count: 8, thr: 16 * KiB, lowers: 1},
			{q: 0, count: 8, thr: 8 * KiB, lowers: 1},
		}},
		{"band holds: queue between LowerAt and RaiseAt never moves", def, []seg{
			{q: 8, count: 2, thr: 128 * KiB, raises: 2},
			{q: 2, count: 500, thr: 128 * KiB},
			{q: 3, count: 500, thr: 128 * KiB},
		}},
		{"a band observation breaks the quiet streak", def, []seg{
			{q: 4, count: 1, thr: 32 * KiB, raises: 1},
			{q: 0, count: 7, thr: 32 * KiB},
			{q: 2, count: 1, thr: 32 * KiB},
			{q: 0, count: 7, thr: 32 * KiB},
			{q: 1, count: 1, thr: 16 * KiB, lowers: 1},
		}},
		{"base 0: the first raise lands on MinRaise", DefaultConfig(0, 64*KiB), []seg{
			{q: 4, count: 1, thr: MinRaise, raises: 1},
			{q: 4, count: 1, thr: 4 * MinRaise, raises: 1},
			{q: 4, count: 1, thr: 64 * KiB, raises: 1},
			{q: 0, count: 8 * 17, thr: 0, lowers: 17}, // 64K halves to 1, then 0
		}},
		{"ceiling equal to base: never moves", DefaultConfig(32*KiB, 32*KiB), []seg{
			{q: 100, count: 10, thr: 32 * KiB},
			{q: 0, count: 100, thr: 32 * KiB},
		}},
		{"ceiling below base is raised to base", Config{Base: 64 * KiB, Ceiling: 1}, []seg{
			{q: 100, count: 10, thr: 64 * KiB},
		}},
		{"ObserveSize: one raise makes the size eager", def, []seg{
			{q: 5, size: 64 * KiB, count: 1, thr: 64 * KiB, raises: 1},
			{q: 5, size: 64 * KiB, count: 100, thr: 64 * KiB}, // already eager: no climb
			{q: 5, size: 100 * KiB, count: 1, thr: 128 * KiB, raises: 1},
			{q: 5, size: 4 * MiB, count: 1, thr: MiB, raises: 1}, // clamped
			{q: 0, size: 4 * MiB, count: 8 * 7, thr: 8 * KiB, lowers: 7},
		}},
		{"ObserveSize: back to direct for that size after Patience quiet sends", def, []seg{
			{q: 6, size: 256 * KiB, count: 16, thr: 256 * KiB, raises: 1},
			{q: 0, size: 256 * KiB, count: 8, thr: 128 * KiB, lowers: 1},
		}},
		{"patience 1, LowerAt 0", Config{Base: 4 * KiB, Ceiling: 64 * KiB, RaiseAt: 2, LowerAt: 0, Patience: 1}, []seg{
			{q: 2, count: 1, thr: 16 * KiB, raises: 1},
			{q: 1, count: 10, thr: 16 * KiB},
			{q: 0, count: 1, thr: 8 * KiB, lowers: 1},
			{q: 0, count: 1, thr: 4 * KiB, lowers: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, New(tt.cfg), tt.segs) })
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want Config
	}{
		{Config{}, Config{RaiseAt: 4, LowerAt: 0, Patience: 8}},
		{DefaultConfig(1, 2), Config{Base: 1, Ceiling: 2, RaiseAt: 4, LowerAt: 1, Patience: 8}},
		{Config{Base: -5, Ceiling: -1}, Config{RaiseAt: 4, Patience: 8}},
		{Config{Base: 10, Ceiling: 5}, Config{Base: 10, Ceiling: 10, RaiseAt: 4, Patience: 8}},
		{Config{RaiseAt: 3, LowerAt: 7, Patience: -1}, Config{RaiseAt: 3, LowerAt: 2, Patience: 8}},
		{Config{RaiseAt: 1, LowerAt: -3, Patience: 2}, Config{RaiseAt: 1, LowerAt: 0, Patience: 2}},
	}
	for _, tt := range tests {
		if got := tt.in.Normalize(); got != tt.want {
			t.Errorf("%+v.Normalize() = %+v, want %+v", tt.in, got, tt.want)
		}
		c := New(tt.in)
		if c.Config() != tt.want || c.Threshold() != tt.want.Base {
			t.Errorf("New(%+v): config %+v threshold %d", tt.in, c.Config(), c.Threshold())
		}
	}
}

func TestZeroController(t *testing.T) {
	var c Controller
	for _, q := range []int{0, 100, -1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0} {
		if thr, m := c.Observe(q); thr != 0 || m != Held {
			t.Fatalf("zero Controller: Observe(%d) = %d, %v", q, thr, m)
		}
		if thr, m := c.ObserveSize(q, 1<<20); thr != 0 || m != Held {
			t.Fatalf("zero Controller: ObserveSize(%d) = %d, %v", q, thr, m)
		}
	}
}

// TestNoisyQueue: a queue hovering around the band makes few moves. The
// controller starts at Base, or at Ceiling when raised is set; the noise is
// drawn uniformly from [lo, hi]; the moves of 10000 observations are
// counted.
func TestNoisyQueue(t *testing.T) {
	tests := []struct {
		name               string
		raised             bool
		lo, hi             int
		maxRaise, maxLower int
	}{
		{"inside the band, at base", false, 2, 3, 0, 0},
		{"inside the band, raised", true, 2, 3, 0, 0},
		{"around RaiseAt", false, 2, 6, 4, 0}, // climbs to the ceiling in 4 raises and stays
		{"around LowerAt, at base", false, 0, 3, 0, 0},
		// Raised, around LowerAt: it sinks to base at most once (7 halvings)
		// and nothing brings it back up.
		{"around LowerAt, raised", true, 0, 3, 0, 7},
		// Across the whole band: P(8 quiet in a row) = (2/7)^8, so a lowering
		// is rare and the next spike undoes it.
		{"across the band", false, 0, 6, 6, 2},
		{"quiet", true, 0, 1, 0, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			c := New(DefaultConfig(8*KiB, MiB))
			if tt.raised {
				for c.Threshold() < MiB {
					c.Observe(100)
				}
			}
			up, down := 0, 0
			for range 10000 {
				switch _, m := c.Observe(tt.lo + r.IntN(tt.hi-tt.lo+1)); m {
				case Raised:
					up++
				case Lowered:
					down++
				}
			}
			t.Logf("q∈[%d,%d]: %d raises, %d lowers, threshold %d", tt.lo, tt.hi, up, down, c.Threshold())
			if up > tt.maxRaise || down > tt.maxLower {
				t.Errorf("%d raises, %d lowers in 10000 observations of q∈[%d,%d], want ≤ %d, %d",
					up, down, tt.lo, tt.hi, tt.maxRaise, tt.maxLower)
			}
		})
	}

	// Alternating high and low (the worst flapping input): the threshold
	// rises to the ceiling and stays, because no streak of quiet
	// observations ever reaches Patience.
	c := New(DefaultConfig(8*KiB, MiB))
	moves := 0
	for i := range 10000 {
		q := 0
		if i%DefaultPatience == DefaultPatience-1 {
			q = DefaultRaiseAt
		}
		if _, m := c.Observe(q); m != Held {
			moves++
		}
	}
	if moves != 4 || c.Threshold() != MiB {
		t.Errorf("periodic spikes: %d moves, threshold %d; want 4 raises to %d", moves, c.Threshold(), MiB)
	}
}

// obs is one observation of a checked trace.
type obs struct{ q, size int } // size 0: Observe, else ObserveSize

// check plays trace on New(cfg) and verifies the invariants at every step;
// it is shared by the property test and the fuzz target.
func check(t *testing.T, cfg Config, trace []obs) {
	t.Helper()
	c := New(cfg)
	n := c.Config()
	if n != n.Normalize() {
		t.Fatalf("Normalize not idempotent: %+v → %+v", n, n.Normalize())
	}
	if n.Base < 0 || n.Ceiling < n.Base || n.RaiseAt < 1 || n.LowerAt < 0 || n.LowerAt >= n.RaiseAt || n.Patience < 1 {
		t.Fatalf("invalid normalized config %+v from %+v", n, cfg)
	}
	quiet := 0  // consecutive observations <= LowerAt
	streak := 0 // of those, since the last lowering step (or full streak at Base)
	for i, o := range trace {
		prev := c.Threshold()
		var thr int
		var m Move
		if o.size > 0 {
			thr, m = c.ObserveSize(o.q, o.size)
		} else {
			thr, m = c.Observe(o.q)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("config %+v, step %d (q=%d size=%d): %d → %d %v: %s",
				n, i, o.q, o.size, prev, thr, m, fmt.Sprintf(format, args...))
		}
		if o.q <= n.LowerAt {
			quiet++
			streak++
		} else {
			quiet, streak = 0, 0
		}
		if thr != c.Threshold() {
			fail("Threshold() = %d", c.Threshold())
		}
		if thr < n.Base || thr > n.Ceiling {
			fail("out of [%d, %d]", n.Base, n.Ceiling)
		}
		switch {
		case thr > prev && m != Raised, thr < prev && m != Lowered, thr == prev && m != Held:
			fail("move does not match the change")
		}
		if o.q > n.LowerAt && o.q < n.RaiseAt && m != Held {
			fail("moved inside the band")
		}
		switch m {
		case Raised:
			if o.q < n.RaiseAt {
				fail("raised below RaiseAt")
			}
			want := min(max(prev*RaiseFactor, MinRaise), n.Ceiling)
			if prev > n.Ceiling/RaiseFactor {
				want = n.Ceiling
			}
			if o.size > 0 {
				want = ceilPow2(min(o.size, n.Ceiling), n.Ceiling)
			}
			if thr != want {
				fail("raised to %d, want %d", thr, want)
			}
		case Lowered:
			if quiet < n.Patience {
				fail("lowered after %d quiet observations; patience %d", quiet, n.Patience)
			}
			if want := max(prev/2, n.Base); thr != want {
				fail("lowered to %d, want %d", thr, want)
			}
		}
		// Liveness: fast to react, and decay does happen, exactly when a
		// streak of Patience quiet observations completes.
		if o.q >= n.RaiseAt && prev < n.Ceiling && m != Raised && (o.size == 0 || o.size > prev) {
			fail("did not raise")
		}
		if o.size > 0 && o.q >= n.RaiseAt && o.size > thr && thr < n.Ceiling {
			fail("size %d still direct after a raise", o.size)
		}
		if streak == n.Patience {
			streak = 0
			if prev > n.Base && m != Lowered {
				fail("did not lower after %d quiet observations", n.Patience)
			}
		} else if m == Lowered {
			fail("lowered in the middle of a streak (%d of %d)", streak, n.Patience)
		}
	}
}

// randomTrace draws a trace of bursts and quiet stretches with noise.
func randomTrace(r *rand.Rand, n int) []obs {
	tr := make([]obs, 0, n)
	for len(tr) < n {
		level := r.IntN(12)
		size := 0
		if r.IntN(2) == 0 {
			size = 1 + r.IntN(4*MiB)
		}
		for range 1 + r.IntN(40) {
			q := max(level+r.IntN(5)-2, 0)
			if r.IntN(50) == 0 {
				q = -r.IntN(3) // a garbled report
			}
			tr = append(tr, obs{q, size})
		}
	}
	return tr[:n]
}

func randomConfig(r *rand.Rand) Config {
	base := r.IntN(64*KiB) - 100
	return Config{
		Base:     base,
		Ceiling:  base + r.IntN(8*MiB) - 1000,
		RaiseAt:  r.IntN(10) - 1,
		LowerAt:  r.IntN(10) - 2,
		Patience: r.IntN(12) - 1,
	}
}

func TestRandomTraces(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 4))
	for range 300 {
		check(t, randomConfig(r), randomTrace(r, 1000))
	}
	for range 100 {
		check(t, DefaultConfig(r.IntN(64*KiB), r.IntN(16*MiB)), randomTrace(r, 2000))
	}
}

func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	tr := randomTrace(r, 5000)
	a, b := New(DefaultConfig(4*KiB, 4*MiB)), New(DefaultConfig(4*KiB, 4*MiB))
	for _, o := range tr {
		ta, ma := a.ObserveSize(o.q, o.size)
		tb, mb := b.ObserveSize(o.q, o.size)
		if ta != tb || ma != mb {
			t.Fatal("same observations, different thresholds")
		}
	}
}

// FuzzObserve runs random observation sequences against the invariants:
// bounds, moves matching changes, raises only at RaiseAt and by the
// documented amount, lowerings only after Patience quiet observations and
// by halving toward Base, no move inside the band, and liveness both ways.
func FuzzObserve(f *testing.F) {
	f.Add(8*KiB, MiB, 4, 1, 8, []byte{0, 0, 6, 9, 12, 8, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(0, 64*KiB, 1, 0, 1, []byte{1, 0, 1, 0, 0xff, 0x80, 0x81})
	f.Add(-1, -1, -1, -1, -1, []byte{200, 0})
	f.Add(1<<40, 1<<62, 4, 1, 8, []byte{0xc5, 0xc5, 0xc5, 0, 0, 0})
	f.Fuzz(func(t *testing.T, base, ceiling, raiseAt, lowerAt, patience int, data []byte) {
		cfg := Config{Base: base, Ceiling: ceiling, RaiseAt: raiseAt, LowerAt: lowerAt, Patience: patience}
		// Each byte is one observation: the low 6 bits the queue length
		// (63 reads as -1, a garbled report), the top 2 bits pick Observe or
		// ObserveSize with a small, medium or huge message.
		trace := make([]obs, len(data))
		sizes := [4]int{0, 3000, 300 * KiB, 1 << 61}
		for i, b := range data {
			q := int(b & 63)
			if q == 63 {
				q = -1
			}
			trace[i] = obs{q, sizes[b>>6]}
		}
		check(t, cfg, trace)
	})
}

func TestObserveAllocs(t *testing.T) {
	c := New(DefaultConfig(8*KiB, MiB))
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		c.Observe(i % 9)
		c.ObserveSize(i%7, i*1000)
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per observation, want 0", allocs)
	}
}

func BenchmarkObserve(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	tr := randomTrace(r, 4096)
	c := New(DefaultConfig(8*KiB, 4*MiB))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Observe(tr[i&4095].q)
		i++
	}
}

func BenchmarkObserveSize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	tr := randomTrace(r, 4096)
	c := New(DefaultConfig(8*KiB, 4*MiB))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		o := tr[i&4095]
		c.ObserveSize(o.q, o.size)
		i++
	}
}
