// Package osu holds what hympi's OSU-style benchmarks share and what does
// not depend on an MPI library: OSU's iteration schedule and size
// progression, the -m range syntax, the buffer policies of -buffers (pool
// size, slot layout and walk, see buffers.go), the two output formats
// (OSU's table and Go benchmark format, see format.go) and a reader for
// OSU-format output (parse.go) that bench/cmd/osutable aggregates.
//
// The numbers follow the OSU micro-benchmarks (osu_util.h) so that a row
// printed by hympi's Go benchmarks, by bench/c/osu_pt2pt.c and by a real OSU
// binary measure the same thing with the same effort.
package osu

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is what a benchmark measures, and so the unit of its rows.
type Kind int

const (
	// Latency rows are one-way latencies in microseconds (lower is better).
	Latency Kind = iota + 1
	// Bandwidth rows are rates in MB/s, 1 MB = 1e6 bytes (higher is better).
	Bandwidth
)

func (k Kind) String() string {
	switch k {
	case Latency:
		return "latency"
	case Bandwidth:
		return "bandwidth"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Unit is the unit of a row value of kind k, as OSU's column header spells it.
func (k Kind) Unit() string {
	if k == Bandwidth {
		return "MB/s"
	}
	return "us"
}

// LargeMessageSize is OSU's LARGE_MESSAGE_SIZE: sizes strictly above it get
// the smaller "large" iteration counts, because each iteration costs more
// and the average is already stable.
const LargeMessageSize = 8192

// OSU's default iteration and warm-up counts (osu_util.h).
const (
	latLoopSmall = 10000
	latSkipSmall = 100
	latLoopLarge = 1000
	latSkipLarge = 10
	bwLoopSmall  = 100
	bwSkipSmall  = 10
	bwLoopLarge  = 20
	bwSkipLarge  = 2
)

// DefaultWindow is osu_bw's WINDOW_SIZE_LARGE: sends in flight per iteration.
const DefaultWindow = 64

// DefaultMaxSize is the largest message of a default sweep. OSU stops at
// 1 MiB for latency; hympi's benchmarks go to 4 MiB for both kinds because the
// direct-copy protocol is what the large sizes exercise.
const DefaultMaxSize = 4 << 20

// DefaultMinSize is the smallest message of a default sweep. Bandwidth
// starts at 1 as in OSU: a zero-byte message moves no data, so its rate is 0.
func DefaultMinSize(k Kind) int {
	if k == Bandwidth {
		return 1
	}
	return 0
}

// Schedule says how many timed and warm-up iterations each size gets.
type Schedule struct {
	Iters, Skip           int // sizes up to LargeMessageSize
	ItersLarge, SkipLarge int // sizes above LargeMessageSize
}

// DefaultSchedule is OSU's schedule for kind k.
func DefaultSchedule(k Kind) Schedule {
	if k == Bandwidth {
		return Schedule{bwLoopSmall, bwSkipSmall, bwLoopLarge, bwSkipLarge}
	}
	return Schedule{latLoopSmall, latSkipSmall, latLoopLarge, latSkipLarge}
}

// Override applies OSU's -i and -x: like OSU's set_num_iterations and
// set_num_warmup, a given value replaces the small and the large count
// alike. A negative value leaves the schedule as it is.
func (s Schedule) Override(iters, skip int) Schedule {
	if iters >= 0 {
		s.Iters, s.ItersLarge = iters, iters
	}
	if skip >= 0 {
		s.Skip, s.SkipLarge = skip, skip
	}
	return s
}

// At returns the timed and warm-up iteration counts for one message size.
func (s Schedule) At(size int) (iters, skip int) {
	if size > LargeMessageSize {
		return s.ItersLarge, s.SkipLarge
	}
	return s.Iters, s.Skip
}

// Sizes is OSU's size progression from min to max inclusive: each size
// doubles the previous one, and 0 is followed by 1.
func Sizes(min, max int) []int {
	var out []int
	for s := min; s <= max; s = next(s) {
		out = append(out, s)
	}
	return out
}

func next(s int) int {
	if s == 0 {
		return 1
	}
	return s * 2
}

// ParseRange parses OSU's -m argument: "MAX", "MIN:MAX", "MIN:" or ":MAX".
// Bounds left out keep the values passed in.
func ParseRange(s string, min, max int) (int, int, error) {
	lo, hi, found := strings.Cut(s, ":")
	if !found {
		lo, hi = "", s
	}
	var err error
	if lo != "" {
		if min, err = parseSize(lo); err != nil {
			return 0, 0, fmt.Errorf("bad minimum in -m %q: %w", s, err)
		}
	}
	if hi != "" {
		if max, err = parseSize(hi); err != nil {
			return 0, 0, fmt.Errorf("bad maximum in -m %q: %w", s, err)
		}
	}
	if min > max {
		return 0, 0, fmt.Errorf("-m %q: minimum %d is above maximum %d", s, min, max)
	}
	return min, max, nil
}

// maxSize keeps a size within what an MPI count (a C int) can express.
const maxSize = 1<<31 - 1

func parseSize(s string) (int, error) {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return 0, errors.New("not a whole number")
	case n < 0:
		return 0, errors.New("negative")
	case n > maxSize:
		return 0, fmt.Errorf("above %d", maxSize)
	}
	return n, nil
}

// Median returns the median of v without reordering v; for an even count it
// is the mean of the two middle values. The median rather than the mean,
// because on a shared machine the noise is one-sided outliers.
func Median(v []float64) float64 {
	switch len(v) {
	case 0:
		return 0
	case 1:
		return v[0]
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
