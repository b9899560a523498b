package ctests

import (
	"fmt"
	"strings"
	"testing"
)

// One-sided communication from C (testdata/rma.c): every window flavour ×
// synchronisation mode × datatype against a serial model, shared windows,
// attributes and error handlers, a passive target that never calls MPI.
func TestCRMA(t *testing.T) {
	exe := compile(t, "rma")
	for _, tc := range []struct {
		n   int
		env []string
	}{{1, nil}, {2, nil}, {3, nil}, {4, nil}, {8, nil},
		// Single copy refused: created windows in the separate model.
		{3, []string{"HYMPI_DIRECTCOPY_FAIL=eperm"}}} {
		n := tc.n
		t.Run(fmt.Sprintf("n=%d/%s", n, strings.Join(tc.env, ",")), func(t *testing.T) {
			out, err := runJob(t, n, exe, tc.env...)
			got := okLine.FindAllString(out, -1)
			if err != nil || len(got) != n {
				t.Fatalf("hympirun -n %d rma: %v (%d of %d ranks OK)\n%s", n, err, len(got), n, out)
			}
			if extra := strings.TrimSpace(okLine.ReplaceAllString(out, "")); extra != "" {
				t.Errorf("unexpected output:\n%s", extra)
			}
		})
	}
}
