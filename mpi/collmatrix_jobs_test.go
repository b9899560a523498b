//go:build !ompi && !mpich

package mpi_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// goCollMatrixCounts is how many checked calls the collmatrix scenario
// makes, worked out from its loops here, so a section that silently stops
// running fails the test. Forms: blocking, I*, *Init (checked after each of
// two starts), the typed generic one (none for Barrier, Alltoallw and
// ReduceLocal),
// and for Bcast, Reduce and Allreduce the typed nonblocking one.
func goCollMatrixCounts(n int) map[string]int {
	const forms, ops = 1 + 1 + 2 + 1, 3
	per := func(n int) map[string]int {
		return map[string]int{
			"Barrier": forms - 1, "Bcast": (forms + 1) * n,
			"Gather": forms * n * 2, "Gatherv": forms * n * 2, "Scatter": forms * n * 2, "Scatterv": forms * n * 2,
			"Allgather": forms * 2, "Allgatherv": forms * 2, "Alltoall": forms * 2, "Alltoallv": forms * 2, "Alltoallw": (forms - 1) * 2,
			"Reduce": (forms + 1) * n * 2 * ops, "Allreduce": (forms + 1) * 2 * ops, "ReduceScatterBlock": forms * 2 * ops,
			"ReduceScatter": forms * 2 * ops, "Scan": forms * 2 * ops, "Exscan": forms * 2 * ops,
			"ReduceLocal": ops,
		}
	}
	sum := func(m map[string]int) (t int) {
		for _, v := range m {
			t += v
		}
		return t
	}
	out := map[string]int{
		"world": sum(per(n)),
		"split": sum(per((n + 1) / 2)), // rank 0's half
		// 17 collectives x (I*, *Init twice) x in place or not x 3 communicators
		"crosscomm": 17 * 3 * 2 * 3,
		"large":     goLargeCount(n),
	}
	for k, v := range per(n) {
		out["coll "+k] = v
	}
	return out
}

// goLargeCount: blocking, I* and *Init (twice) of every collective, the
// first and last root, in place or not, sum and the user op; ReduceLocal
// blocking only.
func goLargeCount(n int) int {
	roots := 1
	if n > 1 {
		roots = 2
	}
	const forms = 1 + 1 + 2
	return forms + forms*roots + 4*forms*roots*2 + 5*forms*2 + forms*roots*2*2 + 5*forms*2*2 + 2
}

var goCountLine = regexp.MustCompile(`(?m)^(coll \w+|world|split|crosscomm|large) (\d+)$`)

// TestCollMatrix runs package mpi's collective correctness matrix (every
// collective x form x root x in place x op against serial references, with
// point-to-point traffic pending and three communicators in flight; issue
// 12), once per rank count.
func TestCollMatrix(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			out, err := runJob(t, n, 60*time.Second, "collmatrix")
			if err != nil || !strings.Contains(out, "scenario collmatrix passed") {
				t.Fatalf("hympirun -n %d scenarios collmatrix: %v\n%s", n, err, out)
			}
			want := goCollMatrixCounts(n)
			got := map[string]int{}
			for _, m := range goCountLine.FindAllStringSubmatch(out, -1) {
				got[m[1]], _ = strconv.Atoi(m[2])
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %d cases checked, want %d", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d count lines, want %d:\n%s", len(got), len(want), out)
			}
			t.Logf("n=%d: %d cases on World, %d on the split, %d across communicators, %d large",
				n, got["world"], got["split"], got["crosscomm"], got["large"])
		})
	}
}

// A nonblocking collective advances while a rank inside it only calls
// Test, and, with HYMPI_ASYNC_PROGRESS=1, while it computes without MPI
// calls; the other ranks' completion is observed through files, not
// clocks. Without the progress goroutine the computing rank holds the
// others up, which shows the check can fail.
func TestCollProgress(t *testing.T) {
	cases := []struct {
		name, async, limit string
		n                  int
		pass               bool
	}{
		{"progress_test", "0", "60s", 3, true},
		{"progress_test", "0", "60s", 4, true},
		{"progress_async", "1", "60s", 4, true},
		{"progress_async", "1", "60s", 8, true},
		{"progress_async", "0", "3s", 4, false},
		// The start call sends the first round (progress_start.go).
		{"progress_start", "0", "60s", 2, true},
		{"progress_start", "0", "60s", 4, true},
		// One Test runs every round it can (progress_start.go).
		{"progress_onetest", "0", "60s", 5, true},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/async=%s/n=%d", tc.name, tc.async, tc.n), func(t *testing.T) {
			out, err := runJob(t, tc.n, 60*time.Second, tc.name, "HYMPI_PROGRESS_DIR="+t.TempDir(),
				"HYMPI_ASYNC_PROGRESS="+tc.async, "HYMPI_PROGRESS_LIMIT="+tc.limit)
			ok := err == nil && strings.Contains(out, "scenario "+tc.name+" passed")
			switch {
			case tc.pass && !ok:
				t.Fatalf("%v\n%s", err, out)
			case !tc.pass && (ok || !strings.Contains(out, "nothing progressed")):
				t.Fatalf("without async progress the others should wait for the computing rank; got %v\n%s", err, out)
			}
		})
	}
}

var nbrCountLine = regexp.MustCompile(`(?m)^nbr (\w+) (\d+)$`)

// TestNeighborMatrix runs the neighbourhood collectives' matrix (every one
// x blocking, I*, *Init started twice, typed x Cartesian ring, line, 2-D grid and
// a graph with a repeated edge, point-to-point pending, two communicators
// in flight), once per rank count, and checks its case counts.
func TestNeighborMatrix(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			out, err := runJob(t, n, 60*time.Second, "nbrmatrix")
			if err != nil || !strings.Contains(out, "scenario nbrmatrix passed") {
				t.Fatalf("hympirun -n %d scenarios nbrmatrix: %v\n%s", n, err, out)
			}
			topos := 3 // ring, line, graph
			if n >= 4 && n%2 == 0 {
				topos++ // the 2-D grid
			}
			const forms = 1 + 1 + 2 + 1 // blocking, I*, *Init checked after two starts, typed
			want := map[string]int{"crosscomm": 5 * topos * 2, "NeighborAlltoallw": topos * (forms - 1)}
			for _, name := range []string{"NeighborAllgather", "NeighborAllgatherv", "NeighborAlltoall", "NeighborAlltoallv"} {
				want[name] = topos * forms
			}
			got := map[string]int{}
			for _, m := range nbrCountLine.FindAllStringSubmatch(out, -1) {
				got[m[1]], _ = strconv.Atoi(m[2])
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %d cases checked, want %d", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d count lines, want %d:\n%s", len(got), len(want), out)
			}
		})
	}
}
