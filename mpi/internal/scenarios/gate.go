package main

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Barrier and small Allreduce where an oversubscribed job runs them
	// through the communicator's gate (mpi/coll_gate.go): run with more
	// than 8 ranks on fewer CPUs. Results are checked against serial
	// references; the forms and communicators interleave so that gate and
	// message-based collectives, blocking and nonblocking ones, and two
	// communicators' gates are in flight together.
	register("gate", func(c *mpi.Comm) {
		gateBarrierOrder(c)
		dup, err := c.Dup()
		must(err, "Dup")
		half, err := c.Split(c.Rank()%2, -c.Rank()) // reversed rank order
		must(err, "Split")
		for round := range 30 {
			for _, x := range []*mpi.Comm{c, dup, half} {
				gateSums(x, round)
			}
		}
		gateNonCommutative(c)
		gateNonCommutative(half)
		gateNonblocking(c, dup)
		gatePersistent(c)
		gateLate(c)
		gateMismatch(c)
		must(half.Free(), "Free")
		must(dup.Free(), "Free")
	})
}

// gateBarrierOrder: a rank that reaches the barrier late (after a sleep)
// stamps the wall clock as it enters and broadcasts the stamp; no rank may
// have left the barrier before it. Causality, not timing: the clock is the
// machine's one, and the late rank's stamp precedes its arrival.
func gateBarrierOrder(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for _, late := range []int{n - 1, 0, n / 2} {
		var enter int64
		if r == late {
			time.Sleep(30 * time.Millisecond)
			enter = time.Now().UnixNano()
		}
		must(c.Barrier(), "Barrier")
		left := time.Now().UnixNano()
		stamp := make([]byte, 8)
		binary.LittleEndian.PutUint64(stamp, uint64(enter))
		must(c.Bcast(stamp, late), "Bcast stamp")
		if e := int64(binary.LittleEndian.Uint64(stamp)); left < e {
			fail("left the barrier at %d, before rank %d entered it at %d", left, late, e)
		}
	}
}

// gateSums: Allreduce sums of 1..8 int64 (the gate's sizes) and of 9
// (above them), in place and not, with values that change every round.
func gateSums(c *mpi.Comm, round int) {
	r, n := c.Rank(), c.Size()
	for _, count := range []int{1, 3, 8, 9} {
		in := make([]byte, 8*count)
		want := make([]byte, 8*count)
		for i := range count {
			binary.LittleEndian.PutUint64(in[8*i:], uint64(r*1000+i+round*7))
			binary.LittleEndian.PutUint64(want[8*i:], uint64(n*(n-1)/2*1000+n*(i+round*7)))
		}
		out := make([]byte, len(in))
		if round%2 == 1 {
			out = in // in place
		}
		must(c.Allreduce(in, out, mpi.Int64, mpi.Sum), "Allreduce")
		expect(out, want, "Allreduce sum of %d int64, round %d", count, round)
	}
	must(c.Barrier(), "Barrier")
}

// gateNonCommutative: a 2x2 matrix product in rank order, one and two
// matrices (32 and 64 bytes, through the gate) and three (above it).
func gateNonCommutative(c *mpi.Comm) {
	mat, err := mpi.OpaqueType(32)
	must(err, "OpaqueType")
	op, err := mpi.NewOp(matMul, false)
	must(err, "NewOp")
	defer op.Free()
	all := span(0, c.Size())
	for range 5 {
		for _, count := range []int{1, 2, 3} {
			out := make([]byte, 32*count)
			must(c.Allreduce(matInput(c.Rank(), count), out, mat, op), "Allreduce matrices")
			expect(out, matFold(all, count), "non-commutative Allreduce of %d matrices", count)
		}
	}
}

