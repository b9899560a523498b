package ctests

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// collMatrixCounts is how many checked calls testdata/collmatrix.c makes
// on n ranks, worked out from its loops independently of the program, so a
// section that silently stops running fails the test.
func collMatrixCounts(n int) map[string]int {
	// Forms: blocking, blocking _c, I, I_c, and the two persistent ones
	// checked after each of their two starts.
	const forms = 1 + 1 + 1 + 1 + 2 + 2
	const moves, reds = 3, 8 // datatype (and op) variants
	world := map[string]int{
		"barrier":              forms,
		"bcast":                forms * n * moves,
		"gather":               forms * n * 2 * moves,
		"gatherv":              forms * n * 2 * moves,
		"scatter":              forms * n * 2 * moves,
		"scatterv":             forms * n * 2 * moves,
		"allgather":            forms * 2 * moves,
		"allgatherv":           forms * 2 * moves,
		"alltoall":             forms * 2 * moves,
		"alltoallv":            forms * 2 * moves,
		"alltoallw":            forms * 2 * moves,
		"reduce":               forms * n * 2 * reds,
		"allreduce":            forms * 2 * reds,
		"reduce_scatter_block": forms * 2 * reds,
		"reduce_scatter":       forms * 2 * reds,
		"scan":                 forms * 2 * reds,
		"exscan":               forms * 2 * reds,
		"reduce_local":         2 * reds,
	}
	total := 0
	for _, v := range world {
		total += v
	}
	// On rank 0's half of the split: one nonblocking and one persistent
	// form, one datatype for data movement, two (type, op) pairs for the
	// reductions, no Reduce_local.
	m := (n + 1) / 2
	const sforms = 1 + 2
	split := sforms + sforms*m + 4*sforms*m*2 + 5*sforms*2 + sforms*m*2*2 + 5*sforms*2*2
	// Across communicators: 17 collectives x (I, I_c, 2x persistent,
	// 2x persistent _c) x in place or not x 3 communicators.
	cross := 17 * 6 * 2 * 3
	// Large counts on MPI_COMM_WORLD: blocking, I and persistent _c (twice),
	// the first and last root, two datatypes, three (type, op) pairs of
	// which the user op skips the persistent form; Reduce_local blocking.
	roots := 1
	if n > 1 {
		roots = 2
	}
	const lforms = 1 + 1 + 2
	const lreds = 2 * (3 + 3 + 2*2) // in place or not x the forms' checks
	large := lforms + lforms*roots*2 + 4*lforms*roots*2*2 + 5*lforms*2*2 + roots*lreds + 5*lreds + 3
	out := map[string]int{"world": total, "split": split, "crosscomm": cross, "large": large}
	for k, v := range world {
		out["coll "+k] = v
	}
	return out
}

var countLine = regexp.MustCompile(`(?m)^(coll \w+|world|split|crosscomm|large) (\d+)$`)

// TestCCollectiveMatrix runs the correctness matrix of every collective x
// form x root x in place x datatype x op against serial references, with
// point-to-point traffic pending and three communicators in flight, then a
// pass with large counts (issue 12), once per rank count.
func TestCCollectiveMatrix(t *testing.T) {
	if !collectivesReady() {
		t.Skip("collectives not implemented yet in the engine")
	}
	exe := compile(t, "collmatrix")
	runs := []struct {
		n   int
		env []string
	}{{1, nil}, {2, nil}, {3, nil}, {4, nil}, {5, nil}, {8, nil},
		// The progress goroutine racing the waiting threads for the
		// same collectives.
		{3, []string{"HYMPI_ASYNC_PROGRESS=1"}}}
	for _, run := range runs {
		n := run.n
		name := fmt.Sprintf("n=%d", n)
		if run.env != nil {
			name += "/" + strings.Join(run.env, ",")
		}
		t.Run(name, func(t *testing.T) {
			out, err := runJob(t, n, exe, run.env...)
			if got := okLine.FindAllString(out, -1); err != nil || len(got) != n {
				t.Fatalf("hympirun -n %d collmatrix: %v (%d of %d ranks OK)\n%s", n, err, len(got), n, out)
			}
			want := collMatrixCounts(n)
			got := map[string]int{}
			for _, m := range countLine.FindAllStringSubmatch(out, -1) {
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
			t.Logf("n=%d: %d cases on MPI_COMM_WORLD, %d on the split, %d across communicators, %d large",
				n, got["world"], got["split"], got["crosscomm"], got["large"])
		})
	}
}
