package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/topology"
)

// liveTunable skips unless --tune can measure here: direct copy works and
// this process may run on two CPUs. It returns the relations --tune will
// measure.
func liveTunable(t *testing.T) (*topology.Machine, []topology.Relation) {
	t.Helper()
	if err := directcopy.Available(); err != nil {
		// CI sets HYMPI_REQUIRE_CMA=1 where direct copy works, so that a
		// wrong "no" from the probe fails here instead of skipping.
		if os.Getenv("HYMPI_REQUIRE_CMA") == "1" {
			t.Fatalf("HYMPI_REQUIRE_CMA=1 but direct copy is unavailable: %v", err)
		}
		t.Skipf("direct copy unavailable here: %v", err)
	}
	m, err := topology.Default()
	if err != nil {
		t.Skipf("no topology: %v", err)
	}
	rels, _ := presentRelations(m, allowedCPUs(m, true))
	if len(rels) == 0 {
		t.Skip("this process may run on one CPU only")
	}
	return m, rels
}

// TestTune runs --tune on this machine with two small sizes, in a child
// process (calibration pins threads to CPUs), and reads the profile back.
func TestTune(t *testing.T) {
	path := hermetic(t, "")
	m, rels := liveTunable(t)
	// A previous profile of this machine: its entry for a relation --tune
	// never measures (self) must survive, the others be replaced.
	old := topology.NewProfile(m, map[topology.Relation]int{topology.Self: 12345, rels[0]: 7})
	if err := topology.SaveProfile(path, old); err != nil {
		t.Fatal(err)
	}

	code, out, errs := runMain(t, nil, "--tune", "-sizes", "1K,64K")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	t.Logf("hympi-info --tune -sizes 1K,64K:\n%s", out)
	p, err := topology.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !topology.NewThresholds(m).Usable(p) {
		t.Errorf("saved profile's fingerprint %+v does not match this machine's %+v", p.Fingerprint, m.Fingerprint())
	}
	if len(p.Thresholds) != len(rels)+1 || p.Thresholds[topology.Self] != 12345 {
		t.Errorf("profile thresholds %v, want %v measured and self kept", p.Thresholds, rels)
	}
	for _, r := range rels {
		// What calib.Crossover makes of noisy timings is its business; the
		// profile must hold its answer, and the output must say it.
		n, ok := p.Thresholds[r]
		if !ok || n < 0 || !strings.Contains(out, "  crossover: "+fmtBytes(int64(n))+" (default") {
			t.Errorf("profile threshold for %s: %d, %v", r, n, ok)
		}
		header := regexp.MustCompile(`(?m)^` + r.String() + ` \(cpu \d+ ↔ cpu \d+\), one-way latency, median:$`)
		if !header.MatchString(out) {
			t.Errorf("no measurement header for %s", r)
		}
	}
	for _, pat := range []string{
		`(?m)^ +size +eager µs +direct µs +faster$`,
		`(?m)^ +1 KiB +[\d.]+ +[\d.]+ +(eager|direct)$`,
		`(?m)^ +64 KiB +[\d.]+ +[\d.]+ +(eager|direct)$`,
		`(?m)^  crossover: \S+ \S+ \(default \S+ \S+\), measured in [\d.]+s$`,
		`(?m)^thresholds saved to ` + regexp.QuoteMeta(path) + `:$`,
		`(?m)^  self +12345 B +32 KiB  \(kept from the previous profile: not measured this time\)$`,
	} {
		if !regexp.MustCompile(pat).MatchString(out) {
			t.Errorf("output lacks %q", pat)
		}
	}

	// Every later report on this machine uses it.
	rep := runJSON(t)
	if rep.ThresholdSource != topology.SourceProfile || !rep.Profile.Matches {
		t.Errorf("after --tune: threshold_source %q, profile %+v", rep.ThresholdSource, rep.Profile)
	}
	for _, r := range rels {
		if th := rep.Thresholds[r.String()]; th.Source != topology.SourceProfile || th.Threshold != p.Thresholds[r] {
			t.Errorf("after --tune: thresholds[%s] = %+v, profile says %d", r, th, p.Thresholds[r])
		}
	}
}

// TestTuneRefused: --tune measures nothing and saves nothing where its
// measurements could not be real or meaningful.
func TestTuneRefused(t *testing.T) {
	t.Run("fixture tree", func(t *testing.T) {
		root := fixture(t, "clovertown")
		path := hermetic(t, root)
		code, out, errs := runIn(t, "--tune", "-sizes", "1K")
		if code != exitFailure || out != "" || !strings.Contains(errs, "HYMPI_SYSFS="+root) {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("profile written: %v", err)
		}
	})
	for _, fail := range []string{"eperm", "enosys"} {
		t.Run("direct copy "+fail, func(t *testing.T) {
			path := hermetic(t, "")
			code, out, errs := runMain(t, []string{directcopy.FailEnv + "=" + fail}, "--tune", "-sizes", "1K")
			if code != exitFailure || out != "" ||
				!strings.Contains(errs, "direct copy is unavailable here") || !strings.Contains(errs, "no profile saved") {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
			if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
				t.Errorf("profile directory created: %v", err)
			}
		})
	}
}
