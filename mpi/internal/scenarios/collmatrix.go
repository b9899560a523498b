package main

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// The correctness matrix of package mpi's collectives (issue 12): every
// collective in every form the Go API has (blocking, I*, *Init started
// twice with fresh data, the typed generic form where there is one), every
// root, in place (the same slice, or the own block of it) and not, with
// MPI sum and max and a non-commutative user op, against serial references
// on every rank; point-to-point messages pending on the same communicator
// across each call; then different collectives of World, a Dup and a Split
// in flight at once. Rank 0 prints the case counts, which the test checks.

type cmColl int

const (
	cmBarrier cmColl = iota
	cmBcast
	cmGather
	cmGatherv
	cmScatter
	cmScatterv
	cmAllgather
	cmAllgatherv
	cmAlltoall
	cmAlltoallv
	cmAlltoallw
	cmReduce
	cmAllreduce
	cmRSB
	cmRS
	cmScan
	cmExscan
	cmReduceLocal
	cmColls
)

var cmNames = [cmColls]string{"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
	"Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "ReduceScatterBlock", "ReduceScatter", "Scan",
	"Exscan", "ReduceLocal"}

type cmForm int

const (
	cmBlocking cmForm = iota
	cmNonblocking
	cmPersistent
	cmTyped
	cmTypedNB // the typed nonblocking forms there are
	cmForms
)

var cmFormNames = [cmForms]string{"blocking", "nonblocking", "persistent", "typed", "typed nonblocking"}

// The counts: cmScale is 1 for the matrix and cmBig for the pass over the
// large-message paths (segmented, direct copy; 64 KiB and up).
const (
	cmBig  = 6000
	cmSent = -7
)

var (
	cmScale = 1
	cmNel   = 3 // int32s per block of the data-movement collectives
	cmNred  = 4 // int32s reduced per block
	cmBuf   = 512
)

func cmSetScale(s, size int) {
	cmScale, cmNel, cmNred = s, 3*s, 4*s
	cmBuf = max(512, size*(cmNred+1)+64)
}

func (c cmColl) rooted() bool {
	return c == cmBcast || c == cmGather || c == cmGatherv || c == cmScatter || c == cmScatterv || c == cmReduce
}
func (c cmColl) red() bool      { return c >= cmReduce }
func (c cmColl) inPlace() bool  { return c != cmBarrier && c != cmBcast && c != cmReduceLocal }
func (c cmColl) hasTyped() bool { return c != cmBarrier && c != cmReduceLocal && c != cmAlltoallw }
func (c cmColl) hasForm(f cmForm) bool {
	switch {
	case c == cmReduceLocal:
		return f == cmBlocking
	case f == cmTyped:
		return c.hasTyped()
	case f == cmTypedNB:
		return c == cmBcast || c == cmReduce || c == cmAllreduce
	}
	return true
}

// The ops: MPI sum and max, and 2x2 matrices mod 7 (four base-8 digits of
// an int32) multiplied, which is associative but not commutative.
const (
	cmSum = iota
	cmMax
	cmMat
	cmOps
)

func cmMM(a, b int32) int32 {
	var x, y [4]int32
	for i := range 4 {
		x[i], y[i] = a>>(3*i)&7, b>>(3*i)&7
	}
	z := [4]int32{(x[0]*y[0] + x[1]*y[2]) % 7, (x[0]*y[1] + x[1]*y[3]) % 7, (x[2]*y[0] + x[3]*y[2]) % 7,
		(x[2]*y[1] + x[3]*y[3]) % 7}
	return z[0] | z[1]<<3 | z[2]<<6 | z[3]<<9
}

func cmHash(seed, a, b, e int) uint32 {
	h := uint32(seed)*1000003 ^ uint32(a)*7919 ^ uint32(b)*104729 ^ uint32(e)*31
	h *= 2654435761
	return h ^ h>>15
}

// cmDV is element e of the block rank src sends for dst.
func cmDV(seed, src, dst, e int) int32 { return int32(cmHash(seed, src, dst, e)%99991) + 1 }

