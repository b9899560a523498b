package main

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hympi/hympi/internal/sysfsfixture"
	"github.com/hympi/hympi/topology"
)

// useBigTree makes hympi-info read a generated two-socket machine, from
// memory: written out, its thousands of files are slow to create and
// remove on a busy disk.
func useBigTree(t *testing.T, name string) {
	t.Helper()
	hermetic(t, "")
	m, err := topology.ReadFS(sysfsfixture.All()[name].FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	readMachine = func() (*topology.Machine, bool, error) { return m, false, nil }
	t.Cleanup(func() { readMachine = machine })
}

// TestBigMachineJSON: hympi-info --json on the generated servers reports
// their L3 domains, NUMA nodes and CPU pairs by relation, and places and
// classifies ranks as hympirun and the engine would.
func TestBigMachineJSON(t *testing.T) {
	c2 := func(n int) int { return n * (n - 1) / 2 }
	for _, tc := range []struct {
		fixture  string
		args     []string
		l3, cpus int // L3 domains, CPUs in each
		nodes    int
		cpuPairs map[string]int
		mapBy    string
		bindTo   string
		binding  []int
		boundTo  []string
		pairs    map[string]int
	}{
		{"epyc-2s-128c-smt", []string{"-n", "4", "--map-by", "l3cache"}, 16, 16, 8,
			map[string]int{"smt": 128, "shared-cache": 16 * (c2(16) - 8), "intra-socket": 2 * (c2(128) - 8*c2(16)), "inter-socket": 128 * 128},
			"l3cache", "l3cache", []int{0, 8, 16, 24}, []string{"0-7,128-135", "8-15,136-143", "16-23,144-151", "24-31,152-159"},
			map[string]int{"intra-socket": 6}},
		// Bound to NUMA nodes of two L3s each: ranks of one node are not
		// sure to share an L3.
		{"epyc-2s-128c-smt", []string{"-n", "10", "--map-by", "numa"}, 16, 16, 8, nil,
			"numa", "numa", []int{0, 16, 32, 48, 64, 80, 96, 112, 1, 17}, nil,
			// 6 ranks on socket 0 (two in node 0, two in node 1), 4 on
			// socket 1.
			map[string]int{"intra-socket": c2(6) + c2(4), "inter-socket": 6 * 4}},
		{"epyc-2s-128c", []string{"-n", "3", "--map-by", "socket", "--bind-to", "core"}, 16, 8, 8,
			map[string]int{"shared-cache": 16 * c2(8), "intra-socket": 2 * (c2(64) - 8*c2(8)), "inter-socket": 64 * 64},
			"socket", "core", []int{0, 64, 1}, []string{"0", "64", "1"},
			map[string]int{"shared-cache": 1, "inter-socket": 2}},
		{"xeon-2s-112c-smt", []string{"-n", "3", "--map-by", "hwthread"}, 2, 112, 2,
			map[string]int{"smt": 112, "shared-cache": 2 * (c2(112) - 56), "inter-socket": 112 * 112},
			"hwthread", "hwthread", []int{0, 112, 1}, []string{"0", "112", "1"},
			map[string]int{"smt": 1, "shared-cache": 2}},
		{"xeon-2s-112c-smt", []string{"-n", "2", "--bind-to", "none"}, 2, 112, 2, nil,
			"core", "none", []int{0, 1}, []string{"", ""},
			map[string]int{"inter-socket": 1}},
	} {
		t.Run(tc.fixture+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			useBigTree(t, tc.fixture)
			rep := runJSON(t, tc.args...)
			mi := rep.Machine
			if len(mi.L3Domains) != tc.l3 || len(mi.Nodes) != tc.nodes {
				t.Errorf("%d L3 domains, %d nodes; want %d, %d", len(mi.L3Domains), len(mi.Nodes), tc.l3, tc.nodes)
			}
			for _, d := range mi.L3Domains {
				if len(d) != tc.cpus {
					t.Errorf("L3 domain %s: %d CPUs, want %d", topology.FormatCPUList(d), len(d), tc.cpus)
				}
			}
			if tc.cpuPairs != nil && !maps.Equal(mi.CPUPairs, tc.cpuPairs) {
				t.Errorf("cpu_pairs %v, want %v", mi.CPUPairs, tc.cpuPairs)
			}
			if rep.MapBy != tc.mapBy || rep.BindTo != tc.bindTo {
				t.Errorf("map_by %q bind_to %q, want %q %q", rep.MapBy, rep.BindTo, tc.mapBy, tc.bindTo)
			}
			if !slices.Equal(rep.Binding, tc.binding) {
				t.Errorf("binding %v, want %v", rep.Binding, tc.binding)
			}
			if tc.boundTo != nil && !slices.Equal(rep.BoundTo, tc.boundTo) {
				t.Errorf("bound_to %q, want %q", rep.BoundTo, tc.boundTo)
			}
			if !maps.Equal(rep.PairRelations, tc.pairs) {
				t.Errorf("pair_relations %v, want %v", rep.PairRelations, tc.pairs)
			}
			counted := map[string]int{}
			for _, p := range rep.Pairs {
				counted[p.Relation]++
			}
			if !maps.Equal(counted, rep.PairRelations) {
				t.Errorf("pairs by relation %v, pair_relations %v", counted, rep.PairRelations)
			}
		})
	}
}

