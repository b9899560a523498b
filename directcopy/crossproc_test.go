package directcopy

import (
	"bytes"
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCrossProcess reads and writes a child's buffer, then kills the child
// and checks the next reads say the peer is gone (zombie, then reaped).
func TestCrossProcess(t *testing.T) {
	h := startHolder(t, holderSize)
	skipIfNotSupported(t, Probe(h.pid, h.probe))

	t.Run("read", func(t *testing.T) {
		for _, c := range []struct{ off, n int }{
			{0, 1}, {0, 4095}, {1, 4097}, {4096, 64 << 10}, {123, 1 << 20}, {0, h.size},
		} {
			dst := make([]byte, c.n)
			if err := ReadFrom(h.pid, dst, h.addr+uintptr(c.off)); err != nil {
				t.Fatalf("ReadFrom(off %d, %d bytes): %v", c.off, c.n, err)
			}
			want := make([]byte, h.size)
			pattern(want, 1)
			if !bytes.Equal(dst, want[c.off:c.off+c.n]) {
				t.Fatalf("ReadFrom(off %d, %d bytes): wrong data", c.off, c.n)
			}
		}
	})
	t.Run("write", func(t *testing.T) {
		src := make([]byte, h.size)
		pattern(src, 2)
		if err := WriteTo(h.pid, h.addr, src); err != nil {
			t.Fatal(err)
		}
		if got := h.command(t, "check 2"); got != "ok" {
			t.Fatalf("child says %q after WriteTo", got)
		}
	})

	// Kill by pid, wait for the exit without reaping (the child is a
	// zombie: its memory is gone but the pid exists), read, then reap.
	if err := unix.Kill(h.pid, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, h.pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	checkGone := func(state string) {
		t.Helper()
		if err := ReadFrom(h.pid, buf, h.addr); !errors.Is(err, ErrPeerGone) {
			t.Errorf("%s: ReadFrom = %v, want ErrPeerGone", state, err)
		}
		err := Probe(h.pid, h.probe)
		if !errors.Is(err, ErrPeerGone) || errors.Is(err, ErrNotSupported) {
			t.Errorf("%s: Probe = %v, want a couldn't-tell ErrPeerGone", state, err)
		}
	}
	checkGone("zombie")
	_ = h.cmd.Wait()
	h.done = true
	checkGone("reaped")
}
