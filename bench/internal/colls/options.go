// Package colls is the Go twin of bench/c/osu_colls.c: every collective of
// package mpi, blocking, nonblocking (started and waited at once) and
// persistent, at a list of message sizes, plus OSU's overlap measurement
// of Iallreduce, Ibcast and Ialltoall, in one run. Both programs print the
// same lines (see Row and OverlapRow), which bench/cmd/colltable lays side
// by side; bench/compare_coll.sh drives them.
//
// Each collective, form and size is checked once on patterned data before
// it is timed (Fill, Verify), so a collective that computes a wrong result
// shows as WRONG in the table instead of as a fast time.
package colls

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Coll names one collective, as on the command line and in the output.
type Coll int

// The collectives, in the order a run measures them.
const (
	Barrier Coll = iota
	Bcast
	Gather
	Gatherv
	Scatter
	Scatterv
	Allgather
	Allgatherv
	Alltoall
	Alltoallv
	Alltoallw
	Reduce
	Allreduce
	ReduceScatter
	ReduceScatterBlock
	Scan
	Exscan
	ReduceLocal
	NeighborAllgather
	NeighborAllgatherv
	NeighborAlltoall
	NeighborAlltoallv
	NeighborAlltoallw
	NumColls
)

var collNames = [NumColls]string{
	"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
	"allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter",
	"reduce_scatter_block", "scan", "exscan", "reduce_local", "neighbor_allgather", "neighbor_allgatherv",
	"neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw",
}

func (c Coll) String() string {
	if c < 0 || c >= NumColls {
		return "coll(" + strconv.Itoa(int(c)) + ")"
	}
	return collNames[c]
}

// ParseColl is the collective named s.
func ParseColl(s string) (Coll, bool) {
	for i, n := range collNames {
		if n == s {
			return Coll(i), true
		}
	}
	return 0, false
}

// Reduction says whether c reduces float32 sums (the others move bytes).
func (c Coll) Reduction() bool { return c >= Reduce && c <= ReduceLocal }

// Neighbor says whether c is a neighbourhood collective, run on a periodic
// ring: each rank's neighbours are the ranks below and above it.
func (c Coll) Neighbor() bool { return c >= NeighborAllgather }

// HasForm says whether c has form f: ReduceLocal, local and blocking in
// MPI, has no other.
func (c Coll) HasForm(f Form) bool {
	return c != ReduceLocal || f == Blocking
}

// HasOverlap says whether OSU has an overlap benchmark of c's nonblocking
// form that this suite reproduces (osu_iallreduce, osu_ibcast, osu_ialltoall).
func (c Coll) HasOverlap() bool { return c == Allreduce || c == Bcast || c == Alltoall }

// Form is how a collective is called.
type Form int

// The forms: b blocking, nb nonblocking waited at once, p persistent
// (init once, Start and Wait), ov OSU's overlap measurement.
const (
	Blocking Form = iota
	NonBlocking
	Persistent
	Overlap
	NumForms
)

var formNames = [NumForms]string{"b", "nb", "p", "ov"}

func (f Form) String() string {
	if f < 0 || f >= NumForms {
		return "form(" + strconv.Itoa(int(f)) + ")"
	}
	return formNames[f]
}

// ParseForm is the form named s.
func ParseForm(s string) (Form, bool) {
	for i, n := range formNames {
		if n == s {
			return Form(i), true
		}
	}
	return 0, false
}

// Defaults of the command line, the same as the C program's.
const (
	DefaultIters = 200
	DefaultSizes = "8,1024,65536,1048576,4194304"
	// large is the size above which iterations shrink in proportion.
	large         = 16384
	minLargeIters = 5
	maxSize       = 1 << 26
)

// Options are one run's settings.
type Options struct {
	Colls []Coll
	Forms []Form
	Sizes []int
	Iters int // timed iterations up to 16 KiB
	Skip  int // warm-up iterations; -1: a tenth of the timed ones
	Tests []int
}

// ErrReported is a usage error the flag package has already printed.
var ErrReported = errors.New("usage error")

// ParseOptions parses the command line; flag's messages go to out.
func ParseOptions(args []string, out io.Writer) (Options, error) {
	o := Options{Iters: DefaultIters, Skip: -1}
	fs := flag.NewFlagSet("osu_colls", flag.ContinueOnError)
	fs.SetOutput(out)
	colls := fs.String("c", "all", "collectives, comma-separated, or all: "+strings.Join(collNames[:], " "))
	forms := fs.String("forms", "b,nb,p,ov", "forms, of b (blocking), nb (nonblocking waited at once), p (persistent), ov (overlap)")
	sizes := fs.String("m", DefaultSizes, "message `sizes` in bytes, comma-separated")
	tests := fs.String("t", "0", "Request.Test `calls` spread over each compute phase of ov, comma-separated")
	fs.IntVar(&o.Iters, "i", o.Iters, "timed `iterations` up to 16 KiB (above: ITERS*16384/size, at least 5)")
	fs.IntVar(&o.Skip, "x", o.Skip, "warm-up `iterations` (default a tenth of the timed ones, at least 1)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, ErrReported
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.Iters < 1 {
		return o, fmt.Errorf("-i %d: need at least 1 iteration", o.Iters)
	}
	if o.Skip < -1 {
		return o, fmt.Errorf("-x %d: negative warm-up", o.Skip)
	}
	var err error
	seen := map[Coll]bool{}
	err = eachItem("-c", *colls, func(s string) error {
		if s == "all" {
			for c := range NumColls {
				if !seen[c] {
					seen[c] = true
					o.Colls = append(o.Colls, c)
				}
			}
			return nil
		}
		c, ok := ParseColl(s)
		if !ok {
			return fmt.Errorf("unknown collective %q", s)
		}
		if !seen[c] {
			seen[c] = true
			o.Colls = append(o.Colls, c)
		}
		return nil
	})
	if err != nil {
		return o, err
	}
	if err = eachItem("-forms", *forms, func(s string) error {
		f, ok := ParseForm(s)
		if !ok {
			return fmt.Errorf("unknown form %q", s)
		}
		o.Forms = append(o.Forms, f)
		return nil
	}); err != nil {
		return o, err
	}
	if err = eachItem("-m", *sizes, func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxSize {
			return fmt.Errorf("size %q: want 1 to %d", s, maxSize)
		}
		o.Sizes = append(o.Sizes, n)
		return nil
	}); err != nil {
		return o, err
	}
	if err = eachItem("-t", *tests, func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 1000000 {
			return fmt.Errorf("tests %q: want 0 to 1000000", s)
		}
		o.Tests = append(o.Tests, n)
		return nil
	}); err != nil {
		return o, err
	}
	return o, nil
}

// eachItem calls f on every item of a comma-separated list, none empty.
func eachItem(flagName, list string, f func(string) error) error {
	if list == "" {
		return fmt.Errorf("%s: empty list", flagName)
	}
	for _, s := range strings.Split(list, ",") {
		if s == "" {
			return fmt.Errorf("%s %q: empty item", flagName, list)
		}
		if err := f(s); err != nil {
			return fmt.Errorf("%s: %w", flagName, err)
		}
	}
	return nil
}

// Schedule is the timed and warm-up iterations at size: Iters up to 16
// KiB, then in proportion to 16 KiB/size but at least 5.
func (o Options) Schedule(size int) (iters, skip int) {
	iters = o.Iters
	if size > large {
		iters = max(min(o.Iters, o.Iters*large/size), minLargeIters)
		iters = min(iters, o.Iters)
	}
	skip = o.Skip
	if skip < 0 {
		skip = max(iters/10, 1)
	}
	return iters, skip
}
