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
// collectives. With COLLANE_ALT_ONLY=1 the program runs only its loops of
// different collectives in turn (2*300 and 5*300 calls), and C must have
// taken a good part of them from their plans (run to the end or handed to
// Go part-way, when a peer is late on a loaded machine; oversubscribed, C
// does not wait for a peer at all): with one plan per communicator it
// took none.
func TestCCollLane(t *testing.T) {
	exe := compile(t, "collane")
	const altCalls = 2*300 + 5*300
	cases := []struct {
		name string
		n    int
		env  []string
		lane bool // C must have run collectives to the end
		min  int  // of which at least min were started in C
	}{
		{"one rank", 1, nil, true, 0},
		{"two ranks", 2, nil, true, 0},
		{"three ranks", 3, nil, true, 0},
		{"four ranks", 4, nil, true, 0},
		{"alternating, two ranks", 2, []string{"COLLANE_ALT_ONLY=1"}, true, altCalls / 2},
		{"alternating, three ranks", 3, []string{"COLLANE_ALT_ONLY=1"}, true, altCalls / 5},
		{"thread multiple", 2, []string{"FL_MULTIPLE=1"}, false, 0},
		{"async progress", 2, []string{"HYMPI_ASYNC_PROGRESS=1"}, false, 0},
		{"checksums", 2, []string{"HYMPI_CHECKSUM=1"}, false, 0},
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
				if served+handed < tc.min {
					t.Errorf("rank %s: %d collectives in C, %d continued in Go; want at least %d started in C",
						m[1], served, handed, tc.min)
				}
			}
		})
	}
}
