package colls

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/hympi/hympi/mpi"
)

// statsTag is the point-to-point tag of per-rank figures sent to rank 0.
const statsTag = 7002

// Main runs the suite with args and returns the exit status; it is the
// whole of bench/osu_colls's main.
func Main(stdout, stderr io.Writer, args []string) int {
	if err := mpi.Init(); err != nil {
		fmt.Fprintf(stderr, "osu_colls: %v\n", err)
		return 1
	}
	world := mpi.World()
	diag := stderr
	if world.Rank() != 0 {
		diag, stdout = io.Discard, io.Discard
	}
	o, err := ParseOptions(args, diag)
	status := 0
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, ErrReported):
		status = 2
	case err != nil:
		fmt.Fprintf(diag, "osu_colls: %v\n", err)
		status = 2
	case world.Size() < 2:
		fmt.Fprintf(diag, "osu_colls: needs at least 2 ranks, got %d\n", world.Size())
		status = 1
	default:
		r := &runner{c: world, o: o, out: stdout, diag: stderr}
		r.run()
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(stderr, "osu_colls: rank %d: %v\n", world.Rank(), err)
		return 1
	}
	return status
}

type runner struct {
	c          *mpi.Comm
	o          Options
	out, diag  io.Writer
	send, recv []byte
}

func (r *runner) run() {
	n := r.c.Size()
	maxSize := 0
	for _, s := range r.o.Sizes {
		maxSize = max(maxSize, s)
	}
	// A block per rank, plus slack for reductions rounded up to whole
	// floats per rank; pages touched here, not in a timed loop.
	capacity := maxSize*n + 4*n + 64
	r.send, r.recv = make([]byte, capacity), make([]byte, capacity)
	for i := range r.send {
		r.send[i], r.recv[i] = 1, 1
	}
	fmt.Fprintf(r.out, "# hympi osu_colls (Go), %d ranks, -i %d\n", n, r.o.Iters)
	fmt.Fprintln(r.out, "# row COLL FORM SIZE AVG_US MIN_US MAX_US ITERS CHECK")
	fmt.Fprintln(r.out, "# ovl COLL SIZE TESTS OVERALL_US COMPUTE_US PURE_US OVERLAP_PCT ITERS CHECK")
	for _, coll := range r.o.Colls {
		sizes := r.o.Sizes
		if coll == Barrier {
			sizes = []int{0}
		}
		for _, f := range r.o.Forms {
			if (f == Overlap && !coll.HasOverlap()) || !coll.HasForm(f) {
				continue
			}
			for _, size := range sizes {
				s := NewShape(coll, size, n)
				runtime.GC()
				if f == Overlap {
					for _, t := range r.o.Tests {
						r.overlap(s, t)
					}
				} else {
					r.measure(s, f)
				}
			}
		}
	}
}

// once runs one call of form f (p: a Start and Wait of p).
func (r *runner) once(k calls, f Form, p *mpi.Persistent) error {
	switch f {
	case Blocking:
		return k.blocking()
	case NonBlocking:
		req, err := k.start()
		if err != nil {
			return err
		}
		_, err = req.Wait()
		return err
	default:
		if _, err := p.Start(); err != nil {
			return err
		}
		_, err := p.Wait()
		return err
	}
}

// check runs one call of form f on patterned data and verifies it; a call
// that fails on any rank is reported as a skipped form (false).
func (r *runner) check(s Shape, f Form, k calls) (p *mpi.Persistent, wrong bool, ok bool) {
	rank := r.c.Rank()
	s.Fill(rank, r.send, r.recv)
	var err error
	if f == Persistent {
		p, err = k.init()
	}
	of := f
	if f == Overlap {
		of = NonBlocking
	}
	if err == nil {
		err = r.once(k, of, p)
	}
	failed, err2 := r.agree(err != nil)
	if err2 != nil {
		r.abort(err2)
	}
	if failed {
		msg := "failed on another rank"
		if err != nil {
			msg = strings.ReplaceAll(err.Error(), "\n", " ")
		}
		if rank == 0 {
			fmt.Fprintf(r.out, "skip %s %s %s\n", s.Coll, f, msg)
		}
		if p != nil {
			_ = p.Free()
		}
		return nil, false, false
	}
	if err := s.Verify(rank, r.send, r.recv); err != nil {
		fmt.Fprintf(r.diag, "osu_colls: WRONG %s: %v\n", f, err)
		wrong = true
	}
	return p, wrong, true
}

