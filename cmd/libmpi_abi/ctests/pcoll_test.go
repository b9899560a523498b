package ctests

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

var pendLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): pending in C: (\d+) nonblocking collectives kept, (\d+) completed in C, (\d+) handed to Go$`)

var pcollLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): persistent collectives: (\d+) starts in C, (\d+) complete in C, (\d+) continued in Go$`)

// TestCPersistentLane runs testdata/pcoll_lane.c: every persistent
// collective kind the C collective lane serves, restarted 100 times over
// input changed between starts, completed through the single and array
// calls, MPI_Startall of three, a refused second MPI_Start, MPI_Request_free
// and MPI_Comm_free around them. The program checks every result; the
// debug report says how many starts C made (nbc_persist.c): with the lane
// at least minC on every rank (about 2,700 starts in all), and none where
// the lane must stay off. With more ranks than CPUs too: the program
// waits at once, so its starts yield in C as the blocking calls do
// (nbc_atonce.c); TestCNbcAtOnce checks that a computing one's go to Go.
func TestCPersistentLane(t *testing.T) {
	exe := compile(t, "pcoll_lane")
	cases := []struct {
		name string
		n    int
		env  []string
		minC int // starts in C on every rank; -1: none at all
	}{
		{"one rank", 1, nil, 2000},
		{"two ranks", 2, nil, 500},
		{"three ranks", 3, nil, 50},
		{"four ranks", 4, nil, 50},
		{"async progress", 2, []string{"HYMPI_ASYNC_PROGRESS=1"}, -1},
		{"thread multiple", 2, []string{"FL_MULTIPLE=1"}, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runJob(t, tc.n, exe, append([]string{"HYMPI_CABI_DEBUG=1"}, tc.env...)...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
				t.Fatalf("hympirun -n %d pcoll_lane: %v (%d of %d ranks OK)\n%s", tc.n, err, len(got), tc.n, out)
			}
			reports := pcollLine.FindAllStringSubmatch(out, -1)
			if len(reports) != tc.n {
				t.Fatalf("%d persistent-collective reports, want %d:\n%s", len(reports), tc.n, out)
			}
			for _, m := range reports {
				starts, _ := strconv.Atoi(m[2])
				done, _ := strconv.Atoi(m[3])
				handed, _ := strconv.Atoi(m[4])
				if done+handed != starts {
					t.Errorf("rank %s: %d starts in C but %d complete + %d continued", m[1], starts, done, handed)
				}
				if tc.minC < 0 && starts != 0 || starts < tc.minC {
					t.Errorf("rank %s: %d persistent starts in C, want at least %d (-1: none)", m[1], starts, tc.minC)
				}
			}
		})
	}
}

// TestCNbcPending runs testdata/nbc_pend.c: nonblocking collectives whose
// start on rank 0 cannot complete (the others start after it), completed
// by MPI_Test loops and by MPI_Wait, a start that must have sent this
// rank's part before the wait (rank 0 makes no MPI call until the others
// have their results), and pending runs met by array calls, a blocking
// collective and a communicator's creation. The program checks every
// result; at 2 ranks C must have kept rank 0's starts pending and
// completed some of them itself (nbc_pend.c).
func TestCNbcPending(t *testing.T) {
	exe := compile(t, "nbc_pend")
	for _, n := range []int{1, 2, 3, 4} {
		t.Run(fmt.Sprintf("%d ranks", n), func(t *testing.T) {
			out, err := runJob(t, n, exe, "HYMPI_CABI_DEBUG=1")
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != n {
				t.Fatalf("hympirun -n %d nbc_pend: %v (%d of %d ranks OK)\n%s", n, err, len(got), n, out)
			}
			reports := pendLine.FindAllStringSubmatch(out, -1)
			if len(reports) != n {
				t.Fatalf("%d pending-collective reports, want %d:\n%s", len(reports), n, out)
			}
			for _, m := range reports {
				kept, _ := strconv.Atoi(m[2])
				done, _ := strconv.Atoi(m[3])
				handed, _ := strconv.Atoi(m[4])
				if done+handed != kept {
					t.Errorf("rank %s: %d kept but %d completed in C + %d handed to Go", m[1], kept, done, handed)
				}
				if n == 2 && m[1] == "0" && (kept < 100 || done < 10) {
					t.Errorf("rank 0: %d kept pending in C, %d completed there; want at least 100 and 10", kept, done)
				}
			}
		})
	}
}

var atonceLine = regexp.MustCompile(`(?m)^hympi\[debug\]: rank (\d+): nonblocking collectives: \d+ idle tests answered in C, \d+ persistent starts complete at once, (\d+) starts run as blocking \(waited at once\)$`)

// TestCNbcAtOnce runs testdata/nbc_atonce.c: nonblocking and persistent
// collectives waited at once, then starts that must send before the wait
// and freed active requests; and the same rounds with computation between
// each start and its wait (NBC_MODE=compute); persistent v-collectives and
// Reduce_scatter among them. The program checks every result; the debug report says how many starts ran as the blocking call
// (the library found the program waiting at once, nbc_atonce.c): most of
// the 700 at once, at 2 ranks and oversubscribed at 4 and 8, and next to
// none with computation (a wrong guess costs one start).
func TestCNbcAtOnce(t *testing.T) {
	exe := compile(t, "nbc_atonce")
	cases := []struct {
		n        int
		compute  bool
		min, max int // starts run as blocking on every rank
		pmin     int // persistent starts in C on every rank
	}{
		{2, false, 200, 1 << 30, 500},
		// Oversubscribed, a persistent start stays in C only while the
		// program is seen waiting at once, which a rank descheduled
		// between start and wait is not: fewer, but more than the 200
		// of the kinds that are not v-collectives.
		{4, false, 100, 1 << 30, 250},
		{8, false, 100, 1 << 30, 250},
		{2, true, 0, 5, 0},
		{4, true, 0, 5, 0},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%d ranks at once", tc.n)
		env := []string{"HYMPI_CABI_DEBUG=1"}
		if tc.compute {
			name = fmt.Sprintf("%d ranks computing", tc.n)
			env = append(env, "NBC_MODE=compute")
		}
		t.Run(name, func(t *testing.T) {
			out, err := runJob(t, tc.n, exe, env...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != tc.n {
				t.Fatalf("hympirun -n %d nbc_atonce: %v (%d of %d ranks OK)\n%s", tc.n, err, len(got), tc.n, out)
			}
			reports := atonceLine.FindAllStringSubmatch(out, -1)
			if len(reports) != tc.n {
				t.Fatalf("%d nonblocking-collective reports, want %d:\n%s", len(reports), tc.n, out)
			}
			for _, m := range reports {
				n, _ := strconv.Atoi(m[2])
				if n < tc.min || n > tc.max {
					t.Errorf("rank %s: %d starts run as blocking, want %d to %d", m[1], n, tc.min, tc.max)
				}
			}
			if tc.compute {
				return
			}
			// 700 persistent starts, 500 of them v-collectives and
			// Reduce_scatter: all of the lane's kinds.
			for _, m := range pcollLine.FindAllStringSubmatch(out, -1) {
				starts, _ := strconv.Atoi(m[2])
				done, _ := strconv.Atoi(m[3])
				handed, _ := strconv.Atoi(m[4])
				if starts < tc.pmin || done+handed != starts {
					t.Errorf("rank %s: %d persistent starts in C (%d complete, %d continued), want at least %d", m[1], starts, done, handed, tc.pmin)
				}
			}
		})
	}
}
