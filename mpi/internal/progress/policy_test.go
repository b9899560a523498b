package progress

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

	own := NewPolicy(2, 2)
	if own.Spins < 1000 {
		t.Errorf("not oversubscribed: %d spins, want the long spin", own.Spins)
	}
	if own.Yielded(own.Yields-1, long) || !own.Yielded(own.Yields, now) {
		t.Errorf("not oversubscribed: yield phase is not %d rounds", own.Yields)
	}

	over := NewPolicy(4, 2)
	if over.Spins != OversubSpins {
		t.Errorf("oversubscribed: %d spins, want %d", over.Spins, OversubSpins)
	}
	if over.Yielded(1_000_000, now) {
		t.Error("oversubscribed: a million quick yields ended the phase before its time")
	}
	if !over.Yielded(1, now.Add(-OversubYieldFor)) {
		t.Errorf("oversubscribed: still yielding after %v", OversubYieldFor)
	}
}

// TestReadSpin: the spin for pending reads grows with the bytes peers
// still have to read and stops at ReadSpinMax.
func TestReadSpin(t *testing.T) {
	for _, tc := range []struct {
		pending  int
		min, max time.Duration
	}{
		{0, 0, 0},
		{ReadSpinRate - 1, 0, 0},
		{2 << 20, 100 * time.Microsecond, ReadSpinMax},
		{1 << 30, ReadSpinMax, ReadSpinMax},
	} {
		if d := ReadSpin(tc.pending); d < tc.min || d > tc.max {
			t.Errorf("%d bytes pending: spin %v, want %v..%v", tc.pending, d, tc.min, tc.max)
		}
	}
}
