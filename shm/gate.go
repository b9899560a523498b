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
// so two live communicators with one context have no member in common and
// differ in leader. The leader's rank block holds a table of GateEntries
// uint64 entries, the one for a context at index (ctx/2) mod GateEntries:
//
//	0              free
//	ctx<<32 | k+1  the communicator of context ctx has gate block k
//
// Any member may claim a free entry (OpenGate): it takes a block (below),
// and CASes the entry from 0; a loser gives its block back and uses what
// the winner wrote. An entry holding another context means the index is
// taken: no gate. Members may so reach different answers (one sees the
// entry still held by a communicator being freed, another sees it free
// an instant later), and the engine has them agree before any uses the
// gate (mpi/coll_gate.go); every member that got a gate holds a reference
// to its block, and drops it when the communicator is freed or the
// members did not agree (CloseGate). The member that drops the last one
// clears the entry and frees the block.
//
// Where a block comes from. The header word Gates is the high-water mark
// of blocks ever handed out (an atomic add; a count past GateBlocks means
// the arena is used up). A claimer first looks for a freed block: the
// ident word of a block is 0 while its first claimer sets it up, the
// communicator's ident while in use, and gateFree once freed; a CAS from
// gateFree to the claimer's ident takes a freed block. Only when none is
// free does it take a new one. When the arena is used up and nothing is
// free there is no gate, and the communicator's collectives keep the
// message-based algorithms: never an error, never a wait.
//
// Gate block (GateStride bytes, little-endian, all words atomic):
//
//	line 0: arrivals uint32 — members arrived at the open collective.
//	        Added to by each member after it writes its contribution;
//	        reset to 0 by the last arriver before it bumps gen.
//	line 1: gen uint32 — collectives completed; bumped (release) by the
//	        last arriver after the result is written; read by every
//	        member. It is not reset when the block is reused: members
//	        only compare it with what they read at their arrival.
//	        refs uint32 — members holding the block: set to 1 by the
//	        claimer before it publishes the entry, added to by each other
//	        member that finds the entry (all do before any drops one, as
//	        they agree first), taken from by CloseGate. Checked against n
//	        when read back.
//	        ident uint64 — ctx | (leader+1)<<32 | n<<48 (both below 2^16
//	        since maxRanks is) while in use, gateFree once freed: written
//	        by the claimer before the table entry and by the last
//	        CloseGate after it clears the entry; checked by every member
//	        that opens the gate.
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
// Members sleeping while the gate is shut sleep on their own doorbells
// (Gate.Sleep), which the last arriver rings after Open, so that a
// point-to-point message wakes a sleeper as well.
//
// Double buffering by the parity of gen makes reuse safe: a member writes
// its contribution for collective g+2 only after finishing g+1, which
// needed every member's arrival at g+1, so every member had read the result
// of g and the last arriver of g had finished reading the contributions.
// A block is reused only after every member dropped its reference, which
// each does after its last collective there has completed. Every index
// comes from the layout and the caller's rank, never from the region; the
// arrival and reference counts read back are checked against n.
const (
	// GateEntries is the size of each rank's gate table.
	GateEntries = 16
	// GateSlotSize is the size of a contribution or result slot, and
	// GatePayloadMax the largest payload one carries.
	GateSlotSize   = CacheLine
	GatePayloadMax = GateSlotSize - 8
	gateWordOff    = GatePayloadMax
	// gateFree is the ident of a freed block; a real ident is at least
	// 1<<32 (its leader+1 field).
	gateFree = 1
	// gateClaimTries bounds a claim that keeps losing its CAS to claimers
	// of other contexts; past it there is no gate (members then agree
	// on none).
	gateClaimTries = 4

	gArrivals = 0
	gGen      = CacheLine
	gRefs     = CacheLine + 4
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
	arrivals, gen, refs *atomic.Uint32
	ident, entry        *atomic.Uint64
	id, entryVal        uint64
	results, slots      []byte
	n                   int
}

// GatesUsed is how many gate blocks have been handed out (the high-water
// mark: freed blocks count until they are reused).
func (r *Region) GatesUsed() int {
	return int(min(r.u64At(hdrGates).Load(), uint64(r.L.GateBlocks)))
}

// GatesFree is how many handed-out gate blocks are free for reuse.
func (r *Region) GatesFree() int {
	free := 0
	for k := range r.GatesUsed() {
		if r.u64At(r.gateBase(int64(k))+gIdent).Load() == gateFree {
			free++
		}
	}
	return free
}

// GateReuses is how many times this process took a freed gate block.
func (r *Region) GateReuses() uint64 { return r.gateReuses.Load() }

func (r *Region) gateBase(k int64) int64 { return r.L.GateOff + k*r.L.GateStride }

// takeGateBlock takes a block for ident id, a freed one if there is one:
// it returns the block's index with its ident set to id, or false when the
// arena is used up.
func (r *Region) takeGateBlock(id uint64) (int64, bool) {
	used := int64(r.GatesUsed())
	for k := range used {
		w := r.u64At(r.gateBase(k) + gIdent)
		if w.Load() == gateFree && w.CompareAndSwap(gateFree, id) {
			r.gateReuses.Add(1)
			return k, true
		}
	}
	k := r.u64At(hdrGates).Add(1) - 1
	if k >= uint64(r.L.GateBlocks) {
		return 0, false
	}
	base := r.gateBase(int64(k))
	if err := r.reserveRange(base, gateSize(r.L.Ranks)); err != nil {
		// Not backed: left with ident 0, so never taken nor opened.
		return 0, false
	}
	r.u64At(base + gIdent).Store(id)
	return int64(k), true
}

