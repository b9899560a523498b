//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"slices"

	"github.com/hympi/hympi/directcopy"
)

// RMA operations. Each is done by the origin, whole, before it returns:
// into the shared segment by loads and stores, into user memory by one
// single copy. Accumulates hold the target's accumulate mutex (a word in the
// segment), which makes them atomic per element against every other
// accumulate, fetch-and-op and compare-and-swap on that target, whoever
// issues them.

// winLoc is target memory: mem when this process maps it, else addr in
// process pid.
type winLoc struct {
	mem  []byte
	pid  int
	addr uintptr
}

// locate finds n bytes at displacement disp of rank t's window memory,
// checking the access epoch and the bounds.
func (w *Win) locate(op string, t int, disp int64, n int) (winLoc, error) {
	var one [1]winLoc
	locs, err := w.locateSegs(op, t, disp, []winSeg{{Off: 0, Len: int64(n)}}, one[:0])
	if err != nil {
		return winLoc{}, err
	}
	return locs[0], nil
}

// locateSegs finds every block of segs, appended to locs; it fails, before
// anything is touched, if any block is outside the target's memory.
func (w *Win) locateSegs(op string, t int, disp int64, segs []winSeg, locs []winLoc) ([]winLoc, error) {
	if err := w.check(op); err != nil {
		return nil, err
	}
	if t < 0 || t >= w.n {
		return nil, newErr(ErrRank, op, "target %d of a window of %d ranks", t, w.n)
	}
	if !w.inEpoch(t) {
		return nil, newErr(ErrRMASync, op, "no access epoch open toward rank %d (Fence, Start, Lock or LockAll first)", t)
	}
	var base int64
	if w.flavor != FlavorDynamic {
		if disp < 0 || disp > w.sizes[t] {
			return nil, newErr(ErrRMARange, op, "displacement %d outside rank %d's %d bytes", disp, t, w.sizes[t])
		}
		base = disp * w.units[t]
	} else {
		base = disp
	}
	for _, sg := range segs {
		l, err := w.locateAt(op, t, base, sg)
		if err != nil {
			return nil, err
		}
		locs = append(locs, l)
	}
	return locs, nil
}

// locateAt finds one block at byte offset base+sg.Off (an address, for a
// dynamic window).
func (w *Win) locateAt(op string, t int, base int64, sg winSeg) (winLoc, error) {
	n := sg.Len
	if n < 0 || sg.Off < -(1<<62) || sg.Off > 1<<62 {
		return winLoc{}, newErr(ErrArg, op, "block of %d bytes at %d", n, sg.Off)
	}
	if n == 0 {
		return winLoc{}, nil
	}
	if w.flavor == FlavorDynamic {
		a := uint64(base + sg.Off)
		if t == w.rank {
			if w.ownAttached(a, uint64(n)) {
				return winLoc{mem: memAt(uintptr(a), int(n))}, nil
			}
			return winLoc{}, newErr(ErrRMARange, op, "address %#x+%d is not attached at rank %d", a, n, t)
		}
		for k := 0; k < dynSlots; k++ {
			aw, sw := w.dynWords(t, k)
			s := sw.Load()
			b := aw.Load()
			if s != 0 && a >= b && a-b <= s && uint64(n) <= s-(a-b) {
				// A peer's table only steers a single copy into that
				// peer, which the kernel checks.
				return winLoc{pid: w.pids[t], addr: uintptr(a)}, nil
			}
		}
		return winLoc{}, newErr(ErrRMARange, op, "address %#x+%d is not attached at rank %d", a, n, t)
	}
	off := base + sg.Off
	if off < 0 || off > w.sizes[t]-n {
		return winLoc{}, newErr(ErrRMARange, op, "%d bytes at byte %d outside rank %d's %d bytes", n, off, t, w.sizes[t])
	}
	if w.data[t] >= 0 {
		o := w.data[t] + off
		return winLoc{mem: w.seg.Bytes()[o : o+n : o+n]}, nil
	}
	if t == w.rank {
		return winLoc{mem: w.local[off : off+n : off+n]}, nil
	}
	return winLoc{pid: w.pids[t], addr: uintptr(w.bases[t] + uint64(off))}, nil
}

func (l winLoc) read(op string, dst []byte) error {
	if l.mem != nil || len(dst) == 0 {
		copy(dst, l.mem)
		return nil
	}
	if err := directcopy.ReadFrom(l.pid, dst, l.addr); err != nil {
		return newErr(ErrOther, op, "reading the target: %v", err)
	}
	return nil
}

func (l winLoc) write(op string, src []byte) error {
	if l.mem != nil || len(src) == 0 {
		copy(l.mem, src)
		return nil
	}
	if err := directcopy.WriteTo(l.pid, l.addr, src); err != nil {
		return newErr(ErrOther, op, "writing the target: %v", err)
	}
	return nil
}

