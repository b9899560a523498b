//go:build !ompi && !mpich

package mpi

import (
	"sync/atomic"
	"unsafe"
)

// The window code's only pointer conversions: a user buffer's address (what
// a peer's process_vm_writev targets, or what a dynamic window publishes),
// and this process's own window memory seen from such an address.

type (
	atomicU32 = atomic.Uint32
	atomicU64 = atomic.Uint64
)

// addrOf is the address of b's first byte; b is not empty.
func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// memAt views n bytes of this process at addr. Only for ranges a rank of
// this process published itself (a dynamic window's attached regions, a
// created window's base) and that the caller bounds-checked against them.
func memAt(addr uintptr, n int) []byte {
	if n == 0 {
		return nil
	}
	// Through a pointer to addr: vet rightly distrusts uintptr→Pointer, and
	// here the memory is not Go's to move (the user's, attached by address).
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), n)
}

// sharedBase is the address of rank r's window memory in this process, for
// windows whose memory hympi allocated (nil otherwise); unlike Shared it
// is meaningful for a rank with no memory (its position in the segment).
func (w *Win) sharedBase(r int) unsafe.Pointer {
	if w.freed || r < 0 || r >= w.n || w.data[r] < 0 || w.separate {
		return nil
	}
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(w.seg.Bytes())), w.data[r])
}

// accWordAddr is the address of target t's accumulate mutex in this
// process's mapping (nil once freed): the C library takes it itself for
// one-element atomics on allocated windows. The word after it counts the
// ranks sleeping for it (accWaiters), whom the releaser must wake.
func (w *Win) accWordAddr(t int) unsafe.Pointer {
	if w.freed || t < 0 || t >= w.n {
		return nil
	}
	return unsafe.Pointer(w.accWord(t))
}
