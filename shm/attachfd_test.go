package shm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func fdOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}

// TestAttachFDRefuses: a descriptor that is not a region is refused and
// left open, whatever it is.
func TestAttachFDRefuses(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o600)
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, make([]byte, 2*headerSize), 0o600)
	for _, c := range []struct {
		name string
		open func(t *testing.T) int
		want error
	}{
		{"stderr", func(*testing.T) int { return 2 }, ErrNotRegion},
		{"pipe", func(t *testing.T) int {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return int(r.Fd())
		}, ErrNotRegion},
		{"/dev/null", func(t *testing.T) int { return openFile(t, os.DevNull, os.O_RDWR) }, ErrNotRegion},
		{"directory", func(t *testing.T) int { return openFile(t, dir, os.O_RDONLY) }, ErrNotRegion},
		{"small file", func(t *testing.T) int { return openFile(t, small, os.O_RDWR) }, ErrNotRegion},
		{"read-only file", func(t *testing.T) int { return openFile(t, garbage, os.O_RDONLY) }, ErrNotRegion},
		{"zeroed file", func(t *testing.T) int { return openFile(t, garbage, os.O_RDWR) }, ErrBadMagic},
		{"closed", func(*testing.T) int { return 1000 }, ErrNotRegion},
	} {
		t.Run(c.name, func(t *testing.T) {
			fd := c.open(t)
			wasOpen := fdOpen(fd)
			r, err := AttachFD(fd)
			if err == nil {
				r.Close()
				t.Fatal("attached")
			}
			if !errors.Is(err, c.want) {
				t.Errorf("err %v, want %v", err, c.want)
			}
			if fdOpen(fd) != wasOpen {
				t.Errorf("descriptor %d: open %v before, %v after", fd, wasOpen, fdOpen(fd))
			}
		})
	}
}

func openFile(t *testing.T, path string, flag int) int {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}

// TestAttachFDRegion: the real thing attaches, and its descriptor is
// closed (no child of the rank inherits the region).
func TestAttachFDRegion(t *testing.T) {
	r0, f, err := Create(t.TempDir(), 2, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer r0.Close()
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := AttachFD(fd)
	if err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	defer r.Close()
	if r.Ranks() != 2 {
		t.Errorf("Ranks() = %d", r.Ranks())
	}
	if fdOpen(fd) {
		unix.Close(fd)
		t.Errorf("descriptor %d still open after attaching", fd)
	}
}
