//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hympi/hympi/shm"
)

// TestCollReplay: on two in-process ranks whose Allreduce is memoised and
// replayed (coll_replay.go), each state the replay must recognise is set
// up in a fixed order before rank 0 calls the same Allreduce again. The
// replay must finish the call exactly when the direct run's rule allows
// (counted by replays), and otherwise hand it to the ordinary path where
// it stopped: the sum must be right either way, so must what both ranks
// started meanwhile, and the Allreduces after it (which must be replayed
// again: the hand-over put the entry back in a usable state). A shortcut
// taken where it must not be, or a hand-over that sends a message twice
// or loses one, shows as a wrong sum, a message taken by the wrong
// collective, a hang, or the count.
func TestCollReplay(t *testing.T) {
	send := [2][]byte{putInt64s([]int64{1, 20}), putInt64s([]int64{300, 4000})}
	want := []int64{301, 4020}
	long := putInt64s([]int64{5, 6, 7})
	cases := []struct {
		name string
		// pre1 and pre0 run on ranks 1 and 0, in that order, before rank
		// 0's call; post1 and post0 then run concurrently.
		pre1, pre0, post1, post0 func(t *testing.T, e *directEnv)
		// late: rank 1 starts its Allreduce only while rank 0 waits in
		// its call (the replay spins, then defers).
		late     bool
		replayed bool // the replay must finish rank 0's call
		// nb: rank 0 calls Iallreduce and Wait instead, which must start
		// from the replay's plan; direct: the direct run (the plan's)
		// must finish it.
		nb, direct bool
	}{
		{name: "nonblocking, peer's message there", nb: true, direct: true},
		{name: "nonblocking, peer's message late", nb: true, late: true, direct: true},
		{name: "nonblocking, another communicator's collective at the ring head", nb: true,
			pre1: func(t *testing.T, e *directEnv) {
				e.keep1(e.dup[1].Iallreduce(long, make([]byte, len(long)), Int64, Max))
			},
			post0: func(t *testing.T, e *directEnv) {
				got := make([]byte, len(long))
				if err := e.dup[0].Allreduce(long, got, Int64, Max); err != nil || !slices.Equal(got, long) {
					t.Errorf("dup Allreduce: %v %v", int64s(got), err)
				}
			}},
		{name: "peer's message there", replayed: true},
		{name: "peer's message late", late: true},
		{name: "peer's message filed as unexpected", replayed: true,
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
		{name: "point-to-point receive posted",
			pre0: func(t *testing.T, e *directEnv) {
				e.keep0(e.w[0].Irecv(make([]byte, 8), 1, 5))
			},
			post1: func(t *testing.T, e *directEnv) {
				if err := e.w[1].Send(putInt64s([]int64{9}), 0, 5); err != nil {
					t.Error(err)
				}
			}},
		{name: "another collective in flight here",
			pre0:  func(t *testing.T, e *directEnv) { e.keep0(e.dup[0].Ibarrier()) },
			post1: func(t *testing.T, e *directEnv) { e.keep1(e.dup[1].Ibarrier()) }},
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
			recv := [2][]byte{make([]byte, 16), make([]byte, 16)}
			rounds := func(what string) {
				t.Helper()
				for range 3 {
					before := comms[0].replays
					runRanks(t, comms, func(c *Comm) error {
						clear(recv[c.rank])
						if err := c.Allreduce(send[c.rank], recv[c.rank], Int64, Sum); err != nil {
							return err
						}
						if got := int64s(recv[c.rank]); !slices.Equal(got, want) {
							return fmt.Errorf("%s: sum %v, want %v", what, got, want)
						}
						return nil
					})
					before = comms[0].replays - before
					// The first call builds, the second finds no channel
					// plan yet on some runs; the third replays.
					if before > 1 {
						t.Fatalf("%s: %d replays in one call", what, before)
					}
				}
			}
			rounds("warm-up")
			if comms[0].replays == 0 {
				t.Fatal("warm-up: rank 0 never replayed its Allreduce")
			}
			clear(recv[0])
			clear(recv[1])
			if tc.pre1 != nil {
				tc.pre1(t, &e)
			}
			var late sync.WaitGroup
			start1 := func() { e.keep1(e.w[1].Iallreduce(send[1], recv[1], Int64, Sum)) }
			if tc.late {
				late.Add(1)
				go func() {
					defer late.Done()
					time.Sleep(20 * time.Millisecond)
					start1()
				}()
			} else {
				start1()
			}
			if tc.pre0 != nil {
				tc.pre0(t, &e)
			}
			before, direct := comms[0].replays, comms[0].directRuns
			var err error
			if tc.nb {
				var r *Request
				if r, err = comms[0].Iallreduce(send[0], recv[0], Int64, Sum); err == nil {
					if r.coll == nil || r.coll.rxState != replayYes {
						t.Error("Iallreduce did not start from the replay's plan")
					}
					_, err = r.Wait()
				}
			} else {
				err = comms[0].Allreduce(send[0], recv[0], Int64, Sum)
			}
			late.Wait()
			if err != nil {
				t.Fatalf("rank 0: %v", err)
			}
			if got := comms[0].replays - before; got != b2u(tc.replayed) {
				t.Errorf("replays: %d, want %d", got, b2u(tc.replayed))
			}
			if got := comms[0].directRuns - direct; tc.nb && got != b2u(tc.direct) {
				t.Errorf("direct runs: %d, want %d", got, b2u(tc.direct))
			}
			if got := int64s(recv[0]); !slices.Equal(got, want) {
				t.Errorf("rank 0: sum %v, want %v", got, want)
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
			if got := int64s(recv[1]); !slices.Equal(got, want) {
				t.Errorf("rank 1: sum %v, want %v", got, want)
			}
			before = comms[0].replays
			rounds("after")
			if comms[0].replays == before {
				t.Error("after: rank 0 never replayed its Allreduce again")
			}
		})
	}
}

