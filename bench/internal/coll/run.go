package coll

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

// Call is one collective call of size bytes on every rank.
type Call func(size int) error

// Start begins one non-blocking collective of size bytes.
type Start func(size int) (*mpi.Request, error)

// Benchmark describes one command. Exactly one of Prepare and PrepareNBC
// is set.
type Benchmark struct {
	Name  string // command name, e.g. "osu_allreduce"
	Title string // OSU's name of the operation, e.g. "Allreduce", "Barrier"
	Op    string // the mpi method measured, e.g. "Allreduce", for messages
	// Sized is false for barriers, which have no message size: their table
	// has no size column and one row.
	Sized bool
	// Elem is the element size of a reduction (OSU reduces MPI_FLOATs):
	// sizes start at one element. 0 or 1 for byte-moving collectives.
	Elem int
	// Prepare allocates what the calls of sizes up to max need on a job
	// of c.Size() ranks and returns the blocking call.
	Prepare func(c *mpi.Comm, max int) (Call, error)
	// PrepareNBC is Prepare for a non-blocking benchmark.
	PrepareNBC func(c *mpi.Comm, max int) (Start, error)
}

// NonBlocking says whether b measures a non-blocking collective.
func (b Benchmark) NonBlocking() bool { return b.PrepareNBC != nil }

// MinRanks is the smallest job a collective benchmark runs on, as in OSU.
const MinRanks = 2

// ExitNotImplemented is the exit status when the collective measured is
// still a placeholder in this build of hympi.
const ExitNotImplemented = 3

// NotImplemented says whether err is the "not implemented yet" error of a
// placeholder collective (mpi/collectives_pending.go): a build without the
// collective, not a failure of it.
func NotImplemented(err error) bool {
	var e *mpi.Error
	return errors.As(err, &e) && strings.Contains(e.Msg, "not implemented")
}

