package topology

import (
	"fmt"
	"slices"
)

// BindPolicy is a hympirun --bind-to policy: the kind of object whose CPUs
// a rank may run on, as Open MPI names them.
type BindPolicy string

const (
	BindHWThread BindPolicy = DomainHWThread // the one hardware thread it is mapped to
	BindCore     BindPolicy = DomainCore     // every hardware thread of that CPU's core
	BindL3       BindPolicy = DomainL3       // every CPU under that CPU's L3
	BindNUMA     BindPolicy = DomainNUMA     // every CPU of that CPU's NUMA node
	BindSocket   BindPolicy = DomainSocket   // every CPU of that CPU's package
	BindNone     BindPolicy = "none"         // not bound: wherever hympirun may run
)

// bindPolicies are the policies ParseBindPolicy accepts, narrowest first.
var bindPolicies = []BindPolicy{BindHWThread, BindCore, BindL3, BindNUMA, BindSocket, BindNone}

// ParseBindPolicy accepts hwthread, core, l3cache, numa, socket (or Open
// MPI 5's name for it, package) and none.
func ParseBindPolicy(s string) (BindPolicy, error) {
	if s == "package" {
		return BindSocket, nil
	}
	if p := BindPolicy(s); slices.Contains(bindPolicies, p) {
		return p, nil
	}
	return "", fmt.Errorf("topology: --bind-to %q: want hwthread, core, l3cache, numa, socket or none", s)
}

// ParseMapPolicy accepts the --map-by kinds: hwthread, core, slot (the
// same as core), l3cache, numa, socket (or package). It returns the
// Domain kind ("slot" stays "slot": Open MPI's default mapping).
func ParseMapPolicy(s string) (string, error) {
	switch s {
	case "package":
		return DomainSocket, nil
	case DomainHWThread, DomainCore, MapSlot, DomainL3, DomainNUMA, DomainSocket:
		return s, nil
	}
	return "", fmt.Errorf("topology: --map-by %q: want hwthread, core, slot, l3cache, numa or socket", s)
}

// MapSlot is Open MPI's --map-by slot; on one machine hympi treats it as
// core.
const MapSlot = "slot"

// DefaultBinding is the binding Open MPI (4.1) gives a job mapped by mapBy
// when --bind-to is not given: the object it mapped by, so that a rank
// mapped to a socket may use the whole socket; slot (its default mapping)
// binds to a core.
func DefaultBinding(mapBy string) BindPolicy {
	switch mapBy {
	case DomainHWThread, DomainL3, DomainNUMA, DomainSocket:
		return BindPolicy(mapBy)
	}
	return BindCore
}

// Placement is where the ranks of a job run.
type Placement struct {
	// CPUs[i] is the CPU rank i is mapped to (MapRanks).
	CPUs []int
	// Sets[i] are the CPUs rank i is bound to, ascending: the allowed CPUs
	// of the bind object holding CPUs[i]. Sets is nil when the job is not
	// bound.
	Sets [][]int
}

// Place maps n ranks by mapBy (MapRanks) over the CPUs in allowed (nil or
// empty: all) and binds each to the allowed CPUs of the object of kind
// bind that holds its CPU, as Open MPI does: --map-by socket --bind-to
// core puts rank 1 on the second socket's first core and lets it use both
// hardware threads of that core. A rank whose object has no allowed CPU
// (its CPU is one m does not know) is bound to its CPU alone. It returns a
// zero Placement when n ≤ 0 or no CPU is usable.
func Place(m *Machine, allowed []int, n int, mapBy string, bind BindPolicy) Placement {
	cpus := MapRanks(m, allowed, n, mapBy)
	if len(cpus) == 0 {
		return Placement{}
	}
	p := Placement{CPUs: cpus}
	if bind == BindNone {
		return p
	}
	usable := bindOrder(m, allowed)
	p.Sets = make([][]int, len(cpus))
	for i, cpu := range cpus {
		var set []int
		for _, c := range m.Domain(cpu, string(bind)) {
			if slices.Contains(usable, c) {
				set = append(set, c)
			}
		}
		if len(set) == 0 {
			set = []int{cpu}
		}
		p.Sets[i] = set
	}
	return p
}

