package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestChaosSlice is the slice of make chaos that make test runs: with a
// fixed seed, every process fault once and a hostile write into each
// structure that must never hang (header, rank blocks, doorbells,
// summaries, direct bits, cells), 4 ranks.
func TestChaosSlice(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	cfg := config{hympirun: filepath.Join(dir, "hympirun"), soak: filepath.Join(dir, "soak"), ranks: 4}
	for out, pkg := range map[string]string{cfg.hympirun: "../../cmd/hympirun", cfg.soak: "../soak"} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	const seed = 11
	var results []result
	for i := range faults {
		results = append(results, runTrial(cfg, seed, i, "faults"))
	}
	for i, h := range hostile {
		if !mayHang[h] {
			results = append(results, runTrial(cfg, seed, i, "hostile"))
		}
	}
	for _, r := range results {
		if r.failure != "" {
			t.Errorf("trial %d %s: %s: %s\n%s", r.trial, r.what, r.outcome, r.failure, indent(r.detail))
		} else {
			t.Logf("trial %d %s: %s", r.trial, r.what, r.outcome)
		}
	}
	if !summarize(results, seed) {
		t.Fail()
	}
}
