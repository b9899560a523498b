//go:build ompi || mpich

package mpi

// #include "backend_cgo_win.h"
import "C"

import (
	"slices"
	"unsafe"
)

// RMA operations and synchronisation of the system-MPI backend
// (backend_cgo_win.go says what is pinned when).

// inEpoch says whether this rank may access rank t now, and whether
// passively (Lock or LockAll). Called with w.mu held.
func (w *Win) inEpoch(t int) (open, passive bool) {
	passive = w.lockAll || w.locks[t] != 0
	return passive || w.fenced || slices.Contains(w.startGroup, t), passive
}

// prep checks an operation of n bytes at displacement disp of rank t and
// pins its buffers until they are MPI's no longer: with req, in the
// request; in an active-target epoch, until the epoch's closing call; in a
// passive one not at all, as the operation is flushed locally before it
// returns.
func (w *Win) prep(op string, t, disp, n int, req *Request, bufs ...[]byte) (flush bool, err error) {
	if err := w.check(op); err != nil {
		return false, err
	}
	if t < 0 || t >= w.n {
		return false, newErr(ErrRank, op, "target %d of a window of %d ranks", t, w.n)
	}
	if w.flavor != FlavorDynamic {
		off := int64(disp) * w.units[t]
		if disp < 0 || int64(disp) > w.sizes[t] || off > w.sizes[t]-int64(n) {
			return false, newErr(ErrRMARange, op, "%d bytes at displacement %d outside rank %d's %d bytes", n, disp, t, w.sizes[t])
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	open, passive := w.inEpoch(t)
	if !open {
		return false, newErr(ErrRMASync, op, "no access epoch open toward rank %d (Fence, Start, Lock or LockAll first)", t)
	}
	for _, b := range bufs {
		if cap(b) == 0 {
			continue
		}
		switch {
		case req != nil:
			req.pinBuf(b)
		case !passive:
			w.ops.Pin(unsafe.SliceData(b))
		}
	}
	return passive, nil
}

// rma runs (req set: starts) one operation of n elements of dth.
func (w *Win) rma(op string, kind C.int, o, r, x []byte, nbytes, n int, dth, oph C.hy_h, t, disp int, req bool) (*Request, error) {
	if t == ProcNull {
		if req {
			return w.doneRequest(), nil
		}
		return nil, nil
	}
	var rq *Request
	if req {
		rq = start(nil, op, nil)
	}
	flush, err := w.prep(op, t, disp, nbytes, rq, o, r, x)
	if err != nil {
		if rq != nil {
			rq.unpin()
		}
		return nil, err
	}
	q := C.hy_rma(kind, ptr(o), ptr(r), ptr(x), C.longlong(n), dth, oph, C.int(t), C.longlong(disp), w.h, flag(flush), flag(req))
	if rq != nil {
		return rq.started(q)
	}
	return nil, mpiErr(op, q.err)
}

// Put copies origin to rank t's window memory at displacement disp.
func (w *Win) Put(origin []byte, t, disp int) error {
	_, err := w.rma("Win.Put", 0, origin, nil, nil, len(origin), len(origin), dtHandles[Byte], 0, t, disp, false)
	return err
}

// Get copies rank t's window memory at disp into result.
func (w *Win) Get(result []byte, t, disp int) error {
	_, err := w.rma("Win.Get", 1, nil, result, nil, len(result), len(result), dtHandles[Byte], 0, t, disp, false)
	return err
}

// Rput is Put returning a request (MPI allows it in passive-target epochs).
func (w *Win) Rput(origin []byte, t, disp int) (*Request, error) {
	return w.rma("Win.Rput", 0, origin, nil, nil, len(origin), len(origin), dtHandles[Byte], 0, t, disp, true)
}

// Rget is Get returning a request.
func (w *Win) Rget(result []byte, t, disp int) (*Request, error) {
	return w.rma("Win.Rget", 1, nil, result, nil, len(result), len(result), dtHandles[Byte], 0, t, disp, true)
}

// contiguous says whether segs describe n contiguous bytes from the
// displacement, the only target layout this backend takes.
func contiguous(op string, segs []winSeg, n int) error {
	if segs == nil || (len(segs) == 1 && segs[0] == winSeg{Off: 0, Len: int64(n)}) {
		return nil
	}
	return newErr(ErrOther, op, "non-contiguous targets are not supported on this backend")
}

// putSegs is Put; only a contiguous target (segs nil) is supported here.
func (w *Win) putSegs(origin []byte, t, disp int, segs []winSeg) error {
	if err := contiguous("Win.Put", segs, len(origin)); err != nil {
		return err
	}
	return w.Put(origin, t, disp)
}

// getSegs is Get; only a contiguous target (segs nil) is supported here.
func (w *Win) getSegs(result []byte, t, disp int, segs []winSeg) error {
	if err := contiguous("Win.Get", segs, len(result)); err != nil {
		return err
	}
	return w.Get(result, t, disp)
}

// accHandles resolves an accumulate's datatype and operator to MPI's, as
// the engine checks them; accumulates take predefined operators only.
func accHandles(what string, dt Datatype, op Op, n int) (dth, oph C.hy_h, count int, err error) {
	size := dt.Size()
	if size == 0 {
		return 0, 0, 0, newErr(ErrType, what, "invalid datatype %d", int(dt))
	}
	if n%size != 0 {
		return 0, 0, 0, newErr(ErrCount, what, "%d bytes is not a whole number of %v elements", n, dt)
	}
	switch {
	case op == Replace || op == NoOp:
		switch {
		case dt >= opaqueTypeBase:
			regMu.Lock()
			dth = opaqueH[dt-opaqueTypeBase]
			regMu.Unlock()
		case int(dt) < len(dtHandles):
			dth = dtHandles[dt]
		default:
			return 0, 0, 0, newErr(ErrType, what, "%v is not supported in accumulates on this backend", dt)
		}
		oph = rmaOps[0]
		if op == NoOp {
			oph = rmaOps[1]
		}
		return dth, oph, n / size, nil
	case op >= userOpBase:
		return 0, 0, 0, newErr(ErrOp, what, "MPI accumulates take predefined operators only")
	}
	dth, oph, _, err = resolve(what, dt, op)
	if err != nil {
		return 0, 0, 0, err
	}
	if oph != opHandles[op] {
		// MPICH's own unsigned Max and Min are wrong, and the backend's
		// replacement is a user operator, which MPI cannot accumulate.
		return 0, 0, 0, newErr(ErrOther, what, "%v on %v is not supported in accumulates on this backend", op, dt)
	}
	return dth, oph, n / size, nil
}

// Accumulate combines origin into rank t's memory at disp: target = origin
// op target, element by element, atomically per element.
func (w *Win) Accumulate(origin []byte, dt Datatype, op Op, t, disp int) error {
	_, err := w.acc("Win.Accumulate", 2, origin, nil, dt, op, t, disp, false)
	return err
}

// GetAccumulate is Accumulate that first copies the target's previous
// contents to result (nil: not wanted). With NoOp, origin is ignored and
// result says how many bytes.
func (w *Win) GetAccumulate(origin, result []byte, dt Datatype, op Op, t, disp int) error {
	_, err := w.acc("Win.GetAccumulate", 3, origin, result, dt, op, t, disp, false)
	return err
}

// Raccumulate is Accumulate returning a request.
func (w *Win) Raccumulate(origin []byte, dt Datatype, op Op, t, disp int) (*Request, error) {
	return w.acc("Win.Raccumulate", 2, origin, nil, dt, op, t, disp, true)
}

// RgetAccumulate is GetAccumulate returning a request.
func (w *Win) RgetAccumulate(origin, result []byte, dt Datatype, op Op, t, disp int) (*Request, error) {
	return w.acc("Win.RgetAccumulate", 3, origin, result, dt, op, t, disp, true)
}

// getAccumulateSegs is GetAccumulate; only a contiguous target (segs nil)
// is supported here.
func (w *Win) getAccumulateSegs(origin, result []byte, dt Datatype, op Op, t, disp int, segs []winSeg) error {
	n := len(origin)
	if op == NoOp {
		n = len(result)
	}
	if err := contiguous("Win.GetAccumulate", segs, n); err != nil {
		return err
	}
	return w.GetAccumulate(origin, result, dt, op, t, disp)
}

func (w *Win) acc(what string, kind C.int, origin, result []byte, dt Datatype, op Op, t, disp int, req bool) (*Request, error) {
	n := len(origin)
	if op == NoOp {
		n = len(result)
		origin = nil
	} else if kind == 3 && result != nil && len(result) != n {
		return nil, newErr(ErrCount, what, "origin has %d bytes, result %d", n, len(result))
	}
	if kind == 3 && result == nil {
		if op == NoOp {
			return nil, newErr(ErrCount, what, "NoOp needs a result buffer")
		}
		kind = 2 // nothing to fetch
	}
	dth, oph, count, err := accHandles(what, dt, op, n)
	if err != nil {
		return nil, err
	}
	if kind == 2 && op == NoOp {
		return w.rma(what, 1, nil, nil, nil, 0, 0, dtHandles[Byte], 0, t, disp, req) // checks only
	}
	return w.rma(what, kind, origin, result, nil, n, count, dth, oph, t, disp, req)
}

// FetchAndOp is GetAccumulate of one element.
func (w *Win) FetchAndOp(origin, result []byte, dt Datatype, op Op, t, disp int) error {
	if op != NoOp && len(origin) != dt.Size() || len(result) != dt.Size() || dt.Size() == 0 {
		return newErr(ErrCount, "Win.FetchAndOp", "origin and result must hold one %v", dt)
	}
	if op == NoOp {
		origin = nil
	}
	dth, oph, _, err := accHandles("Win.FetchAndOp", dt, op, len(result))
	if err != nil {
		return err
	}
	_, err = w.rma("Win.FetchAndOp", 4, origin, result, nil, len(result), 1, dth, oph, t, disp, false)
	return err
}

// CompareAndSwap replaces rank t's element at disp by origin if it equals
// compare; result gets the element's previous value. All three hold one
// element of 1, 2, 4 or 8 bytes (an integer type of MPI's).
func (w *Win) CompareAndSwap(origin, compare, result []byte, t, disp int) error {
	const what = "Win.CompareAndSwap"
	n := len(origin)
	if n == 0 || len(compare) != n || len(result) != n {
		return newErr(ErrCount, what, "origin, compare and result must be one element of the same size")
	}
	k := map[int]int{1: 0, 2: 1, 4: 2, 8: 3}
	i, ok := k[n]
	if !ok {
		return newErr(ErrType, what, "elements of %d bytes are not supported on this backend", n)
	}
	if casWideBroken && n == 8 && w.flavor != FlavorShared && t != ProcNull {
		return newErr(ErrOther, what, "64-bit compare-and-swap is supported on this backend on shared windows only (an Open MPI 4.1 defect)")
	}
	_, err := w.rma(what, 5, origin, result, compare, n, 1, casType[i], 0, t, disp, false)
	return err
}

// doneRequest is a request that is complete already.
func (w *Win) doneRequest() *Request { return &Request{h: hReqNull, done: true} }

// valueNow says whether an operation toward t returns its result before
// the call does: on MPI only in a passive-target epoch.
func (w *Win) valueNow(op string, t int) error {
	if w == nil || t < 0 || t >= w.n {
		return nil // the call itself reports it
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if open, passive := w.inEpoch(t); open && !passive {
		return newErr(ErrRMASync, op, "on a system MPI the value is known only when the fence or PSCW epoch ends: use the []byte form")
	}
	return nil
}
