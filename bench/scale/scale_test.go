package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/shm"
)

// Many-rank jobs through the real launcher, and what they cost: a channel
// exists only for a pair that talked. 256 ranks start, run and finish in
// about two seconds on a 2-CPU machine, so make test runs them.

var bins struct{ hympirun, scale string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hympi-scale-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.hympirun = filepath.Join(dir, "hympirun")
	bins.scale = filepath.Join(dir, "scale")
	for out, pkg := range map[string]string{bins.hympirun: "../../cmd/hympirun", bins.scale: "."} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", pkg, "failed:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type figures struct {
	used     int64
	channels int
}

var lineRE = regexp.MustCompile(`scale n=(\d+) init_ms=[\d.]+ finalize_ms=[\d.]+ region_used=(-?\d+) channels=(-?\d+) `)

func runScale(t *testing.T, n int, patterns ...string) figures {
	t.Helper()
	limit := 2 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
	defer cancel()
	args := append([]string{"-n", strconv.Itoa(n), "--timeout", limit.String(), bins.scale}, patterns...)
	out, err := exec.CommandContext(ctx, bins.hympirun, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%d ranks, %v: %v\n%s", n, patterns, err, out)
	}
	m := lineRE.FindSubmatch(out)
	if m == nil || string(m[1]) != strconv.Itoa(n) {
		t.Fatalf("%d ranks, %v: no figures in\n%s", n, patterns, out)
	}
	used, _ := strconv.ParseInt(string(m[2]), 10, 64)
	chans, _ := strconv.Atoi(string(m[3]))
	if used < 0 || chans < 0 {
		t.Fatalf("%d ranks: could not read the region (%s)", n, m[0])
	}
	return figures{used, chans}
}

func layout(t *testing.T, n int) shm.Layout {
	l, err := shm.NewLayout(n, shm.ConfigFrom(config.Defaults()))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestManyRanks: hello, barrier, allreduce, a ring exchange and a sparse
// pseudo-random exchange at 16, 64 and 256 ranks all
// complete with correct results (the program checks them), and the
// collectives make no more channels than the pools are sized for.
func TestManyRanks(t *testing.T) {
	for _, n := range []int{16, 64, 256} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			f := runScale(t, n, "hello", "barrier", "allreduce", "ring", "pairs")
			l := layout(t, n)
			// The patterns add n·4 pairs at most to the collectives'.
			if max := shm.ExpectedPairs(n) + 4*n; f.channels > max || f.channels >= n*(n-1) {
				t.Errorf("%d channels made, want at most %d (of %d pairs)", f.channels, max, n*(n-1))
			}
			if f.used > l.ChannelOff+int64(f.channels)*l.ChannelStride {
				t.Errorf("%d bytes used by %d channels of %d bytes", f.used, f.channels, l.ChannelStride)
			}
		})
	}
}

// TestPairsCostOnlyWhenTheyTalk: the region holds a channel for exactly the
// pairs that talked. The collectives alone make fewer than half the pairs;
// a ring exchange (whose pairs the collectives already use) adds at most n,
// a sparse exchange with three partners each at most 3n and at least one;
// after an all-pairs exchange every ordered pair has one, and the file
// system holds at least their rings, more than after the others.
func TestPairsCostOnlyWhenTheyTalk(t *testing.T) {
	const n = 16
	l := layout(t, n)
	hello := runScale(t, n, "hello")
	ring := runScale(t, n, "ring")
	pairs := runScale(t, n, "pairs")
	all := runScale(t, n, "allpairs")
	t.Logf("channels: hello %d, ring %d, pairs %d, all pairs %d; MiB used: %.1f, %.1f, %.1f, %.1f",
		hello.channels, ring.channels, pairs.channels, all.channels,
		float64(hello.used)/(1<<20), float64(ring.used)/(1<<20), float64(pairs.used)/(1<<20), float64(all.used)/(1<<20))
	for _, c := range []struct {
		name   string
		f      figures
		lo, hi int
	}{
		{"hello", hello, 1, min(shm.ExpectedPairs(n), n*(n-1)/2)},
		{"ring", ring, hello.channels, hello.channels + n},
		{"pairs", pairs, hello.channels + 1, hello.channels + 3*n},
		{"all pairs", all, n * (n - 1), n * (n - 1)},
	} {
		if c.f.channels < c.lo || c.f.channels > c.hi {
			t.Errorf("%s: %d channels, want %d..%d", c.name, c.f.channels, c.lo, c.hi)
		}
	}
	if all.used < int64(all.channels)*l.RingBytes() || all.used <= pairs.used || pairs.used <= hello.used {
		t.Errorf("bytes used: hello %d, pairs %d, all pairs %d (%d channels × %d ring bytes)",
			hello.used, pairs.used, all.used, all.channels, l.RingBytes())
	}
}
