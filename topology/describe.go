package topology

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// maxGroupsShown bounds how many sharing groups Describe lists per cache
// before summarising the rest.
const maxGroupsShown = 8

// Describe writes a short human summary of m: counts, packages with their
// CPUs, each distinct cache with how it is shared, and the NUMA nodes. For
// example (the clovertown fixture):
//
//	8 CPUs online (0-7): 2 packages, 8 cores, 1 thread per core, 1 NUMA node
//	package 0: 4 cores, cpus 0,2,4,6
//	package 1: 4 cores, cpus 1,3,5,7
//	caches:
//	  L1 Data         32 KiB  x8  private to each core
//	  L1 Instruction  32 KiB  x8  private to each core
//	  L2 Unified      4 MiB   x4  shared by 0,2 | 1,3 | 4,6 | 5,7
//	NUMA node 0: cpus 0-7
//
// It returns the writer's error.
func (m *Machine) Describe(w io.Writer) error {
	var b strings.Builder
	cores := m.Cores()
	fmt.Fprintf(&b, "%s online (%s): %s, %s, %s, %s\n",
		plural(len(m.CPUs), "CPU"), FormatCPUList(m.IDs()),
		plural(len(m.Packages()), "package"), plural(len(cores), "core"),
		threadsPerCore(cores), plural(len(m.Nodes), "NUMA node"))
	if m.Model != "" {
		fmt.Fprintf(&b, "model: %s\n", m.Model)
	}
	for _, p := range m.Packages() {
		var cpus []int
		n := 0
		for _, core := range cores {
			if m.Lookup(core[0]).Package == p {
				n++
				cpus = append(cpus, core...)
			}
		}
		fmt.Fprintf(&b, "package %d: %s, cpus %s\n", p, plural(n, "core"), FormatCPUList(cpus))
	}
	m.describeCaches(&b, cores)
	for _, n := range m.Nodes {
		fmt.Fprintf(&b, "NUMA node %d: cpus %s\n", n.ID, FormatCPUList(n.CPUs))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (m *Machine) describeCaches(b *strings.Builder, cores [][]int) {
	type group struct {
		kind   CacheKind
		shared [][]int // distinct shared_cpu_lists, in order of first CPU
	}
	var groups []*group
	for _, c := range m.CPUs {
		for _, cache := range c.Caches {
			kind := CacheKind{Level: cache.Level, Type: cache.Type, Size: cache.Size}
			i := slices.IndexFunc(groups, func(g *group) bool { return g.kind == kind })
			if i < 0 {
				i = len(groups)
				groups = append(groups, &group{kind: kind})
			}
			g := groups[i]
			if !slices.ContainsFunc(g.shared, func(s []int) bool { return slices.Equal(s, cache.SharedCPUs) }) {
				g.shared = append(g.shared, cache.SharedCPUs)
			}
		}
	}
	if len(groups) == 0 {
		b.WriteString("caches: none listed\n")
		return
	}
	slices.SortStableFunc(groups, func(x, y *group) int {
		return cmp.Or(cmp.Compare(x.kind.Level, y.kind.Level), cmp.Compare(x.kind.Type, y.kind.Type), cmp.Compare(x.kind.Size, y.kind.Size))
	})
	b.WriteString("caches:\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, g := range groups {
		fmt.Fprintf(tw, "  L%d %s\t%s\tx%d\t%s\n", g.kind.Level, cmp.Or(g.kind.Type, "(type unknown)"),
			formatSize(g.kind.Size), len(g.shared), describeSharing(g.shared, cores, m.IDs()))
	}
	tw.Flush()
}

// describeSharing says how the instances of one cache are shared.
func describeSharing(shared [][]int, cores [][]int, all []int) string {
	private := true
	for _, s := range shared {
		if !slices.ContainsFunc(cores, func(core []int) bool { return slices.Equal(core, s) }) {
			private = false
			break
		}
	}
	switch {
	case private:
		return "private to each core"
	case len(shared) == 1 && slices.Equal(shared[0], all):
		return "shared by all CPUs"
	}
	var parts []string
	for i, s := range shared {
		if i == maxGroupsShown {
			parts = append(parts, fmt.Sprintf("(%d more)", len(shared)-i))
			break
		}
		parts = append(parts, FormatCPUList(s))
	}
	return "shared by " + strings.Join(parts, " | ")
}

func threadsPerCore(cores [][]int) string {
	lo, hi := 0, 0
	for i, c := range cores {
		if i == 0 || len(c) < lo {
			lo = len(c)
		}
		hi = max(hi, len(c))
	}
	if lo == hi {
		return plural(lo, "thread") + " per core"
	}
	return fmt.Sprintf("%d-%d threads per core", lo, hi)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// formatSize writes bytes in the largest binary unit that divides them.
func formatSize(n int) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
