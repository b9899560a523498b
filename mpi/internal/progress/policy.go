// Package progress owns how the engine waits: the policy by which a
// blocking call spins over progress passes, then yields the CPU, then
// sleeps on its futex doorbell (never a busy poll without end), and the
// loop that follows it (Wait). The passes themselves (draining channels,
// pushing sends, the sweep) stay with the engine, whose state they move;
// Wait reaches them through the small Engine interface.
package progress

import "time"

// Policy is how long a blocking wait spins and yields before it sleeps
// on the doorbell.
//
// With a CPU per rank, spinning is the fast path: the peer runs meanwhile,
// and a long spin answers a message in well under a microsecond.
//
// With more ranks than CPUs (oversubscribed) every spin steals time from the
// rank we wait for, so we spin only a few passes and then yield. The yield
// phase is bounded by wall time, not by a count: a sched_yield returns at
// once when nothing else is runnable on our CPU (the peer we wait for may be
// on the other one) and takes a whole time slice when something is, so a
// count means anything from a few microseconds to milliseconds. Yielding
// for OversubYieldFor covers a collective round in which the peer is
// scheduled; only beyond it do we pay for the futex sleep, whose wake-up
// (a system call by the peer, then a trip through the scheduler) costs tens
// of microseconds per round on this kind of machine.
type Policy struct {
	Spins    int           // progress passes before yielding
	Yields   int           // sched_yield rounds before sleeping, at least
	YieldFor time.Duration // and for at least this long since the first yield
	Sleep    time.Duration // futex timeout: a safety net, not the wake path
}

const (
	// OversubSpins is the progress passes an oversubscribed wait makes
	// before yielding: enough to catch what a pass just pushed out.
	OversubSpins = 4
	// OversubYieldFor is how long an oversubscribed wait yields before it
	// sleeps on the doorbell.
	OversubYieldFor = 200 * time.Microsecond
)

// NewPolicy is the policy for a job of size ranks sharing cpus CPUs.
func NewPolicy(size, cpus int) Policy {
	if size > cpus {
		return Policy{Spins: OversubSpins, YieldFor: OversubYieldFor, Sleep: 100 * time.Millisecond}
	}
	return Policy{Spins: 20000, Yields: 200, Sleep: 100 * time.Millisecond}
}

// Yielded reports whether a wait that has made n yield rounds, the first at
// since, is done yielding.
func (w Policy) Yielded(n int, since time.Time) bool {
	if n < w.Yields {
		return false
	}
	return w.YieldFor == 0 || time.Since(since) >= w.YieldFor
}
