//go:build !ompi && !mpich

package mpi

import "unsafe"

// The collectives' schedule memo. Programs call the same collectives with
// the same arguments over and over (a solver's Allreduce of its residual,
// a benchmark's loop, which calls a Barrier after each timed collective);
// a schedule depends on nothing else (the builders are pure functions of
// rank, size, buffers, counts, datatype, operator, root and whether the
// job is oversubscribed), and it can run any number of times, as a
// persistent collective's does. So each communicator keeps the control
// entries of its last few collectives of different shapes, schedules
// built, each under a key of every argument its builder read: a blocking
// call's entry when it returns, a nonblocking one's when its request is
// collected. The next blocking or nonblocking call whose key is one of
// them skips the argument checks (they passed for exactly these
// arguments) and the build, and launches it again; a call with any other
// key builds as always and takes the place of the entry used least
// recently. Only predefined datatypes and operators are memoised: a user
// operator or an opaque type may be freed between two calls. A
// v-collective's counts and displacements are caller memory that may
// change under the same slice, so its memo keeps a copy of them
// (countsKey) and a call must match that too.
//
// An entry is out of the memo while its collective runs (a blocking call,
// or a nonblocking one until its request is collected); its slot keeps
// the key, so the entry goes back to the same slot, and the slot's C plan
// (coll_cplan.go) with it. The memo holds its calls' buffers (as a
// persistent collective does; at most memoMax bytes each) until the
// communicator is freed or the slot goes to another shape.

// collKind names a memoisable collective; memoNone keeps a call out of
// the memo.
type collKind uint8

const (
	memoNone collKind = iota
	memoBarrier
	memoBcast
	memoReduce
	memoAllreduce
	memoScan
	memoExscan
	memoReduceScatterBlock
	memoGather
	memoScatter
	memoAllgather
	memoAlltoall
	memoGatherv
	memoScatterv
	memoAllgatherv
	memoAlltoallv
	memoReduceScatter
	memoAlltoallw
	memoNeighbor // NeighborAlltoallv (C's every neighbourhood form)
	// The Go API's other neighbourhood forms: each builds its own block
	// lists from the buffers, so one buffer pair and neighbourhood makes
	// a different schedule per form.
	memoNeighborAllgather
	memoNeighborAllgatherv
	memoNeighborAlltoall
	memoNeighborAlltoallw
	memoKindsUsed

	// memoKinds bounds the kinds: a power of two (memoFind masks with it).
	memoKinds = 32
)

var (
	_ = [1]int{}[memoKinds&(memoKinds-1)]    // memoKinds is a power of two
	_ = [memoKinds - memoKindsUsed + 1]int{} // and holds every kind
)

// collKey is every argument a memoisable collective's builder reads:
// the buffers by address and length, and the rest packed into one word,
// so that a memo hit costs five comparisons.
type collKey struct {
	sp, rp *byte
	sn, rn int
	// shape: the collective's kind (bits 0-7), whether the job is
	// oversubscribed (keyOversub), whether each buffer is nil (a nil
	// buffer is not an empty one: Reduce off the root), the datatype
	// (bits 16-31), the operator (32-47) and the root (48-63).
	shape uint64
}

const (
	keyOversub = 1 << 8
	keySNil    = 1 << 9
	keyRNil    = 1 << 10
	keyRootMax = 1<<15 - 1
)

// kindKey is the key of a collective with no arguments (Barrier).
func kindKey(kind collKind) collKey { return collKey{shape: uint64(kind)} }

// kind is k's collective; memoNone when the call is not memoised.
func (k *collKey) kind() collKind { return collKind(k.shape) }

// setOversub records whether the job is oversubscribed (the builders'
// algorithms depend on it).
func (k *collKey) setOversub(on bool) {
	k.shape &^= keyOversub
	if on {
		k.shape |= keyOversub
	}
}

// same is k == *o, the likeliest to differ first: among a communicator's
// memo slots, the collective's kind.
func (k *collKey) same(o *collKey) bool {
	return k.shape == o.shape && k.sp == o.sp && k.rp == o.rp && k.sn == o.sn && k.rn == o.rn
}

// memoSlots is how many shapes of collective a communicator keeps
// memoised. An OSU loop needs two (the collective and its Barrier), a
// solver's step three or four; each slot may hold a schedule's scratch of
// up to memoMax bytes, and a miss compares every slot's shape.
const memoSlots = 8

