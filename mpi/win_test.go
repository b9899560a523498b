//go:build !ompi && !mpich

package mpi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// One-sided communication: every window flavour under every
// synchronisation mode against a serial model, atomicity across origins,
// a target that computes through a passive epoch, and bad input.
func TestRMAScenarios(t *testing.T) {
	tests := []struct {
		name  string
		ranks []int
		env   []string
	}{
		{"rma", []int{1, 2, 3, 4, 8}, nil},
		{"rma", []int{3}, []string{"HYMPI_DIRECT=off"}},
		{"rma", []int{2}, []string{"HYMPI_WIN_SEGMENT=file"}},
		{"rmasplit", []int{4, 5}, nil},
		{"rmapscw", []int{1, 2, 3, 5}, nil},
		{"rmaatomic", []int{1, 2, 4, 8}, nil},
		{"rmapassive", []int{2, 4, 8}, nil},
		{"rmaerrors", []int{1, 2}, nil},
		{"rmanocma", []int{1, 3}, []string{"HYMPI_DIRECTCOPY_FAIL=eperm"}},
		{"rma", []int{2, 3}, []string{"HYMPI_DIRECTCOPY_FAIL=eperm"}},
		{"rmaatomic", []int{3}, []string{"HYMPI_DIRECTCOPY_FAIL=eperm"}},
		{"rmapscw", []int{3}, []string{"HYMPI_DIRECTCOPY_FAIL=eperm"}},
	}
	for _, tc := range tests {
		for _, n := range tc.ranks {
			t.Run(fmt.Sprintf("%s/n=%d/%s", tc.name, n, strings.Join(tc.env, ",")), func(t *testing.T) {
				out, err := runJob(t, n, 60*time.Second, tc.name, tc.env...)
				if err != nil || !strings.Contains(out, "scenario "+tc.name+" passed") {
					t.Fatalf("hympirun -n %d scenarios %s: %v\n%s", n, tc.name, err, out)
				}
			})
		}
	}
}

// Without hympirun a program is a singleton: its windows work too.
func TestRMASingleton(t *testing.T) {
	for _, name := range []string{"rma", "rmaatomic", "rmaerrors", "rmapscw"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bins.scenarios, name)
			cmd.Env = withoutHympiEnv(os.Environ())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "scenario "+name+" passed") {
				t.Fatalf("singleton %s: %v\n%s", name, err, out)
			}
		})
	}
}
