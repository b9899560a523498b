package pt2pt

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/hympi/hympi/bench/internal/osu"
)

func TestParseFlags(t *testing.T) {
	lat := Benchmark{Name: "osu_latency", Kind: osu.Latency}
	bw := Benchmark{Name: "osu_bw", Kind: osu.Bandwidth}
	tests := []struct {
		name    string
		b       Benchmark
		args    []string
		check   func(options) bool
		wantErr string
	}{
		{"latency defaults", lat, nil, func(o options) bool {
			return o.min == 0 && o.max == 4<<20 && o.reps == 1 && o.format == "osu" &&
				o.sched == osu.DefaultSchedule(osu.Latency)
		}, ""},
		{"bw defaults", bw, nil, func(o options) bool {
			return o.min == 1 && o.window == 64 && o.sched == osu.DefaultSchedule(osu.Bandwidth)
		}, ""},
		{"range and reps", lat, []string{"-m", "8:1024", "-reps", "5"}, func(o options) bool {
			return o.min == 8 && o.max == 1024 && o.reps == 5
		}, ""},
		{"max only keeps the default min", bw, []string{"-m", "4096"}, func(o options) bool {
			return o.min == 1 && o.max == 4096
		}, ""},
		{"-i and -x cover every size", bw, []string{"-i", "7", "-x", "0", "-W", "8"}, func(o options) bool {
			return o.sched == osu.Schedule{Iters: 7, Skip: 0, ItersLarge: 7, SkipLarge: 0} && o.window == 8
		}, ""},
		{"gobench", lat, []string{"-format", "gobench"}, func(o options) bool { return o.format == "gobench" }, ""},
		{"help", lat, []string{"-h"}, nil, flag.ErrHelp.Error()},
		{"no window for latency", lat, []string{"-W", "8"}, nil, errReported.Error()},
		{"bad range", lat, []string{"-m", "9:1"}, nil, errReported.Error()},
		{"zero iterations", lat, []string{"-i", "0"}, nil, "need at least 1 iteration"},
		{"negative warm-up", lat, []string{"-x", "-3"}, nil, "negative warm-up"},
		{"zero window", bw, []string{"-W", "0"}, nil, "window of at least 1"},
		{"zero reps", lat, []string{"-reps", "0"}, nil, "at least 1 repetition"},
		{"bad format", lat, []string{"-format", "csv"}, nil, `-format "csv"`},
		{"stray argument", lat, []string{"4096"}, nil, `unexpected argument "4096"`},
		{"buffers default to reuse", bw, nil, func(o options) bool { return o.buffers == "reuse" && o.poolMiB == 0 }, ""},
		{"fresh buffers", bw, []string{"-buffers", "fresh"}, func(o options) bool { return o.buffers == "fresh" && o.poolMiB == 0 }, ""},
		{"fresh with a pool", lat, []string{"-buffers", "fresh", "-pool", "16"}, func(o options) bool {
			return o.buffers == "fresh" && o.poolMiB == 16
		}, ""},
		{"bad buffers", lat, []string{"-buffers", "cold"}, nil, `-buffers "cold"`},
		{"pool without fresh", lat, []string{"-pool", "16"}, nil, "needs -buffers fresh"},
		{"zero pool", lat, []string{"-buffers", "fresh", "-pool", "0"}, nil, "want 1 to"},
		{"huge pool", lat, []string{"-buffers", "fresh", "-pool", "99999999"}, nil, "want 1 to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.b, tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(o) {
				t.Errorf("options = %+v", o)
			}
		})
	}
	if _, err := parseFlags(lat, []string{"-h"}, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: error %v is not flag.ErrHelp", err)
	}
}

