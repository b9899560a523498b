package ctests

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// hympirun runs the test installation's launcher with args.
func hympirun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 70*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "hympirun"), append([]string{"--timeout", "60s"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCAppNum: an MPMD job is one MPI_COMM_WORLD, and each program reads
// its number from the MPI_APPNUM attribute (0 for a job of one program).
func TestCAppNum(t *testing.T) {
	exe := compile(t, "appnum")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-n", "2", exe}, []string{"app 0 rank 0 of 2", "app 0 rank 1 of 2"}},
		{[]string{"-n", "1", exe, ":", "-n", "2", exe}, []string{"app 0 rank 0 of 3", "app 1 rank 1 of 3", "app 1 rank 2 of 3"}},
	} {
		out, err := hympirun(t, tc.args...)
		if err != nil {
			t.Fatalf("hympirun %q: %v\n%s", tc.args, err, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w+"\n") {
				t.Errorf("hympirun %q: no %q in\n%s", tc.args, w, out)
			}
		}
	}
}

// TestCNoFinalize: the launcher names the C function a C program missed.
func TestCNoFinalize(t *testing.T) {
	exe := compile(t, "appnum")
	out, err := hympirun(t, "-n", "2", exe, "nofinalize")
	if err == nil {
		t.Fatalf("job succeeded:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^hympirun: rank 1 \(pid \d+\) exited without calling MPI_Finalize$`).MatchString(out) {
		t.Errorf("want the launcher to name MPI_Finalize, got\n%s", out)
	}
}
