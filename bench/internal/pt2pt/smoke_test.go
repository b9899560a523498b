package pt2pt

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hympi/hympi/bench/internal/osu"
)

// TestSmoke builds hympirun and the benchmark commands and runs each
// under hympirun with a few iterations (the -benchtime=1x of these
// launcher-driven benchmarks), under both buffer policies and the forced
// protocols: it keeps them building, running to the end and printing a
// table that osutable can read.
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
		"github.com/hympi/hympi/bench/osu_bw",
		"github.com/hympi/hympi/bench/osu_bibw",
		"github.com/hympi/hympi/bench/osu_mbw_mr")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// Up to 64 KiB, so that the hybrid's default mode sends some messages
	// by direct copy too; fresh pools are kept small so the test stays fast.
	upTo64K := sizes(1, 65536)
	fresh := []string{"-buffers", "fresh", "-pool", "2"}
	tests := []struct {
		cmd       string
		n         int
		env       string // HYMPI_DIRECT, or "" for the default
		args      []string
		kind      osu.Kind
		wantSizes []int
	}{
		{"osu_latency", 2, "", []string{"-m", "0:64", "-i", "20", "-x", "2"}, osu.Latency, sizes(0, 64)},
		{"osu_latency", 2, "", []string{"-m", "8192:65536", "-i", "5", "-x", "1", "-reps", "3"}, osu.Latency, sizes(8192, 65536)},
		{"osu_latency", 2, "", append([]string{"-m", "0:65536", "-i", "3", "-x", "1"}, fresh...), osu.Latency, sizes(0, 65536)},
		{"osu_latency", 2, "always", []string{"-m", "0:4096", "-i", "3", "-x", "1"}, osu.Latency, sizes(0, 4096)},
		{"osu_bw", 2, "", []string{"-m", "1:4096", "-i", "3", "-x", "1", "-W", "8"}, osu.Bandwidth, sizes(1, 4096)},
		{"osu_bw", 2, "", []string{"-m", "1048576:1048576", "-i", "2", "-x", "1"}, osu.Bandwidth, []int{1 << 20}},
		{"osu_bw", 2, "", append([]string{"-m", "1:65536", "-i", "2", "-x", "1", "-W", "8"}, fresh...), osu.Bandwidth, upTo64K},
		{"osu_bw", 2, "off", []string{"-m", "1:65536", "-i", "2", "-x", "1", "-W", "4"}, osu.Bandwidth, upTo64K},
		{"osu_bibw", 2, "", []string{"-m", "1:65536", "-i", "2", "-x", "1", "-W", "8"}, osu.Bandwidth, upTo64K},
		{"osu_bibw", 2, "", append([]string{"-m", "1:65536", "-i", "2", "-x", "1", "-W", "8", "-reps", "2"}, fresh...), osu.Bandwidth, upTo64K},
		{"osu_bibw", 2, "always", []string{"-m", "1:65536", "-i", "2", "-x", "0", "-W", "4"}, osu.Bandwidth, upTo64K},
		{"osu_bibw", 2, "off", []string{"-m", "1:65536", "-i", "2", "-x", "0", "-W", "4"}, osu.Bandwidth, upTo64K},
		{"osu_mbw_mr", 4, "", []string{"-m", "1:65536", "-i", "2", "-x", "1", "-W", "8"}, osu.Bandwidth, upTo64K},
		{"osu_mbw_mr", 4, "", append([]string{"-m", "1:65536", "-i", "2", "-x", "1", "-W", "8", "-reps", "2"}, fresh...), osu.Bandwidth, upTo64K},
		{"osu_mbw_mr", 4, "always", []string{"-m", "1:65536", "-i", "2", "-x", "0", "-W", "4"}, osu.Bandwidth, upTo64K},
		{"osu_mbw_mr", 4, "off", []string{"-m", "1:65536", "-i", "2", "-x", "0", "-W", "4"}, osu.Bandwidth, upTo64K},
		{"osu_mbw_mr", 2, "", []string{"-m", "4096:8192", "-i", "2", "-x", "1"}, osu.Bandwidth, []int{4096, 8192}},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/n=%d/direct=%s/%s", tt.cmd, tt.n, tt.env, strings.Join(tt.args, "_"))
		t.Run(name, func(t *testing.T) {
			args := []string{"-n", fmt.Sprint(tt.n), "--timeout", "60s"}
			if tt.env != "" {
				args = append(args, "-x", "HYMPI_DIRECT="+tt.env)
			}
			args = append(append(args, filepath.Join(dir, tt.cmd)), tt.args...)
			var stdout, stderr bytes.Buffer
			run := exec.Command(filepath.Join(dir, "hympirun"), args...)
			run.Stdout, run.Stderr = &stdout, &stderr
			if err := run.Run(); err != nil {
				t.Fatalf("hympirun %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
			}
			out := stdout.String()
			res, err := osu.Parse(strings.NewReader(out))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got []int
			for _, r := range res.Rows {
				got = append(got, r.Size)
				// Two iterations of a tiny message on an oversubscribed
				// machine can print as 0.00 MB/s: only a negative value,
				// or zero for a size where rounding cannot explain it, is
				// wrong.
				if r.Value < 0 || (r.Value == 0 && r.Size >= 1024) {
					t.Errorf("size %d: value %v", r.Size, r.Value)
				}
			}
			if res.Kind != tt.kind || !slices.Equal(got, tt.wantSizes) {
				t.Errorf("kind %v sizes %v, want %v %v\n%s", res.Kind, got, tt.kind, tt.wantSizes, out)
			}
			if slices.Contains(tt.args, "fresh") != strings.Contains(out, "fresh buffers") {
				t.Errorf("title does not say which buffers:\n%s", out)
			}
			if tt.cmd == "osu_mbw_mr" {
				checkRate(t, out, tt.n/2)
			}
		})
	}

	// A job of the wrong size fails cleanly: error from rank 0, exit 1.
	for _, tt := range []struct {
		cmd  string
		n    int
		want string
	}{
		{"osu_latency", 3, "needs exactly 2 ranks"},
		{"osu_bibw", 1, "needs exactly 2 ranks"},
		{"osu_mbw_mr", 3, "needs an even number of ranks"},
	} {
		var stderr bytes.Buffer
		run := exec.Command(filepath.Join(dir, "hympirun"), "-n", fmt.Sprint(tt.n), "--timeout", "60s", filepath.Join(dir, tt.cmd))
		run.Stderr = &stderr
		if err := run.Run(); err == nil {
			t.Errorf("%s with %d ranks succeeded", tt.cmd, tt.n)
		}
		if got := strings.Count(stderr.String(), tt.want); got != 1 {
			t.Errorf("%s with %d ranks: %d size errors printed, want 1:\n%s", tt.cmd, tt.n, got, stderr.String())
		}
	}
}

// checkRate checks osu_mbw_mr's header and that each row's message rate
// is 1e6 × MB/s / size, to the printed precision.
func checkRate(t *testing.T, out string, pairs int) {
	t.Helper()
	if want := fmt.Sprintf("# [ pairs: %d ] [ window size: ", pairs); !strings.Contains(out, want) {
		t.Errorf("no %q line:\n%s", want, out)
	}
	if !strings.Contains(out, "# Size                  MB/s        Messages/s\n") {
		t.Errorf("no osu_mbw_mr column header:\n%s", out)
	}
	for line := range strings.SplitSeq(out, "\n") {
		var size int
		var bw, rate float64
		if n, _ := fmt.Sscanf(line, "%d %f %f", &size, &bw, &rate); n != 3 {
			continue
		}
		if want := 1e6 * bw / float64(size); rate <= 0 || rate < want*0.99-1e6*0.01/float64(size) || rate > want*1.01+1e6*0.01/float64(size) {
			t.Errorf("row %q: rate %g, want about %g", line, rate, want)
		}
	}
}

func sizes(min, max int) []int { return osu.Sizes(min, max) }
