//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hympi/hympi/shm"
)

// In-process tests of the offload engine: real engines over one region, one
// goroutine per rank, so `make race` sees the state machines.

func int64s(b []byte) []int64 {
	out := make([]int64, len(b)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func putInt64s(v []int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// TestInProcessCollectives runs each collective at several sizes and rank
// counts against a serial reference.
func TestInProcessCollectives(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			comms := inProcessJob(t, n)
			runRanks(t, comms, func(c *Comm) error {
				r := c.Rank()
				if err := c.Barrier(); err != nil {
					return err
				}
				for _, size := range []int{0, 1, 1000, 70_000, 300_000} {
					for root := 0; root < n; root++ {
						buf := make([]byte, size)
						if r == root {
							fill(buf, size+root)
						}
						if err := c.Bcast(buf, root); err != nil {
							return err
						}
						want := make([]byte, size)
						fill(want, size+root)
						if !bytes.Equal(buf, want) {
							return fmt.Errorf("Bcast size %d root %d: wrong data", size, root)
						}
					}
				}
				for _, count := range []int{0, 3, 20_000} {
					in := make([]int64, count)
					want := make([]int64, count)
					for i := range in {
						in[i] = int64(r*1000 + i)
						want[i] = int64(n*(n-1)/2*1000 + n*i)
					}
					out := make([]byte, 8*count)
					if err := c.Allreduce(putInt64s(in), out, Int64, Sum); err != nil {
						return err
					}
					if got := int64s(out); fmt.Sprint(got) != fmt.Sprint(want) {
						return fmt.Errorf("Allreduce count %d: got %v...", count, got[:min(4, count)])
					}
					for root := 0; root < n; root++ {
						out := make([]byte, 8*count)
						if err := c.Reduce(putInt64s(in), out, Int64, Sum, root); err != nil {
							return err
						}
						if r == root && fmt.Sprint(int64s(out)) != fmt.Sprint(want) {
							return fmt.Errorf("Reduce count %d root %d: wrong", count, root)
						}
					}
				}
				// Three nonblocking collectives at once, waited in reverse.
				b := make([]byte, 100)
				if r == 0 {
					fill(b, 9)
				}
				rb, err := c.Ibcast(b, 0)
				if err != nil {
					return err
				}
				sum := make([]byte, 8)
				ra, err := c.Iallreduce(putInt64s([]int64{int64(r)}), sum, Int64, Sum)
				if err != nil {
					return err
				}
				rz, err := c.Ibarrier()
				if err != nil {
					return err
				}
				for _, q := range []*Request{rz, ra, rb} {
					if _, err := q.Wait(); err != nil {
						return err
					}
				}
				want := make([]byte, 100)
				fill(want, 9)
				if !bytes.Equal(b, want) || int64s(sum)[0] != int64(n*(n-1)/2) {
					return fmt.Errorf("nonblocking collectives: wrong results")
				}
				return nil
			})
		})
	}
}

// TestTreeShapes checks that each shape is a tree spanning every rank, for
// every root: each non-root has exactly one parent that lists it as a child.
func TestTreeShapes(t *testing.T) {
	for _, shape := range []treeShape{binomialTree, binaryTree} {
		for n := 1; n <= 17; n++ {
			for root := 0; root < n; root++ {
				reached := map[int]bool{root: true}
				todo := []int{root}
				for len(todo) > 0 {
					x := todo[0]
					todo = todo[1:]
					for _, ch := range makeTree(shape, x, root, n).children {
						if reached[ch] {
							t.Fatalf("shape %d n=%d root=%d: %d reached twice", shape, n, root, ch)
						}
						if p := makeTree(shape, ch, root, n).parent; p != x {
							t.Fatalf("shape %d n=%d root=%d: child %d of %d names parent %d", shape, n, root, ch, x, p)
						}
						reached[ch] = true
						todo = append(todo, ch)
					}
				}
				if len(reached) != n {
					t.Fatalf("shape %d n=%d root=%d: reached %d ranks", shape, n, root, len(reached))
				}
				if makeTree(shape, root, root, n).parent != -1 {
					t.Fatalf("shape %d n=%d root=%d: root has a parent", shape, n, root)
				}
			}
		}
	}
}

