package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// mpiprog is built on first use: it is the one test program that needs
// package mpi.
var mpiprog = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "mpiprog")
	return bin, goBuild(bin, "./testdata/mpiprog")
})

// TestMPIProgram runs real MPI programs: the failing rank is rank 1, and the
// others are blocked inside the library in a receive from it when it fails.
func TestMPIProgram(t *testing.T) {
	t.Parallel()
	bin, err := mpiprog()
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	for _, tc := range []struct {
		mode string
		code int
		msg  string // %d: rank 1's pid
	}{
		{"ok", 0, ""},
		{"nofinalize", exitFailure, "hympirun: rank 1 (pid %d) exited without calling mpi.Finalize"},
		{"abort", 7, "hympirun: rank 1 (pid %d) called Abort with code 7"},
		{"sigkill", 137, "hympirun: rank 1 (pid %d) killed by signal SIGKILL (killed)"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			j := runJob(t, 10*time.Second, "-n", fmt.Sprint(n), bin, tc.mode)
			want := tc.msg
			if want != "" {
				want = fmt.Sprintf(want, j.pid(1))
			}
			j.expect(tc.code, want)
			if got := len(j.pidsSeen()); got != n {
				t.Errorf("%d ranks printed their pid, want %d", got, n)
			}
			if j.elapsed > 2*stopLimit {
				t.Errorf("job took %v, want at most %v", j.elapsed, 2*stopLimit)
			}
			if tc.mode == "ok" {
				for r := range n {
					if !strings.Contains(j.outText(), fmt.Sprintf("rank %d of %d", r, n)) {
						t.Errorf("no \"rank %d of %d\" in the output", r, n)
					}
				}
			}
		})
	}
}