// Put copies origin to rank t's window memory at displacement disp.
func (w *Win) Put(origin []byte, t, disp int) error {
	return w.putSegs(origin, t, disp, nil)
}

// Get copies rank t's window memory at disp into result.
func (w *Win) Get(result []byte, t, disp int) error {
	return w.getSegs(result, t, disp, nil)
}

// whole is the one block of a contiguous target of n bytes.
func whole(segs []winSeg, n int) []winSeg {
	if segs == nil {
		return []winSeg{{Off: 0, Len: int64(n)}}
	}
	return segs
}

// segsBytes checks that segs hold n bytes.
func segsBytes(op string, segs []winSeg, n int) error {
	total := int64(0)
	for _, sg := range segs {
		total += sg.Len
	}
	if total != int64(n) {
		return newErr(ErrType, op, "the target blocks hold %d bytes, the origin %d", total, n)
	}
	return nil
}

// putSegs is Put into the blocks segs (nil: contiguous) of the target.
func (w *Win) putSegs(origin []byte, t, disp int, segs []winSeg) error {
	const what = "Win.Put"
	if t == ProcNull {
		return nil
	}
	segs = whole(segs, len(origin))
	if err := segsBytes(what, segs, len(origin)); err != nil {
		return err
	}
	var buf [4]winLoc // most targets are one block: no allocation
	locs, err := w.locateSegs(what, t, int64(disp), segs, buf[:0])
	if err != nil {
		return err
	}
	pos := int64(0)
	for i, l := range locs {
		if err := l.write(what, origin[pos:pos+segs[i].Len]); err != nil {
			return err
		}
		pos += segs[i].Len
	}
	return nil
}

// getSegs is Get from the blocks segs (nil: contiguous) of the target.
func (w *Win) getSegs(result []byte, t, disp int, segs []winSeg) error {
	const what = "Win.Get"
	if t == ProcNull {
		return nil
	}
	segs = whole(segs, len(result))
	if err := segsBytes(what, segs, len(result)); err != nil {
		return err
	}
	var buf [4]winLoc // most targets are one block: no allocation
	locs, err := w.locateSegs(what, t, int64(disp), segs, buf[:0])
	if err != nil {
		return err
	}
	pos := int64(0)
	for i, l := range locs {
		if err := l.read(what, result[pos:pos+segs[i].Len]); err != nil {
			return err
		}
		pos += segs[i].Len
	}
	return nil
}

// accOp resolves an accumulate's operator; the zero reducer with ok means
// Replace (kernel nil) or NoOp (skip).
func accOp(what string, dt Datatype, op Op, n int) (red reducer, skip bool, err error) {
	size := dt.Size()
	if size == 0 {
		return reducer{}, false, newErr(ErrType, what, "invalid datatype %d", int(dt))
	}
	if n%size != 0 {
		return reducer{}, false, newErr(ErrCount, what, "%d bytes is not a whole number of %v elements", n, dt)
	}
	switch op {
	case Replace:
		return reducer{}, false, nil
	case NoOp:
		return reducer{}, true, nil
	}
	red, err = resolveOp(what, dt, op)
	return red, false, err
}

// Accumulate combines origin into rank t's memory at disp: target = origin
// op target, element by element, atomically per element.
func (w *Win) Accumulate(origin []byte, dt Datatype, op Op, t, disp int) error {
	return w.GetAccumulate(origin, nil, dt, op, t, disp)
}

// GetAccumulate is Accumulate that first copies the target's previous
// contents to result (nil: not wanted). With NoOp, origin is ignored and
// result says how many bytes.
func (w *Win) GetAccumulate(origin, result []byte, dt Datatype, op Op, t, disp int) error {
	return w.getAccumulateSegs(origin, result, dt, op, t, disp, nil)
}

// getAccumulateSegs is GetAccumulate on the blocks segs (nil: contiguous)
// of the target; each block holds whole elements.
func (w *Win) getAccumulateSegs(origin, result []byte, dt Datatype, op Op, t, disp int, segs []winSeg) error {
	const what = "Win.GetAccumulate"
	if t == ProcNull {
		return nil
	}
	n := len(origin)
	if op == NoOp {
		n = len(result)
	} else if result != nil && len(result) != n {
		return newErr(ErrCount, what, "origin has %d bytes, result %d", n, len(result))
	}
	red, skip, err := accOp(what, dt, op, n)
	if err != nil {
		return err
	}
	segs = whole(segs, n)
	if err := segsBytes(what, segs, n); err != nil {
		return err
	}
	for _, sg := range segs {
		if sg.Len%int64(dt.Size()) != 0 {
			return newErr(ErrType, what, "a target block of %d bytes splits a %v element", sg.Len, dt)
		}
	}
	var buf [4]winLoc // most targets are one block: no allocation
	locs, err := w.locateSegs(what, t, int64(disp), segs, buf[:0])
	if err != nil || n == 0 {
		return err
	}
	if err := w.accLock(t); err != nil {
		return err
	}
	defer w.accUnlock(t)
	pos := int64(0)
	for i, l := range locs {
		end := pos + segs[i].Len
		var o, r []byte
		if !skip {
			o = origin[pos:end]
		}
		if result != nil {
			r = result[pos:end]
		}
		if err := l.accumulate(what, o, r, red, skip); err != nil {
			return err
		}
		pos = end
	}
	return nil
}