// memoEntry is one memo slot. Guarded by e.mu.
type memoEntry struct {
	// op is the memoised entry, nil while it runs (or the slot is empty).
	op *collOp
	// key is op's key; it stays while op runs, so op comes back here.
	// Kind memoNone: the slot is empty.
	key collKey
	// used is the communicator's memoClock when the slot was last used;
	// a new shape takes the slot used least recently.
	used uint64
	// gen changes whenever key does: an entry taken out under gen goes
	// back by one comparison (runBlocking).
	gen uint32
}

// memoFind is the slot whose entry is in the memo under k, or -1. It
// looks first where the last entry of k's kind went (a loop calls one
// shape of each collective), then everywhere (memoScan). runMemo and
// startMemo repeat it in line: it is on every memoised call's path, and
// too large for the compiler to inline.
func (c *Comm) memoFind(k *collKey) int {
	i := int(c.memoHint[k.kind()&(memoKinds-1)]) & (memoSlots - 1)
	if m := &c.memo[i]; m.op != nil && m.key.same(k) {
		return i
	}
	return c.memoScan(k)
}

var _ = [1]int{}[memoSlots&(memoSlots-1)] // memoSlots is a power of two

func (c *Comm) memoScan(k *collKey) int {
	for i := range c.memo {
		if m := &c.memo[i]; m.op != nil && m.key.same(k) {
			return i
		}
	}
	return -1
}

// memoDrop returns every memoised entry to the free list and empties the
// slots. Called with e.mu held.
func (c *Comm) memoDrop() {
	for i := range c.memo {
		if op := c.memo[i].op; op != nil {
			c.putOp(op)
		}
		c.memo[i] = memoEntry{gen: c.memo[i].gen + 1}
	}
}

// memoLen is how many entries are in the memo. Called with e.mu held.
func (c *Comm) memoLen() int {
	n := 0
	for i := range c.memo {
		if c.memo[i].op != nil {
			n++
		}
	}
	return n
}

// memoMax bounds the buffers of a memoised call: the memo saves a build,
// which only a small collective notices, and it should not keep a large
// buffer or scratch alive.
const memoMax = 64 << 10

// keyOf is the key of a call; memoNone when the call must not be memoised.
func keyOf(kind collKind, send, recv []byte, dt Datatype, op Op, root int) collKey {
	if dt < 0 || dt >= opaqueTypeBase || op < 0 || op >= userOpBase || root < 0 || root > keyRootMax ||
		len(send) > memoMax || len(recv) > memoMax {
		return collKey{}
	}
	shape := uint64(kind) | uint64(dt)<<16 | uint64(op)<<32 | uint64(root)<<48
	if send == nil {
		shape |= keySNil
	}
	if recv == nil {
		shape |= keyRNil
	}
	return collKey{sp: unsafe.SliceData(send), sn: len(send), rp: unsafe.SliceData(recv), rn: len(recv), shape: shape}
}

// countsKey is a v-collective's count and displacement arrays, nil where
// the call has none, and more: what else its schedule was built from
// (Alltoallw's datatypes, a neighbourhood's lists), nil for the others,
// whose keys stay four arrays to copy and compare.
type countsKey struct {
	a    [4][]int
	more *[moreKeys][]int
}

// moreKeys is how many arrays countsKey.more holds: a neighbourhood's
// three lists and a NeighborAlltoallw's two datatype arrays.
const moreKeys = 5

// memoCountsMax bounds the entries of a memoised v-collective's arrays.
const memoCountsMax = 4 * 64

// typesKey is types as countsKey's ints, or nil when one of them is not
// predefined (a derived type's handle may be freed and reused for another
// type: the call is not memoised then, as keyOf has it).
func typesKey(types []Datatype) []int {
	for _, t := range types {
		if t < 0 || t >= opaqueTypeBase {
			return nil
		}
	}
	if len(types) == 0 {
		return []int{}
	}
	return unsafe.Slice((*int)(unsafe.Pointer(unsafe.SliceData(types))), len(types))
}

// vkey is k for a v-collective with arrays v, or no key when the arrays
// are too long to copy cheaply.
func vkey(k collKey, v *countsKey) collKey {
	// Summed by hand: a range loop over the arrays copied each slice
	// header (≈85 instructions of a neighbourhood call's key).
	n := len(v.a[0]) + len(v.a[1]) + len(v.a[2]) + len(v.a[3])
	if m := v.more; m != nil {
		n += len(m[0]) + len(m[1]) + len(m[2]) + len(m[3]) + len(m[4])
	}
	if n > memoCountsMax {
		return collKey{}
	}
	return k
}

// vkeyOf is vkey where v may be nil (a call whose schedule reads no
// arrays: k as it is).
func vkeyOf(k collKey, v *countsKey) collKey {
	if v == nil {
		return k
	}
	return vkey(k, v)
}

