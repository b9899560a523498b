//go:build ompi || mpich

package mpi

// #include "backend_cgo_win.h"
import "C"

import "slices"

// RMA synchronisation of the system-MPI backend. Epochs are tracked in Go
// as on the engine, so a call out of order is ErrRMASync whatever this MPI
// would do with it; w.mu is never held across a call that may block.

// endAccess releases the buffers of an active-target access epoch, which
// MPI has completed.
func (w *Win) endAccess() {
	w.ops.Unpin()
}

// Fence ends the current fence epoch and, unless assert has ModeNoSucceed,
// starts the next. Collective.
func (w *Win) Fence(assert int) error {
	if err := w.check("Win.Fence"); err != nil {
		return err
	}
	if err := w.sync("Win.Fence", C.HY_FENCE, assert, 0, 0, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.endAccess()
	w.fenced = assert&ModeNoSucceed == 0
	w.mu.Unlock()
	return nil
}

// winRanks is g's processes as ranks of the window.
func (w *Win) winRanks(op string, g *Group) ([]int, error) {
	if err := checkGroup(op, g); err != nil {
		return nil, err
	}
	all := make([]int, g.Size())
	for i := range all {
		all[i] = i
	}
	rs, err := g.TranslateRanks(all, w.Group())
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r < 0 {
			return nil, newErr(ErrGroup, op, "the group has a process outside the window")
		}
	}
	return rs, nil
}

// Post opens an exposure epoch for the origins in g.
func (w *Win) Post(g *Group, assert int) error {
	if err := w.check("Win.Post"); err != nil {
		return err
	}
	if _, err := w.winRanks("Win.Post", g); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.postOpen {
		return newErr(ErrRMASync, "Win.Post", "an exposure epoch is already open")
	}
	if err := w.sync("Win.Post", C.HY_POST, assert, 0, 0, g.h); err != nil {
		return err
	}
	w.postOpen = true
	return nil
}

// Start opens an access epoch toward the targets in g once they posted.
func (w *Win) Start(g *Group, assert int) error {
	if err := w.check("Win.Start"); err != nil {
		return err
	}
	rs, err := w.winRanks("Win.Start", g)
	if err != nil {
		return err
	}
	w.mu.Lock()
	open := w.startGroup != nil
	w.mu.Unlock()
	if open {
		return newErr(ErrRMASync, "Win.Start", "an access epoch is already open")
	}
	if err := w.sync("Win.Start", C.HY_START, assert, 0, 0, g.h); err != nil {
		return err
	}
	w.mu.Lock()
	w.startGroup = rs
	w.mu.Unlock()
	return nil
}

