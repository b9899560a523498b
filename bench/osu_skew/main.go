// Command osu_skew is the LiMIC2 study's process-skew benchmark for hympi: a
// producer that gets ahead of a slow consumer, and what each protocol makes
// the producer pay for it.
//
// Usage:
//
//	hympirun -n 2 bin/osu_skew [-S SIZES] [-n WINDOW] [-c1 US] [-c2 US,...] [-i ITERS] [-x WARMUP]
//	hympirun -n 2 bin/osu_skew -adapt WINDOWS [-S SIZE] [-n WINDOW] [-c1 US] [-c2 US]
//
// The second form measures adaptation speed instead (adapt.go).
//
// Each iteration starts with a barrier. Rank 0, the producer, then posts a
// window of -n Isends of S bytes to rank 1, doing -c1 µs of busy work before
// each, and waits for all of them with Waitall; its time for the whole
// window (first busy work to Waitall's return) is the iteration's producer
// time. Rank 1, the consumer, loops -n times over Recv then -c2 µs of busy
// work. Busy work spins on the clock, as computation would occupy the CPU;
// it does not sleep and it makes no MPI progress.
//
// With eager sends (shared memory, two copies) the producer's Isends
// complete without the consumer, and it pays about (c1 + t_isend)·n +
// t_waitall. With rendezvous sends (direct copy) each send completes only
// once the consumer has posted its receive, so the producer waits for the
// consumer's compute: about (t_recv + c2)·n + t_waitall. Each row prints the
// measured producer time next to both formulas, whose terms are measured in
// the same run:
//
//   - t_isend: the mean time of one Isend call in the row's timed
//     iterations (the producer's own cost per send in this mode);
//   - t_recv: the consumer's mean Recv call time in the size's calibration
//     pass, a pass with c2 = 0 run before the size's rows;
//   - t_waitall: the producer's median Waitall time in that calibration pass.
//
// The row with c2 = 0, if asked for, is the calibration pass itself.
//
// Columns (times in µs; producer_us is the median over -i iterations):
//
//	S n c1 c2 producer_us twocopy_us direct_us t_isend_us t_recv_us t_waitall_us eager direct raises lowers threshold
//
// eager, direct, raises and lowers are the producer's mpi.Counters(1)
// deltas over the row's warm-up and timed iterations (messages by each
// protocol, including the small messages of the barrier that starts each
// iteration; skew-controller moves); threshold is its eager→direct threshold
// toward rank 1 after the row. HYMPI_DIRECT (off, auto, always) and
// HYMPI_SKEW select what is measured; bench/skew.sh runs the three modes
// and bench/plot/cmd/skewplot tabulates and plots the outputs
// (bench/osu_skew/report reads them).
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/hympi/hympi/bench/osu_skew/report"
	"github.com/hympi/hympi/mpi"
)

const (
	tagData   = 200 // the window's messages
	tagReport = 201 // the consumer's Recv timing, to the producer
)

type options struct {
	sizes  []int
	window int
	c1     float64   // µs
	c2     []float64 // µs
	iters  int
	warmup int
	adapt  int // windows per phase of the adaptation run; 0: the sweep
}

func main() { os.Exit(run(os.Stdout, os.Stderr, os.Args[1:])) }

func run(stdout, stderr io.Writer, args []string) int {
	if err := mpi.Init(); err != nil {
		fmt.Fprintf(stderr, "osu_skew: %v\n", err)
		return 1
	}
	world := mpi.World()
	rank := world.Rank()
	// Every rank parses the arguments; only rank 0 speaks.
	diag := stderr
	if rank != 0 {
		diag, stdout = io.Discard, io.Discard
	}
	opts, err := parseFlags(args, diag)
	status := 0
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errReported):
		status = 2
	case err != nil:
		fmt.Fprintf(diag, "osu_skew: %v\n", err)
		status = 2
	case world.Size() != 2:
		fmt.Fprintf(diag, "osu_skew: this benchmark needs exactly 2 ranks, got %d (run it with hympirun -n 2)\n", world.Size())
		status = 1
	default:
		do := sweep
		if opts.adapt > 0 {
			do = func(c *mpi.Comm, o options, w io.Writer) error { return adapt(c, o, o.adapt, w) }
		}
		if err := do(world, opts, stdout); err != nil {
			// MPI errors abort in sweep; what reaches here is an output
			// error on rank 0.
			fmt.Fprintf(stderr, "osu_skew: rank %d: %v\n", rank, err)
			status = 1
		}
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(stderr, "osu_skew: rank %d: %v\n", rank, err)
		return 1
	}
	return status
}

