// Package pt2pt runs an OSU-style two-rank sweep under package mpi. It owns
// everything around the timed loop: Init and Finalize, flags, the size
// check, buffers, repetitions, medians and output, so that each benchmark
// command (bench/osu_latency, bench/osu_bw) supplies only its kernel and the
// kernels can be read side by side with OSU's C code.
package pt2pt

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/mpi"
)

// Buffers are allocated once per run, for the largest message, page-aligned
// and with every page already written, so neither allocation nor first-touch
// page faults land in a timed loop.
type Buffers struct {
	Send, Recv []byte
	// Reqs has one slot per message of a bandwidth window (nil for latency);
	// kernels store requests in it instead of growing a slice per iteration.
	Reqs []*mpi.Request
}

// Kernel runs iters+skip iterations of one message size on c (rank 0 and
// rank 1 both call it) and returns the seconds rank 0 spent in the last
// iters iterations. The driver has already synchronised both ranks.
type Kernel func(c *mpi.Comm, b *Buffers, size, iters, skip int) (seconds float64, err error)

// Benchmark describes one command.
type Benchmark struct {
	Name    string // command name, e.g. "osu_latency"; used in messages and the header
	Kind    osu.Kind
	GoBench string // Go benchmark name, e.g. "OSULatency" for BenchmarkOSULatency/size=N
	Kernel  Kernel
}

// options are the command-line settings of one run.
type options struct {
	min, max int
	sched    osu.Schedule
	window   int
	reps     int
	format   string
}

const (
	formatOSU     = "osu"
	formatGoBench = "gobench"
)

// Main runs benchmark b with the given arguments and returns the process
// exit status. It is meant to be the whole of a command's main:
//
//	func main() { os.Exit(pt2pt.Main(bench, os.Stdout, os.Stderr, os.Args[1:])) }
func Main(b Benchmark, stdout, stderr io.Writer, args []string) int {
	if err := mpi.Init(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 1
	}
	world := mpi.World()
	rank := world.Rank()

	// Every rank parses the same arguments, but only rank 0 speaks, so a
	// usage error is printed once and not once per rank.
	diag := stderr
	if rank != 0 {
		diag, stdout = io.Discard, io.Discard
	}
	opts, err := parseFlags(b, args, diag)
	status := 0
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errReported):
		status = 2
	case err != nil:
		fmt.Fprintf(diag, "%s: %v\n", b.Name, err)
		status = 2
	case world.Size() != 2:
		fmt.Fprintf(diag, "%s: this benchmark needs exactly 2 ranks, got %d (run it with hympirun -n 2)\n", b.Name, world.Size())
		status = 1
	default:
		if err := sweep(b, world, opts, stdout); err != nil {
			// Kernel errors abort in sweep; what reaches here is an output
			// error on rank 0, which leaves the peer in a consistent state.
			fmt.Fprintf(stderr, "%s: rank %d: %v\n", b.Name, rank, err)
			status = 1
		}
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(stderr, "%s: rank %d: %v\n", b.Name, rank, err)
		return 1
	}
	return status
}

// errReported is returned by parseFlags for an error it has already printed.
var errReported = errors.New("usage error")

