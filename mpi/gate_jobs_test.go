//go:build !ompi && !mpich

package mpi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestGateJobs runs the gate scenarios (mpi/internal/scenarios/gate.go)
// on two CPUs, where small Allreduce (from 3 ranks) and Barrier (from 9) go
// through the communicators' gates (coll_gate.go): results at 4, 12 and 64
// ranks, a thousand communicators reusing gate blocks, and a rank asleep at
// a gate woken by point-to-point messages. The launcher runs under an
// affinity mask of two CPUs, so the job is oversubscribed on any machine.
func TestGateJobs(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	var two unix.CPUSet
	for cpu, k := 0, 0; cpu < 1024 && k < 2; cpu++ {
		if set.IsSet(cpu) {
			two.Set(cpu)
			k++
		}
	}
	for _, tc := range []struct {
		scenario string
		n        int
	}{{"gate", 4}, {"gate", 12}, {"gate", 64}, {"gatereuse", 16}, {"gatewake", 16}} {
		scenario, n := tc.scenario, tc.n
		t.Run(fmt.Sprintf("%s/n=%d", scenario, n), func(t *testing.T) {
			limit := 2 * time.Minute
			ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bins.hympirun, "-n", fmt.Sprint(n), "--timeout", limit.String(), bins.scenarios, scenario)
			cmd.Env = os.Environ()
			// The child inherits the mask of the thread that starts it.
			out, err := withAffinity(&two, cmd.CombinedOutput)
			if err != nil {
				t.Fatalf("%s, %d ranks: %v\n%s", scenario, n, err, out)
			}
		})
	}
}

// withAffinity runs start on a thread of its own whose affinity mask is set,
// so that the process it starts inherits the mask; the thread is discarded
// after, rather than returned to the runtime with a narrowed mask.
func withAffinity(set *unix.CPUSet, start func() ([]byte, error)) ([]byte, error) {
	type result struct {
		out []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread exits with the goroutine.
		runtime.LockOSThread()
		if err := unix.SchedSetaffinity(0, set); err != nil {
			ch <- result{nil, err}
			return
		}
		out, err := start()
		ch <- result{out, err}
	}()
	r := <-ch
	return r.out, r.err
}