// errReported is returned by parseFlags for an error the flag package has
// already printed.
var errReported = errors.New("usage error")

func parseFlags(args []string, out io.Writer) (options, error) {
	o := options{sizes: []int{65536}, window: 16, c1: 1, c2: []float64{100}, iters: 20, warmup: 2}
	fs := flag.NewFlagSet("osu_skew", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Func("S", "message `sizes` in bytes, comma-separated, K/M/G suffixes allowed (default 65536)", func(s string) error {
		v, err := report.ParseSizes(s)
		o.sizes = v
		return err
	})
	fs.IntVar(&o.window, "n", o.window, "`window`: Isends per iteration")
	fs.Float64Var(&o.c1, "c1", o.c1, "producer's busy work before each Isend, `µs`")
	fs.Func("c2", "consumer's busy work after each Recv, `µs`, comma-separated for a sweep (default 100)", func(s string) error {
		v, err := report.ParseMicros(s)
		o.c2 = v
		return err
	})
	fs.IntVar(&o.iters, "i", o.iters, "timed `iterations` per row (the median is reported)")
	fs.IntVar(&o.warmup, "x", o.warmup, "warm-up `iterations` per row")
	fs.IntVar(&o.adapt, "adapt", 0, "adaptation run instead of the sweep: calm, skewed (first -c2) and calm again for `windows` each, size the first -S")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errReported
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.window < 1:
		return o, fmt.Errorf("-n %d: need a window of at least 1", o.window)
	case o.iters < 1:
		return o, fmt.Errorf("-i %d: need at least 1 iteration", o.iters)
	case o.adapt < 0:
		return o, fmt.Errorf("-adapt %d: negative window count", o.adapt)
	case o.warmup < 0:
		return o, fmt.Errorf("-x %d: negative warm-up", o.warmup)
	case o.c1 < 0 || math.IsNaN(o.c1) || math.IsInf(o.c1, 0):
		return o, fmt.Errorf("-c1 %v: want a non-negative number of µs", o.c1)
	}
	return o, nil
}

// pass is what one (S, c2) pass measured, in µs.
type pass struct {
	producer float64 // median window time (rank 0)
	isend    float64 // mean Isend call (rank 0)
	waitall  float64 // median Waitall (rank 0)
	recv     float64 // mean Recv call (rank 1, sent to rank 0)
	before   mpi.PeerCounters
	after    mpi.PeerCounters
}