// cmRV is rank r's reduction input at element e.
func cmRV(op, seed, r, e int) int32 {
	h := cmHash(seed, r, 99, e)
	switch op {
	case cmMat:
		return int32(h%7 | (h>>3)%7<<3 | (h>>6)%7<<6 | (h>>9)%7<<9)
	case cmMax:
		return int32(h%2000) - 1000
	}
	return int32(h % 1000)
}

// cmFold reduces ranks lo..hi-1's element e in rank order.
func cmFold(op, seed, lo, hi, e int) int32 {
	acc := cmRV(op, seed, lo, e)
	for r := lo + 1; r < hi; r++ {
		x := cmRV(op, seed, r, e)
		switch op {
		case cmSum:
			acc += x
		case cmMax:
			acc = max(acc, x)
		case cmMat:
			acc = cmMM(acc, x)
		}
	}
	return acc
}

var cmMatOp mpi.Op

func cmOp(op int) mpi.Op {
	switch op {
	case cmSum:
		return mpi.Sum
	case cmMax:
		return mpi.Max
	}
	return cmMatOp
}

// cmCase is one call's arguments, inputs and expected outputs.
type cmCase struct {
	coll               cmColl
	form               cmForm
	root, op           int
	ip                 bool
	c                  *mpi.Comm
	rank, size         int
	send, recv         []int32
	xsend, xrecv       []int32
	sc, sd, rc, rd     []int // in int32s
	bsc, bsd, brc, brd []int // in bytes
	wsc, wrc           []int // Alltoallw's: in elements of st and rt
	st, rt             []mpi.Datatype
	req                *mpi.Request
	per                *mpi.Persistent
}

func cmVC(i int) int { return (i + 1) % 3 * 2 * cmScale }

func (k *cmCase) amt(i, j int) int {
	if k.ip {
		return (i + j) % 3 * cmScale
	}
	return (i + 2*j) % 3 * cmScale
}

func cmLayout(n int, cnt func(i int) int) (c, d []int) {
	c, d = make([]int, n), make([]int, n)
	off := 0
	for i := n - 1; i >= 0; i-- {
		c[i], d[i] = cnt(i), off
		off += c[i] + 1
	}
	return c, d
}

// cmWTypes are Alltoallw's per-peer datatypes (int32 blocks are whole
// numbers of each).
var cmWTypes = [3]mpi.Datatype{mpi.Int32, mpi.Int16, mpi.Byte}

func bytesOf(v []int) []int {
	b := make([]int, len(v))
	for i, x := range v {
		b[i] = 4 * x
	}
	return b
}

func newCmCase(c *mpi.Comm, coll cmColl, form cmForm, root int, ip bool, op int) *cmCase {
	k := &cmCase{coll: coll, form: form, root: root, ip: ip, op: op, c: c, rank: c.Rank(), size: c.Size()}
	k.send, k.recv = make([]int32, cmBuf), make([]int32, cmBuf)
	k.xsend, k.xrecv = make([]int32, cmBuf), make([]int32, cmBuf)
	n, r := k.size, k.rank
	switch coll {
	case cmGatherv, cmAllgatherv, cmRS:
		k.rc, k.rd = cmLayout(n, cmVC)
	case cmScatterv:
		k.sc, k.sd = cmLayout(n, cmVC)
	case cmAlltoallv, cmAlltoallw:
		k.sc, k.sd = cmLayout(n, func(j int) int { return k.amt(r, j) })
		k.rc, k.rd = cmLayout(n, func(i int) int { return k.amt(i, r) })
		if ip {
			k.sc, k.sd = k.rc, k.rd
		}
	}
	k.bsc, k.bsd, k.brc, k.brd = bytesOf(k.sc), bytesOf(k.sd), bytesOf(k.rc), bytesOf(k.rd)
	if coll == cmAlltoallw {
		// A datatype per peer, different on the two sides of each
		// block, so that counts taken in the wrong unit misplace bytes.
		k.st, k.rt = make([]mpi.Datatype, n), make([]mpi.Datatype, n)
		k.wsc, k.wrc = make([]int, n), make([]int, n)
		for i := range n {
			k.st[i], k.rt[i] = cmWTypes[(r+2*i)%3], cmWTypes[(i+2*r+1)%3]
			k.wsc[i], k.wrc[i] = k.bsc[i]/k.st[i].Size(), k.brc[i]/k.rt[i].Size()
		}
		if ip {
			k.st, k.wsc = k.rt, k.wrc
		}
	}
	return k
}

