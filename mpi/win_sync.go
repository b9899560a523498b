//go:build !ompi && !mpich

package mpi

import (
	"slices"
)

// RMA synchronisation. Operations complete inside their calls, so these
// only order epochs: Fence is a barrier; Post/Start/Complete/Wait count in
// per-pair words of the segment; Lock/Unlock take a reader/writer word of
// the target in the segment. None needs the target to call MPI. Waits run
// the engine (spin, yield, doorbell sleep); whoever changes a word a peer
// may wait on rings the window's doorbells.

const lockExcl = 1 << 31

// What Win.locks holds per target besides LockExclusive and LockShared.
const (
	heldNoCheck    = 3 // Lock with ModeNoCheck: nothing taken
	heldAll        = 4 // a shared lock taken by LockAll
	heldAllNoCheck = 5 // LockAll with ModeNoCheck
)

// waitFor returns once cond holds, spinning briefly and then waiting as
// every engine wait does. cond may take something (a lock) when it
// succeeds, and the engine's wait may evaluate a condition again after it
// held: the latch makes sure a success is taken once.
func (w *Win) waitFor(cond func() bool) error {
	for i := 0; i < 100; i++ {
		if cond() {
			return nil
		}
	}
	got := false
	once := func() bool {
		if !got {
			got = cond()
		}
		return got
	}
	w.e.mu.Lock()
	defer w.e.mu.Unlock()
	return w.e.waitUntil(once)
}

// ring wakes the window's ranks that sleep in a wait.
func (w *Win) ring() {
	for _, b := range w.bells {
		b.Ring()
	}
}

func (w *Win) accLock(t int) error {
	word := w.accWord(t)
	for i := 0; i < 100; i++ {
		if word.CompareAndSwap(0, 1) {
			return nil
		}
	}
	// Announced before the wait's own attempts: a releaser that stores 0
	// and then sees no waiter is ordered before them, so they succeed.
	w.accWaiters(t).Add(1)
	defer w.accWaiters(t).Add(^uint32(0))
	return w.waitFor(func() bool { return word.CompareAndSwap(0, 1) })
}

func (w *Win) accUnlock(t int) {
	w.accWord(t).Store(0)
	if w.accWaiters(t).Load() != 0 {
		w.ring()
	}
}

// Fence ends the current fence epoch and starts the next (unless assert
// has ModeNoSucceed). Collective.
func (w *Win) Fence(assert int) error {
	if err := w.check("Win.Fence"); err != nil {
		return err
	}
	if err := w.c.Barrier(); err != nil {
		return wrapCollErr("Win.Fence", err)
	}
	if w.separate {
		// Every origin is done: meet, then let them read.
		if err := w.merge(); err != nil {
			return err
		}
		if err := w.c.Barrier(); err != nil {
			return wrapCollErr("Win.Fence", err)
		}
	}
	w.mu.Lock()
	w.fenced = assert&ModeNoSucceed == 0
	w.mu.Unlock()
	return nil
}