// freeGateBlock gives block k back; its ident is id.
func (r *Region) freeGateBlock(k int64) {
	base := r.gateBase(k)
	r.u32At(base + gArrivals).Store(0)
	r.u32At(base + gRefs).Store(0)
	r.u64At(base + gIdent).Store(gateFree)
}

// OpenGate returns the gate of the communicator of context ctx whose
// lowest world rank is leader and which has n members, and takes a
// reference to it that CloseGate drops. ok is false when it has none (the
// leader's table entry is taken by another context, or the arena has no
// block left); members may get different answers, and must agree before
// using the gate. err reports a corrupt entry or block.
func (r *Region) OpenGate(ctx uint32, leader, n int) (g Gate, ok bool, err error) {
	if leader < 0 || leader >= r.L.Ranks || n < 1 || n > r.L.Ranks {
		return Gate{}, false, fmt.Errorf("shm: no gate for %d ranks led by rank %d in a %d-rank region", n, leader, r.L.Ranks)
	}
	entry := r.u64At(r.rankBlock(leader) + r.L.GateTableOff + 8*int64(ctx/2%GateEntries))
	id := gateIdent(ctx, leader, n)
	for range gateClaimTries {
		e := entry.Load()
		if e == 0 {
			k, got := r.takeGateBlock(id)
			if !got {
				return Gate{}, false, nil
			}
			base := r.gateBase(k)
			r.u32At(base + gRefs).Store(1)
			mine := uint64(ctx)<<32 | uint64(k+1)
			if entry.CompareAndSwap(0, mine) {
				return r.gateAt(k, entry, mine, id, n), true, nil
			}
			r.freeGateBlock(k)
			continue
		}
		if uint32(e>>32) != ctx {
			return Gate{}, false, nil
		}
		k := int64(uint32(e)) - 1
		if k < 0 || k >= int64(r.GatesUsed()) {
			return Gate{}, false, fmt.Errorf("%w: rank %d's gate entry names block %d of %d handed out", ErrCorrupt, leader, k, r.GatesUsed())
		}
		base := r.gateBase(k)
		if got := r.u64At(base + gIdent).Load(); got != id {
			return Gate{}, false, fmt.Errorf("%w: gate block %d has ident %#x, want %#x", ErrCorrupt, k, got, id)
		}
		if refs := r.u32At(base + gRefs).Add(1); refs < 2 || int64(refs) > int64(n) {
			r.u32At(base + gRefs).Add(^uint32(0))
			return Gate{}, false, fmt.Errorf("%w: gate block %d has %d references for %d members", ErrCorrupt, k, refs, n)
		}
		return r.gateAt(k, entry, e, id, n), true, nil
	}
	return Gate{}, false, nil
}

func (r *Region) gateAt(k int64, entry *atomic.Uint64, entryVal, id uint64, n int) Gate {
	base := r.gateBase(k)
	return Gate{
		arrivals: r.u32At(base + gArrivals),
		gen:      r.u32At(base + gGen),
		refs:     r.u32At(base + gRefs),
		ident:    r.u64At(base + gIdent),
		entry:    entry,
		id:       id,
		entryVal: entryVal,
		results:  r.bytesAt(base+gResults, 2*GateSlotSize),
		slots:    r.bytesAt(base+gSlots, 2*int64(n)*GateSlotSize),
		n:        n,
	}
}

// CloseGate drops the caller's reference to g, which it must not use
// again; the last one frees the leader's table entry and the block.
// Every collective of the caller's at g must have completed. err reports
// a reference count or ident that the region changed under it (then
// nothing is freed).
func (r *Region) CloseGate(g Gate) error {
	if !g.Valid() {
		return nil
	}
	if id := g.ident.Load(); id != g.id {
		return fmt.Errorf("%w: gate block ident %#x at close, want %#x", ErrCorrupt, id, g.id)
	}
	left := g.refs.Add(^uint32(0))
	if int64(left) >= int64(g.n) {
		return fmt.Errorf("%w: %d references left at a gate of %d members", ErrCorrupt, left, g.n)
	}
	if left > 0 {
		return nil
	}
	// Entry first: nobody reaches the block through it once it is free.
	g.entry.CompareAndSwap(g.entryVal, 0)
	g.arrivals.Store(0)
	g.ident.Store(gateFree)
	return nil
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
// the result, then rings the members' doorbells (members sleep on those,
// Sleep).
func (g Gate) Open() {
	g.arrivals.Store(0)
	g.gen.Add(1)
}

// Sleep waits, up to timeout, on bell, the caller's doorbell armed at seq
// (Doorbell.Arm) before the caller last saw the gate at its generation
// and found nothing else to do. The last arriver rings the members'
// doorbells after Open, and so do peers that send the caller something:
// either wakes it. Spurious returns are allowed. It keeps the Go scheduler
// out (futexWaitRaw), so no other goroutine runs on the caller's P
// meanwhile: for a caller that is its process's only goroutine.
func (g Gate) Sleep(bell Doorbell, seq uint32, timeout time.Duration) {
	futexWaitRaw(bell.seq, seq, timeout)
}
