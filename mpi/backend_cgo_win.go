//go:build ompi || mpich

package mpi

// #include "backend_cgo_win.h"
import "C"

import (
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

// One-sided communication on the system-MPI backend: MPI's own windows.
// Arguments and epochs are checked in Go as the engine checks them, so a
// bad call gets the engine's class and never reaches MPI (which may not
// check bounds at all). Memory MPI may touch stays pinned: a created
// window's memory and attached regions until Free or Detach; operation
// buffers until the epoch's closing call. In a passive-target epoch each
// operation is followed by MPI_Win_flush_local toward its target (in the
// same cgo call), so, as on the engine, its buffers are the caller's again
// when it returns. In a fence or PSCW epoch MPI delivers results (Get,
// GetAccumulate, FetchAndOp, CompareAndSwap) only when the epoch's
// closing call returns, as the standard says.

// Win is an RMA window.
type Win struct {
	h      C.hy_h
	flavor WinFlavor
	rank   int
	n      int
	sizes  []int64
	units  []int64
	local  []byte
	sep    bool

	mem      runtime.Pinner              // a created window's memory
	attached map[uintptr]*runtime.Pinner // dynamic: regions by start address

	mu         sync.Mutex // the epoch state below, for threaded callers
	ops        runtime.Pinner
	locks      []int8 // per target: lock type held (0 none)
	lockAll    bool
	fenced     bool
	startGroup []int
	postOpen   bool
	freed      bool
}

var (
	rmaOps  [2]C.hy_h // MPI_REPLACE, MPI_NO_OP
	casType [4]C.hy_h // unsigned types of 1, 2, 4, 8 bytes
	rmaOnce sync.Once
)

// winMem is the memory MPI allocated for a window as a slice: the
// backend's only view of C memory, valid until the window is freed.
func winMem(p unsafe.Pointer, n int64) []byte {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// WinCreate exposes base (this rank's memory, possibly empty) as a window
// over c. Collective.
func (c *Comm) WinCreate(base []byte, dispUnit int) (*Win, error) {
	return c.newWin("WinCreate", FlavorCreate, base, int64(len(base)), dispUnit, false)
}

// WinAllocate allocates size bytes of window memory on each rank.
func (c *Comm) WinAllocate(size, dispUnit int) (*Win, error) {
	return c.newWin("WinAllocate", FlavorAllocate, nil, int64(size), dispUnit, false)
}

// WinAllocateShared allocates size bytes per rank in memory every rank can
// load from and store to (Shared). The ranks' pieces are consecutive unless
// noncontig.
func (c *Comm) WinAllocateShared(size, dispUnit int, noncontig bool) (*Win, error) {
	return c.newWin("WinAllocateShared", FlavorShared, nil, int64(size), dispUnit, noncontig)
}

// WinCreateDynamic is a window without memory; Attach adds some.
func (c *Comm) WinCreateDynamic() (*Win, error) {
	return c.newWin("WinCreateDynamic", FlavorDynamic, nil, 0, 1, false)
}

func (c *Comm) newWin(op string, flavor WinFlavor, base []byte, size int64, unit int, noncontig bool) (*Win, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	rmaOnce.Do(func() { C.hy_rma_predefined(&rmaOps[0], &casType[0]) })
	// Every rank learns every rank's size and unit (for the bounds
	// checks); a bad argument anywhere fails the call everywhere, before
	// MPI is asked, as creation is collective.
	mine := make([]byte, 17)
	binary.LittleEndian.PutUint64(mine, uint64(size))
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(unit)))
	bad := ErrorClass(0)
	switch {
	case size < 0 || size > 1<<31-1:
		bad = ErrSize
	case unit <= 0 || unit > 1<<31-1:
		bad = ErrDisp
	}
	mine[16] = byte(bad)
	all := make([]byte, 17*c.size)
	if err := c.Allgather(mine, all); err != nil {
		return nil, err
	}
	w := &Win{flavor: flavor, rank: c.rank, n: c.size, sizes: make([]int64, c.size), units: make([]int64, c.size), locks: make([]int8, c.size)}
	for r := range w.sizes {
		w.sizes[r] = int64(binary.LittleEndian.Uint64(all[17*r:]))
		w.units[r] = int64(binary.LittleEndian.Uint64(all[17*r+8:]))
		if all[17*r+16] != 0 {
			return nil, newErr(ErrorClass(all[17*r+16]), op, "rank %d: size %d, displacement unit %d", r, w.sizes[r], w.units[r])
		}
	}
	if flavor == FlavorCreate && len(base) > 0 {
		w.mem.Pin(unsafe.SliceData(base))
	}
	q := C.hy_win_new(C.int(flavor), ptr(base), C.longlong(size), C.int(unit), flag(noncontig), c.h)
	if q.err != 0 {
		w.mem.Unpin()
		return nil, mpiErr(op, q.err)
	}
	w.h = q.win
	switch flavor {
	case FlavorCreate:
		w.local = base
	case FlavorAllocate, FlavorShared:
		w.local = winMem(q.base, size)
	case FlavorDynamic:
		w.attached = map[uintptr]*runtime.Pinner{}
	}
	w.sep = C.hy_win_model(w.h) != 0
	return w, nil
}

