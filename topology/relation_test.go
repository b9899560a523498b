package topology

import (
	"encoding/json"
	"testing"
)

func TestRelationString(t *testing.T) {
	want := []string{"self", "smt", "shared-cache", "intra-socket", "inter-socket"}
	for i, r := range Relations() {
		if r.String() != want[i] {
			t.Errorf("Relation(%d).String() = %q, want %q", i, r, want[i])
		}
		back, err := ParseRelation(want[i])
		if err != nil || back != r {
			t.Errorf("ParseRelation(%q) = %v, %v", want[i], back, err)
		}
	}
	if len(Relations()) != len(want) {
		t.Errorf("%d relations, want %d", len(Relations()), len(want))
	}
	if s := Relation(9).String(); s != "Relation(9)" {
		t.Errorf("Relation(9).String() = %q", s)
	}
	if _, err := ParseRelation("numa"); err == nil {
		t.Error(`ParseRelation("numa") succeeded`)
	}
	if _, err := json.Marshal(Relation(-1)); err == nil {
		t.Error("an invalid relation marshalled")
	}
	b, err := json.Marshal(map[Relation]int{SMT: 1, InterSocket: 2})
	if err != nil || string(b) != `{"inter-socket":2,"smt":1}` {
		t.Errorf("json map keys: %s, %v", b, err)
	}
}

// pairCase is an expected relation of CPUs a and b on a fixture, and the
// default threshold that goes with it.
type pairCase struct {
	a, b      int
	rel       Relation
	threshold int
}

var fixturePairs = map[string][]pairCase{
	// Interleaved numbering: even CPUs on package 0, odd on package 1,
	// L2 pairs 0,2 | 4,6 | 1,3 | 5,7.
	"clovertown": {
		{0, 0, Self, 32 * KiB},
		{0, 2, SharedCache, 32 * KiB},
		{5, 7, SharedCache, 32 * KiB},
		{1, 3, SharedCache, 32 * KiB},
		{0, 4, IntraSocket, 2 * KiB},
		{2, 6, IntraSocket, 2 * KiB},
		{3, 5, IntraSocket, 2 * KiB},
		{0, 1, InterSocket, 1 * KiB},
		{6, 7, InterSocket, 1 * KiB},
		{2, 3, InterSocket, 1 * KiB},
	},
	"onesocket-l3": {
		{3, 3, Self, 32 * KiB},
		{0, 1, SharedCache, 32 * KiB}, // through the L3 only
		{0, 3, SharedCache, 32 * KiB},
		{2, 1, SharedCache, 32 * KiB},
	},
	"twosocket-smt-numa": {
		{9, 9, Self, 32 * KiB},
		{0, 8, SMT, 32 * KiB},
		{11, 3, SMT, 32 * KiB},
		{4, 12, SMT, 32 * KiB},
		{0, 1, SharedCache, 32 * KiB},
		{0, 9, SharedCache, 32 * KiB},
		{13, 4, SharedCache, 32 * KiB},
		{0, 4, InterSocket, 1 * KiB},
		{8, 12, InterSocket, 1 * KiB},
		{3, 15, InterSocket, 1 * KiB},
		{0, 99, InterSocket, 1 * KiB}, // a CPU the machine does not have
		{-1, 0, InterSocket, 1 * KiB}, // an unbound rank
	},
}

func TestFixtureRelations(t *testing.T) {
	for name, pairs := range fixturePairs {
		m := readFixture(t, name)
		for _, p := range pairs {
			if got := m.Relation(p.a, p.b); got != p.rel {
				t.Errorf("%s: Relation(%d, %d) = %v, want %v", name, p.a, p.b, got, p.rel)
			}
			if got := BaseThreshold(m.Relation(p.a, p.b)); got != p.threshold {
				t.Errorf("%s: threshold of %d, %d = %d, want %d", name, p.a, p.b, got, p.threshold)
			}
		}
	}
}

// TestRelationProperties checks every pair of every fixture: the relation
// is symmetric, self only on the diagonal, and consistent with the
// structure (smt only within a core, intra/inter-socket by package).
func TestRelationProperties(t *testing.T) {
	for _, f := range fixtures {
		m := readFixture(t, f.name)
		counts := map[Relation]int{}
		for _, a := range m.CPUs {
			for _, b := range m.CPUs {
				r := m.Relation(a.ID, b.ID)
				counts[r]++
				if r != m.Relation(b.ID, a.ID) {
					t.Errorf("%s: Relation(%d, %d) = %v but Relation(%d, %d) = %v", f.name, a.ID, b.ID, r, b.ID, a.ID, m.Relation(b.ID, a.ID))
				}
				if (r == Self) != (a.ID == b.ID) {
					t.Errorf("%s: Relation(%d, %d) = %v", f.name, a.ID, b.ID, r)
				}
				sameCore := a.Package == b.Package && a.Core == b.Core
				if a.ID != b.ID && (r == SMT) != sameCore {
					t.Errorf("%s: Relation(%d, %d) = %v, same core %v", f.name, a.ID, b.ID, r, sameCore)
				}
				if (r == InterSocket) != (a.Package != b.Package) {
					t.Errorf("%s: Relation(%d, %d) = %v, packages %d and %d", f.name, a.ID, b.ID, r, a.Package, b.Package)
				}
			}
		}
		t.Logf("%s: %v", f.name, counts)
	}
}

func TestInstructionCacheDoesNotCount(t *testing.T) {
	// Two cores sharing only an instruction cache (as an AMD Bulldozer
	// module's did) are intra-socket, not shared-cache.
	fsys := with(memTree(oneSocketL3()), "devices/system/cpu/cpu0/cache/index1/shared_cpu_list", "0-1\n")
	fsys = with(fsys, "devices/system/cpu/cpu1/cache/index1/shared_cpu_list", "0-1\n")
	m, err := read(without(fsys, "index3"), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Relation(0, 1); r != IntraSocket {
		t.Errorf("Relation(0, 1) = %v, want intra-socket", r)
	}
	fsys = with(fsys, "devices/system/cpu/cpu1/cache/index1/type", "Unified\n")
	if m, err = read(without(fsys, "index3"), "mem"); err != nil {
		t.Fatal(err)
	}
	if r := m.Relation(0, 1); r != SharedCache {
		t.Errorf("with a unified L1: Relation(0, 1) = %v, want shared-cache", r)
	}
}