// fill writes round seed's inputs and the expected buffers.
func (k *cmCase) fill(seed int) {
	n, r, root, ip, op := k.size, k.rank, k.root, k.ip, k.op
	for i := range k.send {
		k.send[i], k.recv[i] = cmSent, cmSent
	}
	put := func(b []int32, at, cnt, src, dst int) {
		for e := range cnt {
			b[at+e] = cmDV(seed, src, dst, e)
		}
	}
	switch k.coll {
	case cmBcast:
		if r == root {
			put(k.recv, 0, cmNel, root, 0)
		}
	case cmGather, cmAllgather:
		if ip && (r == root || k.coll == cmAllgather) {
			put(k.recv, r*cmNel, cmNel, r, 0)
		} else {
			put(k.send, 0, cmNel, r, 0)
		}
	case cmGatherv, cmAllgatherv:
		if ip && (r == root || k.coll == cmAllgatherv) {
			put(k.recv, k.rd[r], k.rc[r], r, 0)
		} else {
			put(k.send, 0, cmVC(r), r, 0)
		}
	case cmScatter, cmScatterv:
		if r == root {
			for i := range n {
				if k.coll == cmScatter {
					put(k.send, i*cmNel, cmNel, root, i)
				} else {
					put(k.send, k.sd[i], k.sc[i], root, i)
				}
			}
		}
	case cmAlltoall:
		b := k.send
		if ip {
			b = k.recv
		}
		for i := range n {
			put(b, i*cmNel, cmNel, r, i)
		}
	case cmAlltoallv, cmAlltoallw:
		b, d := k.send, k.sd
		if ip {
			b, d = k.recv, k.rd
		}
		for i := range n {
			put(b, d[i], k.amt(r, i), r, i)
		}
	case cmReduce, cmAllreduce, cmScan, cmExscan, cmRSB, cmRS, cmReduceLocal:
		b := k.send
		if ip && (k.coll != cmReduce || r == root) {
			b = k.recv
		}
		tot := cmNred
		switch k.coll {
		case cmRSB:
			tot = n * cmNred
		case cmRS:
			tot = 0
			for _, x := range k.rc {
				tot += x
			}
		}
		me := r
		if k.coll == cmReduceLocal {
			me = 0 // in: virtual rank 0, inout: virtual rank 1
		}
		for e := range tot {
			b[e] = cmRV(op, seed, me, e)
			if k.coll == cmReduceLocal {
				k.recv[e] = cmRV(op, seed, 1, e)
			}
		}
	}
	copy(k.xsend, k.send)
	copy(k.xrecv, k.recv)
	x := k.xrecv
	switch k.coll {
	case cmBcast:
		put(x, 0, cmNel, root, 0)
	case cmGather, cmAllgather:
		if k.coll == cmAllgather || r == root {
			for i := range n {
				put(x, i*cmNel, cmNel, i, 0)
			}
		}
	case cmGatherv, cmAllgatherv:
		if k.coll == cmAllgatherv || r == root {
			for i := range n {
				put(x, k.rd[i], k.rc[i], i, 0)
			}
		}
	case cmScatter:
		if ip && r == root {
			break
		}
		put(x, 0, cmNel, root, r)
	case cmScatterv:
		if ip && r == root {
			break
		}
		put(x, 0, cmVC(r), root, r)
	case cmAlltoall:
		for i := range n {
			put(x, i*cmNel, cmNel, i, r)
		}
	case cmAlltoallv, cmAlltoallw:
		for i := range n {
			put(x, k.rd[i], k.amt(i, r), i, r)
		}
	case cmReduce, cmAllreduce, cmScan, cmExscan, cmReduceLocal:
		if (k.coll == cmReduce && r != root) || (k.coll == cmExscan && r == 0) {
			break
		}
		lo, hi := 0, n
		switch k.coll {
		case cmScan:
			hi = r + 1
		case cmExscan:
			hi = r
		case cmReduceLocal:
			hi = 2
		}
		for e := range cmNred {
			x[e] = cmFold(op, seed, lo, hi, e)
		}
	case cmRSB, cmRS:
		lo, m := r*cmNred, cmNred
		if k.coll == cmRS {
			lo, m = 0, k.rc[r]
			for _, c := range k.rc[:r] {
				lo += c
			}
		}
		for e := range m {
			x[e] = cmFold(op, seed, 0, n, lo+e)
		}
	}
}