func (w *Win) check(op string) error {
	if w == nil || w.freed {
		return newErr(ErrWin, op, "window is nil or freed")
	}
	if finalized.Load() {
		return newErr(ErrNotInitialized, op, "MPI was finalized")
	}
	return nil
}

// sync runs one synchronisation call.
func (w *Win) sync(op string, what C.int, a, b, c int, g C.hy_h) error {
	return mpiErr(op, C.hy_win_sync(what, w.h, C.int(a), C.int(b), C.int(c), g))
}

// Free releases the window. Collective.
func (w *Win) Free() error {
	if err := w.check("Win.Free"); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	busy := w.lockAll || w.startGroup != nil || w.postOpen || slices.ContainsFunc(w.locks, func(l int8) bool { return l != 0 })
	if busy {
		return newErr(ErrRMASync, "Win.Free", "an epoch is still open on the window")
	}
	if err := w.sync("Win.Free", C.HY_FREE, 0, 0, 0, 0); err != nil {
		return err
	}
	w.freed = true
	w.ops.Unpin()
	w.mem.Unpin()
	for _, p := range w.attached {
		p.Unpin()
	}
	w.attached, w.local = nil, nil
	return nil
}

// Flavor is how the window was created.
func (w *Win) Flavor() WinFlavor { return w.flavor }

// Group is the group of the window's communicator.
func (w *Win) Group() *Group {
	if w == nil || w.freed || Finalized() {
		return nil
	}
	g, _ := wrapGroup("Win.Group", C.hy_win_group(w.h))
	return g
}

// Local is this rank's window memory (nil for a dynamic window).
func (w *Win) Local() []byte { return w.local }

// Size is the size in bytes of rank r's window memory.
func (w *Win) Size(r int) int { return int(w.sizes[r]) }

// DispUnit is rank r's displacement unit.
func (w *Win) DispUnit(r int) int { return int(w.units[r]) }

// Shared is rank r's window memory as this process maps it, for windows
// made by WinAllocateShared (MPI_Win_shared_query); nil for the others.
func (w *Win) Shared(r int) ([]byte, error) {
	if err := w.check("Win.Shared"); err != nil {
		return nil, err
	}
	if r < 0 || r >= w.n {
		return nil, newErr(ErrRank, "Win.Shared", "rank %d of %d", r, w.n)
	}
	if w.flavor != FlavorShared {
		return nil, nil
	}
	if r == w.rank {
		return w.local, nil
	}
	var size C.longlong
	var unit C.int
	q := C.hy_win_shared_query(w.h, C.int(r), &size, &unit)
	if q.err != 0 {
		return nil, mpiErr("Win.Shared", q.err)
	}
	b := winMem(q.base, int64(size))
	return b[:len(b):len(b)], nil
}

// Attach exposes mem through a dynamic window; remote ranks address it by
// its absolute address. mem stays pinned until Detach.
func (w *Win) Attach(mem []byte) error {
	if err := w.check("Win.Attach"); err != nil {
		return err
	}
	if w.flavor != FlavorDynamic {
		return newErr(ErrRMAFlavor, "Win.Attach", "the window is not dynamic")
	}
	if len(mem) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p := new(runtime.Pinner)
	p.Pin(unsafe.SliceData(mem))
	if err := mpiErr("Win.Attach", C.hy_win_attach(0, w.h, ptr(mem), C.longlong(len(mem)))); err != nil {
		p.Unpin()
		return err
	}
	w.attached[uintptr(unsafe.Pointer(unsafe.SliceData(mem)))] = p
	return nil
}

// Detach withdraws a region that Attach exposed (mem starts where it did).
func (w *Win) Detach(mem []byte) error {
	if err := w.check("Win.Detach"); err != nil {
		return err
	}
	if w.flavor != FlavorDynamic {
		return newErr(ErrRMAFlavor, "Win.Detach", "the window is not dynamic")
	}
	if len(mem) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	a := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	p := w.attached[a]
	if p == nil {
		return newErr(ErrRMAAttach, "Win.Detach", "address %#x is not attached", a)
	}
	if err := mpiErr("Win.Detach", C.hy_win_attach(1, w.h, ptr(mem), 0)); err != nil {
		return err
	}
	p.Unpin()
	delete(w.attached, a)
	return nil
}

// detachAddr serves hympi's C library only: not supported on this backend.
func (w *Win) detachAddr(addr uintptr) error {
	return newErr(ErrOther, "Win.DetachAddr", "not supported on this backend")
}

// Separate says whether MPI keeps the window in the separate memory model.
func (w *Win) Separate() bool { return w.sep }

// sharedBase serves hympi's C library only: nil on this backend.
func (w *Win) sharedBase(r int) unsafe.Pointer { return nil }

// accWordAddr serves hympi's C library only: nil on this backend.
func (w *Win) accWordAddr(t int) unsafe.Pointer { return nil }

// ring serves hympi's C library only: nothing to do on this backend.
func (w *Win) ring() {}
