// Package pt2pt runs an OSU-style point-to-point sweep under package mpi.
// It owns everything around the timed loop: Init and Finalize, flags, the
// job-size check, buffers, repetitions, medians and output, so that each
// benchmark command (bench/osu_latency, bench/osu_bw, bench/osu_bibw,
// bench/osu_mbw_mr) supplies only its kernel and the kernels can be read side
// by side with OSU's C code.
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

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/mpi"
)

// Kernel runs iters+skip iterations of one message size on c (every rank
// calls it) and returns, on rank 0, what it timed over the last iters
// iterations. The driver has already synchronised the ranks.
type Kernel func(c *mpi.Comm, b *Buffers, size, iters, skip int) (Timing, error)

// Timing is a kernel's measurement, meaningful on rank 0.
type Timing struct {
	// Seconds is the time of the timed iterations: rank 0's clock, or for
	// osu_mbw_mr the mean over the sending ranks, as OSU computes it.
	Seconds float64
	// Messages is the number of messages the timed iterations moved, all
	// ranks and directions together: a ping-pong counts 2 per round trip,
	// so latency is Seconds/Messages and bandwidth Messages×size/Seconds.
	Messages int
}

// Ranks is the job sizes a benchmark runs on.
type Ranks int

const (
	// TwoRanks is exactly two ranks (osu_latency, osu_bw, osu_bibw).
	TwoRanks Ranks = iota
	// RankPairs is an even number of ranks, at least two: rank i < N/2
	// pairs with rank i+N/2 (osu_mbw_mr).
	RankPairs
)

// check returns the error rank 0 prints for a job of n ranks, or nil.
func (r Ranks) check(n int) error {
	switch {
	case r == TwoRanks && n != 2:
		return fmt.Errorf("this benchmark needs exactly 2 ranks, got %d (run it with hympirun -n 2)", n)
	case r == RankPairs && (n < 2 || n%2 != 0):
		return fmt.Errorf("this benchmark needs an even number of ranks, at least 2, got %d (run it with hympirun -n 2, 4, ...)", n)
	}
	return nil
}

// Benchmark describes one command.
type Benchmark struct {
	Name    string // command name, e.g. "osu_latency"; used in messages and the header
	Kind    osu.Kind
	GoBench string // Go benchmark name, e.g. "OSULatency" for BenchmarkOSULatency/size=N
	Kernel  Kernel
	Ranks   Ranks
	// OneWay says that data flows only from the ranks below Size/2 to the
	// others (osu_bw, osu_mbw_mr): those get only a send pool and the
	// others only a receive pool, which halves the memory of -buffers
	// fresh. Otherwise every rank gets both.
	OneWay bool
	// Rate adds osu_mbw_mr's message-rate column (Messages/s) and its
	// "[ pairs: P ] [ window size: W ]" header line.
	Rate bool
}

// options are the command-line settings of one run.
type options struct {
	min, max int
	sched    osu.Schedule
	window   int
	reps     int
	format   string
	buffers  string
	poolMiB  int // -pool; 0 means the default size
}

const (
	formatOSU     = "osu"
	formatGoBench = "gobench"
)

