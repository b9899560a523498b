//go:build !ompi && !mpich

package mpi

import (
	"slices"
	"testing"
	"time"
)

// TestCPlanHandOverMidRound plays the C collective lane (collane.c) on two
// in-process ranks: rank 0 draws the tag of its memoised Allreduce's plan,
// publishes the round's send itself, as C's put does, and hands the call
// to Go with that send marked done (cplanRun), as C does when the peer's
// message is not on the ring yet. The rest must go on in the direct run,
// whether the peer's message is there by then or comes later (a wait on
// the direct path), not through posted receives: oversubscribed, C hands
// over at nearly every round, and the run loop's way took twice Go's own
// time (Alltoall 8 B at 4 ranks on 2 CPUs). directRuns counts it; the sums
// must come out right either way.
func TestCPlanHandOverMidRound(t *testing.T) {
	send := [2][]byte{putInt64s([]int64{1, 20}), putInt64s([]int64{300, 4000})}
	want := []int64{301, 4020}
	for _, late := range []bool{false, true} {
		name := "peer's message there"
		if late {
			name = "peer late"
		}
		t.Run(name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			c0 := comms[0]
			if c0.cplanArea() == 0 {
				t.Fatal("no plan area")
			}
			recv := [2][]byte{make([]byte, 16), make([]byte, 16)}
			// The first call memoises the schedule, which gets a plan.
			runRanks(t, comms, func(c *Comm) error { return c.Allreduce(send[c.rank], recv[c.rank], Int64, Sum) })
			plan := -1
			for i := range c0.cp.op {
				if c0.cp.op[i] != nil && c0.cp.p.plans[i].valid == 1 {
					plan = i
				}
			}
			if plan < 0 {
				t.Fatal("the Allreduce has no plan")
			}
			clear(recv[0])
			clear(recv[1])
			peer := make(chan error, 1)
			start1 := func() {
				r, err := comms[1].Iallreduce(send[1], recv[1], Int64, Sum)
				if err == nil {
					_, err = r.Wait()
				}
				peer <- err
			}
			if !late {
				// Its start publishes its message; the wait is for later.
				r, err := comms[1].Iallreduce(send[1], recv[1], Int64, Sum)
				if err != nil {
					t.Fatal(err)
				}
				start1 = func() { _, err := r.Wait(); peer <- err }
			}
			e := c0.e
			e.mu.Lock()
			op := c0.cp.op[plan]
			tag := c0.nextTag()
			if op.s.own[0] != nil {
				copy(op.s.own[0], op.s.own[1])
			}
			// Rounds of local steps first, as C runs them.
			cur := 0
			for ; cur < len(op.s.rounds); cur++ {
				rd := &op.s.rounds[cur]
				if rd.x0 != rd.x1 {
					break
				}
				op.s.runSteps(rd)
			}
			if cur == len(op.s.rounds) {
				e.mu.Unlock()
				t.Fatal("the plan has no transfers")
			}
			rd := &op.s.rounds[cur]
			skip := uint64(0)
			for k := rd.x0; k < rd.x1; k++ {
				if x := &op.s.xfers[k]; x.send {
					if !e.directSend(c0, tag, x) {
						e.mu.Unlock()
						t.Fatal("the send could not be published")
					}
					skip |= 1 << uint(k-rd.x0)
				}
			}
			e.mu.Unlock()
			if skip == 0 {
				t.Fatal("the plan's first round of transfers sends nothing")
			}
			if late {
				go func() { time.Sleep(20 * time.Millisecond); start1() }()
			} else {
				go start1()
			}
			before := c0.directRuns
			if _, err := c0.cplanRun(plan, tag, cur, skip, false); err != nil {
				t.Fatalf("rank 0: %v", err)
			}
			if got := c0.directRuns - before; got != 1 {
				t.Errorf("direct runs: %d, want 1 (the rest went the run loop's way)", got)
			}
			if err := <-peer; err != nil {
				t.Fatalf("rank 1: %v", err)
			}
			for r := range recv {
				if !slices.Equal(int64s(recv[r]), want) {
					t.Errorf("rank %d: sum %v, want %v", r, int64s(recv[r]), want)
				}
			}
		})
	}
}

// TestYieldForHead: an oversubscribed blocking receive yields for a
// message on the ring head only as the process's one goroutine (it holds
// e.mu meanwhile), finds one published before or while it yields, and
// gives up, bounded, when none comes.
func TestYieldForHead(t *testing.T) {
	old := soleGoroutine
	defer func() { soleGoroutine = old }()
	comms := inProcessJob(t, 2)
	// A first collective sets up the pair's channels.
	runRanks(t, comms, func(c *Comm) error { return c.Barrier() })
	e0, e1 := comms[0].e, comms[1].e
	ic := e0.inFrom(1)
	if ic == nil {
		t.Fatal("no channel from rank 1")
	}
	publish := func() {
		e1.mu.Lock()
		defer e1.mu.Unlock()
		if !e1.directSend(comms[1], 77, &collXfer{peer: 0, buf: []byte{1, 2, 3}, send: true}) {
			t.Fatal("rank 1 could not publish")
		}
	}
	take := func() {
		ic.Coll.Release()
	}
	for _, tc := range []struct {
		name    string
		sole    bool
		publish string // "before", "during" or "never"
		found   bool
	}{
		{"one goroutine, message there", true, "before", true},
		{"one goroutine, message comes", true, "during", true},
		{"one goroutine, nothing", true, "never", false},
		{"other goroutines: no wait", false, "before", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			soleGoroutine = func() bool { return tc.sole }
			if tc.publish == "before" {
				publish()
			}
			done := make(chan struct{})
			if tc.publish == "during" {
				// Published by another goroutine while
				// yieldForHead gives the CPU away (called again
				// until it comes, each call bounded).
				go func() { publish(); close(done) }()
			} else {
				close(done)
			}
			start := time.Now()
			var slot []byte
			var err error
			for range 1000 {
				if slot, err = yieldForHead(ic); slot != nil || err != nil || tc.publish != "during" {
					break
				}
			}
			<-done
			if err != nil {
				t.Fatal(err)
			}
			if (slot != nil) != tc.found {
				t.Errorf("message found %v, want %v", slot != nil, tc.found)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if tc.publish != "never" {
				if slot == nil {
					slot, _ = ic.Coll.Peek()
				}
				if slot != nil {
					take()
				}
			}
		})
	}
}
