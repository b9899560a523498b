package topology

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hympi/hympi/internal/sysfsfixture"
)

// The big machines are generated (internal/sysfsfixture), not committed:
// read straight from memory, once per test binary.
var bigMachines sync.Map // name → *Machine

func readBig(t *testing.T, name string) *Machine {
	t.Helper()
	if m, ok := bigMachines.Load(name); ok {
		return m.(*Machine)
	}
	tree, ok := sysfsfixture.All()[name]
	if !ok {
		t.Fatalf("no generated fixture %q", name)
	}
	m, err := ReadFS(tree.FS(), name)
	if err != nil {
		t.Fatalf("read(%s): %v", name, err)
	}
	bigMachines.Store(name, m)
	return m
}

const (
	epyc    = "epyc-2s-128c"
	epycSMT = "epyc-2s-128c-smt"
	xeon    = "xeon-2s-112c-smt"
)

// TestBigMachineShape: the reader sees the generated machines as their
// specs describe them.
func TestBigMachineShape(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		cpus, cores, packages         int
		l3s, cpusPerL3, nodes, perNod int
	}{
		{epyc, 128, 128, 2, 16, 8, 8, 16},
		{epycSMT, 256, 128, 2, 16, 16, 8, 32},
		{xeon, 224, 112, 2, 2, 112, 2, 112},
	} {
		m := readBig(t, tc.name)
		if len(m.CPUs) != tc.cpus || len(m.Cores()) != tc.cores || len(m.Packages()) != tc.packages {
			t.Errorf("%s: %d CPUs, %d cores, %d packages; want %d, %d, %d", tc.name,
				len(m.CPUs), len(m.Cores()), len(m.Packages()), tc.cpus, tc.cores, tc.packages)
		}
		for _, d := range []struct {
			kind      string
			n, perDom int
		}{{DomainL3, tc.l3s, tc.cpusPerL3}, {DomainNUMA, tc.nodes, tc.perNod}, {DomainSocket, 2, tc.cpus / 2}} {
			ds := m.Domains(d.kind)
			if len(ds) != d.n {
				t.Errorf("%s: %d %s domains, want %d", tc.name, len(ds), d.kind, d.n)
			}
			for _, dom := range ds {
				if len(dom) != d.perDom {
					t.Errorf("%s: %s domain %s has %d CPUs, want %d", tc.name, d.kind, FormatCPUList(dom), len(dom), d.perDom)
				}
			}
		}
	}
}

// TestBigRelations: on a machine whose L3 is split (EPYC: one per 8-core
// CCD), "same L3" is shared-cache, "other L3 of the same socket" (even in
// the same NUMA node) is intra-socket, the other socket inter-socket; with
// one L3 per socket (Xeon) a socket is all shared-cache.
func TestBigRelations(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		a, b    int
		want    Relation
	}{
		{epyc, 0, 0, Self},
		{epyc, 0, 7, SharedCache},      // one CCD
		{epyc, 0, 8, IntraSocket},      // next CCD, same NUMA node (NPS4: two CCDs a node)
		{epyc, 0, 16, IntraSocket},     // another NUMA node of the socket
		{epyc, 63, 56, SharedCache},    // the socket's last CCD
		{epyc, 0, 64, InterSocket},     // the other socket
		{epyc, 64, 71, SharedCache},    // a CCD of the second socket
		{epyc, 127, 64, IntraSocket},   //
		{epyc, 0, 128, InterSocket},    // not a CPU of this machine
		{epycSMT, 0, 128, SMT},         // n and n+128 are one core
		{epycSMT, 130, 2, SMT},         //
		{epycSMT, 0, 135, SharedCache}, // a thread of another core of the CCD
		{epycSMT, 128, 136, IntraSocket},
		{epycSMT, 191, 64, InterSocket},
		{epycSMT, 200, 255, IntraSocket}, // socket 1, CCDs 9 and 15
		{epycSMT, 248, 255, SharedCache},
		{xeon, 0, 112, SMT},
		{xeon, 0, 55, SharedCache}, // one L3 for the whole socket
		{xeon, 0, 167, SharedCache},
		{xeon, 0, 56, InterSocket},
		{xeon, 111, 223, SMT},
		{xeon, 111, 168, SharedCache},
		{xeon, 56, 223, SharedCache},
		{xeon, 112, 223, InterSocket},
	} {
		m := readBig(t, tc.fixture)
		if got := m.Relation(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Relation(%d, %d) = %s, want %s", tc.fixture, tc.a, tc.b, got, tc.want)
		}
		if got := m.Relation(tc.b, tc.a); got != tc.want {
			t.Errorf("%s: Relation(%d, %d) = %s, want %s (not symmetric)", tc.fixture, tc.b, tc.a, got, tc.want)
		}
	}
}

