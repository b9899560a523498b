package shm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
)

// Gates: a communicator's rendezvous point in the region, for the small
// collectives of an oversubscribed job. Every member adds itself to an
// arrival counter; the last one to arrive finishes the collective (for a
// reduction, it combines the members' contributions, which sit in the
// block) and opens the gate by bumping a generation word, waking every
// member asleep on that word with one FUTEX_WAKE. Each rank so runs about
// once per collective, where a gather and release through rank 0 makes
// rank 0 run once per member and every hand-off wait for the scheduler.
//
// Where a gate lives. A communicator is named by its context and its
// leader (its lowest world rank): a process never uses a context twice,
// so two communicators with one context have no member in common and
// differ in leader. The leader's rank block holds a table of GateEntries
// uint64 entries, the one for a context at index (ctx/2) mod GateEntries:
//
//	0                     no gate claimed yet
//	ctx<<32 | k+1         the communicator of context ctx has gate block k
//	ctx<<32 | gatePoison  the communicator of context ctx has no gate
//
// Any member may claim the entry: it takes a block from the gate arena
// (header word Gates, an atomic add; a count past GateBlocks means none is
// left), writes the block's ident, and CASes the entry from 0. Losers use
// what the winner wrote; a member that finds no block left CASes the
// poison value, so every member of a communicator reaches the same answer.
// An entry holding another context means the index is taken: no gate.
// Entries and blocks are never freed (contexts are never reused).
//
// Gate block (GateStride bytes, little-endian, all words atomic):
//
//	line 0: arrivals uint32 — members arrived at the open collective.
//	        Added to by each member after it writes its contribution;
//	        reset to 0 by the last arriver before it bumps gen.
//	line 1: gen uint32 — collectives completed; bumped (release) by the
//	        last arriver after the result is written; read by every
//	        member; the futex word sleepers wait on.
//	        sleepers uint32 — members between SleepArm and the end of
//	        their sleep; the last arriver wakes only when it is non-zero.
//	        ident uint64 — ctx | (leader+1)<<32 | n<<48 (both below 2^16
//	        since maxRanks is), written once by the claimer before the
//	        table entry and checked by every member that opens the gate.
//	line 2..3: results, one GateSlotSize slot per parity of gen: the
//	        payload, and in the last 8 bytes the outcome (0, or a count
//	        mismatch: 1 + the first rank whose length differs from the
//	        last arriver's | that length << 32). Written by the last
//	        arriver before gen; read by every member after.
//	then contributions: 2 parities × n slots of GateSlotSize: the
//	        payload, and in the last 8 bytes its length, at most
//	        GatePayloadMax (checked by the reader). Written by the member
//	        before its arrival; read by the last arriver.
//
// Double buffering by the parity of gen makes reuse safe: a member writes
// its contribution for collective g+2 only after finishing g+1, which
// needed every member's arrival at g+1, so every member had read the result
// of g and the last arriver of g had finished reading the contributions.
// Every index comes from the layout and the caller's rank, never from the
// region; the arrival count read back is checked against n.
const (
	// GateEntries is the size of each rank's gate table.
	GateEntries = 16
	// GateSlotSize is the size of a contribution or result slot, and
	// GatePayloadMax the largest payload one carries.
	GateSlotSize   = CacheLine
	GatePayloadMax = GateSlotSize - 8
	gateWordOff    = GatePayloadMax
	gatePoison     = 0xffffffff

	gArrivals = 0
	gGen      = CacheLine
	gSleepers = CacheLine + 4
	gIdent    = CacheLine + 8
	gResults  = 2 * CacheLine
	gSlots    = 4 * CacheLine
)

func gateSize(n int) int64 { return gSlots + 2*int64(n)*GateSlotSize }

// gateBlocksFor is how many gate blocks a region of n ranks holds: every
// rank may lead a couple of communicators that use one.
func gateBlocksFor(n int) int { return 2*n + 16 }

func gateIdent(ctx uint32, leader, n int) uint64 {
	return uint64(ctx) | uint64(leader+1)<<32 | uint64(n)<<48
}

// Gate is one communicator's gate.
type Gate struct {
	arrivals, gen, sleepers *atomic.Uint32
	results, slots          []byte
	n                       int
}

// GatesUsed is how many gate blocks have been handed out.
func (r *Region) GatesUsed() int {
	return int(min(r.u64At(hdrGates).Load(), uint64(r.L.GateBlocks)))
}

