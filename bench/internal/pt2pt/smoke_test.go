package pt2pt

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hympi/hympi/bench/internal/osu"
)

// TestSmoke builds hympirun and the benchmark commands and runs each
// under "hympirun -n 2" with a few iterations (the -benchtime=1x of these
// launcher-driven benchmarks): it keeps them building, running to the end
// and printing a table that osutable can read.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches jobs")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the benchmarks with")
	}
	dir := t.TempDir()
	build := exec.Command(gobin, "build", "-o", dir+string(filepath.Separator),
		"github.com/hympi/hympi/cmd/hympirun",
		"github.com/hympi/hympi/bench/osu_latency",
		"github.com/hympi/hympi/bench/osu_bw")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	tests := []struct {
		cmd       string
		args      []string
		kind      osu.Kind
		wantSizes []int
	}{
		{"osu_latency", []string{"-m", "0:64", "-i", "20", "-x", "2"}, osu.Latency, []int{0, 1, 2, 4, 8, 16, 32, 64}},
		{"osu_latency", []string{"-m", "8192:65536", "-i", "5", "-x", "1", "-reps", "3"}, osu.Latency, []int{8192, 16384, 32768, 65536}},
		{"osu_bw", []string{"-m", "1:4096", "-i", "3", "-x", "1", "-W", "8"}, osu.Bandwidth, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}},
		{"osu_bw", []string{"-m", "1048576:1048576", "-i", "2", "-x", "1"}, osu.Bandwidth, []int{1 << 20}},
	}
	for _, tt := range tests {
		args := append([]string{"-n", "2", "--timeout", "60s", filepath.Join(dir, tt.cmd)}, tt.args...)
		var stdout, stderr bytes.Buffer
		run := exec.Command(filepath.Join(dir, "hympirun"), args...)
		run.Stdout, run.Stderr = &stdout, &stderr
		if err := run.Run(); err != nil {
			t.Errorf("hympirun %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
			continue
		}
		res, err := osu.Parse(&stdout)
		if err != nil {
			t.Errorf("%s %v: %v", tt.cmd, tt.args, err)
			continue
		}
		var sizes []int
		for _, r := range res.Rows {
			sizes = append(sizes, r.Size)
			if r.Value <= 0 && !(tt.kind == osu.Bandwidth && r.Size == 0) {
				t.Errorf("%s %v: size %d: value %v", tt.cmd, tt.args, r.Size, r.Value)
			}
		}
		if res.Kind != tt.kind || !slices.Equal(sizes, tt.wantSizes) {
			t.Errorf("%s %v: kind %v sizes %v, want %v %v", tt.cmd, tt.args, res.Kind, sizes, tt.kind, tt.wantSizes)
		}
	}

	// A job of the wrong size fails cleanly: error from rank 0, exit 1.
	var stderr bytes.Buffer
	run := exec.Command(filepath.Join(dir, "hympirun"), "-n", "3", "--timeout", "60s", filepath.Join(dir, "osu_latency"))
	run.Stderr = &stderr
	if err := run.Run(); err == nil {
		t.Error("osu_latency with 3 ranks succeeded")
	}
	if got := bytes.Count(stderr.Bytes(), []byte("needs exactly 2 ranks")); got != 1 {
		t.Errorf("3 ranks: %d size errors printed, want 1:\n%s", got, stderr.String())
	}
}