// TestMetrics pins OSU's formulas: latency is half the mean round trip in
// microseconds; bandwidth is size/1e6 * iterations * window / seconds,
// doubled for osu_bibw and multiplied by the pairs for osu_mbw_mr (whose
// seconds are the senders' mean); the rate is osu_mbw_mr's 1e6*bw/size.
func TestMetrics(t *testing.T) {
	tests := []struct {
		name      string
		kind      osu.Kind
		size      int
		timing    Timing
		wantValue float64
		wantRate  float64
	}{
		{"latency: 10000 round trips", osu.Latency, 8, Timing{0.009, 2 * 10000}, 0.45, 20000 / 0.009},
		{"bw: 20 windows of 64", osu.Bandwidth, 1 << 20, Timing{0.1, 20 * 64}, 13421.7728, 12800},
		{"bw small", osu.Bandwidth, 1024, Timing{0.002, 100 * 64}, 3276.8, 3.2e6},
		{"bibw: both directions", osu.Bandwidth, 1 << 20, Timing{0.1, 2 * 20 * 64}, 2 * 13421.7728, 25600},
		{"mbw_mr: 2 pairs", osu.Bandwidth, 8, Timing{0.004, 2 * 100 * 64}, 25.6, 3.2e6},
	}
	for _, tt := range tests {
		v, rate := metrics(tt.kind, tt.size, tt.timing)
		if math.Abs(v-tt.wantValue) > 1e-9*tt.wantValue || math.Abs(rate-tt.wantRate) > 1e-9*tt.wantRate {
			t.Errorf("%s: metrics = %g, %g, want %g, %g", tt.name, v, rate, tt.wantValue, tt.wantRate)
		}
		if tt.kind == osu.Bandwidth && math.Abs(rate-1e6*v/float64(tt.size)) > 1e-6*rate {
			t.Errorf("%s: rate %g is not 1e6*bw/size = %g", tt.name, rate, 1e6*v/float64(tt.size))
		}
	}
}

func TestRanks(t *testing.T) {
	tests := []struct {
		r    Ranks
		n    int
		want string // "" for no error
	}{
		{TwoRanks, 2, ""},
		{TwoRanks, 1, "exactly 2 ranks, got 1"},
		{TwoRanks, 4, "exactly 2 ranks, got 4"},
		{RankPairs, 2, ""},
		{RankPairs, 4, ""},
		{RankPairs, 8, ""},
		{RankPairs, 1, "even number of ranks, at least 2, got 1"},
		{RankPairs, 3, "even number of ranks, at least 2, got 3"},
	}
	for _, tt := range tests {
		err := tt.r.check(tt.n)
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("Ranks(%d).check(%d) = %v, want %q", tt.r, tt.n, err, tt.want)
		}
	}
}

func TestSpec(t *testing.T) {
	bw := Benchmark{Name: "osu_mbw_mr", Kind: osu.Bandwidth, OneWay: true}
	lat := Benchmark{Name: "osu_latency", Kind: osu.Latency}
	fresh := options{max: 1 << 20, window: 8, buffers: osu.BuffersFresh, poolMiB: 3}
	reuse := options{max: 1 << 20, window: 8, buffers: osu.BuffersReuse}
	tests := []struct {
		name       string
		b          Benchmark
		o          options
		rank, n    int
		send, recv bool
		window     int
		pool       int64
	}{
		{"one-way sender", bw, fresh, 1, 4, true, false, 8, 3 << 20},
		{"one-way receiver", bw, fresh, 2, 4, false, true, 8, 3 << 20},
		{"both ways", lat, fresh, 1, 2, true, true, 0, 3 << 20},
		{"reuse has no pool size", bw, reuse, 0, 2, true, false, 8, 0},
	}
	for _, tt := range tests {
		s := spec(tt.b, tt.o, tt.rank, tt.n)
		if s.send != tt.send || s.recv != tt.recv || s.window != tt.window || s.poolBytes != tt.pool ||
			s.maxSize != tt.o.max || s.fresh != (tt.o.buffers == osu.BuffersFresh) {
			t.Errorf("%s: spec = %+v", tt.name, s)
		}
	}
	// The default pool follows the machine, within FreshPoolSize's bounds.
	s := spec(lat, options{max: 64, buffers: osu.BuffersFresh}, 0, 2)
	if s.poolBytes < 1<<20 || s.poolBytes > osu.MaxFreshPool {
		t.Errorf("default pool %d bytes", s.poolBytes)
	}
}