// accumulate runs one block of an accumulate, under the target's mutex.
func (l winLoc) accumulate(what string, origin, result []byte, red reducer, skip bool) error {
	if result != nil {
		if err := l.read(what, result); err != nil {
			return err
		}
	}
	if skip {
		return nil
	}
	if red.kernel == nil && red.user == nil { // Replace
		return l.write(what, origin)
	}
	if l.mem != nil {
		red.apply(origin, l.mem)
		return nil
	}
	cur := make([]byte, len(origin))
	if result != nil {
		copy(cur, result)
	} else if err := l.read(what, cur); err != nil {
		return err
	}
	red.apply(origin, cur)
	return l.write(what, cur)
}

// FetchAndOp is GetAccumulate of one element.
func (w *Win) FetchAndOp(origin, result []byte, dt Datatype, op Op, t, disp int) error {
	if op != NoOp && len(origin) != dt.Size() || len(result) != dt.Size() {
		return newErr(ErrCount, "Win.FetchAndOp", "origin and result must hold one %v", dt)
	}
	if op == NoOp {
		origin = nil
	}
	return w.GetAccumulate(origin, result, dt, op, t, disp)
}

// CompareAndSwap replaces rank t's element at disp by origin if it equals
// compare; result gets the element's previous value. All three hold one
// element.
func (w *Win) CompareAndSwap(origin, compare, result []byte, t, disp int) error {
	const what = "Win.CompareAndSwap"
	if t == ProcNull {
		return nil
	}
	n := len(origin)
	if n == 0 || len(compare) != n || len(result) != n {
		return newErr(ErrCount, what, "origin, compare and result must be one element of the same size")
	}
	l, err := w.locate(what, t, int64(disp), n)
	if err != nil {
		return err
	}
	if err := w.accLock(t); err != nil {
		return err
	}
	defer w.accUnlock(t)
	if err := l.read(what, result); err != nil {
		return err
	}
	if bytes.Equal(result, compare) {
		return l.write(what, origin)
	}
	return nil
}

// doneReq is the request of a request-based operation: done already.
func (w *Win) doneReq(err error) (*Request, error) {
	if err != nil {
		return nil, err
	}
	r := w.e.newReq(reqSend)
	r.done = true
	return r, nil
}

// Rput is Put returning a request (complete at once: the put is).
func (w *Win) Rput(origin []byte, t, disp int) (*Request, error) {
	return w.doneReq(w.Put(origin, t, disp))
}

// Rget is Get returning a request.
func (w *Win) Rget(result []byte, t, disp int) (*Request, error) {
	return w.doneReq(w.Get(result, t, disp))
}

// Raccumulate is Accumulate returning a request.
func (w *Win) Raccumulate(origin []byte, dt Datatype, op Op, t, disp int) (*Request, error) {
	return w.doneReq(w.Accumulate(origin, dt, op, t, disp))
}

// RgetAccumulate is GetAccumulate returning a request.
func (w *Win) RgetAccumulate(origin, result []byte, dt Datatype, op Op, t, disp int) (*Request, error) {
	return w.doneReq(w.GetAccumulate(origin, result, dt, op, t, disp))
}

// inEpoch says whether this rank may access rank t now.
func (w *Win) inEpoch(t int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fenced || w.lockAll || w.locks[t] != 0 || slices.Contains(w.startGroup, t)
}

// doneRequest is a request that is complete already, for the C ABI's
// request-based operations, whose work is done before the request exists.
func (w *Win) doneRequest() *Request {
	r, _ := w.doneReq(nil)
	return r
}

// ownAttached says whether n bytes at address a lie in one region this
// rank attached.
func (w *Win) ownAttached(a, n uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range w.mine {
		b, s := uint64(g.Off), uint64(g.Len)
		if a >= b && a-b <= s && n <= s-(a-b) {
			return true
		}
	}
	return false
}

// valueNow: every operation is complete when its call returns.
func (w *Win) valueNow(op string, t int) error { return nil }
