package progress

import (
	"errors"
	"testing"
	"time"

	"github.com/hympi/hympi/shm"
)

// fake is an engine whose passes are scripted: work[i] says whether pass
// i+1 moves anything, and the wait is done once doneAt passes were made.
type fake struct {
	passes, doneAt int
	work           map[int]bool
	stuckAt        int // the first idle pass at which Stuck fails (0: never)
	gate           bool
	readSpin       time.Duration
	locked         bool
	blocked        int
	unlocks        int
	gateSleeps     int
	sweeps         int
	t              *testing.T
}

func (f *fake) Progress() bool {
	if !f.locked {
		f.t.Fatal("Progress without the lock")
	}
	f.passes++
	return f.work[f.passes]
}
func (f *fake) SweepDue() bool { return true }
func (f *fake) Sweep() bool    { f.sweeps++; return false }
func (f *fake) Stuck() error {
	if f.stuckAt != 0 && f.passes >= f.stuckAt {
		return errStuck
	}
	return nil
}
func (f *fake) Blocked()                   { f.blocked++ }
func (f *fake) ReadSpinFor() time.Duration { return f.readSpin }
func (f *fake) GateSleep() bool {
	if f.gate {
		f.gateSleeps++
	}
	return f.gate
}
func (f *fake) Unlock() { f.locked = false; f.unlocks++ }
func (f *fake) Lock()   { f.locked = true }

var errStuck = errors.New("stuck")

// TestWait checks the phases of the wait loop: nothing happens when the
// condition already holds; work resets the spin; a stuck engine ends the
// wait with its error; an idle wait is counted blocked once, yields with
// the lock dropped, and sleeps (on a gate here, on the doorbell in
// TestWaitSleeps) only after its spins and yields.
func TestWait(t *testing.T) {
	short := Policy{Spins: 10, Yields: 3, Sleep: time.Millisecond}
	long := Policy{Spins: 200, Yields: 3, Sleep: time.Millisecond}
	tests := []struct {
		name       string
		pol        *Policy
		f          *fake
		wantErr    error
		passes     int
		unlocks    int
		blocked    int
		gateSleeps int
	}{
		{"done at once", &short, &fake{doneAt: 0}, nil, 0, 0, 0, 0},
		{"spins only", &short, &fake{doneAt: 9}, nil, 9, 0, 0, 0},
		{"yields after spins", &short, &fake{doneAt: 12}, nil, 12, 3, 0, 0},
		{"work resets the spin", &short, &fake{doneAt: 18, work: map[int]bool{8: true}}, nil, 18, 1, 0, 0},
		{"stuck", &short, &fake{doneAt: 100, stuckAt: 5}, errStuck, 5, 0, 0, 0},
		{"gate sleep after yields", &short, &fake{doneAt: 15, gate: true}, nil, 15, 3, 0, 1},
		{"read spin holds off yields", &short, &fake{doneAt: 30, readSpin: time.Hour}, nil, 30, 0, 0, 0},
		{"counted blocked", &long, &fake{doneAt: BlockedAfter}, nil, BlockedAfter, 0, 1, 0},
		{"blocked again after work", &long, &fake{doneAt: 2*BlockedAfter + 10, work: map[int]bool{BlockedAfter + 10: true}}, nil, 2*BlockedAfter + 10, 0, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f
			f.t, f.locked = t, true
			err := Wait(f, func() bool { return f.passes >= f.doneAt }, tc.pol, shm.Doorbell{})
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !f.locked {
				t.Fatal("returned without the lock")
			}
			if f.passes != tc.passes || f.unlocks != tc.unlocks || f.blocked != tc.blocked || f.gateSleeps != tc.gateSleeps {
				t.Fatalf("passes %d unlocks %d blocked %d gate sleeps %d, want %d %d %d %d",
					f.passes, f.unlocks, f.blocked, f.gateSleeps, tc.passes, tc.unlocks, tc.blocked, tc.gateSleeps)
			}
		})
	}
}

// TestWaitSleeps checks the last phase: after its spins and yields an idle
// wait sleeps on the doorbell (here until the futex timeout, as nobody
// rings), with the lock dropped and the doorbell disarmed afterwards.
func TestWaitSleeps(t *testing.T) {
	cfg := shm.DefaultConfig()
	cfg.BudgetBytes, cfg.MinCells, cfg.CellSize = 1<<20, 1, 4096
	r, err := shm.CreateAnonymous(1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bell := r.Doorbell(0)
	pol := Policy{Spins: 2, Yields: 1, Sleep: time.Millisecond}
	f := &fake{doneAt: 1 << 30, t: t, locked: true}
	slept := false
	err = Wait(f, func() bool {
		if !f.locked {
			t.Fatal("condition checked without the lock")
		}
		if bell.Asleep() && !slept {
			slept = true // the last look before the sleep
		}
		return f.passes > 0 && f.sweeps > 0 && f.unlocks >= 2 && !bell.Asleep()
	}, &pol, bell)
	if err != nil {
		t.Fatal(err)
	}
	if !slept || bell.Asleep() {
		t.Fatalf("slept %v, still armed %v", slept, bell.Asleep())
	}
}
