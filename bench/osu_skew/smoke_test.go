package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hympi/hympi/bench/osu_skew/report"
)

// TestSmoke builds hympirun and osu_skew and runs a short sweep under
// "hympirun -n 2" in each protocol mode: the rows must come out complete,
// one per (S, c2), with the counters of the mode.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches jobs")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the benchmark with")
	}
	dir := t.TempDir()
	build := exec.Command(gobin, "build", "-o", dir+string(filepath.Separator),
		"github.com/hympi/hympi/cmd/hympirun", "github.com/hympi/hympi/bench/osu_skew")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, mode := range []string{"off", "auto", "always"} {
		args := []string{"-n", "2", "--timeout", "60s", "-x", "HYMPI_DIRECT=" + mode,
			filepath.Join(dir, "osu_skew"), "-S", "4K,64K", "-n", "4", "-c2", "0,20", "-i", "3", "-x", "1"}
		var stdout, stderr bytes.Buffer
		run := exec.Command(filepath.Join(dir, "hympirun"), args...)
		run.Stdout, run.Stderr = &stdout, &stderr
		if err := run.Run(); err != nil {
			t.Fatalf("hympirun %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
		}
		rows, err := report.Parse(&stdout)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		type key struct {
			s  int
			c2 float64
		}
		var got []key
		for _, r := range rows {
			got = append(got, key{r.S, r.C2})
			if r.N != 4 || r.C1 != 1 || r.Producer <= 0 || r.TwoCopy <= 0 || r.Direct <= 0 {
				t.Errorf("%s: bad row %+v", mode, r)
			}
			// 4 iterations of 4 messages of S bytes, plus small control
			// messages (barrier) that always go eager.
			if r.Eager+r.DirectMsgs < 16 {
				t.Errorf("%s: row %+v counts %d messages, want ≥ 16", mode, r, r.Eager+r.DirectMsgs)
			}
			if mode == "off" && r.DirectMsgs != 0 {
				t.Errorf("off: %d direct messages", r.DirectMsgs)
			}
			if mode == "always" && r.DirectMsgs < 16 {
				t.Errorf("always: %d direct messages, want ≥ 16", r.DirectMsgs)
			}
		}
		want := []key{{4096, 0}, {4096, 20}, {65536, 0}, {65536, 20}}
		if len(got) != len(want) {
			t.Fatalf("%s: rows %v, want %v", mode, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: rows %v, want %v", mode, got, want)
				break
			}
		}
	}

	// Wrong job size: one error line, from rank 0.
	var stderr bytes.Buffer
	run := exec.Command(filepath.Join(dir, "hympirun"), "-n", "3", "--timeout", "60s", filepath.Join(dir, "osu_skew"))
	run.Stderr = &stderr
	if err := run.Run(); err == nil {
		t.Error("osu_skew with 3 ranks succeeded")
	}
	if got := bytes.Count(stderr.Bytes(), []byte("needs exactly 2 ranks")); got != 1 {
		t.Errorf("3 ranks: %d size errors printed, want 1:\n%s", got, stderr.String())
	}
}
