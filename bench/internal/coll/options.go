// Package coll runs OSU-style collective benchmarks under package mpi: the
// options (OSU's -m, -i, -x, -f, plus -reps and, for the non-blocking
// benchmarks, -t), the timed loops, the statistics over ranks and OSU's
// output format, so that each command (bench/osu_barrier, bench/osu_bcast,
// ..., bench/osu_ibarrier) supplies only its buffers and its one call.
//
// The loops follow the OSU micro-benchmarks (osu_allreduce.c, osu_ibarrier.c
// and osu_util.c): each rank times every call of a size, a barrier separates
// the calls, and the row shows the mean over ranks of each rank's average
// (with -f, the smallest and largest rank average too). The C twins in
// bench/c/osu_coll.c measure the same way, so rows from hympi, Open MPI and
// MPICH can be laid side by side by bench/cmd/osutable.
//
// The statistics travel by point to point, not by Reduce, so that a
// benchmark of one collective depends on no other collective than Barrier.
package coll

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/hympi/hympi/bench/internal/osu"
)

// OSU's collective schedule and sizes (osu_util.h: COLL_LOOP_SMALL and
// friends, MAX_MSG_SIZE_COLL, MIN_MESSAGE_SIZE).
const (
	collLoopSmall  = 1000
	collSkipSmall  = 100
	collLoopLarge  = 100
	collSkipLarge  = 10
	DefaultMinSize = 1
	DefaultMaxSize = 1 << 20
)

// DefaultSchedule is OSU's iteration schedule for collectives.
func DefaultSchedule() osu.Schedule {
	return osu.Schedule{Iters: collLoopSmall, Skip: collSkipSmall, ItersLarge: collLoopLarge, SkipLarge: collSkipLarge}
}

// Options are the command-line settings of one run.
type Options struct {
	Min, Max int          // message sizes, bytes (unused by sizeless benchmarks)
	Sched    osu.Schedule // iterations and warm-ups per size
	Full     bool         // -f: min, max and iteration columns
	Reps     int          // -reps: whole sweeps; rows are per-size medians
	Probes   int          // -t: MPI_Test calls during the compute phase (non-blocking only)
}

// ErrReported is returned by ParseOptions for a usage error the flag
// package has already printed.
var ErrReported = errors.New("usage error")

// maxReps bounds -reps.
const maxReps = 10000

// ParseOptions parses a command line of benchmark b. Usage and errors of the
// flag package are written to out; flag.ErrHelp is returned for -h.
func ParseOptions(b Benchmark, args []string, out io.Writer) (Options, error) {
	o := Options{Min: DefaultMinSize, Max: DefaultMaxSize, Reps: 1}
	fs := flag.NewFlagSet(b.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	mUsage := fmt.Sprintf("message sizes `[MIN:]MAX` in bytes (default %d:%d)", o.Min, o.Max)
	if !b.Sized {
		// Accepted, as OSU's barriers accept it, so that one command line
		// drives every benchmark of a sweep.
		mUsage = "message sizes `[MIN:]MAX`: ignored, a barrier has no message"
	}
	fs.Func("m", mUsage, func(s string) error {
		var err error
		o.Min, o.Max, err = osu.ParseRange(s, o.Min, o.Max)
		return err
	})
	def := DefaultSchedule()
	if b.NonBlocking() && !b.Sized {
		// osu_ibarrier runs the large-message schedule (its one "size").
		def = osu.Schedule{Iters: def.ItersLarge, Skip: def.SkipLarge, ItersLarge: def.ItersLarge, SkipLarge: def.SkipLarge}
	}
	iters, skip := -1, -1
	iUsage := fmt.Sprintf("timed `iterations` per size (default %d, %d above %d B)", def.Iters, def.ItersLarge, osu.LargeMessageSize)
	xUsage := fmt.Sprintf("warm-up `iterations` per size (default %d, %d above %d B)", def.Skip, def.SkipLarge, osu.LargeMessageSize)
	if !b.Sized {
		iUsage = fmt.Sprintf("timed `iterations` (default %d)", def.Iters)
		xUsage = fmt.Sprintf("warm-up `iterations` (default %d)", def.Skip)
	}
	fs.Func("i", iUsage, intFlag(&iters))
	fs.Func("x", xUsage, intFlag(&skip))
	fs.BoolVar(&o.Full, "f", false, "full format: also the minimum and maximum over ranks and the iteration count")
	fs.IntVar(&o.Reps, "reps", o.Reps, "repeat the whole sweep `N` times and print per-size medians")
	if b.NonBlocking() {
		fs.IntVar(&o.Probes, "t", 0, "`calls` of Request.Test spread over each compute phase")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, ErrReported
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case iters == 0 || iters < -1:
		return o, fmt.Errorf("-i %d: need at least 1 iteration", iters)
	case skip < -1:
		return o, fmt.Errorf("-x %d: negative warm-up", skip)
	case o.Reps < 1 || o.Reps > maxReps:
		return o, fmt.Errorf("-reps %d: want 1 to %d", o.Reps, maxReps)
	case o.Probes < 0:
		return o, fmt.Errorf("-t %d: negative number of tests", o.Probes)
	}
	if b.Elem > 1 && b.Sized {
		// OSU's reductions count MPI_FLOATs: no size below one element.
		o.Min = max(o.Min, b.Elem)
		if o.Min > o.Max {
			return o, fmt.Errorf("-m: %s needs sizes of at least %d bytes (one element), got at most %d", b.Name, b.Elem, o.Max)
		}
	}
	o.Sched = def.Override(iters, skip)
	return o, nil
}

// intFlag parses a whole number into *p.
func intFlag(p *int) func(string) error {
	return func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil {
			return errors.New("not a whole number")
		}
		*p = n
		return nil
	}
}

// Sizes is the sizes of one sweep: OSU's doubling from Min to Max, or the
// single row 0 of a sizeless benchmark (barrier).
func (o Options) Sizes(b Benchmark) []int {
	if !b.Sized {
		return []int{0}
	}
	return osu.Sizes(o.Min, o.Max)
}
