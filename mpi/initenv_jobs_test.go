//go:build !ompi && !mpich

package mpi_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestInitRefusalPrinted: a rank whose launcher environment or knobs are
// wrong exits with the refusal on its stderr — including when the wrong
// descriptor is stderr itself.
func TestInitRefusalPrinted(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"HYMPI_RANK=0", "HYMPI_SIZE=1", "HYMPI_REGION_FD=2"}, "HYMPI_REGION_FD=2"},
		{[]string{"HYMPI_RANK=0", "HYMPI_SIZE=1", "HYMPI_REGION_FD=1"}, "HYMPI_REGION_FD=1"},
		{[]string{"HYMPI_SKEW=maybe"}, `HYMPI_SKEW="maybe"`},
		{[]string{"HYMPI_CELL_SIZE=xyz"}, `HYMPI_CELL_SIZE="xyz"`},
	} {
		cmd := exec.Command(bins.scenarios, "sizes")
		cmd.Env = append(os.Environ(), c.env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("%q: %v, want exit status 1", c.env, err)
		}
		if !strings.Contains(stderr.String(), "Init:") || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: stderr %q does not carry the refusal naming %s", c.env, stderr.String(), c.want)
		}
	}
}
