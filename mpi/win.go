//go:build !ompi && !mpich

package mpi

import (
	"encoding/binary"
	"os"
	"slices"
	"sync"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/shm"
)

// One-sided communication: windows.
//
// Every window has one shared segment (shm.Segment) that all its ranks map.
// It starts with the control words, which let an origin synchronise with a
// target that is not calling MPI: per target a reader/writer lock word
// (Lock/Unlock) and an accumulate mutex, per ordered pair a post and a
// complete counter (PSCW), per rank a small table of attached regions
// (dynamic windows). Windows whose memory hympi allocates (Allocate,
// AllocateShared) keep every rank's memory in the same segment after the
// control words, so every access is a load or a store. Windows on user
// memory (Create, CreateDynamic) are reached with one process_vm_readv or
// process_vm_writev into the target.
//
// Every operation is done by the origin alone and is complete when the call
// returns; synchronisation calls therefore only order epochs (they wait
// for posts, locks and completes, never for data), and passive-target
// epochs need nothing from the target.

// dynSlots is how many regions one rank can have attached to a dynamic
// window at a time.
const dynSlots = 64

// Win is an RMA window.
type Win struct {
	c      *Comm // a private duplicate: fences and frees never meet user traffic
	e      *engine
	flavor WinFlavor
	seg    *shm.Segment
	rank   int
	n      int
	sizes  []int64
	units  []int64
	bases  []uint64 // create/dynamic: each rank's base address in its own process
	pids   []int
	data   []int64 // allocate/shared: each rank's offset in seg (-1: none)
	direct []bool  // this rank may read and write rank t's memory by single copy
	local  []byte  // this rank's window memory
	bells  []shm.Doorbell

	// Control layout (offsets into seg).
	postBase, doneBase, dynBase int64

	mu      sync.Mutex // the epoch state below, for threaded callers
	locks   []int8     // per target: lock type this rank holds (0 none)
	lockAll bool
	// separate: a created window on ranks that cannot reach each other's
	// memory keeps a public copy in the segment (winsep.go).
	separate   bool
	shadow     []byte
	fenced     bool // inside a fence epoch
	startGroup []int
	postGroup  []int
	postSeen   []uint32 // per target: posts consumed by Start
	doneSeen   []uint32 // per origin: completes consumed by Wait
	// mine is this rank's attached regions, kept privately: its own
	// accesses are checked against this, not against the table in the
	// segment, which any peer could overwrite.
	mine  []winSeg // Off = address
	freed bool
}

func (w *Win) lockWord(t int) *atomicU32 { return w.seg.U32(int64(t) * 64) }
func (w *Win) accWord(t int) *atomicU32  { return w.seg.U32(int64(t)*64 + 4) }

// accWaiters counts the ranks waiting (asleep, maybe) for accWord(t):
// a releaser outside the engine (the C library's fast path) rings the
// doorbells only when it is not zero.
func (w *Win) accWaiters(t int) *atomicU32 { return w.seg.U32(int64(t)*64 + 8) }
func (w *Win) postWord(o, t int) *atomicU32 {
	return w.seg.U32(w.postBase + int64(o*w.n+t)*4)
}
func (w *Win) doneWord(t, o int) *atomicU32 {
	return w.seg.U32(w.doneBase + int64(t*w.n+o)*4)
}
func (w *Win) dynWords(r, k int) (addr, size *atomicU64) {
	off := w.dynBase + int64(r*dynSlots+k)*16
	return w.seg.U64(off), w.seg.U64(off + 8)
}

const pageSize = 4096

func roundUp(x, a int64) int64 { return (x + a - 1) / a * a }

// winArgs is what one rank brings to a window's creation.
type winArgs struct {
	flavor    WinFlavor
	size      int64
	unit      int64
	base      []byte // Create
	noncontig bool
}

// WinCreate exposes base (this rank's memory, possibly empty) as a window
// over c. Collective.
func (c *Comm) WinCreate(base []byte, dispUnit int) (*Win, error) {
	return c.newWin("WinCreate", winArgs{flavor: FlavorCreate, size: int64(len(base)), unit: int64(dispUnit), base: base})
}

