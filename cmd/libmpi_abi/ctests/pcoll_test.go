package ctests

import (
	"fmt"
	"regexp"
	"runtime"
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
// the lane must stay off: with more ranks than CPUs persistent starts go
// to Go whole (nbc_persist.c's try cost two Go calls there).
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
		{"three ranks", 3, nil, unlessOversubscribed(3, 100)},
		{"four ranks", 4, nil, unlessOversubscribed(4, 100)},
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

// unlessOversubscribed is min for a job of n ranks that has a CPU each,
// -1 (no starts in C) for one with more ranks than CPUs.
func unlessOversubscribed(n, min int) int {
	if n > runtime.NumCPU() {
		return -1
	}
	return min
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