func (k *cmCase) String() string {
	return fmt.Sprintf("%s %s root %d in place %v op %d on %d ranks", cmNames[k.coll], cmFormNames[k.form], k.root, k.ip, k.op, k.size)
}

func (k *cmCase) check(seed int) {
	rlim := len(k.recv)
	switch {
	case k.coll == cmExscan && k.rank == 0:
		rlim = 0 // undefined there
	case k.ip && k.coll == cmRSB:
		rlim = cmNred // the rest of the input is undefined after
	case k.ip && k.coll == cmRS:
		rlim = k.rc[k.rank]
	}
	for i := range k.send {
		if k.send[i] != k.xsend[i] {
			fail("%v seed %d: send[%d] = %d, want %d", k, seed, i, k.send[i], k.xsend[i])
		}
	}
	for i := range rlim {
		if k.recv[i] != k.xrecv[i] {
			fail("%v seed %d: recv[%d] = %d, want %d (recv %v, want %v)", k, seed, i, k.recv[i], k.xrecv[i], k.recv[:16], k.xrecv[:16])
		}
	}
	cmCount++
}

var cmCount int

// args returns the send and receive slices of the call: in place, one is
// (the own block of) the other, as package mpi spells MPI_IN_PLACE.
func (k *cmCase) args() (s, r []int32) {
	n, me, root := k.size, k.rank, k.root
	s, r = k.send, k.recv
	switch k.coll {
	case cmBcast:
		return nil, k.recv[:cmNel]
	case cmGather:
		s = k.send[:cmNel]
		if k.ip && me == root {
			s = k.recv[root*cmNel : (root+1)*cmNel]
		}
		return s, k.recv[:n*cmNel]
	case cmAllgather:
		s = k.send[:cmNel]
		if k.ip {
			s = k.recv[me*cmNel : (me+1)*cmNel]
		}
		return s, k.recv[:n*cmNel]
	case cmGatherv, cmAllgatherv:
		s = k.send[:cmVC(me)]
		if k.ip && (me == root || k.coll == cmAllgatherv) {
			s = k.recv[k.rd[me] : k.rd[me]+k.rc[me]]
		}
		return s, k.recv
	case cmScatter:
		r = k.recv[:cmNel]
		if k.ip && me == root {
			r = k.send[root*cmNel : (root+1)*cmNel]
		}
		return k.send[:n*cmNel], r
	case cmScatterv:
		r = k.recv[:cmVC(me)]
		if k.ip && me == root {
			r = k.send[k.sd[root] : k.sd[root]+k.sc[root]]
		}
		return k.send, r
	case cmAlltoall:
		if k.ip {
			return k.recv[:n*cmNel], k.recv[:n*cmNel]
		}
		return k.send[:n*cmNel], k.recv[:n*cmNel]
	case cmAlltoallv, cmAlltoallw:
		if k.ip {
			return k.recv, k.recv
		}
		return k.send, k.recv
	case cmReduce, cmAllreduce, cmScan, cmExscan, cmReduceLocal:
		s, r = k.send[:cmNred], k.recv[:cmNred]
		if k.ip && (k.coll != cmReduce || me == root) {
			s = r
		}
		return s, r
	case cmRSB:
		if k.ip {
			return k.recv[:n*cmNred], k.recv[:n*cmNred]
		}
		return k.send[:n*cmNred], k.recv[:cmNred]
	case cmRS:
		tot := 0
		for _, c := range k.rc {
			tot += c
		}
		if k.ip {
			return k.recv[:tot], k.recv[:tot]
		}
		return k.send[:tot], k.recv[:k.rc[me]]
	}
	return s, r
}

