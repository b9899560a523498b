package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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
	policy  topology.BindPolicy
	allowed []int       // CPUs hympirun may run on, ascending
	orig    unix.CPUSet // the thread's mask before any pinning
	machine *topology.Machine
	cpus    []int   // the CPU each rank is mapped to (--map-by)
	sets    [][]int // the CPUs each rank is bound to; nil: unbound
}

// newBinder plans the placement of nranks ranks. Under --do-not-launch
// (plan) on a topology that is not the live /sys (HYMPI_SYSFS names a
// fixture tree), the plan is for that machine's CPUs rather than for
// hympirun's own affinity mask, which belongs to another machine: nothing
// is bound, so nothing needs the CPUs to exist.
func newBinder(policy, mapBy string, nranks int, plan bool) (*binder, error) {
	b := &binder{policy: topology.BindPolicy(policy)}
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
	if m, err := topology.Default(); err == nil {
		b.machine = m
		if plan && filepath.Clean(m.Root) != topology.DefaultSysfsRoot {
			b.allowed = m.IDs()
		}
	}
	b.cpus, b.sets = place(b.machine, b.allowed, nranks, mapBy, b.policy)
	return b, nil
}

// place is --map-by and --bind-to: topology.Place. Where the CPU topology
// can't be read, ranks go round-robin over the allowed CPUs, each bound to
// its CPU under hwthread and core and to all of them otherwise.
func place(m *topology.Machine, allowed []int, n int, mapBy string, policy topology.BindPolicy) (cpus []int, sets [][]int) {
	if m != nil {
		if p := topology.Place(m, allowed, n, mapBy, policy); len(p.CPUs) == n {
			return p.CPUs, p.Sets
		}
	}
	cpus = make([]int, n)
	for i := range cpus {
		cpus[i] = allowed[i%len(allowed)]
	}
	if policy == topology.BindNone {
		return cpus, nil
	}
	sets = make([][]int, n)
	for i, cpu := range cpus {
		sets[i] = allowed
		if policy == topology.BindHWThread || policy == topology.BindCore {
			sets[i] = []int{cpu}
		}
	}
	return cpus, sets
}

// cpuFor is the rank's HYMPI_CPU: the CPU it was mapped to when it is
// bound, -1 when it is not. A rank bound to a domain (a core's threads, an
// L3, a node, a socket) may run on any CPU of it; the engine learns which
// domain from this CPU and HYMPI_BIND, and counts the job's CPUs as the
// distinct mapped CPUs, which is the number of ranks until they outnumber
// the CPUs.
func (b *binder) cpuFor(rank int) int {
	if b.sets == nil {
		return -1
	}
	return b.cpus[rank]
}

// pin restricts the calling thread to the rank's CPUs (no-op when
// unbound). The caller must be locked to its thread, and must call restore
// once every rank is started.
func (b *binder) pin(rank int) error {
	if b.sets == nil {
		return nil
	}
	var set unix.CPUSet
	for _, c := range b.sets[rank] {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("binding to CPUs %s: %w", topology.FormatCPUList(b.sets[rank]), err)
	}
	return nil
}

// restore gives the thread back its original mask, so the launcher's own
// work (output copying, signal handling) is not crowded onto the last rank's
// CPU.
func (b *binder) restore() {
	if b.sets != nil {
		_ = unix.SchedSetaffinity(0, &b.orig)
	}
}

// gomaxprocs is the GOMAXPROCS a rank gets unless the user chose one: its
// share of the CPUs it may run on. A rank bound to one CPU gets 1, since
// more Ps would only time-slice it.
func (b *binder) gomaxprocs(rank int) int {
	if b.sets == nil {
		return max(1, len(b.allowed)/len(b.cpus))
	}
	sharing := 0
	for _, s := range b.sets {
		if slices.Equal(s, b.sets[rank]) {
			sharing++
		}
	}
	return max(1, len(b.sets[rank])/sharing)
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

// report is the --report-bindings line of a rank, in Open MPI's words:
// each CPU as socket S[core C[hwt T]] with logical indices, then a map of
// the machine, one [...] per socket, cores separated by "/", a B for each
// hardware thread the rank may run on and a dot for the others.
func (b *binder) report(rank int) string {
	set := b.sets
	if set == nil || slices.Equal(set[rank], b.allowed) {
		return fmt.Sprintf("MCW rank %d is not bound (or bound to all available processors)", rank)
	}
	cpus := set[rank]
	m := b.machine
	if m == nil {
		return fmt.Sprintf("MCW rank %d bound to CPUs %s", rank, topology.FormatCPUList(cpus))
	}
	// Open MPI names each core that holds a CPU of the set, with the
	// indices of those of its threads: socket 0[core 3[hwt 0-1]].
	var where []string
	var mask strings.Builder
	placed := map[int]bool{}
	for s, pkg := range m.Packages() {
		mask.WriteByte('[')
		core := 0
		for _, threads := range m.Cores() {
			if m.Lookup(threads[0]).Package != pkg {
				continue
			}
			if core > 0 {
				mask.WriteByte('/')
			}
			var hwts []int
			for t, cpu := range threads {
				if slices.Contains(cpus, cpu) {
					hwts = append(hwts, t)
					placed[cpu] = true
					mask.WriteByte('B')
				} else {
					mask.WriteByte('.')
				}
			}
			if len(hwts) > 0 {
				where = append(where, fmt.Sprintf("socket %d[core %d[hwt %s]]", s, core, topology.FormatCPUList(hwts)))
			}
			core++
		}
		mask.WriteByte(']')
	}
	for _, cpu := range cpus {
		if !placed[cpu] {
			where = append(where, fmt.Sprintf("cpu %d", cpu))
		}
	}
	return fmt.Sprintf("MCW rank %d bound to %s: %s", rank, strings.Join(where, ", "), mask.String())
}