// winRanks maps group g's members to ranks of the window.
func (w *Win) winRanks(op string, g *Group) ([]int, error) {
	if err := checkGroup(op, g); err != nil {
		return nil, err
	}
	all := make([]int, g.Size())
	for i := range all {
		all[i] = i
	}
	rs, err := g.TranslateRanks(all, w.c.Group())
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
	rs, err := w.winRanks("Win.Post", g)
	if err != nil {
		return err
	}
	if err := w.merge(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.postGroup != nil {
		return newErr(ErrRMASync, "Win.Post", "an exposure epoch is already open")
	}
	w.postGroup = rs
	if assert&ModeNoCheck == 0 {
		for _, o := range rs {
			w.postWord(o, w.rank).Add(1)
		}
		w.ring()
	}
	return nil
}

// reached says whether counter word has passed want (wrap-safe).
func reached(v, want uint32) bool { return int32(v-want) >= 0 }

// Start opens an access epoch to the targets in g, once each has posted.
func (w *Win) Start(g *Group, assert int) error {
	if err := w.check("Win.Start"); err != nil {
		return err
	}
	rs, err := w.winRanks("Win.Start", g)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.startGroup != nil {
		w.mu.Unlock()
		return newErr(ErrRMASync, "Win.Start", "an access epoch is already open")
	}
	w.mu.Unlock()
	if assert&ModeNoCheck == 0 {
		for _, t := range rs {
			want := w.postSeen[t] + 1
			word := w.postWord(w.rank, t)
			if err := w.waitFor(func() bool { return reached(word.Load(), want) }); err != nil {
				return err
			}
			w.postSeen[t] = want
		}
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
	defer w.mu.Unlock()
	if w.startGroup == nil {
		return newErr(ErrRMASync, "Win.Complete", "no access epoch (Start) is open")
	}
	for _, t := range w.startGroup {
		w.doneWord(t, w.rank).Add(1)
	}
	w.startGroup = nil
	w.ring()
	return nil
}

// completed says whether every origin of the exposure epoch completed.
func (w *Win) completed() bool {
	for _, o := range w.postGroup {
		if !reached(w.doneWord(w.rank, o).Load(), w.doneSeen[o]+1) {
			return false
		}
	}
	return true
}

func (w *Win) endExposure() {
	for _, o := range w.postGroup {
		w.doneSeen[o]++
	}
	w.postGroup = nil
}

// Wait ends the exposure epoch once every origin in it called Complete.
func (w *Win) Wait() error {
	if err := w.check("Win.Wait"); err != nil {
		return err
	}
	w.mu.Lock()
	open := w.postGroup != nil
	w.mu.Unlock()
	if !open {
		return newErr(ErrRMASync, "Win.Wait", "no exposure epoch (Post) is open")
	}
	if err := w.waitFor(w.completed); err != nil {
		return err
	}
	w.mu.Lock()
	w.endExposure()
	w.mu.Unlock()
	return w.merge()
}

// Test is Wait that does not block: false while an origin has not completed.
func (w *Win) Test() (bool, error) {
	if err := w.check("Win.Test"); err != nil {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.postGroup == nil {
		return false, newErr(ErrRMASync, "Win.Test", "no exposure epoch (Post) is open")
	}
	if !w.completed() {
		w.e.mu.Lock()
		w.e.progress()
		w.e.mu.Unlock()
		return false, nil
	}
	w.endExposure()
	if w.separate {
		w.mu.Unlock()
		err := w.merge()
		w.mu.Lock()
		return true, err
	}
	return true, nil
}

func (w *Win) tryLock(t, typ int) bool {
	word := w.lockWord(t)
	if typ == LockExclusive {
		return word.CompareAndSwap(0, lockExcl)
	}
	v := word.Load()
	return v&lockExcl == 0 && word.CompareAndSwap(v, v+1)
}

func (w *Win) releaseLock(t int, typ int8) {
	word := w.lockWord(t)
	if typ == LockExclusive {
		word.Store(0)
	} else {
		word.Add(^uint32(0))
	}
	w.ring()
}

// Lock opens a passive-target access epoch to rank t (LockShared or
// LockExclusive).
func (w *Win) Lock(typ, t, assert int) error {
	if err := w.check("Win.Lock"); err != nil {
		return err
	}
	if typ != LockShared && typ != LockExclusive {
		return newErr(ErrLocktype, "Win.Lock", "lock type %d", typ)
	}
	if t == ProcNull {
		return nil
	}
	if t < 0 || t >= w.n {
		return newErr(ErrRank, "Win.Lock", "rank %d of a window of %d ranks", t, w.n)
	}
	w.mu.Lock()
	if w.locks[t] != 0 || w.lockAll {
		w.mu.Unlock()
		return newErr(ErrRMASync, "Win.Lock", "rank %d is already locked by this rank", t)
	}
	w.mu.Unlock()
	held := int8(typ)
	if assert&ModeNoCheck != 0 {
		held = heldNoCheck
	} else if err := w.waitFor(func() bool { return w.tryLock(t, typ) }); err != nil {
		return err
	}
	w.mu.Lock()
	w.locks[t] = held
	w.mu.Unlock()
	if t == w.rank {
		return w.merge()
	}
	return nil
}

// Unlock ends the epoch Lock opened; every operation in it is complete.
func (w *Win) Unlock(t int) error {
	if err := w.check("Win.Unlock"); err != nil {
		return err
	}
	if t == ProcNull {
		return nil
	}
	if t < 0 || t >= w.n {
		return newErr(ErrRank, "Win.Unlock", "rank %d of a window of %d ranks", t, w.n)
	}
	w.mu.Lock()
	held := w.locks[t]
	if held == 0 || w.lockAll {
		w.mu.Unlock()
		return newErr(ErrRMASync, "Win.Unlock", "rank %d is not locked by Lock on this rank", t)
	}
	w.mu.Unlock()
	if t == w.rank {
		if err := w.merge(); err != nil {
			return err
		}
	}
	w.mu.Lock()
	w.locks[t] = 0
	w.mu.Unlock()
	if held != heldNoCheck {
		w.releaseLock(t, held)
	}
	return nil
}

// LockAll opens a shared passive-target epoch to every rank.
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
	held := make([]int8, w.n)
	for t := range held {
		held[t] = heldAllNoCheck
		if assert&ModeNoCheck != 0 {
			continue
		}
		if err := w.waitFor(func() bool { return w.tryLock(t, LockShared) }); err != nil {
			for u := 0; u < t; u++ {
				w.releaseLock(u, LockShared)
			}
			return err
		}
		held[t] = heldAll
	}
	w.mu.Lock()
	w.lockAll = true
	copy(w.locks, held)
	w.mu.Unlock()
	return w.merge()
}

// UnlockAll ends LockAll's epoch.
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
	if err := w.merge(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for t, l := range w.locks {
		if l == heldAll {
			w.lockWord(t).Add(^uint32(0))
		}
		w.locks[t] = 0
	}
	w.lockAll = false
	w.ring()
	return nil
}

// Flush completes this rank's operations toward t; they already are, so it
// only checks that a passive-target epoch is open.
func (w *Win) Flush(t int) error {
	if err := w.check("Win.Flush"); err != nil {
		return err
	}
	if t == ProcNull {
		return nil
	}
	if t < 0 || t >= w.n {
		return newErr(ErrRank, "Win.Flush", "rank %d of a window of %d ranks", t, w.n)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.locks[t] == 0 && !w.lockAll {
		return newErr(ErrRMASync, "Win.Flush", "no passive-target epoch toward rank %d", t)
	}
	return nil
}

// FlushLocal is Flush: an operation's origin buffer is free when it returns.
func (w *Win) FlushLocal(t int) error { return w.Flush(t) }

// FlushLocalAll is FlushAll.
func (w *Win) FlushLocalAll() error { return w.FlushAll() }

// FlushAll completes this rank's operations toward every target.
func (w *Win) FlushAll() error {
	if err := w.check("Win.FlushAll"); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.lockAll && !slices.ContainsFunc(w.locks, func(l int8) bool { return l != 0 }) {
		return newErr(ErrRMASync, "Win.FlushAll", "no passive-target epoch is open")
	}
	return nil
}

// Sync makes this rank's stores to shared window memory and its peers'
// visible to each other's loads (a full memory barrier).
func (w *Win) Sync() error {
	if err := w.check("Win.Sync"); err != nil {
		return err
	}
	w.accWord(w.rank).Add(0)
	return w.merge()
}

// accessMask writes, per target, which epochs are open toward it (the C
// library mirrors this to decide operations without calling in).
func (w *Win) accessMask(dst []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for t := 0; t < w.n && t < len(dst); t++ {
		var b byte
		if w.fenced || w.lockAll || w.locks[t] != 0 || slices.Contains(w.startGroup, t) {
			b |= accessOpen
		}
		if w.lockAll || w.locks[t] != 0 {
			b |= accessPassive
		}
		if w.freed {
			b = 0
		}
		dst[t] = b
	}
}
