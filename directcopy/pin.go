package directcopy

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// pinned counts buffers pinned through any Pins and not yet released.
var pinned atomic.Int64

// Pinned reports how many buffers are pinned through Pins in this process
// right now. Tests assert it returns to zero once every transfer completed.
func Pinned() int { return int(pinned.Load()) }

// Pins keeps Go buffers in place while a peer reads or writes them by
// address.
//
// A direct-copy send publishes the address of the user's buffer and returns
// to the caller's code while the receiver, in another process, reads from
// that address with process_vm_readv. Nothing in the Go program then refers
// to the buffer in a way the runtime can see, and the runtime is free to move
// memory it owns: today's garbage collector does not move heap objects, but
// goroutine stacks are copied when they grow or shrink, and the language does
// not promise heap objects stay put either. runtime.Pinner is the documented
// way to say "this object must not move (or be freed) until Unpin". Pinning
// also makes the escape explicit: a buffer that would otherwise live on the
// stack is moved to the heap, where pinning it means something.
//
// Pins is not safe for concurrent use; a request owns one. Unpin must be
// called once the peer is done (the FIN of the rendezvous): the runtime
// panics if a Pinner holding pins is garbage-collected.
type Pins struct {
	p runtime.Pinner
	n int
}

// Pin pins buf's backing array and returns the address of buf[0] for a peer
// to use. An empty buf pins nothing and returns 0.
func (p *Pins) Pin(buf []byte) (addr uintptr) {
	if len(buf) == 0 {
		return 0
	}
	ptr := &buf[0]
	p.p.Pin(ptr)
	p.n++
	pinned.Add(1)
	return uintptr(unsafe.Pointer(ptr))
}

// Unpin releases every buffer pinned since the last Unpin. The Pins can be
// reused afterwards.
func (p *Pins) Unpin() {
	if p.n == 0 {
		return
	}
	p.p.Unpin()
	pinned.Add(-int64(p.n))
	p.n = 0
}
