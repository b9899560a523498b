//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// affine is an associative, non-commutative operator on 16-byte elements
// (m, c): x ↦ m·x + c, lower op higher = the lower map applied first. A
// result in the wrong operand order or with an element combined twice
// comes out different.
func affine(in, inout []byte, _ Datatype) {
	a, b := int64s(in), int64s(inout)
	for i := 0; i+1 < len(a); i += 2 {
		b[i], b[i+1] = a[i]*b[i], a[i+1]*b[i]+b[i+1]
	}
	copy(inout, putInt64s(b))
}

// TestInProcessFastAllreduce checks every Allreduce algorithm of the fast path
// (halves at two ranks, doubling, ring) against a serial fold in rank
// order, with odd element counts, in place, and with a non-commutative
// operator, which must come out in rank order.
func TestInProcessFastAllreduce(t *testing.T) {
	opAff, err := NewOp(affine, false)
	if err != nil {
		t.Fatal(err)
	}
	defer opAff.Free()
	pair, err := OpaqueType(16)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		n, elems  int
		inPlace   bool
		affine    bool
		halvesMin int  // allreduceHalvesMin for the case
		noHalving bool // ring instead of recursive halving
	}{
		{n: 2, elems: 1, halvesMin: 0},
		{n: 2, elems: 2, halvesMin: 0},
		{n: 2, elems: 7, halvesMin: 0},
		{n: 2, elems: 7, halvesMin: 0, inPlace: true},
		{n: 2, elems: 7, halvesMin: 0, affine: true},
		{n: 2, elems: 7, halvesMin: 0, affine: true, inPlace: true},
		{n: 2, elems: 20_001, halvesMin: allreduceHalvesMin},
		{n: 2, elems: 20_001, halvesMin: allreduceHalvesMin, affine: true, inPlace: true},
		{n: 2, elems: 20_001, halvesMin: 1 << 30}, // ring
		{n: 4, elems: 5, affine: true},            // doubling
		{n: 4, elems: 5, inPlace: true},           // doubling
		{n: 4, elems: 20_001},                     // halving
		{n: 4, elems: 20_001, inPlace: true},      // halving
		{n: 8, elems: 20_001},                     // halving
		{n: 8, elems: 8_193},                      // halving, uneven halves
		{n: 4, elems: 20_001, noHalving: true},    // ring
		{n: 4, elems: 20_001, affine: true},       // doubling
		{n: 3, elems: 20_001, affine: true},       // general schedule
		{n: 3, elems: 20_001},                     // ring
	}
	for _, tc := range cases {
		name := fmt.Sprintf("n=%d/elems=%d/inplace=%v/affine=%v/halvesMin=%d/ring=%v", tc.n, tc.elems, tc.inPlace, tc.affine, tc.halvesMin, tc.noHalving)
		t.Run(name, func(t *testing.T) {
			old, oldHalving := allreduceHalvesMin, allreduceHalving
			allreduceHalvesMin, allreduceHalving = tc.halvesMin, !tc.noHalving
			defer func() { allreduceHalvesMin, allreduceHalving = old, oldHalving }()
			dt, op, width := Int64, Sum, 1
			if tc.affine {
				dt, op, width = pair, opAff, 2
			}
			input := func(r int) []int64 {
				v := make([]int64, width*tc.elems)
				for i := range v {
					v[i] = int64(r*7919+i*31+1) | 1
				}
				return v
			}
			want := input(0)
			for r := 1; r < tc.n; r++ {
				next := putInt64s(input(r))
				if tc.affine {
					affine(putInt64s(want), next, dt)
				} else {
					in := input(r)
					for i := range in {
						in[i] += want[i]
					}
					next = putInt64s(in)
				}
				want = int64s(next)
			}
			comms := inProcessJob(t, tc.n)
			runRanks(t, comms, func(c *Comm) error {
				// Twice: the second call reuses the scratch state.
				for k := range 2 {
					in := putInt64s(input(c.Rank()))
					out := make([]byte, len(in))
					if tc.inPlace {
						out = in
					}
					if err := c.Allreduce(in, out, dt, op); err != nil {
						return err
					}
					got := int64s(out)
					for i := range got {
						if got[i] != want[i] {
							return fmt.Errorf("call %d: element %d is %d, want %d", k, i, got[i], want[i])
						}
					}
				}
				return nil
			})
		})
	}
}

// TestInProcessFastBcast runs the blocking broadcast on both sides of its flat
// and tree switch points, from every root, twice per communicator so the
// second call reuses the first one's state.
func TestInProcessFastBcast(t *testing.T) {
	for _, n := range []int{3, 4, 5} {
		for _, size := range []int{0, 8, bcastFlatMin - 1, bcastFlatMin, 300_000} {
			t.Run(fmt.Sprintf("n=%d/size=%d", n, size), func(t *testing.T) {
				comms := inProcessJob(t, n)
				runRanks(t, comms, func(c *Comm) error {
					for root := range n {
						for k := range 2 {
							buf := make([]byte, size)
							if c.Rank() == root {
								fill(buf, root+k)
							}
							if err := c.Bcast(buf, root); err != nil {
								return err
							}
							want := make([]byte, size)
							fill(want, root+k)
							if !bytes.Equal(buf, want) {
								return fmt.Errorf("root %d call %d: wrong data", root, k)
							}
						}
					}
					return nil
				})
			})
		}
	}
}