// TestBigRelationCounts: every pair of CPUs of the machine, by relation,
// against counts worked out by hand from the specs.
func TestBigRelationCounts(t *testing.T) {
	c2 := func(n int) int { return n * (n - 1) / 2 }
	for _, tc := range []struct {
		fixture string
		cpus    []int // nil: all
		want    [NumRelations]int
	}{
		// 16 CCDs of 8 cores; a socket is 64 cores.
		{epyc, nil, [NumRelations]int{
			SharedCache: 16 * c2(8),
			IntraSocket: 2 * (c2(64) - 8*c2(8)),
			InterSocket: 64 * 64,
		}},
		// The same with two threads per core: a CCD is 16 CPUs, 8 of
		// whose pairs are a core's two threads.
		{epycSMT, nil, [NumRelations]int{
			SMT:         128,
			SharedCache: 16 * (c2(16) - 8),
			IntraSocket: 2 * (c2(128) - 8*c2(16)),
			InterSocket: 128 * 128,
		}},
		{xeon, nil, [NumRelations]int{
			SMT:         112,
			SharedCache: 2 * (c2(112) - 56),
			InterSocket: 112 * 112,
		}},
		// The first CPU of each CCD: no two share anything but a socket.
		{epyc, []int{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120}, [NumRelations]int{
			IntraSocket: 2 * c2(8),
			InterSocket: 8 * 8,
		}},
		{epycSMT, []int{0, 128, 0, 1}, [NumRelations]int{SMT: 1, SharedCache: 2}},
	} {
		m := readBig(t, tc.fixture)
		cpus := tc.cpus
		if cpus == nil {
			cpus = m.IDs()
		}
		if got := m.RelationCounts(cpus); got != tc.want {
			t.Errorf("%s: RelationCounts(%d CPUs) = %v, want %v", tc.fixture, len(cpus), got, tc.want)
		}
	}
}

// TestBigThresholds: the threshold of a pair follows its relation, and a
// profile calibrated on the machine overrides exactly the relations it
// measured.
func TestBigThresholds(t *testing.T) {
	m := readBig(t, epycSMT)
	prof := NewProfile(m, map[Relation]int{IntraSocket: 8 * KiB})
	other := NewProfile(readBig(t, xeon), map[Relation]int{IntraSocket: 8 * KiB})
	th := NewThresholds(m)
	for _, tc := range []struct {
		a, b    int
		env     string
		prof    *Profile
		want    int
		wantSrc string
	}{
		{0, 128, "", nil, DefaultSharedCacheThreshold, SourceDefault},
		{0, 7, "", nil, DefaultSharedCacheThreshold, SourceDefault},
		{0, 8, "", nil, DefaultIntraSocketThreshold, SourceDefault},
		{0, 64, "", nil, DefaultInterSocketThreshold, SourceDefault},
		{0, 8, "", prof, 8 * KiB, SourceProfile},
		{0, 7, "", prof, DefaultSharedCacheThreshold, SourceDefault},
		{0, 64, "", prof, DefaultInterSocketThreshold, SourceDefault},
		{0, 8, "", other, DefaultIntraSocketThreshold, SourceDefault}, // measured on the Xeon
		{0, 8, "64K", prof, 64 * KiB, SourceEnvironment},
	} {
		rel := m.Relation(tc.a, tc.b)
		got, src := th.Resolve(rel, tc.env, tc.prof)
		if got != tc.want || src != tc.wantSrc {
			t.Errorf("cpus %d,%d (%s), env %q, profile %v: %d from %s, want %d from %s",
				tc.a, tc.b, rel, tc.env, tc.prof != nil, got, src, tc.want, tc.wantSrc)
		}
	}
	if m.Fingerprint().Matches(readBig(t, epyc).Fingerprint()) {
		t.Error("the EPYC with and without SMT have the same fingerprint: a profile of one would apply to the other")
	}
}