// gateNonblocking: several nonblocking gate collectives outstanding on one
// communicator and on another at once, waited for in reverse order, with
// a blocking one on a third communicator between their starts and waits.
func gateNonblocking(c, d *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for round := range 10 {
		const k = 4
		var reqs []*mpi.Request
		outs := make([][]byte, 0, 2*k)
		for i := range k {
			for _, x := range []*mpi.Comm{c, d} {
				in := make([]byte, 8)
				binary.LittleEndian.PutUint64(in, uint64(r+i+round))
				out := make([]byte, 8)
				q, err := x.Iallreduce(in, out, mpi.Int64, mpi.Sum)
				must(err, "Iallreduce")
				reqs = append(reqs, q)
				outs = append(outs, out)
			}
			q, err := c.Ibarrier()
			must(err, "Ibarrier")
			reqs = append(reqs, q)
			outs = append(outs, nil)
		}
		if round%2 == 0 {
			must(d.Barrier(), "Barrier between")
		}
		for j := len(reqs) - 1; j >= 0; j-- {
			_, err := reqs[j].Wait()
			must(err, "Wait")
		}
		for j, out := range outs {
			if out == nil {
				continue
			}
			i := j / 3
			want := make([]byte, 8)
			binary.LittleEndian.PutUint64(want, uint64(n*(n-1)/2+n*(i+round)))
			expect(out, want, "Iallreduce %d of round %d", j, round)
		}
	}
}

// gatePersistent: persistent collectives (which keep the message-based
// algorithms) interleaved with gate ones on the same communicator.
func gatePersistent(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	in, out := make([]byte, 8), make([]byte, 8)
	p, err := c.AllreduceInit(in, out, mpi.Int64, mpi.Sum)
	must(err, "AllreduceInit")
	b, err := c.BarrierInit()
	must(err, "BarrierInit")
	for round := range 10 {
		binary.LittleEndian.PutUint64(in, uint64(r*round))
		q, err := p.Start()
		must(err, "Start")
		gin, gout := make([]byte, 8), make([]byte, 8)
		binary.LittleEndian.PutUint64(gin, 1)
		must(c.Allreduce(gin, gout, mpi.Int64, mpi.Sum), "Allreduce beside a persistent one")
		_, err = q.Wait()
		must(err, "Wait")
		if got, want := binary.LittleEndian.Uint64(out), uint64(n*(n-1)/2*round); got != want {
			fail("persistent Allreduce round %d: %d, want %d", round, got, want)
		}
		if got := binary.LittleEndian.Uint64(gout); got != uint64(n) {
			fail("Allreduce beside a persistent one: %d, want %d", got, n)
		}
		q, err = b.Start()
		must(err, "Start barrier")
		_, err = q.Wait()
		must(err, "Wait barrier")
	}
	must(p.Free(), "Free")
	must(b.Free(), "Free")
}

// gateLate: one rank arrives long after the others (they sleep at the
// gate) at an Allreduce, repeatedly, a different rank each time.
func gateLate(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for i, late := range []int{n - 1, 0, n / 3} {
		if r == late {
			time.Sleep(50 * time.Millisecond)
		}
		in, out := make([]byte, 8), make([]byte, 8)
		binary.LittleEndian.PutUint64(in, uint64(r+i))
		must(c.Allreduce(in, out, mpi.Int64, mpi.Sum), "late Allreduce")
		if got, want := binary.LittleEndian.Uint64(out), uint64(n*(n-1)/2+n*i); got != want {
			fail("late Allreduce %d: %d, want %d", i, got, want)
		}
	}
}

// gateMismatch: ranks that disagree on an Allreduce's count (erroneous)
// all get ErrCount, and the communicator's next collectives still work.
func gateMismatch(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	count := 1
	if r == n/2 {
		count = 2
	}
	in, out := make([]byte, 8*count), make([]byte, 8*count)
	if err := c.Allreduce(in, out, mpi.Int64, mpi.Sum); !errors.Is(err, mpi.ErrCount) {
		fail("Allreduce with rank %d giving 2 elements, the others 1: %v (class %d), want ErrCount", n/2, err, mpi.ClassOf(err))
	}
	gateSums(c, 1)
}