func parseFlags(b Benchmark, args []string, out io.Writer) (options, error) {
	o := options{
		min:    osu.DefaultMinSize(b.Kind),
		max:    osu.DefaultMaxSize,
		window: osu.DefaultWindow,
		reps:   1,
	}
	fs := flag.NewFlagSet(b.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Func("m", fmt.Sprintf("message sizes `[MIN:]MAX` in bytes (default %d:%d)", o.min, o.max), func(s string) error {
		var err error
		o.min, o.max, err = osu.ParseRange(s, o.min, o.max)
		return err
	})
	var iters, skip optionalInt
	def := osu.DefaultSchedule(b.Kind)
	fs.Var(&iters, "i", fmt.Sprintf("timed `iterations` per size (default %d, %d above %d B)",
		def.Iters, def.ItersLarge, osu.LargeMessageSize))
	fs.Var(&skip, "x", fmt.Sprintf("warm-up `iterations` per size (default %d, %d above %d B)",
		def.Skip, def.SkipLarge, osu.LargeMessageSize))
	if b.Kind == osu.Bandwidth {
		fs.IntVar(&o.window, "W", o.window, "`window`: sends in flight per iteration")
	}
	fs.IntVar(&o.reps, "reps", o.reps, "repeat the whole sweep `N` times; OSU format prints per-size medians")
	fs.StringVar(&o.format, "format", formatOSU, "output `format`: osu (OSU's table) or gobench (Go benchmark lines, one per repetition, for benchstat)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		// The flag package has already printed the error and the usage.
		return o, errReported
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case iters.or(1) < 1:
		return o, fmt.Errorf("-i %d: need at least 1 iteration", iters.n)
	case skip.or(0) < 0:
		return o, fmt.Errorf("-x %d: negative warm-up", skip.n)
	case o.window < 1:
		return o, fmt.Errorf("-W %d: need a window of at least 1", o.window)
	case o.reps < 1:
		return o, fmt.Errorf("-reps %d: need at least 1 repetition", o.reps)
	case o.format != formatOSU && o.format != formatGoBench:
		return o, fmt.Errorf("-format %q: want %s or %s", o.format, formatOSU, formatGoBench)
	}
	o.sched = def.Override(iters.or(-1), skip.or(-1))
	return o, nil
}

// optionalInt is an int flag that may be left unset, meaning "OSU's
// default for the size"; unset, it prints as empty, so -h shows no default.
type optionalInt struct {
	n   int
	set bool
}

func (v *optionalInt) String() string {
	if v == nil || !v.set {
		return ""
	}
	return strconv.Itoa(v.n)
}

func (v *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	*v = optionalInt{n, true}
	return nil
}

// or returns the value if set and def otherwise.
func (v optionalInt) or(def int) int {
	if v.set {
		return v.n
	}
	return def
}

// ackSize is osu_bw's acknowledgement message: the send buffer must hold it
// even when the sweep's largest message is smaller.
const ackSize = 4

func sweep(b Benchmark, c *mpi.Comm, o options, stdout io.Writer) error {
	bufs := &Buffers{
		Send: touched(max(o.max, ackSize), 'a'),
		Recv: touched(max(o.max, ackSize), 'b'),
	}
	if b.Kind == osu.Bandwidth {
		bufs.Reqs = make([]*mpi.Request, o.window)
	}
	sizes := osu.Sizes(o.min, o.max)
	// samples[k][r] is size k's value in repetition r (meaningful on rank 0).
	samples := make([][]float64, len(sizes))
	for k := range samples {
		samples[k] = make([]float64, o.reps)
	}

	goBenchName := b.GoBench
	if b.Kind == osu.Bandwidth {
		goBenchName += "/window=" + strconv.Itoa(o.window)
	}
	if o.format == formatGoBench {
		if err := osu.WriteGoBenchConfig(stdout, goBenchConfig(b)); err != nil {
			return err
		}
	}
	streamOSU := o.format == formatOSU && o.reps == 1
	if streamOSU {
		// One sweep: print each row as it is measured, as OSU does, so a
		// slow or stuck size shows at once.
		if err := osu.WriteHeader(stdout, title(b, o), b.Kind); err != nil {
			return err
		}
	}

	for r := range o.reps {
		for k, size := range sizes {
			iters, skip := o.sched.At(size)
			// Collect garbage now, outside the timed loop, so the little
			// the kernels allocate (requests) does not trigger a collection
			// in the middle of one.
			runtime.GC()
			if err := c.Barrier(); err != nil {
				abort(b, c, size, err)
			}
			secs, err := b.Kernel(c, bufs, size, iters, skip)
			if err != nil {
				abort(b, c, size, err)
			}
			if c.Rank() != 0 {
				continue
			}
			value, ops := metrics(b.Kind, size, iters, len(bufs.Reqs), secs)
			samples[k][r] = value
			switch {
			case o.format == formatGoBench:
				var extra []osu.Metric
				if b.Kind == osu.Bandwidth {
					extra = append(extra, osu.Metric{Value: value, Unit: "MB/s"})
				}
				err = osu.WriteGoBenchResult(stdout, goBenchName, size, ops, secs*1e9/float64(ops), extra...)
			case streamOSU:
				err = osu.WriteRow(stdout, size, value)
			}
			if err != nil {
				return err
			}
		}
	}

	if o.format != formatOSU || streamOSU {
		return nil
	}
	if err := osu.WriteHeader(stdout, title(b, o), b.Kind); err != nil {
		return err
	}
	for k, size := range sizes {
		if err := osu.WriteRow(stdout, size, osu.Median(samples[k])); err != nil {
			return err
		}
	}
	return nil
}

// metrics turns rank 0's timed seconds into the OSU value and the number of
// messages it covers. Latency is half the round trip (OSU's
// t*1e6/(2*iters)); bandwidth is bytes of all windows over the time, in 1e6
// bytes per second (OSU's size/1e6*iters*window/t).
func metrics(k osu.Kind, size, iters, window int, secs float64) (value float64, ops int) {
	if k == osu.Bandwidth {
		ops = iters * window
		return float64(size) / 1e6 * float64(ops) / secs, ops
	}
	ops = 2 * iters
	return secs * 1e6 / float64(ops), ops
}

func title(b Benchmark, o options) string {
	t := "hympi " + b.Name + " (Go)"
	if o.reps > 1 {
		t += ", median of " + strconv.Itoa(o.reps) + " repetitions"
	}
	return t
}

// abort ends the whole job: after a failed call the peer may wait forever
// for a message that will not come, and the launcher stops every rank.
func abort(b Benchmark, c *mpi.Comm, size int, err error) {
	fmt.Fprintf(os.Stderr, "%s: rank %d: size %d: %v\n", b.Name, c.Rank(), size, err)
	mpi.Abort(c, 1)
	os.Exit(1) // not reached if Abort works; never carry on after a failure
}

// pageSize is the alignment of benchmark buffers, as OSU's page-aligned
// posix_memalign: copy speed depends on alignment and both sides of a
// comparison should get the same.
var pageSize = os.Getpagesize()

// touched returns a page-aligned slice of n bytes with every byte set to
// fill, so all its pages are resident before any timing starts.
func touched(n int, fill byte) []byte {
	raw := make([]byte, n+pageSize)
	off := 0
	if rem := int(uintptr(unsafe.Pointer(&raw[0])) % uintptr(pageSize)); rem != 0 {
		off = pageSize - rem
	}
	b := raw[off : off+n : off+n]
	for i := range b {
		b[i] = fill
	}
	return b
}

// tunables are the environment settings of API.md that change which
// protocol carries a message, and so the numbers. Only these are reported:
// the launcher's per-job variables differ on every run and would split
// benchstat's groups.
var tunables = []struct{ env, def string }{
	{"HYMPI_DIRECT", "auto"},
	{"HYMPI_THRESHOLD", ""},
	{"HYMPI_SKEW", "on"},
	{"HYMPI_ASYNC_PROGRESS", ""},
}

// goBenchConfig describes the run for benchstat: the usual goos/goarch/pkg/cpu
// lines, the rank count and the hympi tunables in force. Both commands print
// the same keys: config lines stay in force until overwritten, so a key only
// one of them printed would leak into the other's results when outputs are
// concatenated. (The bandwidth window is in the benchmark name instead.)
func goBenchConfig(b Benchmark) []osu.Config {
	cfg := []osu.Config{
		{Key: "goos", Value: runtime.GOOS},
		{Key: "goarch", Value: runtime.GOARCH},
		{Key: "pkg", Value: "github.com/hympi/hympi/bench/" + b.Name},
	}
	if cpu := cpuModel(); cpu != "" {
		cfg = append(cfg, osu.Config{Key: "cpu", Value: cpu})
	}
	cfg = append(cfg, osu.Config{Key: "ranks", Value: "2"})
	for _, t := range tunables {
		v, ok := os.LookupEnv(t.env)
		if !ok {
			v = t.def
		}
		if v != "" && !strings.Contains(v, "\n") {
			cfg = append(cfg, osu.Config{Key: strings.ToLower(t.env), Value: v})
		}
	}
	return cfg
}

// cpuModel returns the first "model name" of /proc/cpuinfo, as go test's
// cpu: line does, or "" if there is none.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