// WinAllocate allocates size bytes of window memory on each rank.
func (c *Comm) WinAllocate(size, dispUnit int) (*Win, error) {
	return c.newWin("WinAllocate", winArgs{flavor: FlavorAllocate, size: int64(size), unit: int64(dispUnit), noncontig: true})
}

// WinAllocateShared allocates size bytes per rank in memory every rank can
// load from and store to (Shared). The ranks' pieces are consecutive unless
// noncontig.
func (c *Comm) WinAllocateShared(size, dispUnit int, noncontig bool) (*Win, error) {
	return c.newWin("WinAllocateShared", winArgs{flavor: FlavorShared, size: int64(size), unit: int64(dispUnit), noncontig: noncontig})
}

// WinCreateDynamic is a window without memory; Attach adds some.
func (c *Comm) WinCreateDynamic() (*Win, error) {
	return c.newWin("WinCreateDynamic", winArgs{flavor: FlavorDynamic, unit: 1})
}

func (c *Comm) newWin(op string, a winArgs) (*Win, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	bad := int64(0)
	var localErr error
	switch {
	case a.size < 0:
		localErr = newErr(ErrSize, op, "size %d", a.size)
	case a.unit <= 0:
		localErr = newErr(ErrDisp, op, "displacement unit %d (must be positive)", a.unit)
	}
	n, me := c.size, c.rank
	noReach := uint64(0)
	if localErr == nil && (a.flavor == FlavorCreate || a.flavor == FlavorDynamic) {
		// User memory is reached by single copy: every peer must be.
		// Where one is not, a created window falls back to the
		// separate memory model (winsep.go); a dynamic one cannot.
		for t := 0; t < n; t++ {
			if t != me && !c.e.canReach(c.worldOf(t)) {
				noReach = 1
				if a.flavor == FlavorDynamic {
					localErr = newErr(ErrRMAFlavor, op, "the kernel does not let rank %d write into rank %d (process_vm_writev): use WinAllocate", me, t)
				}
				break
			}
		}
	}
	if localErr != nil {
		bad = 1
	}
	// Exchange: bad, size, unit, base address, pid.
	var baseAddr uint64
	if len(a.base) > 0 {
		baseAddr = uint64(addrOf(a.base))
	}
	const rec = 48
	mine := make([]byte, rec)
	for i, v := range []uint64{uint64(bad), uint64(a.size), uint64(a.unit), baseAddr, uint64(os.Getpid()), noReach} {
		binary.LittleEndian.PutUint64(mine[8*i:], v)
	}
	all := make([]byte, rec*n)
	if err := c.Allgather(mine, all); err != nil {
		return nil, wrapCollErr(op, err)
	}
	w := &Win{e: c.e, flavor: a.flavor, rank: me, n: n,
		sizes: make([]int64, n), units: make([]int64, n), bases: make([]uint64, n), pids: make([]int, n),
		data: make([]int64, n), direct: make([]bool, n), locks: make([]int8, n),
		postSeen: make([]uint32, n), doneSeen: make([]uint32, n)}
	anyBad := false
	for r := 0; r < n; r++ {
		v := func(i int) uint64 { return binary.LittleEndian.Uint64(all[rec*r+8*i:]) }
		anyBad = anyBad || v(0) != 0
		w.separate = w.separate || (a.flavor == FlavorCreate && v(5) != 0)
		w.sizes[r], w.units[r], w.bases[r], w.pids[r] = int64(v(1)), int64(v(2)), v(3), int(v(4))
		w.direct[r] = r != me
		w.data[r] = -1
	}
	if anyBad {
		if localErr != nil {
			return nil, localErr
		}
		return nil, newErr(ErrOther, op, "another rank refused its arguments")
	}
	// Layout: control words, then allocated memory.
	w.postBase = int64(n) * 64
	w.doneBase = w.postBase + int64(n*n)*4
	w.dynBase = roundUp(w.doneBase+int64(n*n)*4, 8)
	total := roundUp(w.dynBase+int64(n*dynSlots)*16, pageSize)
	if a.flavor == FlavorAllocate || a.flavor == FlavorShared || w.separate {
		for r := 0; r < n; r++ {
			if a.noncontig || w.separate {
				total = roundUp(total, pageSize)
			}
			w.data[r] = total
			total += w.sizes[r]
		}
		total = roundUp(total, pageSize)
	}
	dup, err := c.Dup()
	if err != nil {
		return nil, err
	}
	w.c = dup
	if w.seg, err = dup.shareSegment(op, total); err != nil {
		dup.Free()
		return nil, err
	}
	switch a.flavor {
	case FlavorCreate:
		w.local = a.base
		if w.separate {
			// Fill the public copy before any origin can reach it:
			// an origin may lock this rank as soon as its own
			// creation returns.
			w.startSeparate()
			if err := dup.Barrier(); err != nil {
				w.seg.Close()
				dup.Free()
				return nil, wrapCollErr(op, err)
			}
		}
	case FlavorAllocate, FlavorShared:
		w.local = w.seg.Bytes()[w.data[me] : w.data[me]+w.sizes[me] : w.data[me]+w.sizes[me]]
	}
	if c.e.region != nil {
		w.bells = make([]shm.Doorbell, n)
		for r := range w.bells {
			w.bells[r] = c.e.region.Doorbell(c.worldOf(r))
		}
	}
	return w, nil
}