// TestBarrierSeparates: no rank leaves a blocking Barrier before every rank
// has entered it, with a CPU per rank (dissemination) and oversubscribed
// (flat gather and release through rank 0 above 2 ranks). Each rank counts
// itself in before the call and checks the count after it; the ranks stagger
// their arrival so a barrier that lets one through early is caught.
func TestBarrierSeparates(t *testing.T) {
	const rounds = 200
	for _, tc := range []struct {
		n, cpus int
		flat    bool // the algorithm the engines should choose
	}{
		{2, 2, false},
		{2, 1, false},
		{3, 3, false},
		{3, 1, true},
		{5, 5, false},
		{5, 2, true},
		{8, 2, true},
	} {
		t.Run(fmt.Sprintf("n=%d/cpus=%d", tc.n, tc.cpus), func(t *testing.T) {
			comms := inProcessJob(t, tc.n)
			for _, c := range comms {
				c.e.setCPUs(tc.cpus)
				if got := c.e.oversub && tc.n > 2; got != tc.flat {
					t.Fatalf("flat barrier %v, want %v", got, tc.flat)
				}
			}
			var in [rounds]atomic.Int32
			runRanks(t, comms, func(c *Comm) error {
				for i := range rounds {
					if (i+c.Rank())%3 == 0 {
						runtime.Gosched()
					}
					in[i].Add(1)
					if err := c.Barrier(); err != nil {
						return err
					}
					if got := in[i].Load(); got != int32(c.Size()) {
						return fmt.Errorf("round %d: left the barrier with %d of %d ranks in", i, got, c.Size())
					}
				}
				return nil
			})
		})
	}
}

// TestInProcessFastAllgather runs the blocking Allgather on both sides of
// the switch from one round of direct sends to the ring, with zero, odd,
// large (allgatherOverlapMin) and in-place blocks, twice per communicator so the second call reuses the
// first one's state. Every block carries its rank and call, so a block
// from the wrong rank or left over from the first call shows.
func TestInProcessFastAllgather(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8} {
		for _, tc := range []struct {
			m         int
			directMax int
			inPlace   bool
		}{
			{0, allgatherDirectMax, false},
			{7, allgatherDirectMax, false},
			{7, allgatherDirectMax, true},
			{7, -1, false}, // ring
			{7, -1, true},  // ring, in place
			{5000, allgatherDirectMax, false},
			{5000, -1, false},
			// Own block copied while the messages are in flight.
			{70_000, allgatherDirectMax, false},
			{70_000, -1, false},
			{70_000, -1, true},
		} {
			t.Run(fmt.Sprintf("n=%d/m=%d/directMax=%d/inplace=%v", n, tc.m, tc.directMax, tc.inPlace), func(t *testing.T) {
				old := allgatherDirectMax
				allgatherDirectMax = tc.directMax
				defer func() { allgatherDirectMax = old }()
				comms := inProcessJob(t, n)
				runRanks(t, comms, func(c *Comm) error {
					for k := range 2 {
						recv := make([]byte, n*tc.m)
						send := make([]byte, tc.m)
						fill(send, 100*k+c.Rank())
						if tc.inPlace {
							copy(recv[c.Rank()*tc.m:], send)
							send = recv[c.Rank()*tc.m : (c.Rank()+1)*tc.m]
						}
						if err := c.Allgather(send, recv); err != nil {
							return err
						}
						want := make([]byte, tc.m)
						for r := range n {
							fill(want, 100*k+r)
							if !bytes.Equal(recv[r*tc.m:(r+1)*tc.m], want) {
								return fmt.Errorf("call %d: block %d wrong", k, r)
							}
						}
					}
					return nil
				})
			})
		}
	}
}

// TestInProcessFastAlltoall checks the blocking Alltoall at every job size
// the scenarios use, with zero, odd, slot-sized and direct-copy blocks,
// twice per communicator. Block j of rank i's send is filled from (i, j,
// call), so a block delivered to the wrong rank or place shows.
func TestInProcessFastAlltoall(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8} {
		for _, m := range []int{0, 1, 13, 1000, 70_000} {
			t.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(t *testing.T) {
				comms := inProcessJob(t, n)
				runRanks(t, comms, func(c *Comm) error {
					seed := func(from, to, k int) int { return 100*k + 10*from + to }
					for k := range 2 {
						send, recv := make([]byte, n*m), make([]byte, n*m)
						for j := range n {
							fill(send[j*m:(j+1)*m], seed(c.Rank(), j, k))
						}
						if err := c.Alltoall(send, recv); err != nil {
							return err
						}
						want := make([]byte, m)
						for i := range n {
							fill(want, seed(i, c.Rank(), k))
							if !bytes.Equal(recv[i*m:(i+1)*m], want) {
								return fmt.Errorf("call %d: block from rank %d wrong", k, i)
							}
						}
					}
					return nil
				})
			})
		}
	}
}
