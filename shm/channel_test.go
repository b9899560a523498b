package shm

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// poolPair is the sender's pool and the receiver's return ring of channel
// 1→0 of a fresh region whose channels have the given cell count.
func poolPair(t *testing.T, cells int) (*CellPool, *ReturnRing) {
	t.Helper()
	r := newAnon(t, 2, Config{MinCells: cells, CellSize: CacheLine, Slots: 2})
	if r.L.CellsPerChannel != cells {
		t.Fatalf("region has %d cells per channel, want %d", r.L.CellsPerChannel, cells)
	}
	ch := r.Channel(1, 0)
	return ch.Pool(), ch.Returns()
}

func mustGet(t *testing.T, p *CellPool) uint32 {
	t.Helper()
	i, ok, err := p.Get()
	if err != nil || !ok {
		t.Fatalf("Get = %d, %v, %v; want a cell", i, ok, err)
	}
	return i
}

func expectPoolEmpty(t *testing.T, p *CellPool) {
	t.Helper()
	if i, ok, err := p.Get(); ok || err != nil {
		t.Fatalf("Get on an exhausted pool = %d, %v, %v", i, ok, err)
	}
}

// poolFree lists the cells the pool can hand out without new returns, in
// the order it will: the returned ones (oldest first), then the unused ones.
func poolFree(p *CellPool) []uint32 {
	var f []uint32
	for k := range p.qlen {
		f = append(f, p.queue[(p.qhead+k)%len(p.queue)])
	}
	for i := p.unused; i < p.limit; i++ {
		f = append(f, i)
	}
	return f
}

func TestPoolRoundTrip(t *testing.T) {
	const cells = 4
	p, rr := poolPair(t, cells)
	if p.Size() != cells || p.Free() != cells || p.Outstanding() != 0 {
		t.Fatalf("fresh pool: Size %d Free %d Outstanding %d", p.Size(), p.Free(), p.Outstanding())
	}
	// A fresh pool hands out 0, 1, 2, ... in order.
	for want := range uint32(cells) {
		if got := mustGet(t, p); got != want {
			t.Fatalf("fresh pool handed out %d, want %d", got, want)
		}
	}
	expectPoolEmpty(t, p)
	if p.Free() != 0 || p.Outstanding() != cells {
		t.Fatalf("all out: Free %d Outstanding %d", p.Free(), p.Outstanding())
	}

	// Returned but unpublished cells stay invisible.
	rr.Put(2)
	rr.Put(0)
	expectPoolEmpty(t, p)
	if p.Outstanding() != cells {
		t.Fatalf("Outstanding = %d before Publish, want %d", p.Outstanding(), cells)
	}
	if !rr.Publish() {
		t.Fatalf("Publish with two pending returns = false")
	}
	if rr.Publish() {
		t.Fatalf("a second Publish with nothing new = true")
	}
	if p.Outstanding() != cells-2 || p.Free() != 0 {
		t.Fatalf("published, uncollected: Outstanding %d Free %d; want %d, 0", p.Outstanding(), p.Free(), cells-2)
	}
	// Returned cells come back in the order they were returned.
	if got := mustGet(t, p); got != 2 {
		t.Fatalf("Get after returning 2 then 0 = %d, want 2 (first returned)", got)
	}
	if p.Free() != 1 || p.Outstanding() != cells-1 {
		t.Fatalf("Free %d Outstanding %d after collecting two and taking one", p.Free(), p.Outstanding())
	}
	if got := mustGet(t, p); got != 0 {
		t.Fatalf("next Get = %d, want 0", got)
	}
	expectPoolEmpty(t, p)

	// Collect on its own moves returns to the free list, in order.
	rr.Put(3)
	rr.Publish()
	if err := p.Collect(); err != nil {
		t.Fatal(err)
	}
	rr.Put(1)
	rr.Publish()
	if err := p.Collect(); err != nil {
		t.Fatal(err)
	}
	if p.Free() != 2 || p.Outstanding() != 2 || !slices.Equal(poolFree(p), []uint32{3, 1}) {
		t.Fatalf("Free %d Outstanding %d list %v; want 2, 2, [3 1]", p.Free(), p.Outstanding(), poolFree(p))
	}
	if a, b := mustGet(t, p), mustGet(t, p); a != 3 || b != 1 {
		t.Fatalf("Get, Get = %d, %d; want 3, 1", a, b)
	}
}

