//go:build !ompi && !mpich

package mpi

import "unsafe"

// The collectives' schedule memo. Programs call the same collective with
// the same arguments over and over (a solver's Allreduce of its residual,
// a benchmark's loop); a schedule depends on nothing else (the builders
// are pure functions of rank, size, buffers, counts, datatype, operator,
// root and whether the job is oversubscribed), and it can run any number
// of times, as a persistent collective's does. So each communicator keeps
// the control entry of its last collective, schedule built, under a key
// of every argument its builder read: a blocking call's entry when it
// returns, a nonblocking one's when its request is collected. The next
// blocking or nonblocking call whose key is the same skips the argument
// checks (they passed for exactly these arguments) and the build, and
// launches it again; a call with any other key builds as always and takes
// the memo's place. Only predefined datatypes and operators are memoised:
// a user operator or an opaque type may be freed between two calls. A
// v-collective's counts and displacements are caller memory that may
// change under the same slice, so its memo keeps a copy of them
// (countsKey) and a call must match that too.
//
// The memo holds the last call's buffers (as a persistent collective
// does; at most memoMax bytes each) until the communicator's next
// collective of another shape.

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
)

// collKey is every argument a memoisable collective's builder reads.
type collKey struct {
	kind    collKind
	oversub bool
	root    int
	dt      Datatype
	op      Op
	sp, rp  *byte // the buffers, by address and length
	sn, rn  int
	sNil    bool // a nil buffer is not an empty one (Reduce off the root)
	rNil    bool
}

// same is k == *o, field by field, the likeliest to differ first: the
// compiler's equality of the whole struct cost a memo hit about 100
// instructions.
func (k *collKey) same(o *collKey) bool {
	return k.sp == o.sp && k.rp == o.rp && k.kind == o.kind && k.sn == o.sn && k.rn == o.rn &&
		k.dt == o.dt && k.op == o.op && k.root == o.root && k.sNil == o.sNil && k.rNil == o.rNil &&
		k.oversub == o.oversub
}

// memoMax bounds the buffers of a memoised call: the memo saves a build,
// which only a small collective notices, and it should not keep a large
// buffer or scratch alive.
const memoMax = 64 << 10

// keyOf is the key of a call; memoNone when the call must not be memoised.
func keyOf(kind collKind, send, recv []byte, dt Datatype, op Op, root int) collKey {
	if dt < 0 || dt >= opaqueTypeBase || op < 0 || op >= userOpBase || len(send) > memoMax || len(recv) > memoMax {
		return collKey{}
	}
	return collKey{kind: kind, root: root, dt: dt, op: op,
		sp: unsafe.SliceData(send), sn: len(send), sNil: send == nil,
		rp: unsafe.SliceData(recv), rn: len(recv), rNil: recv == nil}
}

// countsKey is a v-collective's count and displacement arrays, nil where
// the call has none.
type countsKey [4][]int

// memoCountsMax bounds the entries of a memoised v-collective's arrays.
const memoCountsMax = 4 * 64

// vkey is k for a v-collective with arrays v, or no key when the arrays
// are too long to copy cheaply.
func vkey(k collKey, v *countsKey) collKey {
	n := 0
	for _, a := range v {
		n += len(a)
	}
	if n > memoCountsMax {
		return collKey{}
	}
	return k
}

// saveCounts copies v into op, each array behind its length (-1: nil).
func saveCounts(op *collOp, v *countsKey) {
	op.vcounts = op.vcounts[:0]
	for _, a := range v {
		if a == nil {
			op.vcounts = append(op.vcounts, -1)
			continue
		}
		op.vcounts = append(op.vcounts, len(a))
		op.vcounts = append(op.vcounts, a...)
	}
}

// sameCounts reports whether saved, written by saveCounts, holds v.
func sameCounts(saved []int, v *countsKey) bool {
	i := 0
	for _, a := range v {
		if i >= len(saved) {
			return false
		}
		n := saved[i]
		i++
		if a == nil {
			if n != -1 {
				return false
			}
			continue
		}
		if n != len(a) || i+n > len(saved) {
			return false
		}
		for j, x := range a {
			if saved[i+j] != x {
				return false
			}
		}
		i += n
	}
	return i == len(saved)
}

// takeMemo returns c's memoised entry when its key is k (and, for a
// v-collective, its arrays are v), taking it out of the memo while it
// runs. Called with e.mu held.
func (c *Comm) takeMemo(k *collKey, v *countsKey) *collOp {
	if k.kind == memoNone || c.memo == nil || !c.memoKey.same(k) {
		return nil
	}
	if v != nil && !sameCounts(c.memo.vcounts, v) {
		return nil
	}
	op := c.memo
	c.memo = nil
	c.cplanTaken(op)
	c.memoHits++
	return op
}

// keepMemo makes op, which ran its collective without error, c's memo
// under k, returning the entry it replaces to the free list. Called with
// e.mu held.
func (c *Comm) keepMemo(k *collKey, op *collOp) {
	if k.kind == memoNone {
		c.putOp(op)
		return
	}
	if c.memo != nil {
		c.putOp(c.memo)
	}
	c.memo, c.memoKey = op, *k
	c.cplanKept(op)
}
