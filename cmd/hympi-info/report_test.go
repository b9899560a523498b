package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/topology"
)

type wantPair struct {
	a, b       int // ranks
	cpuA, cpuB int
	relation   string
	threshold  int
}

// The expectations follow topology's own tests: BindCores placements from
// bind_test.go, relations and default thresholds from relation_test.go.
var fixtureCases = []struct {
	name      string
	args      []string
	binding   []int
	relations []string // relations_present
	pairs     []wantPair
}{
	{
		// Interleaved numbering: package 0 = 0,2,4,6; L2 pairs 0,2 | 4,6 |
		// 1,3 | 5,7.
		name:      "clovertown",
		binding:   []int{0, 2, 4, 6, 1, 3, 5, 7},
		relations: []string{"shared-cache", "intra-socket", "inter-socket"},
		pairs: []wantPair{
			{0, 1, 0, 2, "shared-cache", 32 << 10},
			{0, 2, 0, 4, "intra-socket", 2 << 10},
			{1, 3, 2, 6, "intra-socket", 2 << 10},
			{0, 4, 0, 1, "inter-socket", 1 << 10},
			{3, 7, 6, 7, "inter-socket", 1 << 10},
			{6, 7, 5, 7, "shared-cache", 32 << 10},
		},
	},
	{
		name:      "clovertown",
		args:      []string{"-n", "4"},
		binding:   []int{0, 2, 4, 6},
		relations: []string{"shared-cache", "intra-socket", "inter-socket"},
		pairs: []wantPair{
			{0, 1, 0, 2, "shared-cache", 32 << 10},
			{1, 2, 2, 4, "intra-socket", 2 << 10},
			{2, 3, 4, 6, "shared-cache", 32 << 10},
		},
	},
	{
		// More ranks than CPUs: the binding wraps, and ranks sharing a CPU
		// are "self".
		name:      "clovertown",
		args:      []string{"-n", "10"},
		binding:   []int{0, 2, 4, 6, 1, 3, 5, 7, 0, 2},
		relations: []string{"shared-cache", "intra-socket", "inter-socket"},
		pairs: []wantPair{
			{0, 8, 0, 0, "self", 32 << 10},
			{1, 9, 2, 2, "self", 32 << 10},
			{8, 9, 0, 2, "shared-cache", 32 << 10},
		},
	},
	{
		name:      "onesocket-l3",
		binding:   []int{0, 1, 2, 3},
		relations: []string{"shared-cache"},
		pairs: []wantPair{
			{0, 1, 0, 1, "shared-cache", 32 << 10}, // through the L3 only
			{0, 3, 0, 3, "shared-cache", 32 << 10},
		},
	},
	{
		name:      "onesocket-l3",
		args:      []string{"-n", "1"},
		binding:   []int{0},
		relations: []string{"shared-cache"},
	},
	{
		// cpus n and n+8 are the threads of one core; one L3 per package.
		name:      "twosocket-smt-numa",
		binding:   []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
		relations: []string{"smt", "shared-cache", "inter-socket"},
		pairs: []wantPair{
			{0, 8, 0, 8, "smt", 32 << 10},
			{4, 12, 4, 12, "smt", 32 << 10},
			{0, 1, 0, 1, "shared-cache", 32 << 10},
			{0, 9, 0, 9, "shared-cache", 32 << 10},
			{0, 4, 0, 4, "inter-socket", 1 << 10},
			{3, 15, 3, 15, "inter-socket", 1 << 10},
		},
	},
	{
		name:      "twosocket-smt-numa",
		args:      []string{"-np", "5"},
		binding:   []int{0, 1, 2, 3, 4},
		relations: []string{"smt", "shared-cache", "inter-socket"},
		pairs: []wantPair{
			{3, 4, 3, 4, "inter-socket", 1 << 10},
		},
	},
}