// maxPoolMiB bounds -pool: 64 GiB per pool.
const maxPoolMiB = 64 << 10

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
	case b.Ranks.check(world.Size()) != nil:
		fmt.Fprintf(diag, "%s: %v\n", b.Name, b.Ranks.check(world.Size()))
		status = 1
	default:
		if err := sweep(b, world, opts, stdout); err != nil {
			// Kernel errors abort in sweep; what reaches here is an output
			// error on rank 0, which leaves the peers in a consistent state.
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
		min:     osu.DefaultMinSize(b.Kind),
		max:     osu.DefaultMaxSize,
		window:  osu.DefaultWindow,
		reps:    1,
		buffers: osu.BuffersReuse,
	}
	fs := flag.NewFlagSet(b.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Func("m", fmt.Sprintf("message sizes `[MIN:]MAX` in bytes (default %d:%d)", o.min, o.max), func(s string) error {
		var err error
		o.min, o.max, err = osu.ParseRange(s, o.min, o.max)
		return err
	})
	var iters, skip, pool optionalInt
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
	fs.StringVar(&o.buffers, "buffers", o.buffers, "message `buffers`: reuse (OSU's: one send and one receive buffer, hot in the caches)\n"+
		"or fresh (each message in the next slot of a large pool, so the caches are cold)")
	fs.Var(&pool, "pool", fmt.Sprintf("with -buffers fresh, the `MiB` of each pool (default: the last-level cache,\n"+
		"at least %d and at most %d MiB, all pools of the job within half the memory)", osu.MinFreshPool>>20, osu.MaxFreshPool>>20))
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
	case pool.set && (pool.n < 1 || pool.n > maxPoolMiB):
		return o, fmt.Errorf("-pool %d: want 1 to %d MiB", pool.n, maxPoolMiB)
	}
	var err error
	if o.buffers, err = osu.ParseBuffers(o.buffers); err != nil {
		return o, err
	}
	if pool.set && o.buffers != osu.BuffersFresh {
		return o, fmt.Errorf("-pool %d: a pool size needs -buffers %s", pool.n, osu.BuffersFresh)
	}
	o.poolMiB = pool.or(0)
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

// ackSize is osu_bw's acknowledgement message, the size of Buffers.Ack.
const ackSize = 4

// spec is the buffers rank needs for a run of b with options o in a job of
// nranks ranks.
func spec(b Benchmark, o options, rank, nranks int) bufferSpec {
	s := bufferSpec{send: true, recv: true, fresh: o.buffers == osu.BuffersFresh, maxSize: o.max}
	if b.OneWay {
		s.send, s.recv = rank < nranks/2, rank >= nranks/2
	}
	if b.Kind == osu.Bandwidth {
		s.window = o.window
	}
	if s.fresh {
		s.poolBytes = int64(o.poolMiB) << 20
		if o.poolMiB == 0 {
			s.poolBytes = defaultPoolBytes(nranks)
		}
	}
	return s
}

func sweep(b Benchmark, c *mpi.Comm, o options, stdout io.Writer) error {
	bufs, err := newBuffers(spec(b, o, c.Rank(), c.Size()))
	if err != nil {
		// The peers are on their way to the first barrier.
		abort(b, c, err)
	}
	sizes := osu.Sizes(o.min, o.max)
	// values[k][r] and rates[k][r] are size k's value and message rate in
	// repetition r (meaningful on rank 0).
	values := make([][]float64, len(sizes))
	rates := make([][]float64, len(sizes))
	for k := range values {
		values[k] = make([]float64, o.reps)
		rates[k] = make([]float64, o.reps)
	}

	goBenchName := b.GoBench
	if b.Kind == osu.Bandwidth {
		goBenchName += "/window=" + strconv.Itoa(o.window)
	}
	if o.format == formatGoBench {
		if err := osu.WriteGoBenchConfig(stdout, goBenchConfig(b, c.Size(), o)); err != nil {
			return err
		}
	}
	head := header{b: b, o: o, ranks: c.Size(), pool: describePool(bufs)}
	streamOSU := o.format == formatOSU && o.reps == 1
	if streamOSU {
		// One sweep: print each row as it is measured, as OSU does, so a
		// slow or stuck size shows at once.
		if err := head.write(stdout); err != nil {
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
				abort(b, c, fmt.Errorf("size %d: %w", size, err))
			}
			t, err := b.Kernel(c, bufs, size, iters, skip)
			if err != nil {
				abort(b, c, fmt.Errorf("size %d: %w", size, err))
			}
			if c.Rank() != 0 {
				continue
			}
			value, rate := metrics(b.Kind, size, t)
			values[k][r], rates[k][r] = value, rate
			switch {
			case o.format == formatGoBench:
				var extra []osu.Metric
				if b.Kind == osu.Bandwidth {
					extra = append(extra, osu.Metric{Value: value, Unit: "MB/s"})
				}
				if b.Rate {
					extra = append(extra, osu.Metric{Value: rate, Unit: "msgs/s"})
				}
				err = osu.WriteGoBenchResult(stdout, goBenchName, size, t.Messages, t.Seconds*1e9/float64(t.Messages), extra...)
			case streamOSU:
				err = head.row(stdout, size, value, rate)
			}
			if err != nil {
				return err
			}
		}
	}

	if o.format != formatOSU || streamOSU {
		return nil
	}
	if err := head.write(stdout); err != nil {
		return err
	}
	for k, size := range sizes {
		if err := head.row(stdout, size, osu.Median(values[k]), osu.Median(rates[k])); err != nil {
			return err
		}
	}
	return nil
}

