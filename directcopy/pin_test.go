package directcopy

import (
	"os"
	"runtime"
	"testing"
)

func TestPins(t *testing.T) {
	base := Pinned()
	var p Pins
	if addr := p.Pin(nil); addr != 0 || p.Len() != 0 || Pinned() != base {
		t.Fatalf("Pin(nil) = %#x, Len %d, Pinned %d", addr, p.Len(), Pinned())
	}
	if addr := p.Pin(make([]byte, 0, 64)); addr != 0 || Pinned() != base {
		t.Fatalf("Pin(empty with capacity) = %#x", addr)
	}
	a := make([]byte, 100)
	b := make([]byte, 1<<20)
	if addr := p.Pin(a[10:]); addr != addrOf(a)+10 {
		t.Fatalf("Pin(a[10:]) = %#x, want %#x", addr, addrOf(a)+10)
	}
	p.Pin(b)
	p.Pin(b) // pinning twice is allowed and counted twice
	var q Pins
	q.Pin(a)
	if p.Len() != 3 || q.Len() != 1 || Pinned() != base+4 {
		t.Fatalf("Len %d/%d, Pinned %d, want 3/1, %d", p.Len(), q.Len(), Pinned(), base+4)
	}
	runtime.GC()
	p.Unpin()
	if p.Len() != 0 || Pinned() != base+1 {
		t.Fatalf("after Unpin: Len %d, Pinned %d", p.Len(), Pinned())
	}
	p.Unpin() // no-op
	q.Unpin()
	if Pinned() != base {
		t.Fatalf("Pinned %d, want %d", Pinned(), base)
	}
	// Reuse after Unpin.
	p.Pin(a)
	p.Unpin()
	if Pinned() != base {
		t.Fatalf("reuse: Pinned %d, want %d", Pinned(), base)
	}
}

// TestPinStackBuffer: a buffer that would live on the stack is moved to the
// heap by Pin, and what a peer reads through the address stays valid while
// the goroutine's stack is forced to grow (and so move).
func TestPinStackBuffer(t *testing.T) {
	skipIfNotSupported(t, SelfProbe())
	var p Pins
	defer p.Unpin()
	var arr [256]byte
	pattern(arr[:], 4)
	addr := p.Pin(arr[:])
	growStack(200)
	got := make([]byte, len(arr))
	if err := ReadFrom(os.Getpid(), got, addr); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, 4); i >= 0 {
		t.Fatalf("byte %d differs after the stack grew", i)
	}
}

//go:noinline
func growStack(n int) byte {
	var pad [1024]byte
	pad[n%len(pad)] = byte(n)
	if n == 0 {
		return pad[0]
	}
	return growStack(n-1) + pad[n%len(pad)]
}

// Len reports how many buffers p holds: the tests' view of its count.
func (p *Pins) Len() int { return p.n }
