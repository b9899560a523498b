package main

import (
	"fmt"
	"time"

	"github.com/hympi/hympi/topology"
	"golang.org/x/sys/unix"
)

// binder places ranks on CPUs. It works by changing the affinity of the
// calling thread — hympirun's locked main thread — just before each rank is
// forked: the child inherits the mask, and so does every thread its runtime
// creates later, so a Go rank is bound from its first instruction without
// any cooperation from it.
//
// hympirun's own other threads are not caught by the pin: the Go runtime
// never clones a new thread from a thread locked with LockOSThread, it asks
// its template thread (started by that LockOSThread call in init, before any
// pinning) to do it.
type binder struct {
	enabled bool
	allowed []int       // CPUs hympirun may run on, ascending
	orig    unix.CPUSet // the thread's mask before any pinning
	cpus    []int       // the CPU of each rank under --bind-to core
}

func newBinder(policy string, nranks int) (*binder, error) {
	b := &binder{enabled: policy == bindCore}
	if err := unix.SchedGetaffinity(0, &b.orig); err != nil {
		return nil, fmt.Errorf("reading CPU affinity: %w", err)
	}
	for cpu := 0; cpu < len(b.orig)*64; cpu++ {
		if b.orig.IsSet(cpu) {
			b.allowed = append(b.allowed, cpu)
		}
	}
	if len(b.allowed) == 0 {
		return nil, fmt.Errorf("reading CPU affinity: empty mask")
	}
	if b.enabled {
		b.cpus = placeRanks(b.allowed, nranks)
	}
	return b, nil
}

// placeRanks is the --bind-to core policy: topology.BindCores (distinct
// cores first, neighbouring ranks on neighbouring cores, SMT siblings next,
// then round-robin). Where the CPU topology can't be read, plain round-robin
// over the allowed CPUs.
func placeRanks(allowed []int, n int) []int {
	if m, err := topology.Default(); err == nil {
		if cpus := topology.BindCores(m, allowed, n); len(cpus) == n {
			return cpus
		}
	}
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = allowed[i%len(allowed)]
	}
	return cpus
}

// cpuFor is the CPU rank runs on, or -1 when unbound.
func (b *binder) cpuFor(rank int) int {
	if !b.enabled {
		return -1
	}
	return b.cpus[rank]
}

// pin restricts the calling thread to cpu (no-op for -1). The caller must be
// locked to its thread, and must call restore once every rank is started.
func (b *binder) pin(cpu int) error {
	if cpu < 0 {
		return nil
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("binding to CPU %d: %w", cpu, err)
	}
	return nil
}

// restore gives the thread back its original mask, so the launcher's own
// work (output copying, signal handling) is not crowded onto the last rank's
// CPU.
func (b *binder) restore() {
	if b.enabled {
		_ = unix.SchedSetaffinity(0, &b.orig)
	}
}

// gomaxprocs is the GOMAXPROCS a rank gets unless the user chose one. A
// bound rank owns exactly one CPU, so more Ps would only time-slice it; an
// unbound rank gets its share of the CPUs.
func (b *binder) gomaxprocs(nranks int) int {
	if b.enabled {
		return 1
	}
	return max(1, len(b.allowed)/nranks)
}

// oversubTimerSlack is the timer slack (prctl PR_SET_TIMERSLACK) the ranks
// of an oversubscribed job start with, in place of the kernel's 50 µs.
//
// A Go rank's runtime has a monitor thread, sysmon, that sleeps 20 µs
// between passes for its first 50 passes after the process starts, and
// again each time it takes a P back from a blocking system call (a rank's
// doorbell sleep). With the default slack that is a wake-up every ~95 µs
// for ~5 ms, ~10 µs each on this kind of machine, on the CPU a rank
// shares: each one preempts a rank that another is waiting for, and with
// 4 ranks on 2 CPUs (perf sched timehist) a barrier in that window took
// 7-10 µs against 2.3 µs once sysmon had backed off; OSU's oversubscribed
// runs (100 iterations, about a millisecond) fall entirely inside it.
// Sysmon's sleep is a nanosleep, so the slack spaces its wake-ups: with
// 1 ms, osu_barrier at 4 ranks on 2 CPUs took 4.6 µs, osu_bcast 8 B 1.6
// µs (medians of 7, against 10.3 and 5.3). 5 ms reached the steady state
// but makes every timed sleep of a rank up to 5 ms late (time.Sleep,
// timers, poll timeouts, here too), which 1 ms bounds. Spinning ranks that
// own their CPU keep the kernel's default.
const oversubTimerSlack = time.Millisecond

// timerSlack is the timer slack the ranks of an nranks job inherit, or 0
// to leave them hympirun's own. Oversubscribed means more ranks than the
// CPUs hympirun may use, bound or not, as the ranks' engine sees it.
func (b *binder) timerSlack(nranks int) time.Duration {
	if nranks > len(b.allowed) {
		return oversubTimerSlack
	}
	return 0
}
