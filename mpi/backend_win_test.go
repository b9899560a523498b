//go:build ompi || mpich

package mpi

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The one-sided scenarios a singleton (started without the MPI's launcher)
// runs on this backend: windows, epochs and bad input over the system MPI
// in one process. The multi-rank runs are make test-backends'.
func TestBackendRMASingleton(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scenarios")
	build := exec.Command("go", "build", "-tags", backendTag, "-o", bin, "./internal/scenarios")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the scenarios: %v\n%s", err, out)
	}
	env := os.Environ()
	if os.Getuid() == 0 {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	for _, name := range singletonRMA {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, name)
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "scenario "+name+" passed") {
				t.Fatalf("singleton %s: %v\n%s", name, err, out)
			}
		})
	}
}
