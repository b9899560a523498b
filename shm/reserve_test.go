package shm

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

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
// tmpfs, a channel is made and some of its cells used; then the tmpfs fills
// up. Everything made before is reserved, so touching all of it does not
// fault (SIGBUS on a sparse page); a new cell or a new channel is refused
// with ErrNoSpace naming the knob, never a fault. Needs to mount a tmpfs
// (root).
func TestReserveOnFullTmpfs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shm")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a small tmpfs (%v): the fallocate path is covered by TestCreateReserveFails", err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	cfg := Config{MinCells: 32, CellSize: 32 << 10, Slots: 32} // 1 MiB of cells per channel
	r, f, err := Create(dir, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer r.Close()
	ch, err := r.OpenChannel(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	pool := ch.Pool()
	var cells []uint32
	for range 4 {
		i, ok, err := pool.Get()
		if !ok || err != nil {
			t.Fatalf("Get: %v %v", ok, err)
		}
		cells = append(cells, i)
	}
	fill, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer fill.Close()
	for _, chunk := range [][]byte{make([]byte, 64<<10), make([]byte, pageSize)} {
		for {
			if _, err := fill.Write(chunk); err != nil {
				if !errors.Is(err, unix.ENOSPC) {
					t.Fatalf("filling the tmpfs: %v", err)
				}
				break
			}
		}
	}
	if err := touchAll(r.mem[:r.L.ChannelOff]); err != nil {
		t.Fatalf("header and rank blocks, after the tmpfs filled up: %v", err)
	}
	if err := touchAll(r.mem[ch.base : ch.base+r.L.RingBytes()]); err != nil {
		t.Fatalf("rings of a channel made before the tmpfs filled up: %v", err)
	}
	for _, i := range cells {
		if err := touchAll(ch.Cell(i)); err != nil {
			t.Fatalf("cell %d taken before the tmpfs filled up: %v", i, err)
		}
	}
	if _, ok, err := pool.Get(); ok || !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "HYMPI_SHM_BUDGET") {
		t.Errorf("Get of a fresh cell on a full tmpfs: %v, %v; want ErrNoSpace naming HYMPI_SHM_BUDGET", ok, err)
	}
	if _, err := r.OpenChannel(1, 0); !errors.Is(err, ErrNoSpace) {
		t.Errorf("OpenChannel on a full tmpfs: %v; want ErrNoSpace", err)
	}
}

// touchAll writes to every page, changing nothing (an atomic add of zero to
// its first word), and turns a fault into an error.
func touchAll(mem []byte) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("fault writing the region: " + strings.TrimSpace(toString(p)))
		}
	}()
	for i := 0; i+4 <= len(mem); i += pageSize {
		atomic.AddUint32((*uint32)(unsafe.Pointer(&mem[i])), 0)
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