// metrics turns rank 0's timing into the OSU value and the message rate.
// Latency is the time per one-way message in microseconds (OSU's
// t*1e6/(2*iters) for a ping-pong); bandwidth is bytes over time in 1e6
// bytes per second (OSU's size/1e6*iters*window/t, times 2 for osu_bibw's
// two directions and the pair count for osu_mbw_mr); the rate is messages
// per second (osu_mbw_mr's 1e6*bw/size).
func metrics(k osu.Kind, size int, t Timing) (value, rate float64) {
	rate = float64(t.Messages) / t.Seconds
	if k == osu.Bandwidth {
		return float64(size) / 1e6 * float64(t.Messages) / t.Seconds, rate
	}
	return t.Seconds * 1e6 / float64(t.Messages), rate
}

// header writes the OSU-format header and rows of one run.
type header struct {
	b     Benchmark
	o     options
	ranks int
	pool  string // describePool
}

func (h header) title() string {
	t := "hympi " + h.b.Name + " (Go)" + h.pool
	if h.o.reps > 1 {
		t += ", median of " + strconv.Itoa(h.o.reps) + " repetitions"
	}
	return t
}

func (h header) write(w io.Writer) error {
	if !h.b.Rate {
		return osu.WriteHeader(w, h.title(), h.b.Kind)
	}
	// osu_mbw_mr's header: the configuration line, then two columns.
	if _, err := fmt.Fprintf(w, "# %s\n# [ pairs: %d ] [ window size: %d ]\n", h.title(), h.ranks/2, h.o.window); err != nil {
		return err
	}
	return osu.WriteColumns(w, osu.RateColumns...)
}

func (h header) row(w io.Writer, size int, value, rate float64) error {
	if h.b.Rate {
		return osu.WriteRow(w, size, value, rate)
	}
	return osu.WriteRow(w, size, value)
}

// abort ends the whole job: after a failed call a peer may wait forever
// for a message that will not come, and the launcher stops every rank.
func abort(b Benchmark, c *mpi.Comm, err error) {
	fmt.Fprintf(os.Stderr, "%s: rank %d: %v\n", b.Name, c.Rank(), err)
	mpi.Abort(c, 1)
	os.Exit(1) // not reached if Abort works; never carry on after a failure
}

// tunables are the public environment settings that change which
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
// lines, the rank count, the buffer policy and the hympi tunables in force.
// Every command prints the same keys: config lines stay in force until
// overwritten, so a key only one of them printed would leak into the
// others' results when outputs are concatenated. (The bandwidth window is
// in the benchmark name instead.)
func goBenchConfig(b Benchmark, ranks int, o options) []osu.Config {
	cfg := []osu.Config{
		{Key: "goos", Value: runtime.GOOS},
		{Key: "goarch", Value: runtime.GOARCH},
		{Key: "pkg", Value: "github.com/hympi/hympi/bench/" + b.Name},
	}
	if cpu := cpuModel(); cpu != "" {
		cfg = append(cfg, osu.Config{Key: "cpu", Value: cpu})
	}
	cfg = append(cfg,
		osu.Config{Key: "ranks", Value: strconv.Itoa(ranks)},
		osu.Config{Key: "buffers", Value: o.buffers})
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