// TestInProcessCollRingFull starts more small collectives than a collective
// ring has slots, so sends queue behind a full ring and go out as the peer
// frees slots; then completes them in reverse order.
func TestInProcessCollRingFull(t *testing.T) {
	comms := inProcessJob(t, 3)
	runRanks(t, comms, func(c *Comm) error {
		const k = 3 * shm.CollSlots
		reqs := make([]*Request, 0, 2*k)
		bufs := make([][]byte, k)
		for i := range k {
			z, err := c.Ibarrier()
			if err != nil {
				return err
			}
			bufs[i] = make([]byte, 16)
			if c.Rank() == i%c.Size() {
				fill(bufs[i], i)
			}
			b, err := c.Ibcast(bufs[i], i%c.Size())
			if err != nil {
				return err
			}
			reqs = append(reqs, z, b)
		}
		for i := len(reqs) - 1; i >= 0; i-- {
			if _, err := reqs[i].Wait(); err != nil {
				return err
			}
		}
		for i := range k {
			want := make([]byte, 16)
			fill(want, i)
			if !bytes.Equal(bufs[i], want) {
				return fmt.Errorf("Ibcast %d: wrong data", i)
			}
		}
		return nil
	})
}

// TestInProcessComms creates communicators (Dup, Split, Create,
// CreateGroup), runs collectives on them and frees them, so the race
// detector sees context agreement and the per-communicator state.
func TestInProcessComms(t *testing.T) {
	const n = 4
	comms := inProcessJob(t, n)
	runRanks(t, comms, func(c *Comm) error {
		r := c.Rank()
		for cycle := range 20 {
			d, err := c.Dup()
			if err != nil {
				return err
			}
			s, err := d.Split(r%2, -r)
			if err != nil {
				return err
			}
			if s.Size() != n/2 || s.Rank() != (n-1-r)/2 {
				return fmt.Errorf("split: rank %d size %d", s.Rank(), s.Size())
			}
			g, err := c.Group().Incl([]int{1, 2, 3})
			if err != nil {
				return err
			}
			cr, err := c.Create(g)
			if err != nil {
				return err
			}
			var cg *Comm
			if g.Rank() != Undefined {
				if cg, err = c.CreateGroup(g, cycle); err != nil {
					return err
				}
			}
			if (cr == nil) != (r == 0) || (cg == nil) != (r == 0) {
				return fmt.Errorf("Create membership wrong on rank %d", r)
			}
			// All live communicators of this rank have distinct contexts.
			seen := map[uint32]bool{c.ctx: true, ctxSelf: true}
			for _, x := range []*Comm{d, s, cr, cg} {
				if x == nil {
					continue
				}
				if seen[x.ctx] {
					return fmt.Errorf("context %d used twice", x.ctx)
				}
				seen[x.ctx] = true
			}
			sum := make([]byte, 8)
			if err := s.Allreduce(putInt64s([]int64{int64(r)}), sum, Int64, Sum); err != nil {
				return err
			}
			if want := int64(r%2) + int64(r%2+2); int64s(sum)[0] != want {
				return fmt.Errorf("Allreduce on split: %d, want %d", int64s(sum)[0], want)
			}
			for _, x := range []*Comm{cg, cr, s, d} {
				if x == nil {
					continue
				}
				if err := x.Barrier(); err != nil {
					return err
				}
				if err := x.Free(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// TestInProcessAsyncProgress runs the progress goroutine of every rank
// under the race detector: rank 1, the broadcast tree's inner node, starts
// an Ibcast and then stays out of MPI; its goroutine must forward the data
// to ranks 3 and 4 before it comes back.
func TestInProcessAsyncProgress(t *testing.T) {
	comms := inProcessJob(t, 5)
	for _, c := range comms {
		c.e.startAsync()
	}
	release := make(chan struct{})
	var leaves sync.WaitGroup
	leaves.Add(2)
	go func() { leaves.Wait(); close(release) }()
	runRanks(t, comms, func(c *Comm) error {
		defer c.e.stopAsync()
		buf := make([]byte, 3000)
		if c.Rank() == 0 {
			fill(buf, 5)
		}
		req, err := c.Ibcast(buf, 0)
		if err != nil {
			return err
		}
		if c.Rank() == 1 {
			<-release // no MPI call until the leaves below are done
		}
		if c.Rank() == 3 || c.Rank() == 4 {
			// Poll with a deadline: without the goroutine this would
			// wait for rank 1 forever.
			deadline := time.Now().Add(10 * time.Second)
			for done := false; !done; {
				if _, done, err = req.Test(); err != nil {
					return err
				}
				if time.Now().After(deadline) {
					leaves.Done()
					return fmt.Errorf("rank %d: Ibcast did not progress through a rank outside MPI", c.Rank())
				}
			}
			leaves.Done()
		} else if _, err := req.Wait(); err != nil {
			return err
		}
		want := make([]byte, 3000)
		fill(want, 5)
		if !bytes.Equal(buf, want) {
			return fmt.Errorf("rank %d: wrong data", c.Rank())
		}
		return nil
	})
}