// TestBigMachineText: the text report names the domains and summarises a
// large job's pairs instead of listing them.
func TestBigMachineText(t *testing.T) {
	useBigTree(t, "epyc-2s-128c-smt")
	code, out, errs := runIn(t, "-n", "256", "--map-by", "l3cache", "--bind-to", "hwthread")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, pat := range []string{
		`  l3cache +16 × 16 CPUs +0-7,128-135 \| 8-15,136-143 \| .* \| 120-127,248-255`,
		`  numa +8 × 32 CPUs +0: 0-15,128-143 \| 1: 16-31,144-159 \| .* \| 7: 112-127,240-255`,
		`CPU pairs by relation \(allowed cpus\): smt 128, shared-cache 1792, intra-socket 14336, inter-socket 16384`,
		`binding of 256 ranks \(hympirun --map-by l3cache --bind-to hwthread, allowed cpus 0-255\):`,
		`  rank 1 → cpu 8`,
		`  rank 16 → cpu 1`,
		`  rank 255 → cpu 255`,
		`rank pairs by relation: smt 128, shared-cache 1792, intra-socket 14336, inter-socket 16384`,
		`\(32640 rank pairs: hympi-info --json lists each\)`,
	} {
		if !regexp.MustCompile("(?m)^" + pat + "$").MatchString(out) {
			t.Errorf("no line matches %q in:\n%s", pat, out)
		}
	}
	if strings.Contains(out, "rank a") {
		t.Error("the 32640 pairs are listed one by one")
	}
}

// TestPlacementFlags: --map-by and --bind-to take hympirun's values and
// nothing else.
func TestPlacementFlags(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		mapBy, bindTo string
		err           string
	}{
		{[]string{"--map-by", "package"}, "socket", "", ""},
		{[]string{"--map-by=slot", "--bind-to", "l3cache"}, "slot", "l3cache", ""},
		{[]string{"--bind-to", "none"}, "", "none", ""},
		{[]string{"--map-by", "board"}, "", "", `--map-by "board"`},
		{[]string{"--bind-to", "slot"}, "", "", `--bind-to "slot"`},
		{[]string{"--tune", "--map-by", "core"}, "", "", "no meaning with --tune"},
	} {
		o, err := parseArgs(tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseArgs(%q): %v, want an error containing %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("parseArgs(%q): %v", tc.args, err)
		case o.mapBy != tc.mapBy || o.bindTo != tc.bindTo:
			t.Errorf("parseArgs(%q): map %q bind %q, want %q %q", tc.args, o.mapBy, o.bindTo, tc.mapBy, tc.bindTo)
		}
	}
}