// canReach says whether this rank may use single copy on world rank p's
// memory (its probe at Init succeeded).
func (e *engine) canReach(p int) bool {
	if e.region == nil {
		return false
	}
	if e.region.DirectBits(e.rank).Has(p) {
		return true
	}
	// With HYMPI_DIRECT=off Init probed nobody; windows on user memory
	// still need single copy, so ask the kernel now.
	return e.mode == directOff && directcopy.Available() == nil &&
		directcopy.Probe(e.region.RankPID(p), uintptr(e.region.ProbeAddr(p))) == nil
}

// shareSegment creates a segment of size bytes that every rank of c maps.
// Collective. Rank 0 creates a memfd and the others open it through /proc;
// if any of them cannot, rank 0 falls back to a /dev/shm file, which it
// unlinks as soon as every rank has mapped it.
func (c *Comm) shareSegment(op string, size int64) (*shm.Segment, error) {
	var seg *shm.Segment
	var err error
	msg := make([]byte, 16)
	// HYMPI_WIN_SEGMENT=file skips the memfd, for testing the fallback.
	if c.rank == 0 && os.Getenv("HYMPI_WIN_SEGMENT") != "file" {
		if seg, err = shm.NewSegment(size); err == nil {
			binary.LittleEndian.PutUint64(msg, uint64(os.Getpid()))
			binary.LittleEndian.PutUint64(msg[8:], uint64(seg.FD()))
		}
	}
	if err := c.Bcast(msg, 0); err != nil {
		if seg != nil {
			seg.Close()
		}
		return nil, wrapCollErr(op, err)
	}
	pid, fd := int(binary.LittleEndian.Uint64(msg)), int(binary.LittleEndian.Uint64(msg[8:]))
	if c.rank != 0 && pid != 0 {
		seg, err = shm.OpenSegment(pid, fd, size)
	}
	if c.allOK(seg != nil) {
		seg.CloseFile()
		return seg, nil
	}
	if seg != nil {
		seg.Close()
		seg = nil
	}
	name := make([]byte, 256)
	if c.rank == 0 {
		if seg, err = shm.NewSegmentFile("/dev/shm", size); err == nil {
			copy(name, seg.Name())
		}
	}
	if err := c.Bcast(name, 0); err != nil {
		if seg != nil {
			seg.Close()
		}
		return nil, wrapCollErr(op, err)
	}
	path := string(name[:cstrlen(name)])
	if c.rank != 0 && path != "" {
		seg, err = shm.OpenSegmentFile(path, size)
	}
	if c.allOK(seg != nil) {
		seg.CloseFile()
		return seg, nil
	}
	if seg != nil {
		seg.Close()
	}
	if err == nil {
		err = newErr(ErrOther, op, "another rank could not map the window's segment")
	}
	return nil, newErr(ErrRMAShared, op, "cannot share the window's segment of %d bytes: %v", size, err)
}