// rootCounts is a rooted v-collective's arrays v as its memo key's: nil
// off the root, whose schedule reads none of them (gathervBuild,
// scattervBuild: a non-root sends or receives its one block), so that its
// memo hit compares none (at 4 ranks ~120 of a non-root Gatherv's ~680
// instructions). The root is in the key, and the rank is the
// communicator's, so a non-root entry never meets a root's call.
func (c *Comm) rootCounts(root int, v *countsKey) *countsKey {
	if c != nil && c.rank != root {
		return nil
	}
	return v
}

// saveCounts copies v into op: op.vkey holds each array's copy (nil
// where v's is nil; the last moreKeys nil without v.more, and op.vmore
// false), all in op.vcounts' one array.
func saveCounts(op *collOp, v *countsKey) {
	n := 0
	for _, a := range v.a {
		n += len(a)
	}
	if v.more != nil {
		for _, a := range v.more {
			n += len(a)
		}
	}
	if cap(op.vcounts) < n || op.vcounts == nil {
		op.vcounts = make([]int, n, max(n, 1))
	}
	op.vcounts = op.vcounts[:n]
	at := 0
	for k, a := range v.a {
		at = saveInts(op, k, a, at)
	}
	op.vmore = v.more != nil
	for k := range moreKeys {
		var a []int
		if v.more != nil {
			a = v.more[k]
		}
		at = saveInts(op, 4+k, a, at)
	}
}

// saveInts copies a into op.vcounts at at as op.vkey[k], returning where
// the next array goes.
func saveInts(op *collOp, k int, a []int, at int) int {
	if a == nil {
		op.vkey[k] = nil
		return at
	}
	op.vkey[k] = op.vcounts[at : at+len(a) : at+len(a)]
	return at + copy(op.vkey[k], a)
}

// sameCounts reports whether op's saved arrays (saveCounts) are v's. On
// every v-collective's memo hit: four comparisons in line, each a length
// (and nil) check and a loop without bounds checks, and five more for the
// kinds with more (Alltoallw's types, a neighbourhood's lists).
func sameCounts(op *collOp, v *countsKey) bool {
	if !sameInts(op.vkey[0], v.a[0]) || !sameInts(op.vkey[1], v.a[1]) ||
		!sameInts(op.vkey[2], v.a[2]) || !sameInts(op.vkey[3], v.a[3]) {
		return false
	}
	if v.more == nil {
		return !op.vmore
	}
	return op.vmore && sameInts(op.vkey[4], v.more[0]) && sameInts(op.vkey[5], v.more[1]) &&
		sameInts(op.vkey[6], v.more[2]) && sameInts(op.vkey[7], v.more[3]) && sameInts(op.vkey[8], v.more[4])
}

// sameInts is a == b, telling nil from empty.
func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return (a == nil) == (b == nil)
	}
	b = b[:len(a)]
	for i, x := range a {
		if x != b[i] {
			return false
		}
	}
	return true
}

// takeMemo returns c's memoised entry when its key is k (and, for a
// v-collective, its arrays are v), taking it out of the memo while it
// runs. Called with e.mu held.
func (c *Comm) takeMemo(k *collKey, v *countsKey) *collOp {
	if k.kind() == memoNone {
		return nil
	}
	i := c.memoFind(k)
	if i < 0 {
		return nil
	}
	m := &c.memo[i]
	if v != nil && !sameCounts(m.op, v) {
		return nil
	}
	op := c.memoTakeSlot(i)
	c.memoHits++
	return op
}

// keepMemo makes op, which ran its collective without error, c's memo
// under k: in the slot that has k (where op came from, or another entry
// of the same key, which it replaces), else in the slot used least
// recently, whose entry goes back to the free list. Called with e.mu
// held.
func (c *Comm) keepMemo(k *collKey, op *collOp) {
	// A freed communicator keeps nothing (an entry of it may be
	// collected after Free), nor does an intercommunicator: the memo's
	// fast paths leave those checks to this.
	if k.kind() == memoNone || c.freed || c.inter != nil {
		c.putOp(op)
		return
	}
	// The replay's plan now, while op's run has just opened its channels:
	// built at its first memo hit instead, it would allocate in a steady
	// state whose calls C serves but for the odd one that comes to Go.
	if op.rxState == replayUnknown {
		c.e.replayPlan(c, op)
	}
	// Back where op came from, if that slot still has its key.
	slot := int(op.slot)
	op.slot = -1
	if slot >= 0 && slot < len(c.memo) {
		if m := &c.memo[slot]; m.op == nil && m.key.same(k) {
			c.memoClock++
			m.op, m.used = op, c.memoClock
			if c.cp != nil {
				c.cplanKept(slot, op)
			}
			return
		}
	}
	slot = -1
	for i := range c.memo {
		if c.memo[i].key.same(k) {
			slot = i
			break
		}
	}
	if slot < 0 {
		slot = 0
		for i := 1; i < len(c.memo); i++ {
			if c.memo[i].used < c.memo[slot].used {
				slot = i
			}
		}
	}
	m := &c.memo[slot]
	if m.op != nil && m.op != op {
		c.putOp(m.op)
	}
	if !m.key.same(k) {
		m.gen++
	}
	c.memoClock++
	m.op, m.key, m.used = op, *k, c.memoClock
	c.memoHint[k.kind()&(memoKinds-1)] = uint8(slot)
	c.cplanKept(slot, op)
}

