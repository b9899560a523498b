//go:build !ompi && !mpich

package mpi

import "bytes"

// The separate memory model, hympi's fallback for MPI_Win_create where the
// kernel refuses single copy between ranks. Each rank's window then has a
// public copy in the shared segment, which every operation reaches by loads
// and stores, beside the private copy (the user's memory), which only the
// owner touches. The two meet at the synchronisation points MPI defines
// for this model (fence, post/wait, lock/unlock and Win_sync on the owner's
// own window): a three-way merge against a shadow of their last common
// contents carries local stores to the public copy and remote updates to
// the private one. A byte changed on both sides since the last meeting is a
// conflict MPI leaves undefined; the local store wins.

// startSeparate fills the public copy and the shadow from the user's memory.
func (w *Win) startSeparate() {
	pub := w.public()
	copy(pub, w.local)
	w.shadow = append([]byte(nil), w.local...)
}

func (w *Win) public() []byte {
	o := w.data[w.rank]
	return w.seg.Bytes()[o : o+w.sizes[w.rank] : o+w.sizes[w.rank]]
}

// Separate says whether the window has separate public and private copies
// (MPI_WIN_SEPARATE) rather than one (MPI_WIN_UNIFIED).
func (w *Win) Separate() bool { return w.separate }

// merge brings this rank's public and private copies together. It holds
// the rank's accumulate mutex, so no accumulate is half-applied to what it
// reads.
func (w *Win) merge() error {
	if !w.separate || len(w.shadow) == 0 {
		return nil
	}
	if err := w.accLock(w.rank); err != nil {
		return err
	}
	defer w.accUnlock(w.rank)
	pub, priv, sh := w.public(), w.local, w.shadow
	const chunk = 4096
	for lo := 0; lo < len(sh); lo += chunk {
		hi := min(lo+chunk, len(sh))
		if bytes.Equal(priv[lo:hi], sh[lo:hi]) && bytes.Equal(pub[lo:hi], sh[lo:hi]) {
			continue
		}
		for i := lo; i < hi; i++ {
			p, q := priv[i], pub[i]
			switch {
			case p != sh[i]:
				pub[i], sh[i] = p, p
			case q != sh[i]:
				priv[i], sh[i] = q, q
			}
		}
	}
	return nil
}