func cstrlen(b []byte) int {
	for i, x := range b {
		if x == 0 {
			return i
		}
	}
	return len(b)
}

// allOK is true on every rank when ok is true on every rank.
func (c *Comm) allOK(ok bool) bool {
	in, out := make([]byte, 8), make([]byte, 8)
	if ok {
		binary.LittleEndian.PutUint64(in, 1)
	}
	if err := c.Allreduce(in, out, Int64, Min); err != nil {
		return false
	}
	return binary.LittleEndian.Uint64(out) == 1
}

func (w *Win) check(op string) error {
	if w == nil || w.freed {
		return newErr(ErrWin, op, "window is nil or freed")
	}
	return nil
}

// Free releases the window. Collective: it returns once every rank has
// stopped using it.
func (w *Win) Free() error {
	if err := w.check("Win.Free"); err != nil {
		return err
	}
	w.mu.Lock()
	busy := w.lockAll || len(w.startGroup) > 0 || len(w.postGroup) > 0
	for _, l := range w.locks {
		busy = busy || l != 0
	}
	w.mu.Unlock()
	if busy {
		return newErr(ErrRMASync, "Win.Free", "an epoch is still open on the window")
	}
	if err := w.c.Barrier(); err != nil {
		return wrapCollErr("Win.Free", err)
	}
	w.freed = true
	err := w.c.Free()
	w.seg.Close()
	w.local = nil
	return err
}

// Flavor is how the window was created.
func (w *Win) Flavor() WinFlavor { return w.flavor }

// Group is the group of the window's communicator.
func (w *Win) Group() *Group { return w.c.Group() }

// Local is this rank's window memory (nil for a dynamic window).
func (w *Win) Local() []byte { return w.local }

// Size is the size in bytes of rank r's window memory.
func (w *Win) Size(r int) int { return int(w.sizes[r]) }

// DispUnit is rank r's displacement unit.
func (w *Win) DispUnit(r int) int { return int(w.units[r]) }

// Shared is rank r's window memory as this process maps it, for windows
// whose memory hympi allocated; nil for the others.
func (w *Win) Shared(r int) ([]byte, error) {
	if err := w.check("Win.Shared"); err != nil {
		return nil, err
	}
	if r < 0 || r >= w.n {
		return nil, newErr(ErrRank, "Win.Shared", "rank %d of %d", r, w.n)
	}
	if w.data[r] < 0 || w.separate {
		return nil, nil
	}
	return w.seg.Bytes()[w.data[r] : w.data[r]+w.sizes[r] : w.data[r]+w.sizes[r]], nil
}

// Attach exposes mem through a dynamic window; remote ranks address it by
// its absolute address (AddrOf).
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
	for k := 0; k < dynSlots; k++ {
		a, s := w.dynWords(w.rank, k)
		if s.Load() == 0 {
			a.Store(uint64(addrOf(mem)))
			s.Store(uint64(len(mem)))
			w.mine = append(w.mine, winSeg{Off: int64(addrOf(mem)), Len: int64(len(mem))})
			return nil
		}
	}
	return newErr(ErrRMAAttach, "Win.Attach", "more than %d regions attached", dynSlots)
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
	return w.detachAddr(addrOf(mem))
}

// detachAddr is Detach by the region's start address.
func (w *Win) detachAddr(addr uintptr) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := 0; k < dynSlots; k++ {
		a, s := w.dynWords(w.rank, k)
		if s.Load() != 0 && a.Load() == uint64(addr) {
			s.Store(0)
			a.Store(0)
			w.mine = slices.DeleteFunc(w.mine, func(g winSeg) bool { return g.Off == int64(addr) })
			return nil
		}
	}
	return newErr(ErrRMAAttach, "Win.Detach", "address %#x is not attached", addr)
}