// TestBigPlacement: --map-by and --bind-to on the big machines, in Open
// MPI's sense: ranks dealt round-robin over the objects of the mapping
// kind, each bound to the CPUs of its binding object.
func TestBigPlacement(t *testing.T) {
	list := func(s string) []int {
		cpus, err := ParseCPUList(s)
		if err != nil {
			t.Fatal(err)
		}
		return cpus
	}
	sets := func(ss ...string) [][]int {
		var out [][]int
		for _, s := range ss {
			out = append(out, list(s))
		}
		return out
	}
	for _, tc := range []struct {
		fixture string
		allowed string // "" for all
		n       int
		mapBy   string
		bind    BindPolicy
		cpus    string // the CPUs of the ranks, in rank order
		sets    [][]int
	}{
		{epycSMT, "", 4, DomainCore, BindCore, "0,1,2,3", sets("0,128", "1,129", "2,130", "3,131")},
		{epycSMT, "", 4, DomainCore, BindHWThread, "0,1,2,3", sets("0", "1", "2", "3")},
		{epycSMT, "", 4, DomainHWThread, BindHWThread, "0,128,1,129", sets("0", "128", "1", "129")},
		{epycSMT, "", 3, DomainHWThread, BindCore, "0,128,1", sets("0,128", "0,128", "1,129")},
		{epycSMT, "", 4, DomainL3, BindL3, "0,8,16,24", sets("0-7,128-135", "8-15,136-143", "16-23,144-151", "24-31,152-159")},
		{epycSMT, "", 3, DomainNUMA, BindNUMA, "0,16,32", sets("0-15,128-143", "16-31,144-159", "32-47,160-175")},
		{epycSMT, "", 4, DomainSocket, BindSocket, "0,64,1,65", sets("0-63,128-191", "64-127,192-255", "0-63,128-191", "64-127,192-255")},
		{epycSMT, "", 2, DomainSocket, BindL3, "0,64", sets("0-7,128-135", "64-71,192-199")},
		{epycSMT, "", 2, DomainL3, BindNone, "0,8", nil},
		// 16 L3s: rank 16 starts the second round on CCD 0's next core.
		{epyc, "", 18, DomainL3, BindCore, "0,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,1,9",
			sets("0", "8", "16", "24", "32", "40", "48", "56", "64", "72", "80", "88", "96", "104", "112", "120", "1", "9")},
		{epyc, "", 9, DomainNUMA, BindHWThread, "0,16,32,48,64,80,96,112,1", sets("0", "16", "32", "48", "64", "80", "96", "112", "1")},
		// Every core first, then the second threads, then round again.
		{epycSMT, "", 258, DomainCore, BindHWThread, "0-255,0,1", nil},
		// A job confined to part of the machine (a cgroup, taskset):
		// bindings are cut to what it may use.
		{epycSMT, "4-11,132-139", 3, DomainL3, BindL3, "4,8,5", sets("4-7,132-135", "8-11,136-139", "4-7,132-135")},
		{epycSMT, "60-67", 2, DomainSocket, BindSocket, "60,64", sets("60-63", "64-67")},
		{xeon, "", 3, DomainSocket, BindNUMA, "0,56,1", sets("0-55,112-167", "56-111,168-223", "0-55,112-167")},
		{xeon, "", 2, DomainL3, BindCore, "0,56", sets("0,112", "56,168")},
		{xeon, "", 2, DomainNUMA, BindL3, "0,56", sets("0-55,112-167", "56-111,168-223")},
		{xeon, "", 3, MapSlot, BindCore, "0,1,2", sets("0,112", "1,113", "2,114")},
	} {
		name := strings.Join([]string{tc.fixture, tc.allowed, tc.mapBy, string(tc.bind)}, "/")
		m := readBig(t, tc.fixture)
		var allowed []int
		if tc.allowed != "" {
			allowed = list(tc.allowed)
		}
		p := Place(m, allowed, tc.n, tc.mapBy, tc.bind)
		if want := inOrder(t, tc.cpus); !slices.Equal(p.CPUs, want) {
			t.Errorf("%s: %d ranks on CPUs %v, want %s", name, tc.n, p.CPUs, tc.cpus)
		}
		if len(p.CPUs) != tc.n {
			t.Errorf("%s: %d CPUs for %d ranks", name, len(p.CPUs), tc.n)
		}
		if tc.sets != nil && !slices.EqualFunc(p.Sets, tc.sets, slices.Equal) {
			t.Errorf("%s: bound to %v, want %v", name, p.Sets, tc.sets)
		}
		if tc.bind == BindNone && p.Sets != nil {
			t.Errorf("%s: bound to %v, want unbound", name, p.Sets)
		}
		for i, set := range p.Sets {
			if !slices.Contains(set, p.CPUs[i]) {
				t.Errorf("%s: rank %d is mapped to CPU %d outside its binding %v", name, i, p.CPUs[i], set)
			}
			core := m.Domain(p.CPUs[i], DomainCore)
			inCore := !slices.ContainsFunc(set, func(c int) bool { return !slices.Contains(core, c) })
			if inCore != (tc.bind == BindCore || tc.bind == BindHWThread) {
				t.Errorf("%s: rank %d bound to %v: within its core = %v", name, i, set, inCore)
			}
		}
	}
}

