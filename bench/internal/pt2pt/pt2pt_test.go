package pt2pt

import (
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
// microseconds; bandwidth is size/1e6 * iterations * window / seconds.
func TestMetrics(t *testing.T) {
	tests := []struct {
		kind                osu.Kind
		size, iters, window int
		secs                float64
		wantValue           float64
		wantOps             int
	}{
		{osu.Latency, 8, 10000, 0, 0.009, 0.45, 20000},
		{osu.Bandwidth, 1 << 20, 20, 64, 0.1, 13421.7728, 1280},
		{osu.Bandwidth, 1024, 100, 64, 0.002, 3276.8, 6400},
	}
	for _, tt := range tests {
		v, ops := metrics(tt.kind, tt.size, tt.iters, tt.window, tt.secs)
		if math.Abs(v-tt.wantValue) > 1e-9*tt.wantValue || ops != tt.wantOps {
			t.Errorf("metrics(%v, %d, %d, %d, %g) = %g, %d, want %g, %d",
				tt.kind, tt.size, tt.iters, tt.window, tt.secs, v, ops, tt.wantValue, tt.wantOps)
		}
	}
}

func TestTouched(t *testing.T) {
	for _, n := range []int{4, 100, 4096, 1<<20 + 3} {
		b := touched(n, 'a')
		if len(b) != n || cap(b) != n {
			t.Errorf("touched(%d): len %d cap %d", n, len(b), cap(b))
		}
		if addr := uintptr(unsafe.Pointer(&b[0])); addr%uintptr(pageSize) != 0 {
			t.Errorf("touched(%d) at %#x: not page-aligned", n, addr)
		}
		if b[0] != 'a' || b[n-1] != 'a' {
			t.Errorf("touched(%d) not filled", n)
		}
	}
}

func TestGoBenchConfig(t *testing.T) {
	t.Setenv("HYMPI_DIRECT", "always")
	t.Setenv("HYMPI_THRESHOLD", "")
	t.Setenv("HYMPI_RANK", "1") // a launcher variable: must not appear
	cfg := goBenchConfig(Benchmark{Name: "osu_bw", Kind: osu.Bandwidth})
	got := map[string]string{}
	for _, c := range cfg {
		got[c.Key] = c.Value
	}
	want := map[string]string{
		"pkg": "github.com/hympi/hympi/bench/osu_bw", "ranks": "2",
		"hympi_direct": "always", "hympi_skew": "on",
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