func sweep(c *mpi.Comm, o options, stdout io.Writer) error {
	maxS := slices.Max(o.sizes)
	b := &buffers{
		data:    touched(max(maxS, 1), byte('a'+c.Rank())),
		reqs:    make([]*mpi.Request, o.window),
		windows: make([]float64, o.iters),
		waits:   make([]float64, o.iters),
		report:  make([]byte, 8),
	}
	if c.Rank() == 0 {
		if err := writeHeader(stdout, o); err != nil {
			return err
		}
	}
	for _, size := range o.sizes {
		cal := measure(c, b, o, size, 0)
		for _, c2 := range o.c2 {
			p := cal
			if c2 != 0 {
				p = measure(c, b, o, size, c2)
			}
			if c.Rank() != 0 {
				continue
			}
			n := float64(o.window)
			row := report.Row{
				S: size, N: o.window, C1: o.c1, C2: c2,
				Producer:   p.producer,
				TwoCopy:    (o.c1+p.isend)*n + cal.waitall,
				Direct:     (cal.recv+c2)*n + cal.waitall,
				Isend:      p.isend,
				Recv:       cal.recv,
				Waitall:    cal.waitall,
				Eager:      p.after.EagerMsgs - p.before.EagerMsgs,
				DirectMsgs: p.after.DirectMsgs - p.before.DirectMsgs,
				Raises:     p.after.SkewRaises - p.before.SkewRaises,
				Lowers:     p.after.SkewLowers - p.before.SkewLowers,
				Threshold:  p.after.Threshold,
			}
			if err := report.WriteRow(stdout, row); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeHeader(w io.Writer, o options) error {
	env := func(name, def string) string {
		if v, ok := os.LookupEnv(name); ok {
			return v
		}
		return def
	}
	thr := mpi.Counters(1)
	c2 := make([]string, len(o.c2))
	for i, v := range o.c2 {
		c2[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	lines := []string{
		"# hympi osu_skew (Go): producer/consumer process skew, 2 ranks",
		fmt.Sprintf("# HYMPI_DIRECT=%s HYMPI_SKEW=%s relation=%s threshold=%d",
			env("HYMPI_DIRECT", "auto"), env("HYMPI_SKEW", "on"), thr.Relation, thr.Threshold),
		fmt.Sprintf("# window n=%d, c1=%g us, c2=%s us, %d iterations after %d warm-up",
			o.window, o.c1, strings.Join(c2, ","), o.iters, o.warmup),
		"# times in us; producer_us: median producer time per window (Isends + Waitall)",
		"# twocopy_us = (c1 + t_isend)*n + t_waitall; direct_us = (t_recv + c2)*n + t_waitall",
		"# t_isend: mean Isend call in the row; t_recv (consumer's mean Recv), t_waitall (producer's",
		"#   median Waitall): from the size's c2=0 calibration pass",
		"# eager, direct, raises, lowers: Counters(1) deltas over the row (warm-up and the per-iteration",
		"#   barrier's small messages included); threshold: toward rank 1 after the row",
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return report.WriteColumns(w)
}

// buffers are allocated once, for the largest size.
type buffers struct {
	data           []byte // the producer's send buffer, the consumer's receive buffer
	reqs           []*mpi.Request
	windows, waits []float64 // per timed iteration, rank 0
	report         []byte
}

// measure runs one pass of o.warmup + o.iters iterations of size bytes with
// c2 µs of consumer work, on both ranks. The result is meaningful on rank 0.
func measure(c *mpi.Comm, b *buffers, o options, size int, c2 float64) pass {
	c1d := micros(o.c1)
	c2d := micros(c2)
	buf := b.data[:size]
	var p pass
	// Collect garbage now, outside the timed loop.
	runtime.GC()
	if c.Rank() == 0 {
		p.before = mpi.Counters(1)
	}
	var isendSum, recvSum time.Duration
	for it := range o.warmup + o.iters {
		timed := it >= o.warmup
		check(c, size, c.Barrier())
		if c.Rank() == 0 {
			t0 := time.Now()
			for j := range b.reqs {
				spin(c1d)
				s := time.Now()
				r, err := c.Isend(buf, 1, tagData)
				d := time.Since(s)
				check(c, size, err)
				b.reqs[j] = r
				if timed {
					isendSum += d
				}
			}
			w := time.Now()
			_, err := mpi.Waitall(b.reqs)
			end := time.Now()
			check(c, size, err)
			if timed {
				k := it - o.warmup
				b.windows[k] = us(end.Sub(t0))
				b.waits[k] = us(end.Sub(w))
			}
			continue
		}
		for range o.window {
			s := time.Now()
			_, err := c.Recv(buf, 0, tagData)
			d := time.Since(s)
			check(c, size, err)
			if timed {
				recvSum += d
			}
			spin(c2d)
		}
	}
	msgs := float64(o.iters * o.window)
	if c.Rank() == 1 {
		binary.LittleEndian.PutUint64(b.report, math.Float64bits(us(recvSum)/msgs))
		check(c, size, c.Send(b.report, 0, tagReport))
		return p
	}
	_, err := c.Recv(b.report, 1, tagReport)
	check(c, size, err)
	p.recv = math.Float64frombits(binary.LittleEndian.Uint64(b.report))
	p.after = mpi.Counters(1)
	p.producer = median(b.windows)
	p.waitall = median(b.waits)
	p.isend = us(isendSum) / msgs
	return p
}

// check ends the whole job on an MPI error: the peer may otherwise wait
// forever for a message that will not come.
func check(c *mpi.Comm, size int, err error) {
	if err == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "osu_skew: rank %d: size %d: %v\n", c.Rank(), size, err)
	mpi.Abort(c, 1)
	os.Exit(1) // not reached if Abort works
}

// spin busy-waits for d on the monotonic clock: compute, not a sleep.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	for start := time.Now(); time.Since(start) < d; {
	}
}

func micros(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// median of v, reordering v.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// touched returns a page-aligned slice of n bytes with every page written,
// so no first-touch page fault lands in a timed loop.
func touched(n int, fill byte) []byte {
	page := os.Getpagesize()
	raw := make([]byte, n+page)
	off := 0
	if rem := int(uintptr(unsafe.Pointer(&raw[0])) % uintptr(page)); rem != 0 {
		off = page - rem
	}
	b := raw[off : off+n : off+n]
	for i := range b {
		b[i] = fill
	}
	return b
}