// BindCores returns the CPU for each of n ranks (rank i runs on result[i])
// under --bind-to core, using only the CPUs in allowed (the launcher's
// affinity mask; nil or empty means every online CPU of m).
//
// The policy is Open MPI's --bind-to core --map-by core, made cache-aware:
//
//  1. Cores are ordered so that neighbours are close: by package, then NUMA
//     node, then by the caches they share from the outermost level inward
//     (cores under one L3 together, and within it cores under one L2
//     together), then by their first CPU number. Where the kernel numbers
//     CPUs so that L2 partners are not adjacent (the Clovertown fixture:
//     cpus 0 and 2 share an L2), ranks still fill one L2, then the next.
//  2. Ranks 0..cores-1 take the first allowed hardware thread of each core
//     in that order: distinct physical cores first, socket 0 filled before
//     socket 1, so that consecutive ranks (the usual communication
//     partners) share a cache or at least a socket.
//  3. Further ranks take the cores' second hardware threads (SMT siblings)
//     in the same core order, then third, and so on.
//  4. Beyond one rank per allowed CPU, the list wraps round-robin: rank i
//     gets the CPU of rank i mod (allowed CPUs).
//
// CPUs in allowed that m does not know (its sysfs tree is partial, or is a
// fixture) are appended after the known ones, each as its own core. It
// returns nil when n ≤ 0 or there is no CPU to bind to.
func BindCores(m *Machine, allowed []int, n int) []int {
	if n <= 0 {
		return nil
	}
	order := bindOrder(m, allowed)
	if len(order) == 0 {
		return nil
	}
	return repeat(order, n)
}

// bindOrder returns every usable CPU once, in the order ranks take them
// under --map-by core: a thread of every core, then the second threads.
func bindOrder(m *Machine, allowed []int) []int {
	cores, unknown := placementCores(m, allowed)
	var order []int
	for depth := 0; ; depth++ {
		added := false
		for _, threads := range cores {
			if depth < len(threads) {
				order = append(order, threads[depth])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return append(order, unknown...)
}

// threadOrder returns every usable CPU once, in the order ranks take them
// under --map-by hwthread: the cores in BindCores order, each with all its
// usable threads before the next.
func threadOrder(m *Machine, allowed []int) []int {
	cores, unknown := placementCores(m, allowed)
	var order []int
	for _, threads := range cores {
		order = append(order, threads...)
	}
	return append(order, unknown...)
}

// placementCores returns the cores with a usable thread, each as those
// threads, in placement order, and the allowed CPUs m does not know,
// ascending.
func placementCores(m *Machine, allowed []int) (cores [][]int, unknown []int) {
	ok := func(int) bool { return true }
	if len(allowed) > 0 {
		ok = func(cpu int) bool { return slices.Contains(allowed, cpu) }
	}

	// Each core as its usable threads, with its placement key.
	type core struct {
		key     []int
		threads []int
	}
	var sorted []core
	for _, threads := range m.Cores() {
		threads = slices.DeleteFunc(threads, func(c int) bool { return !ok(c) })
		if len(threads) > 0 {
			sorted = append(sorted, core{key: m.placementKey(m.Lookup(threads[0])), threads: threads})
		}
	}
	slices.SortStableFunc(sorted, func(a, b core) int { return slices.Compare(a.key, b.key) })
	for _, c := range sorted {
		cores = append(cores, c.threads)
	}
	for _, cpu := range allowed {
		if cpu >= 0 && m.Lookup(cpu) == nil {
			unknown = append(unknown, cpu)
		}
	}
	slices.Sort(unknown)
	return cores, slices.Compact(unknown)
}

// placementKey orders cores for binding: package, node, then for each data
// cache level from the outermost inward the lowest CPU sharing that cache
// (cores under the same cache get equal entries and sort together), then
// the core's first thread. Levels a CPU lacks contribute -1, so every key of
// one machine has the same length.
func (m *Machine) placementKey(c *CPU) []int {
	maxLevel := 0
	for _, cpu := range m.CPUs {
		for _, cache := range cpu.Caches {
			maxLevel = max(maxLevel, cache.Level)
		}
	}
	key := []int{c.Package, c.Node}
	for level := maxLevel; level >= 1; level-- {
		group := -1
		for _, cache := range c.Caches {
			if cache.Level == level && cache.HoldsData() {
				group = c.ID
				if len(cache.SharedCPUs) > 0 {
					group = slices.Min(cache.SharedCPUs)
				}
				break
			}
		}
		key = append(key, group)
	}
	return append(key, c.onlineSiblings(m)[0])
}
