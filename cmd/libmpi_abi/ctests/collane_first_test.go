package ctests

import (
	"regexp"
	"strconv"
	"testing"
)

var collFirstLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): collective lane: (\d+) calls found their plan before their argument checks$`)

// TestCCollLaneFirst runs testdata/collane_first.c, whose repeated small
// collectives find their plans by the arguments their callers gave,
// before any check (collane.c's hc_cc_first), amid what must not match a
// stale plan: a derived type freed and made again (its handle reused with
// another size), other counts, roots and operators on the same buffers,
// MPI_IN_PLACE, a v-collective's arrays changed in place, and bad
// arguments one word off a keyed call (each must fail with its class and
// change nothing). The program checks every result; the debug report must
// show calls matched early on every rank (before, none were: every call
// ran its checks first).
func TestCCollLaneFirst(t *testing.T) {
	exe := compile(t, "collane_first")
	for _, n := range []int{1, 2, 3, 4} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			out, err := runJob(t, n, exe, "HYMPI_CABI_DEBUG=1")
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != n {
				t.Fatalf("hympirun -n %d collane_first: %v (%d of %d ranks OK)\n%s", n, err, len(got), n, out)
			}
			reports := collFirstLine.FindAllStringSubmatch(out, -1)
			if len(reports) != n {
				t.Fatalf("%d early-match reports, want %d:\n%s", len(reports), n, out)
			}
			for _, m := range reports {
				if k, _ := strconv.Atoi(m[2]); n > 1 && k < 20 {
					t.Errorf("rank %s: %d calls matched their plan before their checks, want at least 20", m[1], k)
				}
			}
		})
	}
}

// TestCCollLanePass checks the collective lane's periodic progress pass
// (collane.c's quiet): at 2 ranks with no point-to-point message waiting
// the lane skips it (before, every 64th collective entered Go for one),
// and with messages waiting for rank 0 while it runs only Barriers
// (testdata/collane_first.c, COLLANE_FIRST_P2P=1) it makes one, which
// takes them in.
func TestCCollLanePass(t *testing.T) {
	exe := compile(t, "collane_first")
	cases := []struct {
		name  string
		env   []string
		rank0 func(passes, handed int) bool
		want  string
	}{
		{"quiet", nil, func(p, _ int) bool { return p == 0 }, "none"},
		// A collective handed to Go part-way (a late peer on a loaded
		// machine) takes the messages in too, in Go's wait.
		{"messages waiting", []string{"COLLANE_FIRST_P2P=1"}, func(p, h int) bool { return p > 0 || h > 0 }, "some"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runJob(t, 2, exe, append([]string{"HYMPI_CABI_DEBUG=1"}, tc.env...)...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != 2 {
				t.Fatalf("hympirun -n 2 collane_first: %v (%d of 2 ranks OK)\n%s", err, len(got), out)
			}
			reports := collLaneLine.FindAllStringSubmatch(out, -1)
			if len(reports) != 2 {
				t.Fatalf("%d collective-lane reports, want 2:\n%s", len(reports), out)
			}
			for _, m := range reports {
				passes, _ := strconv.Atoi(m[4])
				handed, _ := strconv.Atoi(m[3])
				if m[1] == "0" && !tc.rank0(passes, handed) {
					t.Errorf("rank 0: %d progress passes, want %s:\n%s", passes, tc.want, out)
				}
			}
		})
	}
}
