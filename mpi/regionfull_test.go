//go:build !ompi && !mpich

package mpi

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hympi/hympi/shm"
	"golang.org/x/sys/unix"
)

// TestRegionFullIsAnError: when the file system cannot hold a new channel,
// the send that needed it fails with an error naming HYMPI_SHM_BUDGET (and
// so do later calls); it neither hangs nor crashes, and the pair that got
// its channel before keeps it. Needs to mount a small tmpfs (root).
func TestRegionFullIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shm")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs (%v); shm's TestReserveOnFullTmpfs covers the refusal itself", err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	region, f, err := shm.Create(dir, 2, shm.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer region.Close()
	if 3*region.L.RingBytes() <= 1<<20 {
		t.Fatalf("channels of %d bytes: two fit in 1 MiB, the test proves nothing", region.L.RingBytes())
	}
	active.Store(true)
	var comms [2]*Comm
	for r := range comms {
		comms[r] = &Comm{e: newEngine(r, 2, region, onlineCPUs()), ctx: ctxWorld, rank: r, size: 2}
	}
	if err := comms[0].Send([]byte("first"), 1, 0); err != nil {
		t.Fatalf("first channel: %v", err)
	}
	for i := range 2 {
		err := comms[1].Send([]byte("no room"), 0, 0)
		var me *Error
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "HYMPI_SHM_BUDGET") {
			t.Fatalf("send %d on a full file system: %v; want an *Error naming HYMPI_SHM_BUDGET", i, err)
		}
	}
	buf := make([]byte, 8)
	if st, err := comms[1].Recv(buf, 0, 0); err == nil {
		t.Errorf("rank 1 went on after its engine failed: received %q", buf[:st.Count])
	}
}