// issue makes the call: blocking and typed ones complete, nonblocking ones
// leave k.req, persistent ones k.per (inactive).
func (k *cmCase) issue() error {
	c, root, dt, op := k.c, k.root, mpi.Int32, cmOp(k.op)
	s32, r32 := k.args()
	s, r := raw(s32), raw(r32)
	var err error
	switch k.form {
	case cmBlocking:
		switch k.coll {
		case cmBarrier:
			err = c.Barrier()
		case cmBcast:
			err = c.Bcast(r, root)
		case cmGather:
			err = c.Gather(s, r, root)
		case cmGatherv:
			err = c.Gatherv(s, r, k.brc, k.brd, root)
		case cmScatter:
			err = c.Scatter(s, r, root)
		case cmScatterv:
			err = c.Scatterv(s, k.bsc, k.bsd, r, root)
		case cmAllgather:
			err = c.Allgather(s, r)
		case cmAllgatherv:
			err = c.Allgatherv(s, r, k.brc, k.brd)
		case cmAlltoall:
			err = c.Alltoall(s, r)
		case cmAlltoallv:
			err = c.Alltoallv(s, k.bsc, k.bsd, r, k.brc, k.brd)
		case cmAlltoallw:
			err = c.Alltoallw(s, k.wsc, k.bsd, k.st, r, k.wrc, k.brd, k.rt)
		case cmReduce:
			err = c.Reduce(s, r, dt, op, root)
		case cmAllreduce:
			err = c.Allreduce(s, r, dt, op)
		case cmRSB:
			err = c.ReduceScatterBlock(s, r, dt, op)
		case cmRS:
			err = c.ReduceScatter(s, r, k.brc, dt, op)
		case cmScan:
			err = c.Scan(s, r, dt, op)
		case cmExscan:
			err = c.Exscan(s, r, dt, op)
		case cmReduceLocal:
			err = mpi.ReduceLocal(s, r, dt, op)
		}
	case cmTyped:
		switch k.coll {
		case cmBcast:
			err = mpi.BcastSlice(c, r32, root)
		case cmGather:
			err = mpi.GatherSlice(c, s32, r32, root)
		case cmGatherv:
			err = mpi.GathervSlice(c, s32, r32, k.rc, k.rd, root)
		case cmScatter:
			err = mpi.ScatterSlice(c, s32, r32, root)
		case cmScatterv:
			err = mpi.ScattervSlice(c, s32, k.sc, k.sd, r32, root)
		case cmAllgather:
			err = mpi.AllgatherSlice(c, s32, r32)
		case cmAllgatherv:
			err = mpi.AllgathervSlice(c, s32, r32, k.rc, k.rd)
		case cmAlltoall:
			err = mpi.AlltoallSlice(c, s32, r32)
		case cmAlltoallv:
			err = mpi.AlltoallvSlice(c, s32, k.sc, k.sd, r32, k.rc, k.rd)
		case cmReduce:
			err = mpi.ReduceSlice(c, s32, r32, op, root)
		case cmAllreduce:
			err = mpi.AllreduceSlice(c, s32, r32, op)
		case cmRSB:
			err = mpi.ReduceScatterBlockSlice(c, s32, r32, op)
		case cmRS:
			err = mpi.ReduceScatterSlice(c, s32, r32, k.rc, op)
		case cmScan:
			err = mpi.ScanSlice(c, s32, r32, op)
		case cmExscan:
			err = mpi.ExscanSlice(c, s32, r32, op)
		}
	case cmTypedNB:
		switch k.coll {
		case cmBcast:
			k.req, err = mpi.IbcastSlice(c, r32, root)
		case cmReduce:
			k.req, err = mpi.IreduceSlice(c, s32, r32, op, root)
		case cmAllreduce:
			k.req, err = mpi.IallreduceSlice(c, s32, r32, op)
		}
	case cmNonblocking:
		switch k.coll {
		case cmBarrier:
			k.req, err = c.Ibarrier()
		case cmBcast:
			k.req, err = c.Ibcast(r, root)
		case cmGather:
			k.req, err = c.Igather(s, r, root)
		case cmGatherv:
			k.req, err = c.Igatherv(s, r, k.brc, k.brd, root)
		case cmScatter:
			k.req, err = c.Iscatter(s, r, root)
		case cmScatterv:
			k.req, err = c.Iscatterv(s, k.bsc, k.bsd, r, root)
		case cmAllgather:
			k.req, err = c.Iallgather(s, r)
		case cmAllgatherv:
			k.req, err = c.Iallgatherv(s, r, k.brc, k.brd)
		case cmAlltoall:
			k.req, err = c.Ialltoall(s, r)
		case cmAlltoallv:
			k.req, err = c.Ialltoallv(s, k.bsc, k.bsd, r, k.brc, k.brd)
		case cmAlltoallw:
			k.req, err = c.Ialltoallw(s, k.wsc, k.bsd, k.st, r, k.wrc, k.brd, k.rt)
		case cmReduce:
			k.req, err = c.Ireduce(s, r, dt, op, root)
		case cmAllreduce:
			k.req, err = c.Iallreduce(s, r, dt, op)
		case cmRSB:
			k.req, err = c.IreduceScatterBlock(s, r, dt, op)
		case cmRS:
			k.req, err = c.IreduceScatter(s, r, k.brc, dt, op)
		case cmScan:
			k.req, err = c.Iscan(s, r, dt, op)
		case cmExscan:
			k.req, err = c.Iexscan(s, r, dt, op)
		}
	case cmPersistent:
		switch k.coll {
		case cmBarrier:
			k.per, err = c.BarrierInit()
		case cmBcast:
			k.per, err = c.BcastInit(r, root)
		case cmGather:
			k.per, err = c.GatherInit(s, r, root)
		case cmGatherv:
			k.per, err = c.GathervInit(s, r, k.brc, k.brd, root)
		case cmScatter:
			k.per, err = c.ScatterInit(s, r, root)
		case cmScatterv:
			k.per, err = c.ScattervInit(s, k.bsc, k.bsd, r, root)
		case cmAllgather:
			k.per, err = c.AllgatherInit(s, r)
		case cmAllgatherv:
			k.per, err = c.AllgathervInit(s, r, k.brc, k.brd)
		case cmAlltoall:
			k.per, err = c.AlltoallInit(s, r)
		case cmAlltoallv:
			k.per, err = c.AlltoallvInit(s, k.bsc, k.bsd, r, k.brc, k.brd)
		case cmAlltoallw:
			k.per, err = c.AlltoallwInit(s, k.wsc, k.bsd, k.st, r, k.wrc, k.brd, k.rt)
		case cmReduce:
			k.per, err = c.ReduceInit(s, r, dt, op, root)
		case cmAllreduce:
			k.per, err = c.AllreduceInit(s, r, dt, op)
		case cmRSB:
			k.per, err = c.ReduceScatterBlockInit(s, r, dt, op)
		case cmRS:
			k.per, err = c.ReduceScatterInit(s, r, k.brc, dt, op)
		case cmScan:
			k.per, err = c.ScanInit(s, r, dt, op)
		case cmExscan:
			k.per, err = c.ExscanInit(s, r, dt, op)
		}
	}
	return err
}

