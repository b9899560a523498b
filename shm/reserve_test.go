package shm

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCreateReserveFails: what fallocate says decides Create's answer, and a
// refused region leaves nothing in the directory.
func TestCreateReserveFails(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want error // nil: Create succeeds
		msg  string
	}{
		{"ENOSPC", unix.ENOSPC, ErrNoSpace, "HYMPI_SHM_BUDGET"},
		{"EIO", unix.EIO, unix.EIO, "reserve"},
		{"EOPNOTSUPP", unix.EOPNOTSUPP, nil, ""},
		{"ok", nil, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			old := fallocate
			fallocate = func(fd int, mode uint32, off, size int64) error {
				calls++
				return c.err
			}
			defer func() { fallocate = old }()
			dir := t.TempDir()
			r, f, err := Create(dir, 2, tinyConfig)
			if calls != 1 {
				t.Errorf("fallocate called %d times, want 1", calls)
			}
			if c.want == nil {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				r.Close()
				f.Close()
			} else if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("Create: %v; want %v mentioning %q", err, c.want, c.msg)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left in %s: %v", dir, ents)
			}
		})
	}
}

// TestReserveOnFullTmpfs: the defect itself. A region is created in a small
// tmpfs that has room for it; then the tmpfs fills up; then a rank touches
// every page of the region. A sparse region faults (SIGBUS) on the first
// fresh page; a reserved one does not. Needs to mount a tmpfs (root).
func TestReserveOnFullTmpfs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shm")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a small tmpfs (%v): the fallocate path is covered by TestCreateReserveFails", err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	cfg := Config{MinCells: 32, CellSize: 32 << 10, Slots: 32} // about 2 MiB for 2 ranks
	r, f, err := Create(dir, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer r.Close()
	if r.L.Size < 1<<20 {
		t.Fatalf("region of %d bytes is too small to prove anything", r.L.Size)
	}
	fill, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer fill.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := fill.Write(chunk); err != nil {
			if !errors.Is(err, unix.ENOSPC) {
				t.Fatalf("filling the tmpfs: %v", err)
			}
			break
		}
	}
	if err := touchAll(r.mem); err != nil {
		t.Fatalf("after the tmpfs filled up: %v", err)
	}
}

// touchAll writes one byte in every page, turning a fault into an error.
func touchAll(mem []byte) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("fault writing the region: " + strings.TrimSpace(toString(p)))
		}
	}()
	for i := 0; i < len(mem); i += pageSize {
		mem[i] = 1
	}
	return nil
}

func toString(p any) string {
	if e, ok := p.(error); ok {
		return e.Error()
	}
	if s, ok := p.(string); ok {
		return s
	}
	return "panic"
}