// TestPoolWorkingSet: the pool hands out a returned cell before an unused
// one, so its working set is the number of cells in flight: a ping-pong
// reuses one cell, a stream with w cells in flight rotates through w.
func TestPoolWorkingSet(t *testing.T) {
	const cells = 8
	p, rr := poolPair(t, cells)
	for round := range 100 {
		if i := mustGet(t, p); i != 0 {
			t.Fatalf("ping-pong round %d: Get = %d; the pool walked past the returned cell 0", round, i)
		}
		rr.Put(0)
		rr.Publish()
	}
	for _, window := range []int{2, 3, 5} {
		p, rr := poolPair(t, cells)
		var inFlight []uint32
		used := map[uint32]bool{}
		for range 200 {
			for len(inFlight) < window {
				i := mustGet(t, p)
				inFlight = append(inFlight, i)
				used[i] = true
			}
			rr.Put(inFlight[0]) // the receiver finishes with the oldest
			rr.Publish()
			inFlight = inFlight[1:]
		}
		if len(used) != window {
			t.Errorf("stream with %d cells in flight touched %d cells: %v", window, len(used), used)
		}
	}
	// Returned in the order b, a: b comes back first, then a, and only then
	// a cell never used.
	p, rr = poolPair(t, cells)
	a, b := mustGet(t, p), mustGet(t, p)
	rr.Put(b)
	rr.Put(a)
	rr.Publish()
	if x, y, z := mustGet(t, p), mustGet(t, p), mustGet(t, p); x != b || y != a || z == a || z == b {
		t.Fatalf("after returning %d then %d: Get gave %d, %d, %d", b, a, x, y, z)
	}
}

// TestPoolReturnRingFull returns every cell at once, so the return ring holds
// as many entries as it has, with the wrap point at every possible position.
func TestPoolReturnRingFull(t *testing.T) {
	const cells = 5
	p, rr := poolPair(t, cells)
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 50 {
		// Move the ring's head by a varying amount first.
		for range round % cells {
			rr.Put(mustGet(t, p))
			rr.Publish()
			if err := p.Collect(); err != nil {
				t.Fatal(err)
			}
		}
		var out []uint32
		for range cells {
			out = append(out, mustGet(t, p))
		}
		expectPoolEmpty(t, p)
		if s := slices.Sorted(slices.Values(out)); !slices.Equal(s, []uint32{0, 1, 2, 3, 4}) {
			t.Fatalf("round %d: handed out %v", round, out)
		}
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		for _, i := range out {
			rr.Put(i)
		}
		if !rr.Publish() {
			t.Fatal("Publish = false")
		}
		if p.Outstanding() != 0 {
			t.Fatalf("round %d: Outstanding = %d with everything returned", round, p.Outstanding())
		}
		// The cells come back in the order returned: no entry was lost to
		// an overwrite.
		for k := range cells {
			if got := mustGet(t, p); got != out[k] {
				t.Fatalf("round %d: returned %v, Get gave %d at step %d", round, out, got, k)
			}
		}
		for _, i := range out {
			rr.Put(i)
		}
		rr.Publish()
		if err := p.Collect(); err != nil || p.Free() != cells {
			t.Fatalf("round %d: Collect = %v, Free %d", round, err, p.Free())
		}
	}
}

