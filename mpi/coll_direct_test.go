//go:build !ompi && !mpich

package mpi

import (
	"slices"
	"testing"
)

// TestCollDirect sets up, on two in-process ranks, each state the direct
// run (coll_direct.go) must recognise, in a fixed order (rank 1's part,
// then rank 0's), and then has rank 0 make a small Allreduce: the direct
// run must finish it exactly when the rule allows (counted by directRuns)
// and the result must be the sum either way; afterwards both ranks finish
// what they started, which must also come out right. A shortcut taken
// where it must not be shows as a wrong sum, a message taken by the wrong
// collective, a hang, or the count.
func TestCollDirect(t *testing.T) {
	send := [2][]byte{putInt64s([]int64{1, 20}), putInt64s([]int64{300, 4000})}
	want := []int64{301, 4020}
	long := putInt64s([]int64{5, 6, 7})
	cases := []struct {
		name string
		// pre1 and pre0 run on ranks 1 and 0, in that order, before rank
		// 0's call; post1 and post0 then run concurrently.
		pre1, pre0, post1, post0 func(t *testing.T, e *directEnv)
		// call is rank 0's Allreduce form; it returns a request to wait
		// for, or nil when it was blocking.
		call      func(t *testing.T, c *Comm, recv []byte) (*Request, error)
		direct    bool       // the direct run must finish rank 0's call
		wantClass ErrorClass // the call's error class (Success: none)
	}{
		{name: "blocking, peer's message there", direct: true},
		// A Go nonblocking start publishes its sends and leaves the
		// receive, and the sum, to the wait (what overlaps the caller's
		// work), which then finishes it directly.
		{name: "nonblocking, peer's message there", direct: true,
			call: func(t *testing.T, c *Comm, recv []byte) (*Request, error) {
				r, err := c.Iallreduce(send[0], recv, Int64, Sum)
				if err != nil {
					return nil, err
				}
				if r.done || !r.coll.deferred || slices.Equal(int64s(recv), want) {
					t.Error("Iallreduce received and summed at its start")
				}
				_, err = r.Wait()
				return nil, err
			}},
		// The C ABI's start takes the request at once (takeDone), which
		// goes on with the direct run: complete in the start call.
		{name: "nonblocking, taken at once", direct: true,
			call: func(t *testing.T, c *Comm, recv []byte) (*Request, error) {
				r, err := c.Iallreduce(send[0], recv, Int64, Sum)
				if err != nil {
					return nil, err
				}
				if !r.takeDone() {
					t.Error("takeDone did not finish the Iallreduce")
				}
				return nil, nil
			}},
		// Test finishes it directly too, without a progress pass.
		{name: "nonblocking, tested", direct: true,
			call: func(t *testing.T, c *Comm, recv []byte) (*Request, error) {
				r, err := c.Iallreduce(send[0], recv, Int64, Sum)
				if err != nil {
					return nil, err
				}
				if _, ok, err := r.Test(); !ok || err != nil {
					t.Errorf("Test: %v %v", ok, err)
				}
				return nil, nil
			}},
		{name: "persistent, peer's message there", direct: true,
			call: func(t *testing.T, c *Comm, recv []byte) (*Request, error) {
				p, err := c.AllreduceInit(send[0], recv, Int64, Sum)
				if err != nil {
					return nil, err
				}
				return p.Start()
			}},
		{name: "another collective in flight here",
			pre0:  func(t *testing.T, e *directEnv) { e.keep0(e.dup[0].Ibarrier()) },
			post1: func(t *testing.T, e *directEnv) { e.keep1(e.dup[1].Ibarrier()) }},
		{name: "point-to-point receive posted",
			pre0: func(t *testing.T, e *directEnv) {
				e.keep0(e.w[0].Irecv(make([]byte, 8), 1, 5))
			},
			post1: func(t *testing.T, e *directEnv) {
				if err := e.w[1].Send(putInt64s([]int64{9}), 0, 5); err != nil {
					t.Error(err)
				}
			}},
		{name: "point-to-point sends queued",
			pre0: func(t *testing.T, e *directEnv) {
				// More than the ring holds: the rest wait in the queue.
				for i := range directQueued {
					e.keep0(e.w[0].Isend(putInt64s([]int64{int64(i)}), 1, 8))
				}
				if len(e.w[0].e.sending) == 0 {
					t.Fatal("no send queued")
				}
			},
			post1: func(t *testing.T, e *directEnv) {
				b := make([]byte, 8)
				for i := range directQueued {
					if _, err := e.w[1].Recv(b, 0, 8); err != nil || int64s(b)[0] != int64(i) {
						t.Errorf("Recv %d: %v %v", i, int64s(b), err)
						return
					}
				}
			}},
		{name: "peer's message filed as unexpected", direct: true,
			pre1: func(t *testing.T, e *directEnv) {
				if err := e.w[1].Send(putInt64s([]int64{9}), 0, 7); err != nil {
					t.Fatal(err)
				}
			},
			pre0: func(t *testing.T, e *directEnv) {
				// A progress pass files the message, and the peer's
				// collective message with it, as unexpected.
				if _, ok, err := e.w[0].Iprobe(1, 7); err != nil || !ok {
					t.Fatalf("Iprobe: %v %v", ok, err)
				}
			},
			post0: func(t *testing.T, e *directEnv) {
				b := make([]byte, 8)
				if _, err := e.w[0].Recv(b, 1, 7); err != nil || int64s(b)[0] != 9 {
					t.Errorf("Recv: %v %v", int64s(b), err)
				}
			}},
		{name: "another communicator's collective at the ring head",
			pre1: func(t *testing.T, e *directEnv) {
				e.keep1(e.dup[1].Iallreduce(long, make([]byte, len(long)), Int64, Max))
			},
			post0: func(t *testing.T, e *directEnv) {
				got := make([]byte, len(long))
				if err := e.dup[0].Allreduce(long, got, Int64, Max); err != nil || !slices.Equal(got, long) {
					t.Errorf("dup Allreduce: %v %v", int64s(got), err)
				}
			}},
		// Rank 1 contributes 3 elements against rank 0's 2.
		{name: "peer sent a longer message", wantClass: ErrTruncate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			e := directEnv{t: t}
			dups := make([]*Comm, 2)
			runRanks(t, comms, func(c *Comm) (err error) {
				dups[c.rank], err = c.Dup()
				return err
			})
			e.w, e.dup = [2]*Comm(comms), [2]*Comm(dups)
			recv1 := make([]byte, 16)
			mismatch := tc.wantClass != Success
			if tc.pre1 != nil {
				tc.pre1(t, &e)
			}
			if mismatch {
				e.keep1(e.w[1].Iallreduce(long, make([]byte, len(long)), Int64, Sum))
			} else {
				e.keep1(e.w[1].Iallreduce(send[1], recv1, Int64, Sum))
			}
			if tc.pre0 != nil {
				tc.pre0(t, &e)
			}
			before := e.w[0].directRuns
			recv0 := make([]byte, 16)
			var r0 *Request
			var err error
			if tc.call != nil {
				r0, err = tc.call(t, e.w[0], recv0)
			} else {
				err = e.w[0].Allreduce(send[0], recv0, Int64, Sum)
			}
			if got := e.w[0].directRuns - before; got != b2u(tc.direct) {
				t.Errorf("direct runs: %d, want %d", got, b2u(tc.direct))
			}
			if r0 != nil && err == nil {
				_, err = r0.Wait()
			}
			if mismatch {
				if ClassOf(err) != tc.wantClass {
					t.Fatalf("rank 0: error %v (class %v), want class %v", err, ClassOf(err), tc.wantClass)
				}
				// Rank 1's Iallreduce got 2 elements of the 3 it wanted.
				if _, err := e.reqs[1][0].Wait(); ClassOf(err) != ErrCount {
					t.Fatalf("rank 1: error %v, want class %v", err, ErrCount)
				}
				return
			}
			if err != nil {
				t.Fatalf("rank 0: %v", err)
			}
			if !slices.Equal(int64s(recv0), want) {
				t.Errorf("rank 0: sum %v, want %v", int64s(recv0), want)
			}
			runRanks(t, comms, func(c *Comm) error {
				me := c.rank
				if me == 1 && tc.post1 != nil {
					tc.post1(t, &e)
				}
				if me == 0 && tc.post0 != nil {
					tc.post0(t, &e)
				}
				for _, r := range e.reqs[me] {
					if _, err := r.Wait(); err != nil {
						return err
					}
				}
				return nil
			})
			if !slices.Equal(int64s(recv1), want) {
				t.Errorf("rank 1: sum %v, want %v", int64s(recv1), want)
			}
		})
	}
}

// directEnv is TestCollDirect's two ranks, each on two communicators, and
// the requests each must finish.
type directEnv struct {
	t      *testing.T
	w, dup [2]*Comm
	reqs   [2][]*Request
}

func (e *directEnv) keep0(r *Request, err error) { e.keep(0, r, err) }
func (e *directEnv) keep1(r *Request, err error) { e.keep(1, r, err) }

func (e *directEnv) keep(rank int, r *Request, err error) {
	// Errorf: keep may run on a rank's goroutine.
	if err != nil {
		e.t.Errorf("rank %d: %v", rank, err)
		return
	}
	e.reqs[rank] = append(e.reqs[rank], r)
}

// directQueued is more small sends than a descriptor ring holds.
const directQueued = 2 * 1024

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
