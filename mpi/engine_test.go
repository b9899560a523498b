package mpi

import (
	"testing"
	"time"
)

// TestWaitPolicy: with a CPU per rank the yield phase is a count; when
// oversubscribed it is wall time, however many rounds that takes, and the
// spin before it is short.
func TestWaitPolicy(t *testing.T) {
	now := time.Now()
	long := now.Add(-time.Second)

	own := newWaitPolicy(2, 2)
	if own.spins < 1000 {
		t.Errorf("not oversubscribed: %d spins, want the long spin", own.spins)
	}
	if own.yielded(own.yields-1, long) || !own.yielded(own.yields, now) {
		t.Errorf("not oversubscribed: yield phase is not %d rounds", own.yields)
	}

	over := newWaitPolicy(4, 2)
	if over.spins != oversubSpins {
		t.Errorf("oversubscribed: %d spins, want %d", over.spins, oversubSpins)
	}
	if over.yielded(1_000_000, now) {
		t.Error("oversubscribed: a million quick yields ended the phase before its time")
	}
	if !over.yielded(1, now.Add(-oversubYieldFor)) {
		t.Errorf("oversubscribed: still yielding after %v", oversubYieldFor)
	}
}
