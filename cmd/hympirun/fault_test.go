package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFaultReport: a rank killed by SIGBUS gets a report that names the
// likely cause, not a bare signal.
func TestFaultReport(t *testing.T) {
	t.Parallel()
	j := runJob(t, 30*time.Second, "-n", "2", "/bin/sh", "-c", `[ "$HYMPI_RANK" = 1 ] && kill -BUS $$; exit 0`)
	msgs := j.messages()
	re := regexp.MustCompile(`^hympirun: rank 1 \(pid \d+\) killed by signal SIGBUS \(bus error\): a fault on mapped memory \(is /dev/shm full\? it has \d+ MiB free now\)$`)
	if j.code != 128+int(syscall.SIGBUS) || len(msgs) != 1 || !re.MatchString(msgs[0]) {
		t.Errorf("exit %d, messages %q", j.code, msgs)
	}
}

// TestFaultHint: the hint for each way a rank can die, on a file system
// with room and on a full one (a small tmpfs, when we may mount one).
func TestFaultHint(t *testing.T) {
	exit := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	signal := func(s syscall.Signal) syscall.WaitStatus { return syscall.WaitStatus(s) }
	roomy := t.TempDir()
	for _, c := range []struct {
		ws   syscall.WaitStatus
		want string
	}{
		{exit(1), ""},
		{exit(2), ""},
		{signal(syscall.SIGKILL), ""},
		{signal(syscall.SIGBUS), "is " + roomy + " full? it has"},
	} {
		if got := faultHint(c.ws, roomy); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("status %#x on a roomy directory: hint %q, want %q", uint32(c.ws), got, c.want)
		}
	}

	full := filepath.Join(t.TempDir(), "shm")
	os.Mkdir(full, 0o700)
	if err := unix.Mount("tmpfs", full, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill: %v", err)
	}
	defer unix.Unmount(full, unix.MNT_DETACH)
	f, err := os.Create(filepath.Join(full, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 64<<10))
	}
	f.Close()
	for _, c := range []struct {
		ws   syscall.WaitStatus
		want string
	}{
		{exit(1), ""},
		{exit(2), full + " is full"},
		{signal(syscall.SIGBUS), full + " is full"},
		{signal(syscall.SIGSEGV), ""},
	} {
		if got := faultHint(c.ws, full); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("status %#x on a full tmpfs: hint %q, want %q", uint32(c.ws), got, c.want)
		}
	}
}