// TestPoolModel drives the pool and the return ring with random operations
// against an exact model: a FIFO of returned cells, then the unused ones.
func TestPoolModel(t *testing.T) {
	for _, cells := range []int{1, 2, 7} {
		p, rr := poolPair(t, cells)
		rng := rand.New(rand.NewPCG(uint64(cells), 5))
		var (
			queue                    []uint32 // returned and collected, oldest first
			unused                   uint32   // cells unused.. never handed out
			held, pending, published []uint32 // at the receiver; returned unpublished; published uncollected
		)
		collect := func() {
			queue = append(queue, published...)
			published = published[:0]
		}
		for step := range 20000 {
			switch rng.IntN(4) {
			case 0: // Get: collects, then takes the oldest return, else an unused cell
				collect()
				i, ok, err := p.Get()
				if err != nil {
					t.Fatalf("%d cells, step %d: Get: %v", cells, step, err)
				}
				var want uint32
				switch {
				case len(queue) > 0:
					want, queue = queue[0], queue[1:]
				case unused < uint32(cells):
					want = unused
					unused++
				default:
					if ok {
						t.Fatalf("%d cells, step %d: Get gave %d with every cell out", cells, step, i)
					}
					continue
				}
				if !ok || i != want {
					t.Fatalf("%d cells, step %d: Get = %d, %v; want %d", cells, step, i, ok, want)
				}
				held = append(held, i)
			case 1: // the receiver returns a random held cell
				if len(held) == 0 {
					break
				}
				k := rng.IntN(len(held))
				rr.Put(held[k])
				pending = append(pending, held[k])
				held = slices.Delete(held, k, k+1)
			case 2:
				if got := rr.Publish(); got != (len(pending) > 0) {
					t.Fatalf("%d cells, step %d: Publish = %v with %d pending", cells, step, got, len(pending))
				}
				published = append(published, pending...)
				pending = pending[:0]
			case 3:
				if err := p.Collect(); err != nil {
					t.Fatalf("%d cells, step %d: Collect: %v", cells, step, err)
				}
				collect()
			}
			wantFree := slices.Clone(queue)
			for i := unused; i < uint32(cells); i++ {
				wantFree = append(wantFree, i)
			}
			if p.Free() != len(wantFree) || p.Outstanding() != len(held)+len(pending) || !slices.Equal(poolFree(p), wantFree) {
				t.Fatalf("%d cells, step %d: Free %d Outstanding %d list %v; model list %v held %v pending %v",
					cells, step, p.Free(), p.Outstanding(), poolFree(p), wantFree, held, pending)
			}
		}
	}
}

func TestPoolForgedReturns(t *testing.T) {
	const cells = 4
	for _, c := range []struct {
		name  string
		forge func(t *testing.T, p *CellPool, rr *ReturnRing)
	}{
		{"index = cells", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			mustGet(t, p)
			rr.Put(cells)
			rr.Publish()
		}},
		{"index 2^32-1", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			mustGet(t, p)
			rr.Put(^uint32(0))
			rr.Publish()
		}},
		{"cell never handed out", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			mustGet(t, p) // 0
			rr.Put(3)
			rr.Publish()
		}},
		{"double return in one batch", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			i := mustGet(t, p)
			rr.Put(i)
			rr.Put(i)
			rr.Publish()
		}},
		{"double return across batches", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			i := mustGet(t, p)
			rr.Put(i)
			rr.Publish()
			if err := p.Collect(); err != nil {
				t.Fatal(err)
			}
			rr.Put(i)
			rr.Publish()
		}},
		{"tail beyond the ring", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			for range cells {
				mustGet(t, p)
			}
			rr.tail.Store(cells + 1)
		}},
		{"tail moves backwards", func(t *testing.T, p *CellPool, rr *ReturnRing) {
			i := mustGet(t, p)
			rr.Put(i)
			rr.Publish()
			if err := p.Collect(); err != nil {
				t.Fatal(err)
			}
			mustGet(t, p)
			rr.tail.Store(0)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, rr := poolPair(t, cells)
			c.forge(t, p, rr)
			if err := p.Collect(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Collect = %v, want ErrCorrupt", err)
			}
			// Even after a failed Collect, no cell is free twice or both
			// free and out.
			seen := map[uint32]bool{}
			for _, i := range poolFree(p) {
				if seen[i] || i >= cells || p.out[i] {
					t.Errorf("free list %v (out %v) has duplicates, out-of-range or outstanding cells", poolFree(p), p.out)
				}
				seen[i] = true
			}
			// Get collects first, so it reports the same error at once.
			p2, rr2 := poolPair(t, cells)
			c.forge(t, p2, rr2)
			if i, ok, err := p2.Get(); ok || !errors.Is(err, ErrCorrupt) {
				t.Errorf("Get = %d, %v, %v; want ErrCorrupt", i, ok, err)
			}
		})
	}
}