// runMemo is a keyed blocking collective's first step: when key (with
// the v-collective's arrays v) is the key of one of c's memoised entries,
// it runs that schedule again at once, before any of the general entry's
// work (its checks passed for exactly these arguments when the entry was
// built). gateSize is the contribution of a collective that may settle
// c's gate (Barrier, Allreduce; -1 for the others): while the gate is
// unsettled the general entry must run. It reports whether it ran the
// call, and the call's result.
func (c *Comm) runMemo(what string, key *collKey, v *countsKey, gateSize int) (bool, error) {
	// A freed communicator, an intercommunicator and a call that is not
	// memoised find nothing (keepMemo).
	if c == nil || (!c.private && !active.Load()) {
		return false, nil
	}
	e := c.e
	e.mu.Lock()
	key.setOversub(e.oversub)
	i := int(c.memoHint[key.kind()&(memoKinds-1)]) & (memoSlots - 1) // memoFind
	m := &c.memo[i]
	if m.op == nil || !m.key.same(key) {
		if i = c.memoScan(key); i < 0 {
			e.mu.Unlock()
			return false, nil
		}
		m = &c.memo[i&(memoSlots-1)]
	}
	if (v != nil && !sameCounts(m.op, v)) ||
		(gateSize >= 0 && c.gate.state == gateUnknown && c.gateFits(gateSize)) {
		e.mu.Unlock()
		return false, nil
	}
	op := m.op
	m.op = nil
	c.memoClock++
	m.used = c.memoClock
	c.memoHits++
	// What directRun checks of the engine, and of the communicator its
	// every 64th run's progress pass.
	if (op.rxState == replayYes || op.rxState == replayUnknown && e.replayPlan(c, op)) &&
		len(e.colls) == 0 && len(e.sending) == 0 && len(e.reads) == 0 && !e.checksum && e.fatal == nil &&
		c.directRuns%directPassEvery != directPassEvery-1 && c.directRuns != 0 {
		if c.replay(op, i) {
			return true, nil
		}
		return true, c.replayRest(what, key, op, i)
	}
	return true, c.runBlocking(what, key, op, i, m.gen)
}

// startMemo is runMemo for a nonblocking start: the memo's schedule
// started again at once, its request returned; nil when the general
// entry must run.
func (c *Comm) startMemo(key *collKey, v *countsKey) *Request {
	if c == nil || (!c.private && !active.Load()) {
		return nil
	}
	e := c.e
	e.mu.Lock()
	key.setOversub(e.oversub)
	i := int(c.memoHint[key.kind()&(memoKinds-1)]) & (memoSlots - 1) // memoFind
	m := &c.memo[i]
	if m.op == nil || !m.key.same(key) {
		if i = c.memoScan(key); i < 0 {
			e.mu.Unlock()
			return nil
		}
		m = &c.memo[i&(memoSlots-1)]
	}
	if e.fatal != nil || (v != nil && !sameCounts(m.op, v)) {
		e.mu.Unlock()
		return nil
	}
	// Its request may complete and wait uncollected, the engine idle:
	// C must not run the plan while the entry is out (cplanRun would
	// find no entry to continue).
	op := c.memoTakeSlot(i)
	c.memoHits++
	op.key = *key
	if op.rxState == replayUnknown {
		e.replayPlan(c, op) // the direct run follows the plan where there is one
	}
	e.launchRun(c, op, false, nbMode())
	r := op.req
	e.mu.Unlock()
	return r
}

// memoTakeSlot takes slot i's entry out to run (its key stays, so the
// entry comes back to the slot), marks the slot used and withdraws its C
// plan. The slot must hold an entry.
func (c *Comm) memoTakeSlot(i int) *collOp {
	m := &c.memo[i]
	op := m.op
	m.op = nil
	c.memoClock++
	m.used = c.memoClock
	op.slot = int8(i)
	c.cplanTaken(i, op)
	return op
}