func TestJSONFixtures(t *testing.T) {
	for _, tc := range fixtureCases {
		t.Run(tc.name+strings.Join(tc.args, ""), func(t *testing.T) {
			root := fixture(t, tc.name)
			profile := hermetic(t, root)
			rep := runJSON(t, tc.args...)

			n := len(tc.binding)
			if rep.Ranks != n || !slices.Equal(rep.Binding, tc.binding) {
				t.Errorf("ranks %d, binding %v; want %d, %v", rep.Ranks, rep.Binding, n, tc.binding)
			}
			if len(rep.Pairs) != n*(n-1)/2 {
				t.Errorf("%d pairs, want %d", len(rep.Pairs), n*(n-1)/2)
			}
			checkPairs(t, rep, tc.pairs)
			if !slices.Equal(rep.RelationsPresent, tc.relations) {
				t.Errorf("relations_present %v, want %v", rep.RelationsPresent, tc.relations)
			}
			if rep.ThresholdSource != topology.SourceDefault {
				t.Errorf("threshold_source %q, want default", rep.ThresholdSource)
			}
			for _, r := range topology.Relations() {
				th, ok := rep.Thresholds[r.String()]
				want := thresholdInfo{topology.BaseThreshold(r), topology.SourceDefault, topology.BaseThreshold(r)}
				if !ok || th != want {
					t.Errorf("thresholds[%s] = %+v, want %+v", r, th, want)
				}
			}
			m, err := topology.Read(root)
			if err != nil {
				t.Fatal(err)
			}
			mi := rep.Machine
			if mi.Live || mi.SysfsRoot != root || mi.CPUs != len(m.CPUs) || mi.Packages != len(m.Packages()) ||
				mi.Cores != len(m.Cores()) || mi.NUMANodes != len(m.Nodes) || !slices.Equal(mi.Allowed, m.IDs()) {
				t.Errorf("machine %+v does not describe %s", mi, tc.name)
			}
			if rep.Profile.Path != profile || rep.Profile.Loaded || rep.Profile.Error != "" {
				t.Errorf("profile %+v, want path %s and nothing loaded", rep.Profile, profile)
			}
			if rep.DirectMode != modeAuto || rep.DirectModeSource != fromDefault {
				t.Errorf("direct_mode %q from %q, want auto from default", rep.DirectMode, rep.DirectModeSource)
			}
			checkDirect(t, rep.DirectCopy)
			s := rep.Shm
			if s.Error != "" || s.Ranks != n || s.Channels != n*(n-1) || s.CellsPerChannel < 1 ||
				s.PoolBytesPerChannel != int64(s.CellsPerChannel)*int64(s.CellSize) || s.RegionBytes <= 0 ||
				s.FixedBytes <= 0 || (n > 1 && s.FixedBytes >= s.RegionBytes) || s.RingBytesPerChannel <= 0 ||
				s.ExpectedBytes != s.FixedBytes+int64(s.ExpectedPairs)*s.RingBytesPerChannel ||
				(n > 1 && (s.ExpectedPairs < 1 || s.ExpectedPairs > n*(n-1))) ||
				s.GateBlocks < n || s.GateBlockBytes <= 0 ||
				s.RegionBytes < s.FixedBytes+int64(s.Channels)*s.RingBytesPerChannel+int64(s.GateBlocks)*s.GateBlockBytes {
				t.Errorf("shm %+v", s)
			}
		})
	}
}

func checkPairs(t *testing.T, rep *report, want []wantPair) {
	t.Helper()
	for i, p := range rep.Pairs {
		if p.A >= p.B || p.CPUA != rep.Binding[p.A] || p.CPUB != rep.Binding[p.B] ||
			p.Threshold != rep.Thresholds[p.Relation].Threshold {
			t.Errorf("pair %d inconsistent: %+v", i, p)
		}
		if i > 0 && (rep.Pairs[i-1].A > p.A || rep.Pairs[i-1].A == p.A && rep.Pairs[i-1].B >= p.B) {
			t.Errorf("pairs out of order at %d: %+v after %+v", i, p, rep.Pairs[i-1])
		}
	}
	for _, w := range want {
		i := slices.IndexFunc(rep.Pairs, func(p pairInfo) bool { return p.A == w.a && p.B == w.b })
		if i < 0 {
			t.Errorf("no pair %d,%d", w.a, w.b)
			continue
		}
		got := rep.Pairs[i]
		if got != (pairInfo{w.a, w.b, w.cpuA, w.cpuB, w.relation, w.threshold}) {
			t.Errorf("pair %+v, want %+v", got, w)
		}
	}
}

// checkDirect holds the report to directcopy's own verdict.
func checkDirect(t *testing.T, d directInfo) {
	t.Helper()
	err := directcopy.Available()
	if d.Available != (err == nil) || d.Available != (d.Reason == "") ||
		d.Conclusive != (err == nil || errors.Is(err, directcopy.ErrNotSupported)) {
		t.Errorf("direct_copy %+v, but directcopy.Available() = %v", d, err)
	}
}