// cmRing is a ring exchange pending on c while collectives run there: the
// receive takes any tag, so a collective message leaking into the
// point-to-point space would be caught.
type cmRing struct {
	c       *mpi.Comm
	seq     int
	in, out []int32
	q       [2]*mpi.Request
}

func cmRingPost(c *mpi.Comm, seq int) *cmRing {
	g := &cmRing{c: c, seq: seq, in: make([]int32, 4), out: make([]int32, 4)}
	n, r := c.Size(), c.Rank()
	for i := range g.out {
		g.out[i] = cmDV(seq, r, (r+1)%n, i+50)
	}
	var err error
	g.q[0], err = mpi.IrecvSlice(c, g.in, (r+n-1)%n, mpi.AnyTag)
	must(err, "ring Irecv")
	g.q[1], err = mpi.IsendSlice(c, g.out, (r+1)%n, seq%1000)
	must(err, "ring Isend")
	return g
}

func (g *cmRing) check() {
	sts, err := mpi.Waitall(g.q[:])
	must(err, "ring Waitall")
	g.verify(sts[0])
}

// verify checks the ring's message, given its receive's status.
func (g *cmRing) verify(st mpi.Status) {
	sts := []mpi.Status{st}
	n, r := g.c.Size(), g.c.Rank()
	left := (r + n - 1) % n
	if sts[0].Tag != g.seq%1000 || sts[0].Source != left {
		fail("ring message: source %d tag %d, want %d %d", sts[0].Source, sts[0].Tag, left, g.seq%1000)
	}
	for i, v := range g.in {
		if v != cmDV(g.seq, left, r, i+50) {
			fail("ring message %d: element %d is %d", g.seq, i, v)
		}
	}
}

