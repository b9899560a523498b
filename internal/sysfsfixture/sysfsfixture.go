// Package sysfsfixture builds sysfs trees of machines too large to commit
// as files: today's two-socket servers have 200-odd CPUs, and a tree holds
// about twenty files per CPU. The small fixtures stay committed under
// topology/testdata; these are generated into a temporary directory (or
// read straight from Files as an fs.FS) by the tests of topology,
// hympirun and hympi-info, and written for people by
// `go run ./internal/sysfsfixture/write DIR`.
//
// Only the files topology.Read reads are produced. The package does not
// import topology, so topology's own tests can use it.
package sysfsfixture

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"
)

// Cache is one cache of one CPU (cache/indexK).
type Cache struct {
	Level  int
	Type   string // Data, Instruction or Unified
	Size   string // as sysfs writes it, e.g. "32K"
	Shared []int  // shared_cpu_list
}

// CPU is one logical CPU; its number is its index in Tree.CPUs.
type CPU struct {
	Package, Core int
	Siblings      []int // thread_siblings_list
	Caches        []Cache
}

// Tree is a machine as sysfs shows it. Every CPU is online.
type Tree struct {
	Name  string
	CPUs  []CPU
	Nodes [][]int // NUMA node k's cpulist is Nodes[k]
}

// Files returns the tree as path → contents, paths relative to the root.
func (t *Tree) Files() map[string]string {
	all := FormatList(seq(0, len(t.CPUs))) + "\n"
	files := map[string]string{
		"devices/system/cpu/online":  all,
		"devices/system/cpu/present": all,
	}
	for id, c := range t.CPUs {
		dir := fmt.Sprintf("devices/system/cpu/cpu%d", id)
		files[dir+"/topology/physical_package_id"] = fmt.Sprintln(c.Package)
		files[dir+"/topology/core_id"] = fmt.Sprintln(c.Core)
		files[dir+"/topology/thread_siblings_list"] = FormatList(c.Siblings) + "\n"
		for k, cache := range c.Caches {
			idx := fmt.Sprintf("%s/cache/index%d", dir, k)
			files[idx+"/level"] = fmt.Sprintln(cache.Level)
			files[idx+"/type"] = cache.Type + "\n"
			files[idx+"/size"] = cache.Size + "\n"
			files[idx+"/shared_cpu_list"] = FormatList(cache.Shared) + "\n"
		}
	}
	for id, cpus := range t.Nodes {
		files[fmt.Sprintf("devices/system/node/node%d/cpulist", id)] = FormatList(cpus) + "\n"
	}
	return files
}

// FS returns the tree as an in-memory file system, for topology.ReadFS:
// tests need not write thousands of files.
func (t *Tree) FS() fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, body := range t.Files() {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return fsys
}

// Write creates the tree under dir (which may exist) and returns dir.
func (t *Tree) Write(dir string) (string, error) {
	for name, body := range t.Files() {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Server describes a two-socket x86 server the way Linux numbers it: the
// first hardware thread of every core first (package 0's cores, then
// package 1's), then, with SMT, the second threads in the same order, so
// CPU n and n+Cores are one core. L1 and L2 are private to a core.
type Server struct {
	Name         string
	Packages     int
	CoresPerPkg  int
	SMT          bool
	CoresPerL3   int // cores under one L3
	NodesPerPkg  int // NUMA nodes per package, each an equal run of cores
	L1d, L1i, L2 string
	L3           string
}

// Tree builds the server's sysfs tree.
func (s Server) Tree() *Tree {
	cores := s.Packages * s.CoresPerPkg
	threads := 1
	if s.SMT {
		threads = 2
	}
	// CPUs of core k (a machine-wide core index).
	coreCPUs := func(k int) []int {
		cpus := make([]int, threads)
		for t := range cpus {
			cpus[t] = k + t*cores
		}
		return cpus
	}
	// CPUs of the run of cores [k0, k0+n).
	runCPUs := func(k0, n int) []int {
		var cpus []int
		for k := k0; k < k0+n; k++ {
			cpus = append(cpus, coreCPUs(k)...)
		}
		slices.Sort(cpus)
		return cpus
	}
	t := &Tree{Name: s.Name, CPUs: make([]CPU, cores*threads)}
	for id := range t.CPUs {
		k := id % cores
		pkg := k / s.CoresPerPkg
		sib := coreCPUs(k)
		l3 := runCPUs(k/s.CoresPerL3*s.CoresPerL3, s.CoresPerL3)
		t.CPUs[id] = CPU{Package: pkg, Core: k % s.CoresPerPkg, Siblings: sib, Caches: []Cache{
			{1, "Data", s.L1d, sib},
			{1, "Instruction", s.L1i, sib},
			{2, "Unified", s.L2, sib},
			{3, "Unified", s.L3, l3},
		}}
	}
	perNode := s.CoresPerPkg / s.NodesPerPkg
	for n := 0; n < s.Packages*s.NodesPerPkg; n++ {
		t.Nodes = append(t.Nodes, runCPUs(n*perNode, perNode))
	}
	return t
}

// EPYC2S is a two-socket AMD EPYC 7763 (Zen 3, "Milan") in NPS4 mode:
// 2 × 64 cores, an L3 of 32 MiB per CCD of 8 cores (16 L3 domains), four
// NUMA nodes per socket (8 in all, two CCDs each), 512 KiB L2 per core.
// With smt, 256 CPUs (n and n+128 share a core); without, 128.
func EPYC2S(smt bool) *Tree {
	name := "epyc-2s-128c"
	if smt {
		name += "-smt"
	}
	return Server{Name: name, Packages: 2, CoresPerPkg: 64, SMT: smt, CoresPerL3: 8, NodesPerPkg: 4,
		L1d: "32K", L1i: "32K", L2: "512K", L3: "32768K"}.Tree()
}

// Xeon2S is a two-socket Intel Xeon Platinum 8480+ ("Sapphire Rapids")
// with sub-NUMA clustering off: 2 × 56 cores × 2 threads = 224 CPUs (n and
// n+112 share a core), one 105 MiB L3 per socket, one NUMA node per
// socket, 2 MiB L2 per core.
func Xeon2S() *Tree {
	return Server{Name: "xeon-2s-112c-smt", Packages: 2, CoresPerPkg: 56, SMT: true, CoresPerL3: 56, NodesPerPkg: 1,
		L1d: "48K", L1i: "32K", L2: "2048K", L3: "107520K"}.Tree()
}

// All returns every generated machine, by name.
func All() map[string]*Tree {
	all := map[string]*Tree{}
	for _, t := range []*Tree{EPYC2S(false), EPYC2S(true), Xeon2S()} {
		all[t.Name] = t
	}
	return all
}

// FormatList writes cpus (ascending) as a sysfs list: "0-7,128-135".
func FormatList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}
