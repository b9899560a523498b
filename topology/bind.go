package topology

import (
	"fmt"
	"slices"
)

// BindPolicy is a hympirun --bind-to policy.
type BindPolicy string

const (
	BindCore BindPolicy = "core" // one rank per core first (the default)
	BindNone BindPolicy = "none" // ranks are not bound
)

// ParseBindPolicy accepts "core" and "none".
func ParseBindPolicy(s string) (BindPolicy, error) {
	switch p := BindPolicy(s); p {
	case BindCore, BindNone:
		return p, nil
	}
	return "", fmt.Errorf("topology: --bind-to %q: want %s or %s", s, BindCore, BindNone)
}

// Bind returns the CPU of each of n ranks under policy p: BindCores for
// BindCore, nil (no binding) for BindNone or any other value.
func Bind(m *Machine, p BindPolicy, allowed []int, n int) []int {
	if p != BindCore {
		return nil
	}
	return BindCores(m, allowed, n)
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
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = order[i%len(order)]
	}
	return cpus
}

// bindOrder returns every usable CPU once, in the order ranks take them.
func bindOrder(m *Machine, allowed []int) []int {
	ok := func(int) bool { return true }
	if len(allowed) > 0 {
		ok = func(cpu int) bool { return slices.Contains(allowed, cpu) }
	}

	// Each core as its usable threads, with its placement key.
	type core struct {
		key     []int
		threads []int
	}
	var cores []core
	for _, threads := range m.Cores() {
		threads = slices.DeleteFunc(threads, func(c int) bool { return !ok(c) })
		if len(threads) > 0 {
			cores = append(cores, core{key: m.placementKey(m.Lookup(threads[0])), threads: threads})
		}
	}
	slices.SortStableFunc(cores, func(a, b core) int { return slices.Compare(a.key, b.key) })

	var order []int
	for depth := 0; ; depth++ {
		added := false
		for _, c := range cores {
			if depth < len(c.threads) {
				order = append(order, c.threads[depth])
				added = true
			}
		}
		if !added {
			break
		}
	}

	var unknown []int
	for _, cpu := range allowed {
		if cpu >= 0 && m.Lookup(cpu) == nil {
			unknown = append(unknown, cpu)
		}
	}
	slices.Sort(unknown)
	return append(order, slices.Compact(unknown)...)
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
