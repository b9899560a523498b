package ctests

import (
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// collLaneKinds is the debug report's count of the v, w and neighbourhood
// collectives and Reduce_scatter that C started from their plans.
var collLaneKinds = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): collective lane, started in C by kind:((?: \w+=\d+)+)$`)

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
// took none. With COLLANE_V_ONLY=1 it runs only the v, w and
// neighbourhood collectives and Reduce_scatter (with layouts that change
// between calls, and in place), and C must have started each kind from a
// plan at least vmin times on every rank: before, C sent them all to Go.
func TestCCollLane(t *testing.T) {
	exe := compile(t, "collane")
	const altCalls = 2*300 + 5*300
	cases := []struct {
		name string
		n    int
		env  []string
		lane bool // C must have run collectives to the end
		min  int  // of which at least min were started in C
		vmin int  // and each v, w and neighbourhood kind at least vmin times
	}{
		{"one rank", 1, nil, true, 0, 0},
		{"two ranks", 2, nil, true, 0, 0},
		{"three ranks", 3, nil, true, 0, 0},
		{"four ranks", 4, nil, true, 0, 0},
		{"alternating, two ranks", 2, []string{"COLLANE_ALT_ONLY=1"}, true, altCalls / 2, 0},
		{"alternating, three ranks", 3, []string{"COLLANE_ALT_ONLY=1"}, true, altCalls / 5, 0},
		{"v forms, two ranks", 2, []string{"COLLANE_V_ONLY=1"}, true, 0, 5},
		{"v forms, three ranks", 3, []string{"COLLANE_V_ONLY=1"}, true, 0, 5},
		{"v forms, four ranks", 4, []string{"COLLANE_V_ONLY=1"}, true, 0, 5},
		{"thread multiple", 2, []string{"FL_MULTIPLE=1"}, false, 0, 0},
		{"async progress", 2, []string{"HYMPI_ASYNC_PROGRESS=1"}, false, 0, 0},
		{"checksums", 2, []string{"HYMPI_CHECKSUM=1"}, false, 0, 0},
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
			if tc.vmin == 0 {
				return
			}
			kinds := collLaneKinds.FindAllStringSubmatch(out, -1)
			if len(kinds) != tc.n {
				t.Fatalf("%d by-kind reports, want %d:\n%s", len(kinds), tc.n, out)
			}
			for _, m := range kinds {
				for _, f := range strings.Fields(m[2]) {
					name, v, _ := strings.Cut(f, "=")
					if k, _ := strconv.Atoi(v); k < tc.vmin {
						t.Errorf("rank %s: %s started in C %d times, want at least %d:\n%s", m[1], name, k, tc.vmin, out)
					}
				}
			}
		})
	}
}

// TestCCollLaneTested runs testdata/collane_tested.c at 2 ranks: 400
// Iallreduces completed by MPI_Test, rank 0 always starting first (its
// start cannot complete), then 400 waited at once. Once a test completed
// one, rank 0's starts defer; the lane must run them all the same, without
// spinning for the peer, and keep each pending in C (nbc_pend.c) or hand
// it to Go: at least one per tested round on rank 0 but for the lane's
// progress passes. Before, a deferring start was left to Go whole, and
// rank 0 reported ~1 hand-off.
func TestCCollLaneTested(t *testing.T) {
	exe := compile(t, "collane_tested")
	out, err := runJob(t, 2, exe, "HYMPI_CABI_DEBUG=1")
	if got := okLine.FindAllString(out, -1); err != nil || len(got) != 2 {
		t.Fatalf("hympirun -n 2 collane_tested: %v (%d of 2 ranks OK)\n%s", err, len(got), out)
	}
	reports := collLaneLine.FindAllStringSubmatch(out, -1)
	if len(reports) != 2 {
		t.Fatalf("%d collective-lane reports, want 2:\n%s", len(reports), out)
	}
	for _, m := range reports {
		if m[1] != "0" {
			continue
		}
		handed, _ := strconv.Atoi(m[3])
		kept := 0
		for _, p := range pendLine.FindAllStringSubmatch(out, -1) {
			if p[1] == "0" {
				kept, _ = strconv.Atoi(p[2])
			}
		}
		if handed+kept < 300 {
			t.Errorf("rank 0: %d collectives continued in Go and %d kept pending in C, want at least 300 in all (deferring starts run in the lane):\n%s", handed, kept, out)
		}
	}
}

var collLaneYieldLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): collective lane: (\d+) yields, (\d+) messages found after one$`)

// TestCCollLaneOversubscribed runs testdata/collane.c's loops of
// different collectives with more ranks than CPUs. There C does not spin
// for a peer's message (the peer may need this CPU) but a blocking call
// yields the CPU a few times before it hands the collective to Go: the
// lane must find messages after yielding, on some rank at least, and
// still serve collectives to the end without Go. Before, C handed over at
// the first message not there, and every such collective paid a call
// into Go and Go's progress passes.
func TestCCollLaneOversubscribed(t *testing.T) {
	n := max(3, runtime.NumCPU()+1)
	if n > 8 {
		t.Skipf("%d CPUs: oversubscribing them takes too many ranks for this test", runtime.NumCPU())
	}
	exe := compile(t, "collane")
	out, err := runJob(t, n, exe, "HYMPI_CABI_DEBUG=1", "COLLANE_ALT_ONLY=1")
	if got := okLine.FindAllString(out, -1); err != nil || len(got) != n {
		t.Fatalf("hympirun -n %d collane: %v (%d of %d ranks OK)\n%s", n, err, len(got), n, out)
	}
	lanes := collLaneLine.FindAllStringSubmatch(out, -1)
	yields := collLaneYieldLine.FindAllStringSubmatch(out, -1)
	if len(lanes) != n || len(yields) != n {
		t.Fatalf("%d collective-lane reports and %d of yields, want %d each:\n%s", len(lanes), len(yields), n, out)
	}
	served, found := 0, 0
	for i := range n {
		s, _ := strconv.Atoi(lanes[i][2])
		f, _ := strconv.Atoi(yields[i][3])
		served += s
		found += f
	}
	if served == 0 || found == 0 {
		t.Errorf("%d collectives served in C, %d messages found after a yield; want both above 0:\n%s", served, found, out)
	}
}
