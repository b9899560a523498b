package colls

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the directory of go.mod above the test's directory.
func repoRoot(t *testing.T) string {
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			t.Fatal("no go.mod above the test directory")
		}
		d = up
	}
}

// smokeArgs is a run of every collective and form at two sizes (one not a
// multiple of a float nor of the job size), one timed iteration each.
var smokeArgs = []string{"-i", "1", "-x", "0", "-m", "8,1030", "-t", "0,2"}

// TestSmoke runs the Go program, and the C one built with bin/hympicc
// when `make` has built it, under hympirun on 2 ranks, and checks
// that every collective, form and size was measured with a right result.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches jobs")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/hympirun", "./bench/osu_colls")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(n int, args ...string) (string, string, error) {
		var o, e bytes.Buffer
		cmd := exec.Command(filepath.Join(dir, "hympirun"), append([]string{"-n", fmt.Sprint(n), "--timeout", "120s"}, args...)...)
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}
	progs := map[string]string{"Go": filepath.Join(dir, "osu_colls")}
	hympicc := filepath.Join(root, "bin", "hympicc")
	if _, err := os.Stat(hympicc); err == nil {
		exe := filepath.Join(dir, "osu_colls.hympi")
		cc := exec.Command(hympicc, "-O2", "-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join(root, "bench", "c", "osu_colls.c"))
		if out, err := cc.CombinedOutput(); err != nil {
			t.Fatalf("hympicc osu_colls.c: %v\n%s", err, out)
		}
		progs["C"] = exe
	} else {
		t.Log("no bin/hympicc (run make): the C program is not run")
	}
	for lang, prog := range progs {
		for _, n := range []int{2} {
			t.Run(fmt.Sprintf("%s/n=%d", lang, n), func(t *testing.T) {
				stdout, stderr, err := run(n, append([]string{prog}, smokeArgs...)...)
				if err != nil {
					t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
				}
				checkSmoke(t, lang, n, stdout, stderr)
			})
		}
	}

	// Usage errors: status 2 and one message; too small a job: status 1.
	_, stderr, err := run(2, progs["Go"], "-c", "bcast,nope")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || strings.Count(stderr, `unknown collective "nope"`) != 1 {
		t.Errorf("bad -c: err %v, stderr:\n%s", err, stderr)
	}
	_, stderr, err = run(1, progs["Go"])
	if err == nil || strings.Count(stderr, "needs at least 2 ranks") != 1 {
		t.Errorf("1 rank: err %v, stderr:\n%s", err, stderr)
	}
}

func checkSmoke(t *testing.T, lang string, n int, stdout, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "WRONG") {
		t.Errorf("wrong results:\n%s", stderr)
	}
	out, err := Parse(strings.NewReader(stdout))
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(out.Header) == 0 || !strings.Contains(out.Header[0], fmt.Sprintf("(%s", lang)) ||
		!strings.Contains(out.Header[0], fmt.Sprintf("%d ranks", n)) {
		t.Errorf("header %q", out.Header)
	}
	for _, s := range out.Skips {
		t.Errorf("skipped: %+v", s)
	}
	seen := map[string]bool{}
	for _, r := range out.Rows {
		if !r.OK || r.Avg <= 0 || r.Iters != 1 {
			t.Errorf("row %v", r)
		}
		seen[fmt.Sprint(r.Coll, r.Form, r.Size)] = true
	}
	for c := range NumColls {
		sizes := []int{8, 1030}
		if c == Barrier {
			sizes = []int{0}
		}
		for _, f := range []Form{Blocking, NonBlocking, Persistent} {
			if !c.HasForm(f) {
				if seen[fmt.Sprint(c, f, sizes[0])] {
					t.Errorf("a row for %s %s, which has no such form", c, f)
				}
				continue
			}
			for _, s := range sizes {
				if !seen[fmt.Sprint(c, f, s)] {
					t.Errorf("no row for %s %s %d", c, f, s)
				}
			}
		}
	}
	if want := 3 * 2 * 2; len(out.Overlaps) != want { // collectives × sizes × -t values
		t.Errorf("%d overlap rows, want %d", len(out.Overlaps), want)
	}
	for _, o := range out.Overlaps {
		if !o.OK || !o.Coll.HasOverlap() || o.Pure <= 0 {
			t.Errorf("overlap %v", o)
		}
	}
}

// TestCompareScriptUsage: bench/compare_coll.sh refuses bad settings with
// status 2 and a message naming the setting, before building or running
// anything.
func TestCompareScriptUsage(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(repoRoot(t), "bench", "compare_coll.sh")
	for _, tt := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"REPS=0"}, nil, "REPS must be a positive integer"},
		{nil, []string{"x"}, "REPS must be a positive integer"},
		{[]string{"IMPLS=hympi-C lam"}, nil, "unknown implementation 'lam'"},
		{[]string{"IMPLS=hympi-C mpich"}, nil, "IMPLS must include ompi"},
		{[]string{"SIZES=8 1k"}, nil, "whole numbers, got '1k'"},
		{[]string{"RANKS=1 2"}, nil, "at least 2 ranks, got 1"},
	} {
		cmd := exec.Command(bash, append([]string{script}, tt.args...)...)
		cmd.Env = append(os.Environ(), tt.env...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tt.want) {
			t.Errorf("%v %v: err %v, output:\n%s\nwant status 2 and %q", tt.env, tt.args, err, out, tt.want)
		}
	}
}
