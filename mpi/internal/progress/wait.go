package progress

import (
	"time"

	"github.com/hympi/hympi/shm"
)

// Engine is what the wait loop needs of the engine it waits in. Every
// method is called with the engine's lock held; Unlock and Lock let the
// loop drop it while it yields or sleeps, so the process's other
// goroutines can make progress meanwhile.
type Engine interface {
	// Progress makes one pass over the engine's channels and queues and
	// reports whether anything moved.
	Progress() bool
	// SweepDue and Sweep: the slower check of the whole region (lost
	// summary bits, corruption), made when due every SweepPasses passes
	// and before every sleep.
	SweepDue() bool
	Sweep() bool
	// Stuck is why the wait cannot end (the region is beyond repair, no
	// rank can send what it waits for), nil while it can.
	Stuck() error
	// Blocked is told once a wait has been idle BlockedAfter passes: from
	// then on its time counts as blocked in MPI.
	Blocked()
	// ReadSpinFor is how long to keep spinning after the spin budget, for
	// peers reading our rendezvous sends (0: no longer).
	ReadSpinFor() time.Duration
	// GateSleep sleeps on a collective's gate instead of the doorbell, if
	// the wait is for one, reporting whether it did.
	GateSleep() bool
	Unlock()
	Lock()
}

// Wait makes passes of e until done reports true, following w: spin
// w.Spins idle passes, then yield, then sleep on bell (the doorbell peers
// ring after publishing to us), armed before a last look for work so that
// a ring between the look and the sleep is not lost. A pass that moves
// anything starts the spin again; a wake-up spins half the budget.
func Wait[E Engine](e E, done func() bool, w *Policy, bell shm.Doorbell) error {
	idle := 0
	yields := 0
	var yieldStart time.Time // of the current yield phase
	var spinStart time.Time  // when the pass budget ran out (ReadSpinFor)
	passes := 0
	for !done() {
		passes++
		if passes%SweepPasses == 0 && e.SweepDue() && e.Sweep() {
			idle, yields = 0, 0
			continue
		}
		if e.Progress() {
			idle, yields = 0, 0
			continue
		}
		if err := e.Stuck(); err != nil {
			return err
		}
		idle++
		if idle == BlockedAfter {
			e.Blocked()
		}
		if idle < w.Spins {
			continue
		}
		if idle == w.Spins {
			spinStart = time.Time{}
		}
		if d := e.ReadSpinFor(); d > 0 {
			if spinStart.IsZero() {
				spinStart = time.Now()
			}
			if time.Since(spinStart) < d {
				continue
			}
		}
		if yields == 0 {
			yieldStart = time.Now()
		}
		if !w.Yielded(yields, yieldStart) {
			yields++
			e.Unlock()
			shm.Yield()
			e.Lock()
			continue
		}
		if e.GateSleep() {
			idle, yields = w.Spins/2, 0
			continue
		}
		seq := bell.Arm()
		// About to sleep: the sweep finds work whose summary bit was
		// lost, and a corrupt region, before we sleep on them.
		if e.Sweep() || e.Progress() || done() {
			bell.Disarm()
			idle, yields = 0, 0
			continue
		}
		e.Unlock()
		bell.Wait(seq, w.Sleep)
		e.Lock()
		bell.Disarm()
		// Woken: something probably arrived; spin briefly again and
		// yield a full phase before the next sleep, but spin only half
		// the budget.
		idle, yields = w.Spins/2, 0
	}
	return nil
}