// TestSlots checks both policies: reuse hands out one buffer; fresh walks
// every slot of the pool once before reusing any, with slots aligned,
// apart, and without spare capacity.
func TestSlots(t *testing.T) {
	b := mustBuffers(t, bufferSpec{send: true, maxSize: 1 << 16, window: 4})
	if len(b.Reqs) != 8 || len(b.Ack) != ackSize || len(b.Recv.mem) != 0 {
		t.Errorf("reuse buffers: %d reqs, ack %d, recv %d bytes", len(b.Reqs), len(b.Ack), len(b.Recv.mem))
	}
	s := b.Send.Slots(100)
	first := s.Next()
	for range 10 {
		if next := s.Next(); &next[0] != &first[0] || len(next) != 100 {
			t.Fatal("reuse: Next moved")
		}
	}

	const pool = 1 << 20
	b = mustBuffers(t, bufferSpec{send: true, recv: true, fresh: true, maxSize: 1 << 16, poolBytes: pool})
	for _, size := range []int{0, 1, 64, 100, 4096, 5000, 1 << 16} {
		s := b.Recv.Slots(size)
		stride := osu.SlotStride(size, pageSize)
		n := pool / stride
		if s.n != n {
			t.Errorf("size %d: %d slots, want %d", size, s.n, n)
		}
		seen := make(map[int]bool)
		base := uintptr(unsafe.Pointer(unsafe.SliceData(b.Recv.mem)))
		for i := range n {
			buf := s.Next()
			if len(buf) != size || cap(buf) != size {
				t.Fatalf("size %d: slot of len %d cap %d", size, len(buf), cap(buf))
			}
			if size == 0 {
				continue // an empty slice has no address of its own
			}
			off := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) - base)
			if off%stride != 0 || seen[off] {
				t.Fatalf("size %d: message %d at offset %d (stride %d, seen %v)", size, i, off, stride, seen[off])
			}
			seen[off] = true
		}
		if buf := s.Next(); size > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(buf))) != base {
			t.Errorf("size %d: the walk does not come back to slot 0 after %d slots", size, n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Slots on a missing side did not panic")
		}
	}()
	b = mustBuffers(t, bufferSpec{recv: true, maxSize: 8})
	b.Send.Slots(8)
}

func mustBuffers(t *testing.T, s bufferSpec) *Buffers {
	t.Helper()
	b, err := newBuffers(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTouched(t *testing.T) {
	for _, n := range []int{0, 1, 4, 100, 4096, 1<<20 + 3} {
		b, err := touched(n, 'a')
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != n || cap(b) != n {
			t.Errorf("touched(%d): len %d cap %d", n, len(b), cap(b))
		}
		if n == 0 {
			continue
		}
		if addr := uintptr(unsafe.Pointer(&b[0])); addr%uintptr(pageSize) != 0 {
			t.Errorf("touched(%d) at %#x: not page-aligned", n, addr)
		}
		if i := bytes.IndexFunc(b, func(r rune) bool { return r != 'a' }); i >= 0 {
			t.Errorf("touched(%d): byte %d not filled", n, i)
		}
	}
}

func TestGoBenchConfig(t *testing.T) {
	t.Setenv("HYMPI_DIRECT", "always")
	t.Setenv("HYMPI_THRESHOLD", "")
	t.Setenv("HYMPI_RANK", "1") // a launcher variable: must not appear
	cfg := goBenchConfig(Benchmark{Name: "osu_bw", Kind: osu.Bandwidth}, 2, options{buffers: "fresh"})
	got := map[string]string{}
	for _, c := range cfg {
		got[c.Key] = c.Value
	}
	want := map[string]string{
		"pkg": "github.com/hympi/hympi/bench/osu_bw", "ranks": "2",
		"hympi_direct": "always", "hympi_skew": "on", "buffers": "fresh",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"hympi_threshold", "hympi_rank"} {
		if _, ok := got[k]; ok {
			t.Errorf("unexpected config key %s", k)
		}
	}
	if err := osu.WriteGoBenchConfig(io.Discard, cfg); err != nil {
		t.Error(err)
	}
}