// inOrder expands a CPU list keeping its order and repeats ("0-2,0" is
// 0, 1, 2, 0), unlike ParseCPUList.
func inOrder(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lohi, err := ParseCPUList(part)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lohi...)
	}
	return out
}

// TestDomainRelations: ranks bound to domains get the farthest relation
// between their domains' CPUs.
func TestDomainRelations(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		kind    string
		a, b    int
		want    Relation
	}{
		{epycSMT, DomainHWThread, 0, 1, SharedCache},
		{epycSMT, DomainHWThread, 0, 128, SMT},
		{epycSMT, DomainHWThread, 5, 5, Self},
		{epycSMT, DomainCore, 0, 128, SMT}, // two ranks on one core
		{epycSMT, DomainCore, 0, 0, SMT},
		{epyc, DomainCore, 0, 0, Self}, // a core of one thread
		{epycSMT, DomainCore, 0, 1, SharedCache},
		{epycSMT, DomainCore, 0, 8, IntraSocket},
		{epycSMT, DomainL3, 0, 7, SharedCache},
		{epycSMT, DomainL3, 1, 130, SharedCache},
		{epycSMT, DomainL3, 0, 8, IntraSocket},
		{epycSMT, DomainL3, 0, 64, InterSocket},
		{epycSMT, DomainNUMA, 0, 8, IntraSocket}, // a node holds two L3s
		{epycSMT, DomainNUMA, 0, 1, IntraSocket},
		{epycSMT, DomainNUMA, 0, 16, IntraSocket},
		{epycSMT, DomainNUMA, 0, 200, InterSocket},
		{epycSMT, DomainSocket, 0, 1, IntraSocket},
		{epycSMT, DomainSocket, 0, 64, InterSocket},
		{xeon, DomainNUMA, 0, 1, SharedCache}, // node = socket = L3
		{xeon, DomainSocket, 0, 55, SharedCache},
		{xeon, DomainSocket, 0, 56, InterSocket},
		{xeon, DomainL3, 0, 112, SharedCache},
		{xeon, "none", 0, 112, SMT},
		{epycSMT, DomainL3, -1, 3, InterSocket}, // unbound: could be anywhere
		{xeon, "none", 5, -1, InterSocket},
	} {
		m := readBig(t, tc.fixture)
		d := NewDomainRelations(m, tc.kind)
		for range 2 { // the second time from the memo
			if got := d.Relation(tc.a, tc.b); got != tc.want {
				t.Errorf("%s bound to %s: Relation(%d, %d) = %s, want %s", tc.fixture, tc.kind, tc.a, tc.b, got, tc.want)
			}
			if got := d.Relation(tc.b, tc.a); got != tc.want {
				t.Errorf("%s bound to %s: Relation(%d, %d) = %s, want %s", tc.fixture, tc.kind, tc.b, tc.a, got, tc.want)
			}
		}
	}
	// On one socket, an unbound rank is at least on the same package.
	one := NewDomainRelations(readFixture(t, "onesocket-l3"), "none")
	if got := one.Relation(-1, 2); got != IntraSocket {
		t.Errorf("onesocket-l3, unbound: %s, want intra-socket", got)
	}
}
