// Command scenarios is the rank program of package mpi's multi-process tests:
// `hympirun -n N scenarios NAME` runs scenario NAME on every rank. Each
// scenario checks its own results and exits non-zero with a message naming
// the rank and what went wrong, so the test only has to look at hympirun's
// exit status and output.
package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/hympi/hympi/mpi"
)

var scenarios = map[string]func(c *mpi.Comm){}

func register(name string, f func(c *mpi.Comm)) { scenarios[name] = f }

func main() {
	if len(os.Args) != 2 || scenarios[os.Args[1]] == nil {
		names := make([]string, 0, len(scenarios))
		for n := range scenarios {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: scenarios NAME\nscenarios: %v\n", names)
		os.Exit(2)
	}
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "Init:", err)
		os.Exit(1)
	}
	rank := mpi.World().Rank()
	scenarios[os.Args[1]](mpi.World())
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "Finalize:", err)
		os.Exit(1)
	}
	if rank == 0 {
		fmt.Println("scenario", os.Args[1], "passed")
	}
}

// fail reports a failed check and ends the job.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rank %d: FAIL: %s\n", mpi.World().Rank(), fmt.Sprintf(format, args...))
	os.Exit(1)
}

// must fails the scenario on an unexpected error.
func must(err error, what string, args ...any) {
	if err != nil {
		fail("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// pattern fills b with bytes derived from seed, so a receiver can check a
// payload without having been told it.
func pattern(b []byte, seed int) {
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
}

func checkPattern(b []byte, seed int, what string) {
	want := make([]byte, len(b))
	pattern(want, seed)
	for i := range b {
		if b[i] != want[i] {
			fail("%s: byte %d of %d is %#x, want %#x", what, i, len(b), b[i], want[i])
		}
	}
}
