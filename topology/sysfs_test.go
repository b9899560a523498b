package topology

import (
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFixtures(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		cpus, packages, cores  int
		nodes                  []Node
		cpu                    int // one CPU checked in detail
		pkg, core              int
		siblings               []int
		caches                 []Cache
		node                   int
		cacheKinds, model, ids string
	}{
		{
			name: "clovertown", cpus: 8, packages: 2, cores: 8,
			nodes: []Node{{0, []int{0, 1, 2, 3, 4, 5, 6, 7}}},
			cpu:   5, pkg: 1, core: 2, siblings: []int{5}, node: 0,
			caches: []Cache{
				{1, CacheData, 32 * KiB, []int{5}},
				{1, CacheInstruction, 32 * KiB, []int{5}},
				{2, CacheUnified, 4096 * KiB, []int{5, 7}},
			},
		},
		{
			name: "onesocket-l3", cpus: 4, packages: 1, cores: 4,
			nodes: []Node{{0, []int{0, 1, 2, 3}}},
			cpu:   2, pkg: 0, core: 2, siblings: []int{2}, node: 0,
			caches: []Cache{
				{1, CacheData, 32 * KiB, []int{2}},
				{1, CacheInstruction, 32 * KiB, []int{2}},
				{2, CacheUnified, 1 << 20, []int{2}},
				{3, CacheUnified, 8 << 20, []int{0, 1, 2, 3}},
			},
		},
		{
			name: "twosocket-smt-numa", cpus: 16, packages: 2, cores: 8,
			nodes: []Node{{0, []int{0, 1, 2, 3, 8, 9, 10, 11}}, {1, []int{4, 5, 6, 7, 12, 13, 14, 15}}},
			cpu:   13, pkg: 1, core: 1, siblings: []int{5, 13}, node: 1,
			caches: []Cache{
				{1, CacheData, 48 * KiB, []int{5, 13}},
				{1, CacheInstruction, 32 * KiB, []int{5, 13}},
				{2, CacheUnified, 2 << 20, []int{5, 13}},
				{3, CacheUnified, 30 << 20, []int{4, 5, 6, 7, 12, 13, 14, 15}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := readFixture(t, tc.name)
			if len(m.CPUs) != tc.cpus || len(m.Packages()) != tc.packages || len(m.Cores()) != tc.cores {
				t.Errorf("%d CPUs, %d packages, %d cores; want %d, %d, %d",
					len(m.CPUs), len(m.Packages()), len(m.Cores()), tc.cpus, tc.packages, tc.cores)
			}
			if !slices.EqualFunc(m.Nodes, tc.nodes, func(a, b Node) bool { return a.ID == b.ID && slices.Equal(a.CPUs, b.CPUs) }) {
				t.Errorf("nodes %v, want %v", m.Nodes, tc.nodes)
			}
			c := m.Lookup(tc.cpu)
			if c == nil {
				t.Fatalf("cpu %d missing", tc.cpu)
			}
			if c.ID != tc.cpu || c.Package != tc.pkg || c.Core != tc.core || c.Node != tc.node || !slices.Equal(c.Siblings, tc.siblings) {
				t.Errorf("cpu %d = %+v; want package %d core %d node %d siblings %v", tc.cpu, *c, tc.pkg, tc.core, tc.node, tc.siblings)
			}
			if !slices.EqualFunc(c.Caches, tc.caches, equalCache) {
				t.Errorf("cpu %d caches %+v, want %+v", tc.cpu, c.Caches, tc.caches)
			}
			if m.Root != fixtureRoot(tc.name) || m.Model != "" {
				t.Errorf("Root %q Model %q", m.Root, m.Model)
			}
			for _, cpu := range m.CPUs {
				if cpu.Node < 0 {
					t.Errorf("cpu %d in no node", cpu.ID)
				}
			}
		})
	}
}

func equalCache(a, b Cache) bool {
	return a.Level == b.Level && a.Type == b.Type && a.Size == b.Size && slices.Equal(a.SharedCPUs, b.SharedCPUs)
}

// memTree is a fixture tree in memory, as path → contents.
func memTree(f fixture) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range f.files() {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

// without returns fsys minus every file whose path contains one of the
// fragments.
func without(fsys fstest.MapFS, fragments ...string) fstest.MapFS {
	out := maps.Clone(fsys)
	for name := range out {
		for _, f := range fragments {
			if strings.Contains(name, f) {
				delete(out, name)
			}
		}
	}
	return out
}

func with(fsys fstest.MapFS, name, data string) fstest.MapFS {
	out := maps.Clone(fsys)
	out[name] = &fstest.MapFile{Data: []byte(data)}
	return out
}

func TestReadDegrades(t *testing.T) {
	smt := memTree(twoSocketSMTNUMA())
	clover := memTree(clovertown())

	t.Run("no cache directory: no shared cache", func(t *testing.T) {
		m, err := read(without(clover, "/cache/"), "mem")
		if err != nil {
			t.Fatal(err)
		}
		if len(m.CPUs[0].Caches) != 0 {
			t.Errorf("caches %v", m.CPUs[0].Caches)
		}
		if r := m.Relation(0, 2); r != IntraSocket {
			t.Errorf("Relation(0, 2) = %v, want intra-socket without caches", r)
		}
	})
	t.Run("no online: present", func(t *testing.T) {
		m, err := read(with(without(smt, "cpu/online"), "devices/system/cpu/present", "0-3\n"), "mem")
		if err != nil || !slices.Equal(m.IDs(), []int{0, 1, 2, 3}) {
			t.Fatalf("IDs %v, %v; want 0-3 from present", m.IDs(), err)
		}
	})
	t.Run("no online or present: cpuN directories", func(t *testing.T) {
		m, err := read(without(smt, "cpu/online", "cpu/present"), "mem")
		if err != nil || len(m.CPUs) != 16 {
			t.Fatalf("%v CPUs, %v; want 16 from the directories", m.IDs(), err)
		}
	})
	t.Run("no topology files: package 0, one core per CPU", func(t *testing.T) {
		m, err := read(without(smt, "/topology/"), "mem")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.CPUs {
			if c.Package != 0 || c.Core != c.ID || !slices.Equal(c.Siblings, []int{c.ID}) {
				t.Errorf("cpu %d: package %d core %d siblings %v", c.ID, c.Package, c.Core, c.Siblings)
			}
		}
		// The caches still say 0 and 8 share an L1: shared-cache, not smt.
		if r := m.Relation(0, 8); r != SharedCache {
			t.Errorf("Relation(0, 8) = %v, want shared-cache", r)
		}
	})
	t.Run("no thread_siblings_list: siblings from core_id", func(t *testing.T) {
		m, err := read(without(smt, "thread_siblings_list"), "mem")
		if err != nil {
			t.Fatal(err)
		}
		if s := m.Lookup(12).Siblings; !slices.Equal(s, []int{4, 12}) {
			t.Errorf("siblings of 12 = %v, want [4 12]", s)
		}
		if r := m.Relation(4, 12); r != SMT {
			t.Errorf("Relation(4, 12) = %v, want smt", r)
		}
		// core_id repeats across packages: cpu 0 and cpu 4 are both core 0.
		if r := m.Relation(0, 4); r != InterSocket {
			t.Errorf("Relation(0, 4) = %v, want inter-socket", r)
		}
	})
	t.Run("no node directory: one node", func(t *testing.T) {
		m, err := read(without(smt, "system/node"), "mem")
		if err != nil || len(m.Nodes) != 1 || len(m.Nodes[0].CPUs) != 16 || m.Lookup(15).Node != 0 {
			t.Fatalf("nodes %v, %v", m.Nodes, err)
		}
	})
	t.Run("missing cache attributes", func(t *testing.T) {
		m, err := read(without(smt, "index3/shared_cpu_list", "index0/size", "index1/type", "index2/level"), "mem")
		if err != nil {
			t.Fatal(err)
		}
		c := m.Lookup(3).Caches
		if c[0].Size != 0 || c[1].Type != "" || c[2].Level != 0 || !slices.Equal(c[3].SharedCPUs, []int{3}) {
			t.Errorf("caches %+v", c)
		}
		if r := m.Relation(0, 1); r != IntraSocket { // no L3 sharing known any more
			t.Errorf("Relation(0, 1) = %v, want intra-socket", r)
		}
	})
	t.Run("offline CPUs are left out", func(t *testing.T) {
		m, err := read(with(smt, "devices/system/cpu/online", "0-7,9-15\n"), "mem")
		if err != nil {
			t.Fatal(err)
		}
		if m.Lookup(8) != nil || !slices.Equal(m.Nodes[0].CPUs, []int{0, 1, 2, 3, 9, 10, 11}) {
			t.Errorf("cpu 8 present or nodes %v", m.Nodes)
		}
		if got := m.Cores()[0]; !slices.Equal(got, []int{0}) {
			t.Errorf("core 0 threads %v, want [0]", got)
		}
		if r := m.Relation(0, 8); r != InterSocket {
			t.Errorf("Relation with an offline CPU = %v, want inter-socket", r)
		}
	})
	t.Run("unknown package -1 kept", func(t *testing.T) {
		fsys := clover
		for id := range 8 {
			fsys = with(fsys, "devices/system/cpu/cpu"+string(rune('0'+id))+"/topology/physical_package_id", "-1\n")
		}
		m, err := read(without(fsys, "/cache/"), "mem")
		if err != nil || m.Lookup(3).Package != -1 || m.Relation(0, 1) != IntraSocket {
			t.Fatalf("package %d, relation %v, %v", m.Lookup(3).Package, m.Relation(0, 1), err)
		}
	})
}

func TestReadMalformed(t *testing.T) {
	smt := memTree(twoSocketSMTNUMA())
	for _, tc := range []struct {
		name, file, data string
	}{
		{"online", "devices/system/cpu/online", "0-x\n"},
		{"online empty", "devices/system/cpu/online", "\n"},
		{"package", "devices/system/cpu/cpu3/topology/physical_package_id", "zero\n"},
		{"core", "devices/system/cpu/cpu3/topology/core_id", "1.5\n"},
		{"siblings", "devices/system/cpu/cpu3/topology/thread_siblings_list", "3-\n"},
		{"level", "devices/system/cpu/cpu3/cache/index2/level", "L2\n"},
		{"size unit", "devices/system/cpu/cpu3/cache/index2/size", "2048Q\n"},
		{"size number", "devices/system/cpu/cpu3/cache/index2/size", "K\n"},
		{"shared", "devices/system/cpu/cpu3/cache/index3/shared_cpu_list", "0-3,,8\n"},
		{"node", "devices/system/node/node1/cpulist", "4-7;12-15\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := read(with(smt, tc.file, tc.data), "/fake/sys")
			if err == nil {
				t.Fatalf("read succeeded: %d CPUs", len(m.CPUs))
			}
			wantPath := filepath.Join("/fake/sys", tc.file)
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != wantPath || !strings.Contains(err.Error(), wantPath) {
				t.Errorf("error %q does not name %s", err, wantPath)
			}
			t.Log(err)
		})
	}
	t.Run("not a sysfs tree", func(t *testing.T) {
		_, err := Read(t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "not a sysfs tree") {
			t.Errorf("Read(empty dir) error %v", err)
		}
	})
	t.Run("missing root", func(t *testing.T) {
		if _, err := Read(filepath.Join(t.TempDir(), "nope")); err == nil {
			t.Error("Read of a missing root succeeded")
		}
	})
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"0", 0},
		{"512", 512},
		{"32K", 32 << 10},
		{"32K\n", 32 << 10},
		{"4096K", 4 << 20},
		{"30M", 30 << 20},
		{"1G", 1 << 30},
		{"48k", 48 << 10},
		{"8KiB", 8 << 10},
		{"2MB", 2 << 20},
		{"100B", 100},
	} {
		if got, err := ParseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "K", "-1K", "1.5M", "32Q", "32 K", "0x10", "1T", "K32", "9999999999999999G", "32iK"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestParseCPUInfoModel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Processor\nstepping\t: 7\n\nprocessor\t: 1\nmodel name\t: other\n", "Intel(R) Xeon(R) Processor"},
		{"processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n", ""}, // arm64
		{"", ""},
	} {
		if got := ParseCPUInfoModel([]byte(tc.in)); got != tc.want {
			t.Errorf("ParseCPUInfoModel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDefault is the only test that calls Default: its result is cached
// for the process, so the environment must be set before the first call.
func TestDefault(t *testing.T) {
	t.Setenv(EnvSysfs, fixtureRoot("clovertown"))
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.CPUs) != 8 || m.Root != fixtureRoot("clovertown") || m.Model != "" {
		t.Errorf("Default() read %d CPUs from %q, model %q", len(m.CPUs), m.Root, m.Model)
	}
	t.Setenv(EnvSysfs, fixtureRoot("onesocket-l3"))
	if again, _ := Default(); again != m {
		t.Error("Default() read the tree again")
	}
}
