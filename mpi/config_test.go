//go:build !ompi && !mpich

package mpi

import (
	"errors"
	"strings"
	"testing"
)

// TestInitRefusesBadKnobs: a rank started with a knob that does not parse
// (a program run without hympirun, or an environment changed under it) gets
// an ErrArg from Init naming the variable, and stays uninitialized. Only the
// refusing path runs here: a successful Init would make this test process a
// singleton for every test after it.
func TestInitRefusesBadKnobs(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"HYMPI_SHM_BUDGET", "0"},
		{"HYMPI_SHM_BUDGET", "garbage"},
		{"HYMPI_CELL_SIZE", "-64"},
		{"HYMPI_SKEW", "maybe"},
		{"HYMPI_ASYNC_PROGRESS", "yes"},
		{"HYMPI_THRESHOLD", "lots"},
		{"HYMPI_DIRECT", "sometimes"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			err := Init()
			if err == nil {
				Finalize()
				t.Fatal("Init accepted it")
			}
			if !errors.Is(err, ErrArg) || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.value) {
				t.Errorf("Init: %v; want ErrArg naming %s=%q", err, c.name, c.value)
			}
			if Initialized() {
				t.Error("Initialized after a refused Init")
			}
		})
	}
}
