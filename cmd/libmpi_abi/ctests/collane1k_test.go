package ctests

import (
	"fmt"
	"strconv"
	"testing"
)

// TestCCollLane1K runs testdata/collane1k.c: eleven collectives with
// blocks of 233 B to 8 KiB, 60 calls each per size, which travel the
// collective rings as spans of slots and which the C collective lane must
// start from its plans (run to the end, or handed to Go part-way when a
// peer is late on a loaded machine): before spans it served no collective
// above 232 bytes. Blocks of 8200 bytes are past the span limit: the lane
// must leave every call to Go, which must still get them right.
func TestCCollLane1K(t *testing.T) {
	exe := compile(t, "collane1k")
	const perSize = 11 * 60
	cases := []struct {
		n    int
		size int // 0: 233, 1024, 4096 and 8192 in turn
		min  int // collectives started in C, at least; -1: none at all
	}{
		{2, 233, perSize / 2},
		{2, 1024, perSize / 2},
		{2, 4096, perSize / 2},
		{2, 8192, perSize / 2},
		{3, 0, perSize / 4},
		{4, 0, perSize / 4},
		{2, 8200, -1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("n=%d/size=%d", tc.n, tc.size), func(t *testing.T) {
			env := []string{"HYMPI_CABI_DEBUG=1"}
			if tc.size != 0 {
				env = append(env, fmt.Sprintf("COLLANE1K_SIZE=%d", tc.size))
			}
			out, err := runJob(t, tc.n, exe, env...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
				t.Fatalf("hympirun -n %d collane1k: %v (%d of %d ranks OK)\n%s", tc.n, err, len(got), tc.n, out)
			}
			reports := collLaneLine.FindAllStringSubmatch(out, -1)
			if len(reports) != tc.n {
				t.Fatalf("%d collective-lane reports, want %d:\n%s", len(reports), tc.n, out)
			}
			for _, m := range reports {
				served, _ := strconv.Atoi(m[2])
				handed, _ := strconv.Atoi(m[3])
				t.Logf("rank %s: %d collectives in C, %d continued in Go", m[1], served, handed)
				if tc.min < 0 && served+handed != 0 {
					t.Errorf("rank %s: %d collectives in C, %d continued in Go; want none past the span limit", m[1], served, handed)
				}
				if tc.min >= 0 && (served == 0 || served+handed < tc.min) {
					t.Errorf("rank %s: %d collectives in C, %d continued in Go; want some in C and at least %d started there",
						m[1], served, handed, tc.min)
				}
			}
		})
	}
}
