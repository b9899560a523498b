//go:build !ompi && !mpich

package mpi

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/hympi/hympi/mpi/internal/progress"
	"github.com/hympi/hympi/shm"
)

// TestInProcessSweepLiveness: a blocked receive survives damage to the region's
// bookkeeping. A lost summary bit (the message is in the ring, nothing says
// so) costs time, and the receive completes; a rank block that can no
// longer be valid fails the receive with an internal error. Before the
// sweep, each of these waited forever.
func TestInProcessSweepLiveness(t *testing.T) {
	const bound = 20 * time.Second // generous: the machine is shared
	cases := []struct {
		name string
		// before runs after rank 0's send and before rank 1's receive;
		// during runs while the receive is (probably) blocked.
		before, during func(r *shm.Region)
		wantErr        bool
	}{
		{"summary bit cleared after publish", func(r *shm.Region) { r.Summary(1).Clear(0) }, nil, false},
		{"both summary bits cleared", func(r *shm.Region) {
			r.Summary(1).Clear(0)
			r.Summary(0).Clear(1)
		}, nil, false},
		{"summary bit of a rank the job lacks", nil, func(r *shm.Region) { r.Summary(1).Mark(63) }, true},
		{"direct bit of a rank the job lacks", nil, func(r *shm.Region) { r.DirectBits(1).Mark(40) }, true},
		{"receiver state garbage", nil, func(r *shm.Region) { r.SetState(1, shm.RankState(77)) }, true},
		{"receiver state rewritten", nil, func(r *shm.Region) { r.SetState(1, shm.StateFinalized) }, true},
		{"peer state garbage", nil, func(r *shm.Region) { r.SetState(0, shm.RankState(1<<31)) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			region := comms[0].e.region
			// A first sweep records the blocks as sound, as Init's
			// barrier does in a real job.
			for _, c := range comms {
				c.e.mu.Lock()
				c.e.sweep()
				c.e.mu.Unlock()
			}
			msg := []byte("hello")
			if !tc.wantErr {
				if err := comms[0].Send(msg, 1, 5); err != nil {
					t.Fatal(err)
				}
			}
			if tc.before != nil {
				tc.before(region)
			}
			done := make(chan error, 1)
			buf := make([]byte, 16)
			go func() {
				// ANY_SOURCE: a receive naming rank 0 would take the
				// message straight off its channel (fastlane.go) and
				// never need the summary bit this test loses.
				_, err := comms[1].Recv(buf, AnySource, 5)
				done <- err
			}()
			if tc.during != nil {
				time.Sleep(50 * time.Millisecond)
				tc.during(region)
			}
			select {
			case err := <-done:
				switch {
				case tc.wantErr && err == nil:
					t.Fatal("receive succeeded on a corrupt region")
				case tc.wantErr && !errors.Is(err, ErrIntern):
					t.Fatalf("error %v, want class ErrIntern", err)
				case !tc.wantErr && err != nil:
					t.Fatalf("receive failed: %v", err)
				case !tc.wantErr && string(buf[:len(msg)]) != string(msg):
					t.Fatalf("received %q, want %q", buf[:len(msg)], msg)
				case !tc.wantErr && comms[1].e.lostBits == 0:
					t.Error("the receive completed without the sweep finding the lost bit")
				}
				if err != nil {
					t.Logf("error: %v", err)
				}
			case <-time.After(bound):
				t.Fatalf("receive still blocked after %v", bound)
			}
		})
	}
}

// TestInProcessSweepNeverSleeping: a wait that never comes to sleep (here: told to
// spin for ever, as one kept busy by other traffic would) still sweeps, and
// finds the message whose summary bit was lost.
func TestInProcessSweepNeverSleeping(t *testing.T) {
	comms := inProcessJob(t, 2)
	comms[1].e.wait = progress.Policy{Spins: math.MaxInt, Sleep: time.Second}
	if err := comms[0].Send([]byte("hello"), 1, 5); err != nil {
		t.Fatal(err)
	}
	comms[0].e.region.Summary(1).Clear(0)
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 8)
		_, err := comms[1].Recv(buf, 0, 5)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a spinning receive never found the message whose bit was lost")
	}
}

// TestAllAttached: Init's wait for the other ranks ends once every rank's
// block says it attached, even if the header's count of them was lost.
func TestAllAttached(t *testing.T) {
	comms := inProcessJob(t, 3)
	e, region := comms[0].e, comms[0].e.region
	if e.allAttached() {
		t.Fatal("no rank attached yet, and allAttached says all")
	}
	// States written, count never incremented: the count was lost.
	region.SetState(0, shm.StateAttached)
	region.SetState(1, shm.StateFinalized)
	if e.allAttached() {
		t.Fatal("rank 2 never attached, and allAttached says all")
	}
	region.SetState(2, shm.StateAttached)
	if !e.allAttached() {
		t.Fatal("every rank's block says attached, and allAttached waits on")
	}
}