var cmSeq int

// cmRun1 runs one case to the end with ring traffic pending across it.
func cmRun1(k *cmCase) {
	if k.form == cmPersistent {
		k.fill(0)
		must(k.issue(), "%v: init", k)
		for round := range 2 {
			cmSeq++
			seed := cmSeq
			k.fill(seed)
			g := cmRingPost(k.c, seed)
			req, err := k.per.Start()
			must(err, "%v: start", k)
			if round == 0 {
				_, err = k.per.Wait()
			} else {
				// Through the request Start returned, by polling.
				for done := false; !done && err == nil; {
					_, done, err = req.Test()
				}
			}
			must(err, "%v: completion", k)
			g.check()
			k.check(seed)
		}
		must(k.per.Free(), "%v: Free", k)
		return
	}
	cmSeq++
	seed := cmSeq
	k.fill(seed)
	g := cmRingPost(k.c, seed)
	must(k.issue(), "%v", k)
	if k.form == cmNonblocking || k.form == cmTypedNB {
		// The collective completes together with the ring's requests.
		sts, err := mpi.Waitall([]*mpi.Request{g.q[0], k.req, g.q[1]})
		must(err, "%v: Waitall", k)
		g.verify(sts[0])
	} else {
		g.check()
	}
	k.check(seed)
}

func cmInts(b []byte) []int32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func cmMatFn(in, inout []byte, dt mpi.Datatype) {
	a, b := cmInts(in), cmInts(inout)
	for i := range b {
		b[i] = cmMM(a[i], b[i])
	}
}