// TestReturnsResume: a ReturnRing made later picks up where the ring is, so
// a receiver that recreates its end does not overwrite unread entries.
func TestReturnsResume(t *testing.T) {
	r := newAnon(t, 2, Config{MinCells: 3, CellSize: CacheLine, Slots: 2})
	ch := r.Channel(0, 1)
	p := ch.Pool()
	a, b := mustGet(t, p), mustGet(t, p)
	rr := ch.Returns()
	rr.Put(a)
	rr.Publish()
	rr2 := ch.Returns()
	if rr2.Publish() {
		t.Errorf("a fresh ReturnRing published something")
	}
	rr2.Put(b)
	rr2.Publish()
	if err := p.Collect(); err != nil {
		t.Fatal(err)
	}
	if got := poolFree(p); !slices.Equal(got[:2], []uint32{a, b}) {
		t.Fatalf("free list %v, want %d, %d first", got, a, b)
	}
}

// TestPrefaultIncoming: a receiver's prefault writes nothing, even while
// the channel holds traffic.
func TestPrefaultIncoming(t *testing.T) {
	for _, n := range []int{2, 5} {
		r := newAnon(t, n, Config{MinCells: 2, CellSize: 128, Slots: 16})
		for src := range n {
			for dst := range n {
				if src != dst {
					fillBytes(r.Channel(src, dst).slots(), byte(src*n+dst+1))
				}
			}
		}
		before := bytes.Clone(r.mem)
		for src := range n {
			for dst := range n {
				if src != dst {
					c, ok, err := r.IncomingChannel(src, dst)
					if !ok || err != nil {
						t.Fatalf("IncomingChannel(%d,%d): %v %v", src, dst, ok, err)
					}
					c.PrefaultIncoming()
				}
			}
		}
		if !bytes.Equal(before, r.mem) {
			t.Errorf("%d ranks: PrefaultIncoming changed the region", n)
		}
	}
}

// TestOpenChannelMapsSendRing: once the sender has opened a channel, writing
// to every page of its descriptor ring takes no page faults, however large
// the ring; writing to pages nobody mapped does (the check that counting
// faults means anything here).
func TestOpenChannelMapsSendRing(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := newAnon(t, 3, Config{MinCells: 1024, CellSize: CacheLine, Slots: 1024})
	if int64(r.L.Slots)*SlotSize <= 2*prefaultBytes {
		t.Fatalf("ring of %d slots is too small to tell whole from prefaultBytes", r.L.Slots)
	}
	// touch writes a byte to every page of mem and returns the page faults
	// this thread took meanwhile, and the pages.
	touch := func(mem []byte) (faults int64, pages int) {
		var before, after unix.Rusage
		if err := unix.Getrusage(unix.RUSAGE_THREAD, &before); err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(mem); off += pageSize {
			mem[off] = 1
			pages++
		}
		if err := unix.Getrusage(unix.RUSAGE_THREAD, &after); err != nil {
			t.Fatal(err)
		}
		return after.Minflt - before.Minflt, pages
	}
	// Arena slot 5 is not handed out by this test: nobody mapped it.
	fresh := r.L.channelBase(5)
	if faults, pages := touch(r.mem[fresh+r.L.SlotsOff : fresh+r.L.CollOff]); faults < int64(pages)/2 {
		t.Skipf("writing %d fresh pages took %d faults: cannot count faults here", pages, faults)
	}
	for _, p := range []int{1, 2} {
		c, err := r.OpenChannel(0, p)
		if err != nil {
			t.Fatal(err)
		}
		if faults, pages := touch(c.slots()); faults > int64(pages)/10 {
			t.Errorf("ring 0→%d: %d faults writing its %d pages after OpenChannel", p, faults, pages)
		}
	}
}

// Outstanding is the number of cells the receiver still holds: what the
// pool tests check the accounting by (the engine never needs it).
func (p *CellPool) Outstanding() int { return int(p.limit) - p.Free() - int(p.tail.Load()-p.head) }
