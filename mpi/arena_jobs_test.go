//go:build !ompi && !mpich

package mpi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/shm"
	"golang.org/x/sys/unix"
)

// TestAllPairsBeyondTheBudget: HYMPI_SHM_BUDGET sizes the channels' cell
// pools for the pairs expected to talk; it is not a cap. 64 ranks that all
// talk to each other under the smallest budget get every channel (each
// with the minimum pool) and deliver, as long as /dev/shm holds them. When
// it does not (a private tmpfs over /dev/shm, big enough for Init's
// collectives but not for every pair: needs root and unshare), the sends
// that need a channel fail with ErrIntern naming HYMPI_SHM_BUDGET, and the
// job ends at once, non-zero, with no crash and no hang.
func TestAllPairsBeyondTheBudget(t *testing.T) {
	const n = 64
	k := config.Defaults()
	k.ShmBudget = config.MinShmBudget
	l, err := shm.NewLayout(n, shm.ConfigFrom(k))
	if err != nil {
		t.Fatal(err)
	}
	// Half the pairs' rings and two cells per expected pair: more than
	// the collectives of Init use (under half the pairs, a cell or two
	// each), less than the rings of all pairs.
	small := l.ChannelOff + int64(n*(n-1)/2)*l.RingBytes() + int64(2*shm.ExpectedPairs(n)*l.CellSize)
	if all := l.ChannelOff + int64(n*(n-1))*l.RingBytes(); small >= all {
		t.Fatalf("a tmpfs of %d bytes holds all %d rings (%d bytes): the test proves nothing", small, n*(n-1), all)
	}
	budget := config.EnvShmBudget + "=" + fmt.Sprint(config.MinShmBudget)
	job := fmt.Sprintf("%s -n %d --timeout 60s %s allpairs_tiny", bins.hympirun, n, bins.scenarios)
	tests := []struct {
		name     string
		shell    string // run by sh -c in the test's environment
		wantExit int
	}{
		{"fits in /dev/shm", "exec " + job, 0},
		{"/dev/shm too small", fmt.Sprintf("mount -t tmpfs -o size=%d tmpfs /dev/shm || exit 77; exec %s", small, job), 1},
	}
	// Every pair's rings and a cell each, with room to spare: a /dev/shm
	// smaller than that (Docker's default is 64 MiB) cannot show delivery.
	need := 2 * (l.ChannelOff + int64(n*(n-1))*(l.RingBytes()+int64(l.CellSize)))
	var st unix.Statfs_t
	roomy := unix.Statfs("/dev/shm", &st) == nil && int64(st.Bavail)*st.Bsize >= need
	for _, tc := range tests {
		if tc.wantExit == 0 && !roomy {
			t.Logf("%s: skipped, /dev/shm has less than %d MiB free", tc.name, need>>20)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		var cmd *exec.Cmd
		if tc.wantExit == 0 {
			cmd = exec.CommandContext(ctx, "sh", "-c", tc.shell)
		} else {
			cmd = exec.CommandContext(ctx, "unshare", "-m", "sh", "-c", tc.shell)
		}
		cmd.Env = append(os.Environ(), budget)
		outb, err := cmd.CombinedOutput()
		hung := ctx.Err() != nil
		cancel()
		out := string(outb)
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			if tc.wantExit != 0 {
				t.Logf("%s: skipped: %v", tc.name, err)
				continue
			}
			t.Fatalf("%s: %v", tc.name, err)
		}
		if code == 77 || (tc.wantExit != 0 && strings.Contains(out, "unshare: ")) {
			t.Logf("%s: skipped, cannot mount a private tmpfs over /dev/shm:\n%s", tc.name, out)
			continue
		}
		if hung {
			t.Fatalf("%s: the job hung:\n%s", tc.name, out)
		}
		for _, bad := range []string{"panic", "goroutine ", "SIGSEGV"} {
			if strings.Contains(out, bad) {
				t.Fatalf("%s: the job crashed (%q):\n%s", tc.name, bad, out)
			}
		}
		switch {
		case tc.wantExit == 0 && (code != 0 || !strings.Contains(out, "scenario allpairs_tiny passed")):
			t.Errorf("%s: exit %d, want success:\n%s", tc.name, code, out)
		case tc.wantExit != 0 && (code == 0 || !strings.Contains(out, "out of room") || !strings.Contains(out, "HYMPI_SHM_BUDGET")):
			t.Errorf("%s: exit %d, want a failure naming HYMPI_SHM_BUDGET from a rank out of room:\n%s", tc.name, code, out)
		}
	}
}
