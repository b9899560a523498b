//go:build !ompi && !mpich

package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The skew issue's capacity promise: with up to 4 ranks a sender can have
// 16 × 1 MiB in flight to one receiver through shared memory alone.
func TestWindowFitsInSharedMemory(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			out, err := runJob(t, n, 60*time.Second, "window", "HYMPI_DIRECT=off")
			if err != nil || !strings.Contains(out, "scenario window passed") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// Skew adaptation between real processes: the threshold rises while the
// receiver lags and falls once it keeps up; HYMPI_SKEW=off pins it.
func TestSkewAdaptsBetweenProcesses(t *testing.T) {
	for _, env := range [][]string{{"HYMPI_DIRECT=auto"}, {"HYMPI_DIRECT=auto", "HYMPI_SKEW=off"}} {
		t.Run(strings.Join(env, ","), func(t *testing.T) {
			out, err := runJob(t, 2, 60*time.Second, "skewadapt", env...)
			if err != nil || !strings.Contains(out, "scenario skewadapt passed") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// A receiver that streams windows of receives (osu_bw) is busy, not late:
// skew feedback must not turn its sender's direct copies into eager ones.
func TestStreamingReceiverKeepsDirectCopy(t *testing.T) {
	out, err := runJob(t, 2, 60*time.Second, "streamwindows", "HYMPI_DIRECT=auto")
	if err != nil || !strings.Contains(out, "scenario streamwindows passed") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// Both ways at once (osu_bibw) between real processes: every byte arrives,
// in order across protocols, and above the size where eager may still win
// both ways every message after the first window is read (scenario
// bothways).
func TestBothWaysBetweenProcesses(t *testing.T) {
	for _, env := range [][]string{{"HYMPI_DIRECT=auto"}, {"HYMPI_DIRECT=auto", "HYMPI_SKEW=off"}} {
		t.Run(strings.Join(env, ","), func(t *testing.T) {
			out, err := runJob(t, 2, 60*time.Second, "bothways", env...)
			if err != nil || !strings.Contains(out, "scenario bothways passed") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}
