package ctests

import (
	"regexp"
	"strconv"
	"testing"
)

var collLaneLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): collective lane: (\d+) collectives without Go, (\d+) continued in Go, (\d+) progress passes$`)

// TestCCollLane runs testdata/collane.c, whose small collectives repeat
// with the same arguments (so the C collective lane learns their plans and
// runs them) amid point-to-point traffic, another communicator's
// collectives, late ranks and a user operator that stays in Go, at 1 to 4
// ranks and in the modes where the lane must not run: the program checks
// every result either way, and the debug report says whether C served
// collectives.
func TestCCollLane(t *testing.T) {
	exe := compile(t, "collane")
	cases := []struct {
		name string
		n    int
		env  []string
		lane bool // C must have run collectives to the end
	}{
		{"one rank", 1, nil, true},
		{"two ranks", 2, nil, true},
		{"three ranks", 3, nil, true},
		{"four ranks", 4, nil, true},
		{"thread multiple", 2, []string{"FL_MULTIPLE=1"}, false},
		{"async progress", 2, []string{"HYMPI_ASYNC_PROGRESS=1"}, false},
		{"checksums", 2, []string{"HYMPI_CHECKSUM=1"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runJob(t, tc.n, exe, append([]string{"HYMPI_CABI_DEBUG=1"}, tc.env...)...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
				t.Fatalf("hympirun -n %d collane: %v (%d of %d ranks OK)\n%s", tc.n, err, len(got), tc.n, out)
			}
			reports := collLaneLine.FindAllStringSubmatch(out, -1)
			if len(reports) != tc.n {
				t.Fatalf("%d collective-lane reports, want %d:\n%s", len(reports), tc.n, out)
			}
			for _, m := range reports {
				served, _ := strconv.Atoi(m[2])
				handed, _ := strconv.Atoi(m[3])
				if tc.lane && served == 0 || !tc.lane && (served != 0 || handed != 0) {
					t.Errorf("rank %s: %d collectives in C, %d continued in Go; want the lane used: %v",
						m[1], served, handed, tc.lane)
				}
			}
		})
	}
}