func init() {
	register("collmatrix", func(w *mpi.Comm) {
		var err error
		cmMatOp, err = mpi.NewOp(cmMatFn, false)
		must(err, "NewOp")
		r, n := w.Rank(), w.Size()
		dup, err := w.Dup()
		must(err, "Dup")
		split, err := w.Split(r%2, n-r) // halves in reverse order
		must(err, "Split")

		// Part 1: the whole matrix on World and on the split.
		per := make([]int, cmColls)
		part := [2]int{}
		for ci, c := range []*mpi.Comm{w, split} {
			start := cmCount
			for coll := range cmColls {
				before := cmCount
				for form := range cmForms {
					if !coll.hasForm(form) {
						continue
					}
					roots, ips, ops := 1, 1, 1
					if coll.rooted() {
						roots = c.Size()
					}
					if coll.inPlace() {
						ips = 2
					}
					if coll.red() {
						ops = cmOps
					}
					for root := range roots {
						for ip := range ips {
							for op := range ops {
								cmRun1(newCmCase(c, coll, form, root, ip == 1, op))
							}
						}
					}
				}
				if ci == 0 {
					per[coll] = cmCount - before
				}
			}
			part[ci] = cmCount - start
		}
		// The halves ran different numbers of cases: agree on seeds again.
		seqs := []int64{int64(cmSeq)}
		must(mpi.AllreduceSlice(w, seqs, seqs, mpi.Max), "Allreduce")
		cmSeq = int(seqs[0])

		// Part 2: a different collective on each communicator, all in
		// flight at once, completed in reverse order.
		start := cmCount
		comms := []*mpi.Comm{w, dup, split}
		for coll := range cmColls - 1 { // not ReduceLocal
			for _, form := range []cmForm{cmNonblocking, cmPersistent} {
				for ip := range 2 {
					ks := make([]*cmCase, 3)
					for x, c := range comms {
						cc := (coll + cmColl(5*x)) % (cmColls - 1)
						ks[x] = newCmCase(c, cc, form, c.Size()-1, ip == 1 && cc.inPlace(), int(coll+cmColl(x))%cmOps)
					}
					cmSeq++
					seed := cmSeq
					g := cmRingPost(split, seed)
					for x, k := range ks {
						k.fill(seed + x)
						must(k.issue(), "%v", k)
					}
					rounds := 1
					if form == cmPersistent {
						rounds = 2
					}
					for round := range rounds {
						if form == cmPersistent {
							for x, k := range ks {
								k.fill(seed + 10*round + x)
								k.req, err = k.per.Start()
								must(err, "%v: Start", k)
							}
						}
						for x := 2; x >= 0; x-- {
							_, err := ks[x].req.Wait()
							must(err, "%v: Wait", ks[x])
						}
						for x, k := range ks {
							if form == cmPersistent {
								k.check(seed + 10*round + x)
							} else {
								k.check(seed + x)
							}
						}
					}
					if form == cmPersistent {
						for _, k := range ks {
							must(k.per.Free(), "%v: Free", k)
						}
					}
					g.check()
				}
			}
		}
		cross := cmCount - start

		// Part 3: large counts on World, through the large-message
		// paths: blocking, I* and *Init, the first and last root, sum
		// and the user op.
		cmSetScale(cmBig, n)
		start = cmCount
		for coll := range cmColls {
			for _, form := range []cmForm{cmBlocking, cmNonblocking, cmPersistent} {
				if !coll.hasForm(form) {
					continue
				}
				roots, ips, ops := []int{0}, 1, []int{0}
				if coll.rooted() && n > 1 {
					roots = []int{0, n - 1}
				}
				if coll.inPlace() {
					ips = 2
				}
				if coll.red() {
					ops = []int{cmSum, cmMat}
				}
				for _, root := range roots {
					for ip := range ips {
						for _, op := range ops {
							cmRun1(newCmCase(w, coll, form, root, ip == 1, op))
						}
					}
				}
			}
		}
		large := cmCount - start

		counts := []int64{int64(part[0]), int64(cross), int64(large)}
		lo, hi := slices.Clone(counts), slices.Clone(counts)
		must(mpi.AllreduceSlice(w, counts, lo, mpi.Min), "Allreduce")
		must(mpi.AllreduceSlice(w, counts, hi, mpi.Max), "Allreduce")
		if !slices.Equal(lo, hi) {
			fail("ranks ran different numbers of cases: %v to %v", lo, hi)
		}
		if r == 0 {
			for i, v := range per {
				fmt.Printf("coll %s %d\n", cmNames[i], v)
			}
			fmt.Printf("world %d\nsplit %d\ncrosscomm %d\nlarge %d\n", part[0], part[1], cross, large)
		}
		must(dup.Free(), "Free")
		must(split.Free(), "Free")
		must(cmMatOp.Free(), "Op Free")
	})
}