// Main runs benchmark b with the given arguments and returns the process
// exit status; it is meant to be the whole of a command's main:
//
//	func main() { os.Exit(coll.Main(bench, os.Stdout, os.Stderr, os.Args[1:])) }
//
// If the collective is a placeholder, rank 0 says so, every rank finalizes
// and the status is ExitNotImplemented: no row is printed, since there is
// nothing to measure.
func Main(b Benchmark, stdout, stderr io.Writer, args []string) int {
	if err := mpi.Init(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 1
	}
	world := mpi.World()
	rank := world.Rank()
	diag := stderr
	if rank != 0 {
		diag, stdout = io.Discard, io.Discard
	}
	opts, err := ParseOptions(b, args, diag)
	status := 0
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, ErrReported):
		status = 2
	case err != nil:
		fmt.Fprintf(diag, "%s: %v\n", b.Name, err)
		status = 2
	case world.Size() < MinRanks:
		fmt.Fprintf(diag, "%s: this benchmark needs at least %d ranks, got %d (run it with hympirun -n 2 or more)\n",
			b.Name, MinRanks, world.Size())
		status = 1
	default:
		r := runner{b: b, c: world, o: opts, out: stdout}
		err := r.run()
		switch {
		case err == nil:
		case NotImplemented(err):
			fmt.Fprintf(diag, "%s: %s is not implemented yet in this build of hympi (%v); nothing to measure\n",
				b.Name, b.Op, err)
			status = ExitNotImplemented
		default:
			// An output error on rank 0: the peers are in a consistent state.
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

type runner struct {
	b   Benchmark
	c   *mpi.Comm
	o   Options
	out io.Writer
}

// info is the second header line: what ran, and how often.
func (r *runner) info() string {
	s := fmt.Sprintf("hympi %s (Go), %d ranks", r.b.Name, r.c.Size())
	if r.o.Reps > 1 {
		s += ", median of " + strconv.Itoa(r.o.Reps) + " repetitions"
	}
	return s
}

// run sweeps the sizes Reps times. A placeholder collective is returned as
// its error (every rank gets it at its first call, before any
// communication); any other failure of a call aborts the job, since a peer
// may be waiting inside the collective.
func (r *runner) run() error {
	b, o := r.b, r.o
	sizes := o.Sizes(b)
	maxSize := sizes[len(sizes)-1]
	var call Call
	var start Start
	var err error
	if b.NonBlocking() {
		start, err = b.PrepareNBC(r.c, maxSize)
	} else {
		call, err = b.Prepare(r.c, maxSize)
	}
	if err != nil {
		r.abort(err)
	}
	// One sweep streams its rows, as OSU does, so a slow or stuck size
	// shows at once; the header waits for the first row, so that a
	// placeholder collective leaves no empty table behind.
	stream := o.Reps == 1
	headed := false
	header := func() error {
		headed = true
		if b.NonBlocking() {
			return WriteNBCHeader(r.out, b, o, r.info())
		}
		return WriteHeader(r.out, b, o, r.info())
	}
	// rows[k][rep] is size k's row in repetition rep (rank 0).
	rows := make([][]NBCStats, len(sizes))
	for rep := range o.Reps {
		for k, size := range sizes {
			iters, skip := o.Sched.At(size)
			runtime.GC()
			if err := r.c.Barrier(); err != nil {
				r.abort(fmt.Errorf("barrier before size %d: %w", size, err))
			}
			var row NBCStats
			if b.NonBlocking() {
				row, err = r.nonBlocking(start, size, iters, skip)
			} else {
				var s Stats
				s, err = r.blocking(call, size, iters, skip)
				row = NBCStats{Overall: s.Avg, MinComm: s.Min, MaxComm: s.Max, Iters: s.Iters}
			}
			if err != nil {
				if rep == 0 && k == 0 && NotImplemented(err) {
					return err
				}
				r.abort(fmt.Errorf("size %d: %w", size, err))
			}
			rows[k] = append(rows[k], row)
			if stream {
				if !headed {
					if err := header(); err != nil {
						return err
					}
				}
				if err := r.write(size, row); err != nil {
					return err
				}
			}
		}
	}
	if stream {
		return nil
	}
	if err := header(); err != nil {
		return err
	}
	for k, size := range sizes {
		if err := r.write(size, medianRow(rows[k])); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) write(size int, row NBCStats) error {
	if r.c.Rank() != 0 {
		return nil
	}
	if r.b.NonBlocking() {
		return WriteNBCRow(r.out, r.b, r.o, size, row)
	}
	return WriteRow(r.out, r.b, r.o, size, Stats{Avg: row.Overall, Min: row.MinComm, Max: row.MaxComm, Iters: row.Iters})
}

// medianRow is the per-column median of rows (OSU-format output of -reps).
func medianRow(rows []NBCStats) NBCStats {
	col := func(f func(NBCStats) float64) float64 {
		v := make([]float64, len(rows))
		for i, r := range rows {
			v[i] = f(r)
		}
		return osu.Median(v)
	}
	m := NBCStats{
		Overall:  col(func(s NBCStats) float64 { return s.Overall }),
		Compute:  col(func(s NBCStats) float64 { return s.Compute }),
		Init:     col(func(s NBCStats) float64 { return s.Init }),
		Test:     col(func(s NBCStats) float64 { return s.Test }),
		Wait:     col(func(s NBCStats) float64 { return s.Wait }),
		PureComm: col(func(s NBCStats) float64 { return s.PureComm }),
		MinComm:  col(func(s NBCStats) float64 { return s.MinComm }),
		MaxComm:  col(func(s NBCStats) float64 { return s.MaxComm }),
	}
	if len(rows) > 0 {
		m.Iters = rows[0].Iters
	}
	return m
}

// blocking is OSU's loop for a blocking collective: each call timed on its
// own, then (except for a barrier, which is its own separator) a barrier,
// so that a fast rank does not start the next call while slow ones still
// finish the last.
func (r *runner) blocking(call Call, size, iters, skip int) (Stats, error) {
	var timer float64
	for i := range iters + skip {
		t0 := mpi.Wtime()
		if err := call(size); err != nil {
			return Stats{}, err
		}
		t1 := mpi.Wtime()
		if i >= skip {
			timer += t1 - t0
		}
		if r.b.Sized {
			if err := r.c.Barrier(); err != nil {
				return Stats{}, err
			}
		}
	}
	lat := timer * 1e6 / float64(iters)
	all, err := r.gather([]float64{lat})
	if err != nil {
		return Stats{}, err
	}
	s := Stats{Iters: iters}
	if all != nil {
		s.Avg, s.Min, s.Max = summarize(all, 0)
	}
	return s, nil
}

// nonBlocking is osu_ibarrier's measurement: first the pure communication
// time (start and wait, nothing in between), then iterations that start
// the operation, compute for that long (testing -t times), and wait.
func (r *runner) nonBlocking(start Start, size, iters, skip int) (NBCStats, error) {
	var timer float64
	for i := range iters + skip {
		t0 := mpi.Wtime()
		req, err := start(size)
		if err != nil {
			return NBCStats{}, err
		}
		if _, err := req.Wait(); err != nil {
			return NBCStats{}, err
		}
		if i >= skip {
			timer += mpi.Wtime() - t0
		}
	}
	pure := timer / float64(iters) // seconds: the compute target
	if err := r.c.Barrier(); err != nil {
		return NBCStats{}, err
	}
	var overall, compute, initT, testT, waitT float64
	for i := range iters + skip {
		t0 := mpi.Wtime()
		req, err := start(size)
		if err != nil {
			return NBCStats{}, err
		}
		t1 := mpi.Wtime()
		tests, done, err := dummyCompute(pure, req, r.o.Probes)
		if err != nil {
			return NBCStats{}, err
		}
		t2 := mpi.Wtime()
		// A request that Test saw complete is freed, as MPI_Test sets it
		// to MPI_REQUEST_NULL: only an unfinished one is waited for.
		if !done {
			if _, err := req.Wait(); err != nil {
				return NBCStats{}, err
			}
		}
		t3 := mpi.Wtime()
		if i >= skip {
			overall += t3 - t0
			initT += t1 - t0
			compute += t2 - t1
			testT += tests
			waitT += t3 - t2
		}
		if err := r.c.Barrier(); err != nil {
			return NBCStats{}, err
		}
	}
	us := 1e6 / float64(iters)
	all, err := r.gather([]float64{overall * us, compute * us, initT * us, testT * us, waitT * us, pure * 1e6})
	if err != nil || all == nil {
		return NBCStats{}, err
	}
	s := NBCStats{Iters: iters}
	s.Overall, _, _ = summarize(all, 0)
	s.Compute, _, _ = summarize(all, 1)
	s.Init, _, _ = summarize(all, 2)
	s.Test, _, _ = summarize(all, 3)
	s.Wait, _, _ = summarize(all, 4)
	s.PureComm, s.MinComm, s.MaxComm = summarize(all, 5)
	return s, nil
}

// computeDim is the side of the matrix dummyCompute multiplies (OSU's DIM).
const computeDim = 25

// sink keeps the compute loop from being optimised away.
var sink float32

// dummyCompute keeps the CPU busy for about seconds, as OSU's dummy_compute
// does, calling req.Test probes times along the way (until one reports
// completion); it returns the time spent in those calls and whether the
// request completed.
func dummyCompute(seconds float64, req *mpi.Request, probes int) (tests float64, done bool, err error) {
	var a [computeDim][computeDim]float32
	var x, y [computeDim]float32
	for i := range computeDim {
		x[i] = 1
		for j := range computeDim {
			a[i][j] = 2
		}
	}
	start := mpi.Wtime()
	probed := 0
	for {
		elapsed := mpi.Wtime() - start
		if elapsed >= seconds {
			break
		}
		// Spread the tests evenly over the target time.
		for !done && probed < probes && elapsed >= seconds*float64(probed)/float64(probes) {
			t := mpi.Wtime()
			if _, done, err = req.Test(); err != nil {
				return tests, done, err
			}
			tests += mpi.Wtime() - t
			probed++
		}
		for i := range computeDim {
			var s float32
			for j := range computeDim {
				s += a[i][j] * x[j]
			}
			y[i] = s
		}
		x[0] += y[computeDim-1] * 1e-9
	}
	sink = y[0]
	return tests, done, nil
}

// statsTag is the point-to-point tag of the per-rank figures sent to rank 0.
const statsTag = 7001

// gather collects vals from every rank on rank 0 (nil elsewhere) by point
// to point: all[rank][i].
func (r *runner) gather(vals []float64) ([][]float64, error) {
	if r.c.Rank() != 0 {
		return nil, r.c.Send(mpi.AsBytes(vals), 0, statsTag)
	}
	all := make([][]float64, r.c.Size())
	all[0] = vals
	for src := 1; src < r.c.Size(); src++ {
		v := make([]float64, len(vals))
		if _, err := r.c.Recv(mpi.AsBytes(v), src, statsTag); err != nil {
			return nil, err
		}
		all[src] = v
	}
	return all, nil
}

// summarize is the mean, minimum and maximum over ranks of column i.
func summarize(all [][]float64, i int) (avg, lo, hi float64) {
	lo, hi = all[0][i], all[0][i]
	for _, v := range all {
		avg += v[i]
		lo, hi = min(lo, v[i]), max(hi, v[i])
	}
	return avg / float64(len(all)), lo, hi
}

// abort ends the whole job after a failed call: a peer may wait forever
// inside the collective, and the launcher stops every rank.
func (r *runner) abort(err error) {
	fmt.Fprintf(os.Stderr, "%s: rank %d: %v\n", r.b.Name, r.c.Rank(), err)
	mpi.Abort(r.c, 1)
	os.Exit(1) // not reached if Abort works; never carry on after a failure
}

// Buffer returns n bytes with every page written, so first-touch faults
// happen before the timed loops.
func Buffer(n int) []byte {
	b := make([]byte, max(n, 1))
	for i := range b {
		b[i] = byte(i)
	}
	return b[:n]
}

// Floats returns n bytes holding float32 ones (the tail past the last whole
// element zero), the data of OSU's reductions: ordinary numbers, so that no
// denormal or NaN slows the arithmetic.
func Floats(n int) []byte {
	f := make([]float32, (max(n, 4)+3)/4)
	for i := range f {
		f[i] = 1
	}
	return mpi.AsBytes(f)[:n]
}