// Complete ends the access epoch Start opened.
func (w *Win) Complete() error {
	if err := w.check("Win.Complete"); err != nil {
		return err
	}
	w.mu.Lock()
	open := w.startGroup != nil
	w.mu.Unlock()
	if !open {
		return newErr(ErrRMASync, "Win.Complete", "no access epoch (Start) is open")
	}
	if err := w.sync("Win.Complete", C.HY_COMPLETE, 0, 0, 0, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.startGroup = nil
	w.endAccess()
	w.mu.Unlock()
	return nil
}

// Wait ends the exposure epoch once every origin of Post has completed.
func (w *Win) Wait() error {
	if err := w.check("Win.Wait"); err != nil {
		return err
	}
	w.mu.Lock()
	open := w.postOpen
	w.mu.Unlock()
	if !open {
		return newErr(ErrRMASync, "Win.Wait", "no exposure epoch (Post) is open")
	}
	if err := w.sync("Win.Wait", C.HY_WAIT, 0, 0, 0, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.postOpen = false
	w.mu.Unlock()
	return nil
}

// Test is Wait that does not block: false while origins are still at work.
func (w *Win) Test() (bool, error) {
	if err := w.check("Win.Test"); err != nil {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.postOpen {
		return false, newErr(ErrRMASync, "Win.Test", "no exposure epoch (Post) is open")
	}
	var fl C.int
	if err := mpiErr("Win.Test", C.hy_win_test(w.h, &fl)); err != nil {
		return false, err
	}
	if fl != 0 {
		w.postOpen = false
	}
	return fl != 0, nil
}

// checkTarget validates a lock or flush target; ProcNull means nothing to do.
func (w *Win) checkTarget(op string, t int) (skip bool, err error) {
	if err := w.check(op); err != nil {
		return false, err
	}
	if t == ProcNull {
		return true, nil
	}
	if t < 0 || t >= w.n {
		return false, newErr(ErrRank, op, "rank %d of a window of %d ranks", t, w.n)
	}
	return false, nil
}

// Lock opens a passive-target epoch toward t (LockShared or LockExclusive).
func (w *Win) Lock(typ, t, assert int) error {
	if err := w.check("Win.Lock"); err != nil {
		return err
	}
	if typ != LockShared && typ != LockExclusive {
		return newErr(ErrLocktype, "Win.Lock", "lock type %d", typ)
	}
	if skip, err := w.checkTarget("Win.Lock", t); skip || err != nil {
		return err
	}
	w.mu.Lock()
	busy := w.locks[t] != 0 || w.lockAll
	w.mu.Unlock()
	if busy {
		return newErr(ErrRMASync, "Win.Lock", "rank %d is already locked by this rank", t)
	}
	if err := w.sync("Win.Lock", C.HY_LOCK, t, typ, assert, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.locks[t] = int8(typ)
	w.mu.Unlock()
	return nil
}

// Unlock ends the epoch Lock opened toward t; its operations are complete
// at t.
func (w *Win) Unlock(t int) error {
	if skip, err := w.checkTarget("Win.Unlock", t); skip || err != nil {
		return err
	}
	w.mu.Lock()
	held := w.locks[t] != 0 && !w.lockAll
	w.mu.Unlock()
	if !held {
		return newErr(ErrRMASync, "Win.Unlock", "rank %d is not locked by Lock on this rank", t)
	}
	if err := w.sync("Win.Unlock", C.HY_UNLOCK, t, 0, 0, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.locks[t] = 0
	w.mu.Unlock()
	return nil
}

// LockAll opens a shared passive-target epoch toward every rank.
func (w *Win) LockAll(assert int) error {
	if err := w.check("Win.LockAll"); err != nil {
		return err
	}
	w.mu.Lock()
	busy := w.lockAll || slices.ContainsFunc(w.locks, func(l int8) bool { return l != 0 })
	w.mu.Unlock()
	if busy {
		return newErr(ErrRMASync, "Win.LockAll", "a lock epoch is already open")
	}
	if err := w.sync("Win.LockAll", C.HY_LOCK_ALL, assert, 0, 0, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.lockAll = true
	w.mu.Unlock()
	return nil
}

// UnlockAll ends the epoch LockAll opened.
func (w *Win) UnlockAll() error {
	if err := w.check("Win.UnlockAll"); err != nil {
		return err
	}
	w.mu.Lock()
	open := w.lockAll
	w.mu.Unlock()
	if !open {
		return newErr(ErrRMASync, "Win.UnlockAll", "no LockAll epoch is open")
	}
	if err := w.sync("Win.UnlockAll", C.HY_UNLOCK_ALL, 0, 0, 0, 0); err != nil {
		return err
	}
	w.mu.Lock()
	w.lockAll = false
	w.mu.Unlock()
	return nil
}

func (w *Win) flush(op string, what C.int, t int) error {
	if skip, err := w.checkTarget(op, t); skip || err != nil {
		return err
	}
	w.mu.Lock()
	open := w.locks[t] != 0 || w.lockAll
	w.mu.Unlock()
	if !open {
		return newErr(ErrRMASync, op, "no passive-target epoch toward rank %d", t)
	}
	return w.sync(op, what, t, 0, 0, 0)
}

func (w *Win) flushAll(op string, what C.int) error {
	if err := w.check(op); err != nil {
		return err
	}
	w.mu.Lock()
	open := w.lockAll || slices.ContainsFunc(w.locks, func(l int8) bool { return l != 0 })
	w.mu.Unlock()
	if !open {
		return newErr(ErrRMASync, op, "no passive-target epoch is open")
	}
	return w.sync(op, what, 0, 0, 0, 0)
}

// Flush completes this rank's operations toward t, at t.
func (w *Win) Flush(t int) error { return w.flush("Win.Flush", C.HY_FLUSH, t) }

// FlushLocal completes this rank's operations toward t locally.
func (w *Win) FlushLocal(t int) error { return w.flush("Win.FlushLocal", C.HY_FLUSH_LOCAL, t) }

// FlushAll is Flush toward every rank.
func (w *Win) FlushAll() error { return w.flushAll("Win.FlushAll", C.HY_FLUSH_ALL) }

// FlushLocalAll is FlushLocal toward every rank.
func (w *Win) FlushLocalAll() error { return w.flushAll("Win.FlushLocalAll", C.HY_FLUSH_LOCAL_ALL) }

// Sync orders this rank's loads and stores on its window memory with the
// window's RMA (MPI_Win_sync inside a passive-target epoch, where MPI
// allows it; a memory barrier outside one).
func (w *Win) Sync() error {
	if err := w.check("Win.Sync"); err != nil {
		return err
	}
	w.mu.Lock()
	passive := w.lockAll || slices.ContainsFunc(w.locks, func(l int8) bool { return l != 0 })
	w.mu.Unlock()
	if !passive {
		C.hy_atomic_fence()
		return nil
	}
	return w.sync("Win.Sync", C.HY_SYNC, 0, 0, 0, 0)
}

// accessMask writes, per target, which epochs are open toward it.
func (w *Win) accessMask(dst []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for t := 0; t < w.n && t < len(dst); t++ {
		var b byte
		open, passive := w.inEpoch(t)
		if open && !w.freed {
			b |= accessOpen
			if passive {
				b |= accessPassive
			}
		}
		dst[t] = b
	}
}
