package topology

import "slices"

// Domains for hympirun --map-by and --bind-to: the groups of CPUs a rank
// can be placed in or bound to, named as Open MPI names them.
const (
	DomainHWThread = "hwthread" // one hardware thread (a logical CPU)
	DomainCore     = "core"     // the hardware threads of one core
	DomainL3       = "l3cache"  // the CPUs under one L3 cache
	DomainNUMA     = "numa"     // the CPUs of one NUMA node
	DomainSocket   = "socket"   // the CPUs of one package
)

// Domain returns the online CPUs that share the domain kind with cpu,
// ascending, cpu included. A machine without an L3 cache uses the package
// for DomainL3, and a CPU that no NUMA node lists uses its package for
// DomainNUMA: the nearest thing that does exist. A CPU m does not know, or
// an unknown kind, gives just cpu.
func (m *Machine) Domain(cpu int, kind string) []int {
	c := m.Lookup(cpu)
	if c == nil {
		return []int{cpu}
	}
	switch kind {
	case DomainHWThread:
		return []int{cpu}
	case DomainCore:
		return c.onlineSiblings(m)
	case DomainL3:
		for _, cache := range c.Caches {
			if cache.Level == 3 && cache.HoldsData() {
				return m.online(cache.SharedCPUs)
			}
		}
		return m.packageCPUs(c.Package)
	case DomainNUMA:
		for _, n := range m.Nodes {
			if n.ID == c.Node {
				return m.online(n.CPUs)
			}
		}
		return m.packageCPUs(c.Package)
	case DomainSocket:
		return m.packageCPUs(c.Package)
	}
	return []int{cpu}
}

func (m *Machine) online(cpus []int) []int {
	var on []int
	for _, c := range cpus {
		if m.Lookup(c) != nil {
			on = append(on, c)
		}
	}
	slices.Sort(on)
	return slices.Compact(on)
}

func (m *Machine) packageCPUs(pkg int) []int {
	var cpus []int
	for _, c := range m.CPUs {
		if c.Package == pkg {
			cpus = append(cpus, c.ID)
		}
	}
	return cpus
}

// MapRanks returns the CPU each of n ranks is placed on under hympirun
// --map-by kind, using only the CPUs in allowed (nil or empty: all).
// DomainCore (and any kind that is not a domain, such as Open MPI's "slot")
// is BindCores. DomainHWThread fills the cores in the same order but takes
// every thread of a core before the next core, as Open MPI's --map-by
// hwthread does (ranks 0 and 1 are SMT siblings). For the larger domains
// ranks are dealt round-robin over the domains, as Open MPI's --map-by
// socket deals them: rank 0 in the first
// domain, rank 1 in the second, and so on, each taking its domain's next
// CPU in BindCores order; a domain that is full is skipped, and once every
// CPU has a rank the placement repeats from rank 0's CPU.
func MapRanks(m *Machine, allowed []int, n int, kind string) []int {
	if n <= 0 {
		return nil
	}
	var order []int
	switch kind {
	case DomainHWThread:
		order = threadOrder(m, allowed)
	case DomainL3, DomainNUMA, DomainSocket:
		order = bindOrder(m, allowed)
	default:
		return BindCores(m, allowed, n)
	}
	if len(order) == 0 {
		return nil
	}
	if kind == DomainHWThread {
		return repeat(order, n)
	}
	// Domains in the order their first CPU comes in BindCores order, each
	// with its CPUs in that order.
	var groups [][]int
	index := map[int]int{} // domain's lowest CPU → its group
	for _, cpu := range order {
		key := m.Domain(cpu, kind)[0]
		g, ok := index[key]
		if !ok {
			g = len(groups)
			index[key] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], cpu)
	}
	var dealt []int
	for len(dealt) < len(order) {
		for g := range groups {
			if len(groups[g]) > 0 {
				dealt = append(dealt, groups[g][0])
				groups[g] = groups[g][1:]
			}
		}
	}
	return repeat(dealt, n)
}

// repeat returns n CPUs taken from order round-robin.
func repeat(order []int, n int) []int {
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = order[i%len(order)]
	}
	return cpus
}

// Domains returns the distinct domains of kind among the online CPUs,
// each as its online CPUs ascending, ordered by their lowest CPU: the 16
// L3 caches of a two-socket EPYC, the NUMA nodes, the sockets.
func (m *Machine) Domains(kind string) [][]int {
	var ds [][]int
	seen := map[int]bool{} // lowest CPU of each domain found
	for _, c := range m.CPUs {
		d := m.Domain(c.ID, kind)
		if !seen[d[0]] {
			seen[d[0]] = true
			ds = append(ds, d)
		}
	}
	return ds
}
