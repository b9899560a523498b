package topology

import (
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The fixture trees under testdata/ are minimal sysfs subsets, committed as
// plain files so HYMPI_SYSFS=topology/testdata/<name> works for hympi-info
// too. The specs below are their source: after changing a spec, run
//
//	go test ./topology/ -run TestFixturesUpToDate -update
//
// and TestFixturesUpToDate keeps the files and the specs from drifting.
var update = flag.Bool("update", false, "rewrite testdata/ fixture trees from their specs")

type fixtureCache struct {
	level  int
	typ    string
	size   string // as sysfs writes it
	shared string // shared_cpu_list
}

type fixtureCPU struct {
	pkg, core int
	siblings  string
	caches    []fixtureCache
}

type fixture struct {
	name   string
	online string
	cpus   []fixtureCPU   // index = CPU number
	nodes  map[int]string // node ID → cpulist; nil: no node directory
}

// fixtures, documented in testdata/README.md.
var fixtures = []fixture{clovertown(), oneSocketL3(), twoSocketSMTNUMA()}

// clovertown is the seed study's machine: two quad-core Xeon 5300
// (Clovertown) packages, no SMT, no L3, one NUMA node (no node directory,
// as on a kernel without NUMA). Each package is two dual-core dies, each
// die with one 4 MiB L2. The CPU numbering interleaves the packages, as
// Linux commonly enumerated these boards: package 0 holds cpus 0,2,4,6 and
// package 1 holds 1,3,5,7, and L2 partners are 0,2 | 4,6 | 1,3 | 5,7 — so
// adjacent CPU numbers are on different sockets, which the binding policy
// must see through.
func clovertown() fixture {
	f := fixture{name: "clovertown", online: "0-7"}
	for id := range 8 {
		pkg, core := id%2, id/2
		l2 := (id/4)*4 + id%2 // lowest CPU of this CPU's L2 pair
		self := fmt.Sprint(id)
		f.cpus = append(f.cpus, fixtureCPU{pkg: pkg, core: core, siblings: self, caches: []fixtureCache{
			{1, "Data", "32K", self},
			{1, "Instruction", "32K", self},
			{2, "Unified", "4096K", fmt.Sprintf("%d,%d", l2, l2+2)},
		}})
	}
	return f
}

// oneSocketL3 is a small modern desktop: one package, four cores without
// SMT, private L1 and L2, one L3 shared by all, one NUMA node.
func oneSocketL3() fixture {
	f := fixture{name: "onesocket-l3", online: "0-3", nodes: map[int]string{0: "0-3"}}
	for id := range 4 {
		self := fmt.Sprint(id)
		f.cpus = append(f.cpus, fixtureCPU{pkg: 0, core: id, siblings: self, caches: []fixtureCache{
			{1, "Data", "32K", self},
			{1, "Instruction", "32K", self},
			{2, "Unified", "1024K", self},
			{3, "Unified", "8192K", "0-3"},
		}})
	}
	return f
}

// twoSocketSMTNUMA is a two-socket server: 2 packages × 4 cores × 2
// threads; CPU n and n+8 are the threads of one core (the usual Intel
// numbering); private L1 and L2 per core, one L3 per socket, one NUMA node
// per socket.
func twoSocketSMTNUMA() fixture {
	f := fixture{name: "twosocket-smt-numa", online: "0-15",
		nodes: map[int]string{0: "0-3,8-11", 1: "4-7,12-15"}}
	for id := range 16 {
		t := id % 8
		pkg, core := t/4, t%4
		sib := fmt.Sprintf("%d,%d", t, t+8)
		l3 := f.nodes[pkg]
		f.cpus = append(f.cpus, fixtureCPU{pkg: pkg, core: core, siblings: sib, caches: []fixtureCache{
			{1, "Data", "48K", sib},
			{1, "Instruction", "32K", sib},
			{2, "Unified", "2048K", sib},
			{3, "Unified", "30720K", l3},
		}})
	}
	return f
}

// files returns the tree as path → contents, paths relative to the root.
func (f fixture) files() map[string]string {
	files := map[string]string{
		"devices/system/cpu/online":  f.online + "\n",
		"devices/system/cpu/present": f.online + "\n",
	}
	for id, c := range f.cpus {
		dir := fmt.Sprintf("devices/system/cpu/cpu%d", id)
		files[dir+"/topology/physical_package_id"] = fmt.Sprintln(c.pkg)
		files[dir+"/topology/core_id"] = fmt.Sprintln(c.core)
		files[dir+"/topology/thread_siblings_list"] = c.siblings + "\n"
		for k, cache := range c.caches {
			idx := fmt.Sprintf("%s/cache/index%d", dir, k)
			files[idx+"/level"] = fmt.Sprintln(cache.level)
			files[idx+"/type"] = cache.typ + "\n"
			files[idx+"/size"] = cache.size + "\n"
			files[idx+"/shared_cpu_list"] = cache.shared + "\n"
		}
	}
	for id, cpus := range f.nodes {
		files[fmt.Sprintf("devices/system/node/node%d/cpulist", id)] = cpus + "\n"
	}
	return files
}

func fixtureRoot(name string) string { return filepath.Join("testdata", name) }

// readTree returns every regular file under root as path → contents.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

func TestFixturesUpToDate(t *testing.T) {
	for _, f := range fixtures {
		root := fixtureRoot(f.name)
		want := f.files()
		if *update {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
			for _, name := range slices.Sorted(maps.Keys(want)) {
				path := filepath.Join(root, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(want[name]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := readTree(t, root)
		for _, name := range slices.Sorted(maps.Keys(want)) {
			if got[name] != want[name] {
				t.Errorf("%s/%s = %q, spec says %q (run with -update)", root, name, got[name], want[name])
			}
		}
		for _, name := range slices.Sorted(maps.Keys(got)) {
			if _, ok := want[name]; !ok {
				t.Errorf("%s/%s is not in the spec (run with -update)", root, name)
			}
		}
	}
}

// readFixture reads a committed fixture tree.
func readFixture(t *testing.T, name string) *Machine {
	t.Helper()
	m, err := Read(fixtureRoot(name))
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return m
}