// measure checks and times s in form f, OSU's way: each call timed on its
// own, a barrier after it (but for barrier itself).
func (r *runner) measure(s Shape, f Form) {
	k := bind(r.c, s, r.send, r.recv)
	p, wrong, ok := r.check(s, f, k)
	if !ok {
		return
	}
	iters, skip := r.o.Schedule(s.Size)
	r.barrier()
	var timer float64
	for i := range iters + skip {
		t0 := mpi.Wtime()
		if err := r.once(k, f, p); err != nil {
			r.abort(fmt.Errorf("%s %s size %d: %w", s.Coll, f, s.Size, err))
		}
		if i >= skip {
			timer += mpi.Wtime() - t0
		}
		if s.Coll != Barrier {
			r.barrier()
		}
	}
	if p != nil {
		if err := p.Free(); err != nil {
			r.abort(err)
		}
	}
	all := r.gather([]float64{timer * 1e6 / float64(iters), b2f(wrong)})
	if all == nil {
		return
	}
	avg, lo, hi := summarize(all, 0)
	_, _, w := summarize(all, 1)
	fmt.Fprintln(r.out, Row{Coll: s.Coll, Form: f, Size: s.Size, Avg: avg, Min: lo, Max: hi, Iters: iters, OK: w == 0})
}

// overlap is osu_iallreduce's measurement: the pure communication time
// (start, wait), then start, compute for that long (testing tests times),
// wait.
func (r *runner) overlap(s Shape, tests int) {
	k := bind(r.c, s, r.send, r.recv)
	_, wrong, ok := r.check(s, Overlap, k)
	if !ok {
		return
	}
	iters, skip := r.o.Schedule(s.Size)
	r.barrier()
	var pure float64
	for i := range iters + skip {
		t0 := mpi.Wtime()
		if err := r.once(k, NonBlocking, nil); err != nil {
			r.abort(err)
		}
		if i >= skip {
			pure += mpi.Wtime() - t0
		}
		r.barrier()
	}
	pure /= float64(iters)
	var overall, compute float64
	for i := range iters + skip {
		t0 := mpi.Wtime()
		req, err := k.start()
		if err != nil {
			r.abort(err)
		}
		t1 := mpi.Wtime()
		done, err := dummyCompute(pure, req, tests)
		if err != nil {
			r.abort(err)
		}
		t2 := mpi.Wtime()
		// A request Test saw complete is spent, as MPI_Test frees it.
		if !done {
			if _, err := req.Wait(); err != nil {
				r.abort(err)
			}
		}
		t3 := mpi.Wtime()
		if i >= skip {
			overall += t3 - t0
			compute += t2 - t1
		}
		r.barrier()
	}
	us := 1e6 / float64(iters)
	all := r.gather([]float64{overall * us, compute * us, pure * 1e6, b2f(wrong)})
	if all == nil {
		return
	}
	ov, _, _ := summarize(all, 0)
	cp, _, _ := summarize(all, 1)
	pu, _, _ := summarize(all, 2)
	_, _, w := summarize(all, 3)
	fmt.Fprintln(r.out, OverlapRow{Coll: s.Coll, Size: s.Size, Tests: tests, Overall: ov, Compute: cp, Pure: pu, Iters: iters, OK: w == 0})
}

// computeDim is the side of the matrix dummyCompute multiplies (OSU's DIM).
const computeDim = 25

// sink keeps the compute loop from being optimised away.
var sink float32

// dummyCompute keeps the CPU busy for about seconds, as OSU's
// dummy_compute, calling req.Test tests times along the way until it
// reports completion; it returns whether it did.
func dummyCompute(seconds float64, req *mpi.Request, tests int) (done bool, err error) {
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
		el := mpi.Wtime() - start
		if el >= seconds {
			break
		}
		for !done && probed < tests && el >= seconds*float64(probed)/float64(tests) {
			if _, done, err = req.Test(); err != nil {
				return done, err
			}
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
	return done, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (r *runner) barrier() {
	if err := r.c.Barrier(); err != nil {
		r.abort(err)
	}
}

// gather collects vals from every rank on rank 0 (nil elsewhere) by point
// to point, so that the suite leans on no collective but Barrier.
func (r *runner) gather(vals []float64) [][]float64 {
	if r.c.Rank() != 0 {
		if err := r.c.Send(mpi.AsBytes(vals), 0, statsTag); err != nil {
			r.abort(err)
		}
		return nil
	}
	all := make([][]float64, r.c.Size())
	all[0] = vals
	for src := 1; src < r.c.Size(); src++ {
		v := make([]float64, len(vals))
		if _, err := r.c.Recv(mpi.AsBytes(v), src, statsTag); err != nil {
			r.abort(err)
		}
		all[src] = v
	}
	return all
}

// agree tells every rank whether v held on any rank, by point to point
// through rank 0.
func (r *runner) agree(v bool) (bool, error) {
	all := r.gather([]float64{b2f(v)})
	flag := []float64{0}
	if all != nil {
		for _, a := range all {
			flag[0] = max(flag[0], a[0])
		}
		for dst := 1; dst < r.c.Size(); dst++ {
			if err := r.c.Send(mpi.AsBytes(flag), dst, statsTag); err != nil {
				return false, err
			}
		}
	} else if _, err := r.c.Recv(mpi.AsBytes(flag), 0, statsTag); err != nil {
		return false, err
	}
	return flag[0] > 0, nil
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

// abort ends the whole job after a failed call: a peer may be waiting
// inside the collective.
func (r *runner) abort(err error) {
	fmt.Fprintf(os.Stderr, "osu_colls: rank %d: %v\n", r.c.Rank(), err)
	mpi.Abort(r.c, 1)
	os.Exit(1)
}
