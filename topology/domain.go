package topology

import "slices"

// Domains for hympirun --map-by and --bind-to: the groups of CPUs a rank
// can be placed in or bound to, named as Open MPI names them.
const (
	DomainCore   = "core"    // the hardware threads of one core
	DomainL3     = "l3cache" // the CPUs under one L3 cache
	DomainNUMA   = "numa"    // the CPUs of one NUMA node
	DomainSocket = "socket"  // the CPUs of one package
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
// is BindCores. For the larger domains ranks are dealt round-robin over the
// domains, as Open MPI's --map-by socket deals them: rank 0 in the first
// domain, rank 1 in the second, and so on, each taking its domain's next
// CPU in BindCores order; a domain that is full is skipped, and once every
// CPU has a rank the placement repeats from rank 0's CPU.
func MapRanks(m *Machine, allowed []int, n int, kind string) []int {
	if kind != DomainL3 && kind != DomainNUMA && kind != DomainSocket {
		return BindCores(m, allowed, n)
	}
	if n <= 0 {
		return nil
	}
	order := bindOrder(m, allowed)
	if len(order) == 0 {
		return nil
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
	cpus := make([]int, n)
	for i := range cpus {
		cpus[i] = dealt[i%len(dealt)]
	}
	return cpus
}
