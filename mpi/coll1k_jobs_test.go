//go:build !ompi && !mpich

package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestColl1K runs the coll1k scenario: every collective with blocks of
// 233 B to 8 KiB (collective-ring spans, shm/coll.go) and one byte past
// them, checked against serial references, at 2, 3, 4 and 8 ranks (each
// also repeated with the same buffers, as the memo's replay and a
// persistent collective's plan serve it); with
// checksums too, whose path gathers a span to check it.
func TestColl1K(t *testing.T) {
	cases := []struct {
		n   int
		env []string
	}{
		{2, nil}, {3, nil}, {4, nil}, {8, nil}, {2, []string{"HYMPI_CHECKSUM=1"}}, {3, []string{"HYMPI_CHECKSUM=1"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("n=%d%v", tc.n, tc.env), func(t *testing.T) {
			out, err := runJob(t, tc.n, 60*time.Second, "coll1k", tc.env...)
			if err != nil || !strings.Contains(out, "scenario coll1k passed") {
				t.Fatalf("hympirun -n %d scenarios coll1k: %v\n%s", tc.n, err, out)
			}
			if !strings.Contains(out, "coll1k calls 1025\n") {
				t.Errorf("call count line missing or wrong:\n%s", out)
			}
		})
	}
}