// OpenGate returns the gate of the communicator of context ctx whose
// lowest world rank is leader and which has n members. ok is false when it
// has none (the leader's table entry is taken by another context, or the
// region has no block left); every member gets the same answer. err
// reports a corrupt entry or block.
func (r *Region) OpenGate(ctx uint32, leader, n int) (g Gate, ok bool, err error) {
	if leader < 0 || leader >= r.L.Ranks || n < 1 || n > r.L.Ranks {
		return Gate{}, false, fmt.Errorf("shm: no gate for %d ranks led by rank %d in a %d-rank region", n, leader, r.L.Ranks)
	}
	entry := r.u64At(r.rankBlock(leader) + r.L.GateTableOff + 8*int64(ctx/2%GateEntries))
	e := entry.Load()
	if e == 0 {
		want := uint64(ctx)<<32 | gatePoison
		if k := r.u64At(hdrGates).Add(1) - 1; k < uint64(r.L.GateBlocks) {
			base := r.L.GateOff + int64(k)*r.L.GateStride
			if err := r.reserveRange(base, gateSize(r.L.Ranks)); err == nil {
				r.u64At(base + gIdent).Store(gateIdent(ctx, leader, n))
				want = uint64(ctx)<<32 | (k + 1)
			}
		}
		entry.CompareAndSwap(0, want)
		e = entry.Load()
	}
	if uint32(e>>32) != ctx || uint32(e) == gatePoison {
		return Gate{}, false, nil
	}
	k := int64(uint32(e)) - 1
	if k < 0 || k >= int64(r.GatesUsed()) {
		return Gate{}, false, fmt.Errorf("%w: rank %d's gate entry names block %d of %d handed out", ErrCorrupt, leader, k, r.GatesUsed())
	}
	base := r.L.GateOff + k*r.L.GateStride
	if id := r.u64At(base + gIdent).Load(); id != gateIdent(ctx, leader, n) {
		return Gate{}, false, fmt.Errorf("%w: gate block %d has ident %#x, want %#x", ErrCorrupt, k, id, gateIdent(ctx, leader, n))
	}
	return Gate{
		arrivals: r.u32At(base + gArrivals),
		gen:      r.u32At(base + gGen),
		sleepers: r.u32At(base + gSleepers),
		results:  r.bytesAt(base+gResults, 2*GateSlotSize),
		slots:    r.bytesAt(base+gSlots, 2*int64(n)*GateSlotSize),
		n:        n,
	}, true, nil
}

// Valid reports whether g is a gate (not the zero Gate).
func (g Gate) Valid() bool { return g.gen != nil }

// Gen is the number of collectives completed at the gate: read it before
// Arrive, and the collective is done when it moves on.
func (g Gate) Gen() uint32 { return g.gen.Load() }

func (g Gate) slot(gen uint32, rank int) []byte {
	o := (int(gen&1)*g.n + rank) * GateSlotSize
	return g.slots[o : o+GateSlotSize : o+GateSlotSize]
}

func (g Gate) result(gen uint32) []byte {
	o := int(gen&1) * GateSlotSize
	return g.results[o : o+GateSlotSize : o+GateSlotSize]
}

// Put writes rank's contribution to the collective that opened at gen;
// len(payload) is at most GatePayloadMax.
func (g Gate) Put(gen uint32, rank int, payload []byte) {
	sl := g.slot(gen, rank)
	copy(sl[:GatePayloadMax], payload)
	binary.LittleEndian.PutUint64(sl[gateWordOff:], uint64(len(payload)))
}

// Contribution is rank's contribution to the collective that opened at
// gen; its length comes from the region, and is checked.
func (g Gate) Contribution(gen uint32, rank int) ([]byte, error) {
	sl := g.slot(gen, rank)
	m := binary.LittleEndian.Uint64(sl[gateWordOff:])
	if m > GatePayloadMax {
		return nil, fmt.Errorf("%w: rank %d's gate contribution of %d bytes (max %d)", ErrCorrupt, rank, m, GatePayloadMax)
	}
	return sl[:m:m], nil
}

// Result is the result payload of the collective that opened at gen (all
// GatePayloadMax bytes of it).
func (g Gate) Result(gen uint32) []byte { return g.result(gen)[:GatePayloadMax:GatePayloadMax] }

// SetOutcome records, before Open, whether the contributions agreed in
// length: bad is -1, or the first rank whose length, m, differs.
func (g Gate) SetOutcome(gen uint32, bad, m int) {
	var w uint64
	if bad >= 0 {
		w = uint64(bad+1) | uint64(m)<<32
	}
	binary.LittleEndian.PutUint64(g.result(gen)[gateWordOff:], w)
}

// Outcome reads what SetOutcome recorded; a rank outside the gate is
// corruption.
func (g Gate) Outcome(gen uint32) (bad, m int, err error) {
	w := binary.LittleEndian.Uint64(g.result(gen)[gateWordOff:])
	if w == 0 {
		return -1, 0, nil
	}
	r := int64(w&0xffffffff) - 1
	if r < 0 || r >= int64(g.n) {
		return -1, 0, fmt.Errorf("%w: gate outcome names rank %d of %d", ErrCorrupt, r, g.n)
	}
	return int(r), int(w >> 32), nil
}

// Arrive adds the caller, whose contribution (if any) is in its Slot, and
// reports whether it was the last: then it must finish the collective and
// Open the gate.
func (g Gate) Arrive() (last bool, err error) {
	a := g.arrivals.Add(1)
	if a == 0 || int64(a) > int64(g.n) {
		return false, fmt.Errorf("%w: %d arrivals at a gate of %d ranks", ErrCorrupt, a, g.n)
	}
	return int(a) == g.n, nil
}

// Open completes the collective: the last arriver calls it after writing
// the result, and it wakes every sleeper.
func (g Gate) Open() {
	g.arrivals.Store(0)
	g.gen.Add(1)
	if g.sleepers.Load() != 0 {
		futexWake(g.gen)
	}
}

// Sleep waits, up to timeout, for the gate to move past gen. Spurious
// returns are allowed. It keeps the Go scheduler out (futexWaitRaw), so
// no other goroutine runs on the caller's P meanwhile: for a caller that
// is its process's only goroutine.
func (g Gate) Sleep(gen uint32, timeout time.Duration) {
	g.sleepers.Add(1)
	// The sleeper count is visible before the re-check, and Open bumps gen
	// before it reads the count: one of the two sees the other.
	if g.gen.Load() == gen {
		futexWaitRaw(g.gen, gen, timeout)
	}
	g.sleepers.Add(^uint32(0))
}
