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
	for _, n := range []int{1, 2, 3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			out, err := runJob(t, n, exe)
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