func TestThresholdEnvironment(t *testing.T) {
	for _, tc := range []struct{ fixture, env string }{
		{"clovertown", "4096"},
		{"twosocket-smt-numa", "4K"},
		{"onesocket-l3", " 4096\n"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			hermetic(t, fixture(t, tc.fixture))
			t.Setenv(topology.EnvThreshold, tc.env)
			rep := runJSON(t)
			if rep.ThresholdSource != topology.SourceEnvironment || rep.ThresholdEnv != tc.env {
				t.Errorf("threshold_source %q, threshold_env %q", rep.ThresholdSource, rep.ThresholdEnv)
			}
			for _, p := range rep.Pairs {
				if p.Threshold != 4096 {
					t.Errorf("pair %+v: threshold %d, want 4096", p, p.Threshold)
				}
			}
			for r, th := range rep.Thresholds {
				if th.Threshold != 4096 || th.Source != topology.SourceEnvironment {
					t.Errorf("thresholds[%s] = %+v", r, th)
				}
			}
		})
	}
}

func TestProfile(t *testing.T) {
	clover := fixture(t, "clovertown")
	m, err := topology.Read(clover)
	if err != nil {
		t.Fatal(err)
	}
	other, err := topology.Read(fixture(t, "twosocket-smt-numa"))
	if err != nil {
		t.Fatal(err)
	}
	tuned := map[topology.Relation]int{topology.SharedCache: 8 << 10, topology.InterSocket: 4 << 10}

	t.Run("matching", func(t *testing.T) {
		path := hermetic(t, clover)
		if err := topology.SaveProfile(path, topology.NewProfile(m, tuned)); err != nil {
			t.Fatal(err)
		}
		rep := runJSON(t)
		if rep.ThresholdSource != topology.SourceProfile {
			t.Errorf("threshold_source %q, want profile", rep.ThresholdSource)
		}
		if p := rep.Profile; p.Path != path || !p.Loaded || !p.Matches || p.Created == "" || p.Error != "" {
			t.Errorf("profile %+v", p)
		}
		// Tuned relations from the profile, the one it lacks from the
		// defaults.
		want := map[string]thresholdInfo{
			"shared-cache": {8 << 10, topology.SourceProfile, 32 << 10},
			"intra-socket": {2 << 10, topology.SourceDefault, 2 << 10},
			"inter-socket": {4 << 10, topology.SourceProfile, 1 << 10},
		}
		for r, w := range want {
			if got := rep.Thresholds[r]; got != w {
				t.Errorf("thresholds[%s] = %+v, want %+v", r, got, w)
			}
		}
		checkPairs(t, rep, []wantPair{
			{0, 1, 0, 2, "shared-cache", 8 << 10},
			{0, 2, 0, 4, "intra-socket", 2 << 10},
			{0, 4, 0, 1, "inter-socket", 4 << 10},
		})
		// The environment still wins over the profile.
		t.Setenv(topology.EnvThreshold, "100")
		if rep := runJSON(t); rep.ThresholdSource != topology.SourceEnvironment || rep.Pairs[0].Threshold != 100 {
			t.Errorf("with HYMPI_THRESHOLD: source %q, pair %+v", rep.ThresholdSource, rep.Pairs[0])
		}
	})

	t.Run("other machine", func(t *testing.T) {
		path := hermetic(t, clover)
		if err := topology.SaveProfile(path, topology.NewProfile(other, tuned)); err != nil {
			t.Fatal(err)
		}
		rep := runJSON(t)
		if rep.ThresholdSource != topology.SourceDefault || !rep.Profile.Loaded || rep.Profile.Matches {
			t.Errorf("threshold_source %q, profile %+v", rep.ThresholdSource, rep.Profile)
		}
		checkPairs(t, rep, []wantPair{{0, 1, 0, 2, "shared-cache", 32 << 10}})
	})

	t.Run("corrupt", func(t *testing.T) {
		path := hermetic(t, clover)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
			t.Fatal(err)
		}
		rep := runJSON(t)
		if rep.ThresholdSource != topology.SourceDefault || rep.Profile.Loaded || rep.Profile.Error == "" {
			t.Errorf("threshold_source %q, profile %+v", rep.ThresholdSource, rep.Profile)
		}
	})

	t.Run("only relations the pairs lack", func(t *testing.T) {
		// A profile for intra-socket only, and two ranks sharing an L2:
		// nothing the job uses comes from the profile.
		path := hermetic(t, clover)
		p := topology.NewProfile(m, map[topology.Relation]int{topology.IntraSocket: 3000})
		if err := topology.SaveProfile(path, p); err != nil {
			t.Fatal(err)
		}
		if rep := runJSON(t, "-n", "2"); rep.ThresholdSource != topology.SourceDefault {
			t.Errorf("-n 2: threshold_source %q, want default", rep.ThresholdSource)
		}
		if rep := runJSON(t, "-n", "3"); rep.ThresholdSource != topology.SourceProfile {
			t.Errorf("-n 3: threshold_source %q, want profile", rep.ThresholdSource)
		}
	})
}

