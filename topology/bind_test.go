package topology

import (
	"slices"
	"testing"
)

func TestBindCores(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		allowed []int
		n       int
		want    []int
	}{
		// Socket 0's cores first, L2 partners adjacent (0,2 then 4,6),
		// then socket 1, then wrap.
		{"clovertown", nil, 1, []int{0}},
		{"clovertown", nil, 2, []int{0, 2}},
		{"clovertown", nil, 4, []int{0, 2, 4, 6}},
		{"clovertown", nil, 8, []int{0, 2, 4, 6, 1, 3, 5, 7}},
		{"clovertown", nil, 10, []int{0, 2, 4, 6, 1, 3, 5, 7, 0, 2}},
		{"clovertown", []int{1, 2, 3, 4}, 4, []int{2, 4, 1, 3}},
		{"clovertown", []int{7, 6, 5, 4, 3, 2, 1, 0}, 3, []int{0, 2, 4}},

		{"onesocket-l3", nil, 2, []int{0, 1}},
		{"onesocket-l3", nil, 6, []int{0, 1, 2, 3, 0, 1}},
		{"onesocket-l3", []int{3, 1}, 3, []int{1, 3, 1}},

		// One thread per core, socket 0 first; SMT siblings only after
		// every core has a rank.
		{"twosocket-smt-numa", nil, 4, []int{0, 1, 2, 3}},
		{"twosocket-smt-numa", nil, 5, []int{0, 1, 2, 3, 4}},
		{"twosocket-smt-numa", nil, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{"twosocket-smt-numa", nil, 12, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"twosocket-smt-numa", nil, 16, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{"twosocket-smt-numa", nil, 18, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1}},
		{"twosocket-smt-numa", []int{4, 5, 12, 13}, 4, []int{4, 5, 12, 13}},
		{"twosocket-smt-numa", []int{8, 9, 10}, 3, []int{8, 9, 10}}, // a core's second thread alone
		{"twosocket-smt-numa", []int{0, 8}, 3, []int{0, 8, 0}},
		{"twosocket-smt-numa", []int{12, 0, 8, 4}, 4, []int{0, 4, 8, 12}},

		// CPUs the tree does not know come last, each its own core.
		{"onesocket-l3", []int{40, 2, 41}, 4, []int{2, 40, 41, 2}},
		{"onesocket-l3", []int{40}, 2, []int{40, 40}},

		{"onesocket-l3", nil, 0, nil},
		{"onesocket-l3", nil, -1, nil},
	} {
		m := readFixture(t, tc.fixture)
		got := BindCores(m, tc.allowed, tc.n)
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: BindCores(allowed %v, n %d) = %v, want %v", tc.fixture, tc.allowed, tc.n, got, tc.want)
		}
		if p := Place(m, tc.allowed, tc.n, DomainCore, BindHWThread); !slices.Equal(p.CPUs, got) {
			t.Errorf("%s: Place(core, hwthread) = %v, BindCores = %v", tc.fixture, p.CPUs, got)
		}
		if p := Place(m, tc.allowed, tc.n, DomainCore, BindNone); p.Sets != nil || !slices.Equal(p.CPUs, got) {
			t.Errorf("%s: Place(core, none) = %+v, want CPUs %v and no sets", tc.fixture, p, got)
		}
	}
}

// TestBindCoresProperties checks, on every fixture and every n up to twice
// the CPU count: ranks up to the core count are on distinct cores, up to
// the CPU count on distinct CPUs, and beyond that the placement repeats.
func TestBindCoresProperties(t *testing.T) {
	for _, f := range fixtures {
		m := readFixture(t, f.name)
		cores, cpus := len(m.Cores()), len(m.CPUs)
		for n := 1; n <= 2*cpus; n++ {
			got := BindCores(m, nil, n)
			if len(got) != n {
				t.Fatalf("%s: %d ranks got %d CPUs", f.name, n, len(got))
			}
			seenCore, seenCPU := map[int]bool{}, map[int]bool{}
			for i, cpu := range got {
				c := m.Lookup(cpu)
				if c == nil {
					t.Fatalf("%s: rank %d on unknown cpu %d", f.name, i, cpu)
				}
				core := c.Siblings[0]
				if i < cores && seenCore[core] {
					t.Errorf("%s n=%d: rank %d shares core %v with an earlier rank", f.name, n, i, c.Siblings)
				}
				if i < cpus && seenCPU[cpu] {
					t.Errorf("%s n=%d: rank %d reuses cpu %d", f.name, n, i, cpu)
				}
				if i >= cpus && cpu != got[i-cpus] {
					t.Errorf("%s n=%d: rank %d on %d, want the wrap-around %d", f.name, n, i, cpu, got[i-cpus])
				}
				seenCore[core], seenCPU[cpu] = true, true
			}
			// Consecutive ranks within the first socket's worth share the
			// package.
			perSocket := cores / len(m.Packages())
			for i := 1; i < min(n, perSocket); i++ {
				if r := m.Relation(got[i-1], got[i]); r == InterSocket {
					t.Errorf("%s n=%d: ranks %d and %d are on different sockets", f.name, n, i-1, i)
				}
			}
		}
	}
}

func TestParsePolicies(t *testing.T) {
	for in, want := range map[string]BindPolicy{"hwthread": BindHWThread, "core": BindCore, "l3cache": BindL3,
		"numa": BindNUMA, "socket": BindSocket, "package": BindSocket, "none": BindNone} {
		if got, err := ParseBindPolicy(in); err != nil || got != want {
			t.Errorf("ParseBindPolicy(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "Core", "slot", "l2cache", "board", "core:overload-allowed"} {
		if got, err := ParseBindPolicy(in); err == nil {
			t.Errorf("ParseBindPolicy(%q) = %q, want an error", in, got)
		}
	}
	for in, want := range map[string]string{"hwthread": DomainHWThread, "core": DomainCore, "slot": MapSlot,
		"l3cache": DomainL3, "numa": DomainNUMA, "socket": DomainSocket, "package": DomainSocket} {
		if got, err := ParseMapPolicy(in); err != nil || got != want {
			t.Errorf("ParseMapPolicy(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "none", "node", "core:PE=2", "ppr:2:socket"} {
		if got, err := ParseMapPolicy(in); err == nil {
			t.Errorf("ParseMapPolicy(%q) = %q, want an error", in, got)
		}
	}
	// Open MPI binds to the object it mapped by; slot and core bind to a
	// core.
	for mapBy, want := range map[string]BindPolicy{"slot": BindCore, "core": BindCore, "hwthread": BindHWThread,
		"l3cache": BindL3, "numa": BindNUMA, "socket": BindSocket} {
		if got := DefaultBinding(mapBy); got != want {
			t.Errorf("DefaultBinding(%q) = %q, want %q", mapBy, got, want)
		}
	}
}