// TestCollReplayRingFull: a root that only sends (Bcast) replays until its
// peer's collective ring is full, and must then queue the rest in order
// behind the published ones (a send published after a queued one would
// overtake it): the peer, joining late, must get every payload in order.
// Per size: one slot, and spans (1 KiB; 3000 B, whose spans wrap at the
// ring's end at different places; CollMsgMax), which the replay publishes
// and takes too (it must replay some: before spans were replayed none).
func TestCollReplayRingFull(t *testing.T) {
	for _, size := range []int{8, 1024, 3000, shm.CollMsgMax} {
		t.Run(fmt.Sprintf("%dB", size), func(t *testing.T) { replayRingFull(t, size) })
	}
}

func replayRingFull(t *testing.T, size int) {
	comms := inProcessJob(t, 2)
	buf := [2][]byte{make([]byte, size), make([]byte, size)}
	fillAs := func(b []byte, i int) {
		for k := range b {
			b[k] = byte(i + k*7)
		}
	}
	want := make([]byte, size)
	bcast := func(c *Comm, i int) error {
		if c.rank == 0 {
			fillAs(buf[0], i)
		} else {
			clear(buf[1])
		}
		if err := c.Bcast(buf[c.rank], 0); err != nil {
			return err
		}
		if c.rank == 1 {
			fillAs(want, i)
			if !slices.Equal(buf[1], want) {
				return fmt.Errorf("Bcast %d: payload not the root's", i)
			}
		}
		return nil
	}
	for i := range 3 {
		runRanks(t, comms, func(c *Comm) error { return bcast(c, i) })
	}
	const n = 3 * 64 // three times the collective ring
	before := comms[0].replays
	var root sync.WaitGroup
	root.Add(1)
	var rootErr error
	go func() {
		defer root.Done()
		for i := range n {
			if rootErr = bcast(comms[0], 100+i); rootErr != nil {
				return
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	for i := range n {
		if err := bcast(comms[1], 100+i); err != nil {
			t.Fatal(err)
		}
	}
	root.Wait()
	if rootErr != nil {
		t.Fatal(rootErr)
	}
	if got := comms[0].replays - before; got == 0 || got == n {
		t.Errorf("root replayed %d of %d Bcasts: want some, and not those past a full ring", got, n)
	}
	for i := range 3 {
		runRanks(t, comms, func(c *Comm) error { return bcast(c, 1000+i) })
	}
}

// TestPersistentPlan: a persistent collective's starts follow the replay's
// plan (planRun) once its channels are open, for one-slot messages and
// spans alike, and every run's result is right. Without the plan each
// start walked the schedule through directRounds (2 ranks, 8 B: a Bcast's
// Start and Wait 850 instructions against 710).
func TestPersistentPlan(t *testing.T) {
	for _, tc := range []struct {
		name string
		size int
	}{{"8B", 8}, {"1KiB", 1024}, {"CollMsgMax", shm.CollMsgMax}} {
		t.Run(tc.name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			runRanks(t, comms, func(c *Comm) error {
				n := tc.size / 8
				bc, send, sum := make([]byte, tc.size), make([]byte, tc.size), make([]byte, tc.size)
				pb, err := c.BcastInit(bc, 1)
				if err != nil {
					return err
				}
				pa, err := c.AllreduceInit(send, sum, Int64, Sum)
				if err != nil {
					return err
				}
				for run := range 6 {
					v := make([]int64, n)
					for i := range v {
						v[i] = int64(run*1000 + i)
					}
					if c.rank == 1 {
						copy(bc, putInt64s(v))
					} else {
						clear(bc)
					}
					if _, err := pb.Start(); err != nil {
						return err
					}
					if _, err := pb.Wait(); err != nil {
						return err
					}
					if !slices.Equal(bc, putInt64s(v)) {
						return fmt.Errorf("Bcast run %d: not the root's payload", run)
					}
					for i := range v {
						v[i] = int64(c.rank*7 + run + i)
					}
					copy(send, putInt64s(v))
					if _, err := pa.Start(); err != nil {
						return err
					}
					if _, err := pa.Wait(); err != nil {
						return err
					}
					for i := range v {
						v[i] = int64(7 + 2*(run+i))
					}
					if !slices.Equal(sum, putInt64s(v)) {
						return fmt.Errorf("Allreduce run %d: %v, want %v", run, int64s(sum)[:2], v[:2])
					}
				}
				for _, p := range []*Persistent{pb, pa} {
					if p.op.rxState != replayYes {
						return fmt.Errorf("%s has no plan after six starts (state %d)", p.what, p.op.rxState)
					}
					if err := p.Free(); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}