func TestDirectMode(t *testing.T) {
	for _, mode := range []string{modeAuto, modeOff, modeAlways} {
		hermetic(t, fixture(t, "onesocket-l3"))
		t.Setenv(envDirect, mode)
		if rep := runJSON(t); rep.DirectMode != mode || rep.DirectModeSource != fromEnv {
			t.Errorf("HYMPI_DIRECT=%s: direct_mode %q from %q", mode, rep.DirectMode, rep.DirectModeSource)
		}
	}
}

// TestBadEnvironment: values mpi.Init would refuse are refused here too,
// naming the variable, rather than reported as if they applied.
func TestBadEnvironment(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{topology.EnvThreshold, "lots"},
		{topology.EnvThreshold, "-5"},
		{envDirect, "sometimes"},
		{envDirect, "OFF"},
		{"HYMPI_CELL_SIZE", "100"},
		{"HYMPI_SHM_BUDGET", "-1"},
		{"HYMPI_SKEW", "maybe"},
		{"HYMPI_ASYNC_PROGRESS", "yes"},
	} {
		hermetic(t, fixture(t, "onesocket-l3"))
		t.Setenv(tc.name, tc.value)
		for _, args := range [][]string{nil, {"--json"}} {
			code, out, errs := runIn(t, args...)
			if code != exitFailure || out != "" || !strings.Contains(errs, tc.name) {
				t.Errorf("%s=%q hympi-info %q: exit %d, stdout %q, stderr %q", tc.name, tc.value, args, code, out, errs)
			}
		}
	}
}

func TestBadSysfs(t *testing.T) {
	hermetic(t, t.TempDir()) // no devices/system/cpu at all
	code, out, errs := runIn(t, "--json")
	if code != exitFailure || out != "" || !strings.Contains(errs, "topology") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestLive runs against this machine: the binding covers the allowed CPUs
// (at least two ranks), and the report agrees with directcopy.
func TestLive(t *testing.T) {
	hermetic(t, "")
	rep := runJSON(t)
	if !rep.Machine.Live || len(rep.Machine.Allowed) == 0 {
		t.Fatalf("machine %+v", rep.Machine)
	}
	n := max(2, len(rep.Machine.Allowed))
	if rep.Ranks != n || len(rep.Binding) != n || len(rep.Pairs) != n*(n-1)/2 {
		t.Errorf("ranks %d, binding %v, %d pairs; want %d ranks", rep.Ranks, rep.Binding, len(rep.Pairs), n)
	}
	for _, cpu := range rep.Binding {
		if !slices.Contains(rep.Machine.Allowed, cpu) {
			t.Errorf("binding %v uses cpu %d outside the allowed %v", rep.Binding, cpu, rep.Machine.Allowed)
		}
	}
	checkDirect(t, rep.DirectCopy)
	checkPairs(t, rep, nil)

	// HYMPI_SYSFS=/sys is the live system too.
	t.Setenv(topology.EnvSysfs, "/sys/")
	if rep := runJSON(t); !rep.Machine.Live {
		t.Errorf("HYMPI_SYSFS=/sys/ not treated as live: %+v", rep.Machine)
	}
}

// TestDirectCopyRefused uses directcopy's fault-injection hook, which is read
// once at start, so hympi-info runs as a child process.
func TestDirectCopyRefused(t *testing.T) {
	for _, fail := range []string{"eperm", "enosys"} {
		t.Run(fail, func(t *testing.T) {
			hermetic(t, fixture(t, "onesocket-l3"))
			code, out, errs := runMain(t, []string{directcopy.FailEnv + "=" + fail}, "--json")
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			d := decode(t, out).DirectCopy
			if d.Available || d.Reason == "" || !d.Conclusive {
				t.Errorf("direct_copy %+v, want a conclusive no with a reason", d)
			}
		})
	}
}
