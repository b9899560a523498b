package shm

import (
	"sync/atomic"
	"unsafe"
)

// The only pointer arithmetic on the mapping. Every helper takes a region
// offset that the layout (or a bounds check right before the call) has
// proven to lie inside the mapping, and the layout test proves every atomic
// offset 8-byte aligned; the mapping itself starts page-aligned.

func (r *Region) u32At(off int64) *atomic.Uint32 {
	return (*atomic.Uint32)(unsafe.Pointer(&r.mem[off]))
}

func (r *Region) u64At(off int64) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&r.mem[off]))
}

// u64sAt views n consecutive atomic words starting at off.
func (r *Region) u64sAt(off int64, n int) []atomic.Uint64 {
	_ = r.mem[off : off+8*int64(n)] // the whole view, not just its start, is inside
	return unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(&r.mem[off])), n)
}

// u32sAt views n consecutive atomic 32-bit words starting at off.
func (r *Region) u32sAt(off int64, n int) []atomic.Uint32 {
	_ = r.mem[off : off+4*int64(n)]
	return unsafe.Slice((*atomic.Uint32)(unsafe.Pointer(&r.mem[off])), n)
}

// bytesAt is a length- and capacity-limited view, so an append or a slice
// expression on it can never reach the next structure.
func (r *Region) bytesAt(off, n int64) []byte {
	return r.mem[off : off+n : off+n]
}

// seqOf is the publish word at the start of a descriptor slot.
func seqOf(slot []byte) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&slot[0]))
}
