//go:build ompi || mpich

package mpi

// #include "backend_cgo_nbc.h"
import "C"

import (
	"math"
	"runtime"
	"unsafe"
)

// The collectives that come blocking, nonblocking (MPI_I*) and persistent.
// Each is one function taking a mode, so the three forms check their
// arguments with the same code, the engine's checks.

type collMode int

const (
	collBlock collMode = iota // run to completion
	collStart                 // start and return the request
	collCheck                 // check the arguments only (binding a persistent collective)
)

// issue runs call once the arguments are checked: blocking, or as a
// request that keeps bufs and the int arrays MPI reads (the v-variants'
// counts and displacements) pinned until it completes.
func (m collMode) issue(what string, bufs [][]byte, ints [][]C.int, call func(nb C.int) C.hy_rq) (*Request, error) {
	switch m {
	case collCheck:
		return nil, nil
	case collBlock:
		return nil, mpiErr(what, call(0).err)
	}
	r := start(nil, what, nil)
	for _, b := range bufs {
		r.pinBuf(b)
	}
	for _, v := range ints {
		if len(v) > 0 {
			if r.pin == nil {
				r.pin = pinners.Get().(*runtime.Pinner)
			}
			r.pin.Pin(unsafe.SliceData(v))
		}
	}
	return r.started(call(1))
}

func (c *Comm) reduceOp(m collMode, what string, send, recv []byte, dt Datatype, op Op, root int) (*Request, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	dth, oph, err := checkReduceArgs(what, send, recv, dt, op, c.rank == root)
	if err != nil {
		return nil, err
	}
	inPlace := c.rank == root && sameBuf(send, recv)
	n := len(send) / dt.Size()
	return m.issue(what, [][]byte{send, recv}, nil, func(nb C.int) C.hy_rq {
		return C.hy_c_reduce(nb, ptr(send), ptr(recv), C.longlong(n), dth, oph, C.int(root), flag(inPlace), c.h)
	})
}

func (c *Comm) scanOp(m collMode, what string, ex C.int, send, recv []byte, dt Datatype, op Op) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	dth, oph, err := checkReduceArgs(what, send, recv, dt, op, true)
	if err != nil {
		return nil, err
	}
	n := len(send) / dt.Size()
	return m.issue(what, [][]byte{send, recv}, nil, func(nb C.int) C.hy_rq {
		return C.hy_c_scan(nb, ex, ptr(send), ptr(recv), C.longlong(n), dth, oph, flag(sameBuf(send, recv)), c.h)
	})
}

func (c *Comm) reduceScatterBlockOp(m collMode, what string, send, recv []byte, dt Datatype, op Op) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	n := c.size
	inPlace := sameBuf(send, recv)
	var b int
	if inPlace {
		if len(recv)%n != 0 {
			return nil, newErr(ErrCount, what, "in place: %d bytes do not split into %d blocks", len(recv), n)
		}
		b = len(recv) / n
	} else {
		b = len(recv)
		if len(send) != n*b {
			return nil, newErr(ErrCount, what, "send has %d bytes, want %d ranks × %d", len(send), n, b)
		}
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = b
	}
	return c.reduceScatterOf(m, what, send, recv, counts, dt, op, inPlace)
}

func (c *Comm) reduceScatterOp(m collMode, what string, send, recv []byte, counts []int, dt Datatype, op Op) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if len(counts) != c.size {
		return nil, newErr(ErrCount, what, "%d counts for %d ranks", len(counts), c.size)
	}
	total := 0
	for i, k := range counts {
		if k < 0 {
			return nil, newErr(ErrCount, what, "count %d of rank %d is negative", k, i)
		}
		total += k
	}
	inPlace := sameBuf(send, recv)
	switch {
	case inPlace && len(recv) < total:
		return nil, newErr(ErrBuffer, what, "in place: buffer of %d bytes for %d", len(recv), total)
	case !inPlace && len(send) < total:
		return nil, newErr(ErrBuffer, what, "send buffer of %d bytes for %d", len(send), total)
	case !inPlace && len(recv) < counts[c.rank]:
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d", len(recv), counts[c.rank])
	}
	return c.reduceScatterOf(m, what, send, recv, counts, dt, op, inPlace)
}

func (c *Comm) reduceScatterOf(m collMode, what string, send, recv []byte, counts []int, dt Datatype, op Op, inPlace bool) (*Request, error) {
	total := 0
	for _, k := range counts {
		total += k
	}
	in := send
	if inPlace {
		in = recv
	}
	dth, oph, err := checkReduceArgs(what, in[:total], nil, dt, op, false)
	if err != nil {
		return nil, err
	}
	elem := dt.Size()
	cs := make([]C.int, len(counts))
	for i, k := range counts {
		if k%elem != 0 {
			return nil, newErr(ErrCount, what, "count %d of rank %d is not a whole number of %v elements", k, i, dt)
		}
		if k/elem > math.MaxInt32 {
			return nil, newErr(ErrCount, what, "count %d of rank %d is beyond MPI's int counts", k, i)
		}
		cs[i] = C.int(k / elem)
	}
	return m.issue(what, [][]byte{send, recv}, [][]C.int{cs}, func(nb C.int) C.hy_rq {
		return C.hy_c_reduce_scatter(nb, ptr(send), ptr(recv), cints(cs), dth, oph, flag(inPlace), c.h)
	})
}

func (c *Comm) gatherOp(m collMode, what string, send, recv []byte, root int) (*Request, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	if c.rank == root && len(recv) < c.size*len(send) {
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	n := C.longlong(len(send))
	ip := c.rank == root && aliases(send, recv, root*len(send))
	return m.issue(what, [][]byte{send, recv}, nil, func(nb C.int) C.hy_rq {
		return C.hy_c_gather(nb, ptr(send), n, ptr(recv), n, C.int(root), flag(ip), c.h)
	})
}

func (c *Comm) gathervOp(m collMode, what string, send, recv []byte, counts, displs []int, root int) (*Request, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	var cs, ds []C.int
	if c.rank == root {
		var err error
		if cs, ds, err = checkBlocks(what, "receive", counts, displs, c.size, len(recv)); err != nil {
			return nil, err
		}
		if counts[root] != len(send) {
			return nil, newErr(ErrCount, what, "root sends %d bytes, its count is %d", len(send), counts[root])
		}
	}
	if len(send) > math.MaxInt32 {
		return nil, newErr(ErrCount, what, "%d bytes is beyond MPI's int counts", len(send))
	}
	ip := c.rank == root && aliases(send, recv, displs[root])
	return m.issue(what, [][]byte{send, recv}, [][]C.int{cs, ds}, func(nb C.int) C.hy_rq {
		return C.hy_c_gatherv(nb, ptr(send), C.int(len(send)), ptr(recv), cints(cs), cints(ds), C.int(root), flag(ip), c.h)
	})
}

func (c *Comm) scatterOp(m collMode, what string, send, recv []byte, root int) (*Request, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	if c.rank == root && len(send) < c.size*len(recv) {
		return nil, newErr(ErrBuffer, what, "send buffer of %d bytes for %d ranks × %d", len(send), c.size, len(recv))
	}
	n := C.longlong(len(recv))
	ip := c.rank == root && aliases(recv, send, root*len(recv))
	return m.issue(what, [][]byte{send, recv}, nil, func(nb C.int) C.hy_rq {
		return C.hy_c_scatter(nb, ptr(send), n, ptr(recv), n, C.int(root), flag(ip), c.h)
	})
}

func (c *Comm) scattervOp(m collMode, what string, send []byte, counts, displs []int, recv []byte, root int) (*Request, error) {
	if err := c.checkRoot(what, root); err != nil {
		return nil, err
	}
	var cs, ds []C.int
	if c.rank == root {
		var err error
		if cs, ds, err = checkBlocks(what, "send", counts, displs, c.size, len(send)); err != nil {
			return nil, err
		}
		if counts[root] > len(recv) {
			return nil, newErr(ErrBuffer, what, "root's block of %d bytes, receive buffer of %d", counts[root], len(recv))
		}
		recv = recv[:counts[root]]
	}
	if len(recv) > math.MaxInt32 {
		return nil, newErr(ErrCount, what, "%d bytes is beyond MPI's int counts", len(recv))
	}
	ip := c.rank == root && aliases(recv, send, displs[root])
	return m.issue(what, [][]byte{send, recv}, [][]C.int{cs, ds}, func(nb C.int) C.hy_rq {
		return C.hy_c_scatterv(nb, ptr(send), cints(cs), cints(ds), ptr(recv), C.int(len(recv)), C.int(root), flag(ip), c.h)
	})
}

func (c *Comm) allgatherOp(m collMode, what string, send, recv []byte) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if len(recv) < c.size*len(send) {
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	n := len(send)
	inPlace := sameBuf(send, recv[c.rank*n:(c.rank+1)*n])
	return m.issue(what, [][]byte{send, recv}, nil, func(nb C.int) C.hy_rq {
		return C.hy_c_allgather(nb, ptr(send), C.longlong(n), ptr(recv), C.longlong(n), flag(inPlace), c.h)
	})
}

func (c *Comm) allgathervOp(m collMode, what string, send, recv []byte, counts, displs []int) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	cs, ds, err := checkBlocks(what, "receive", counts, displs, c.size, len(recv))
	if err != nil {
		return nil, err
	}
	if counts[c.rank] != len(send) {
		return nil, newErr(ErrCount, what, "rank %d sends %d bytes, its count is %d", c.rank, len(send), counts[c.rank])
	}
	ip := aliases(send, recv, displs[c.rank])
	return m.issue(what, [][]byte{send, recv}, [][]C.int{cs, ds}, func(nb C.int) C.hy_rq {
		return C.hy_c_allgatherv(nb, ptr(send), C.int(len(send)), ptr(recv), cints(cs), cints(ds), flag(ip), c.h)
	})
}

func (c *Comm) alltoallOp(m collMode, what string, send, recv []byte) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	n := c.size
	if len(send)%n != 0 {
		return nil, newErr(ErrCount, what, "send buffer of %d bytes does not split into %d blocks", len(send), n)
	}
	if len(recv) < len(send) {
		return nil, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d", len(recv), len(send))
	}
	if m != collCheck && sameBuf(send, recv) {
		// In place (the engine's reading): a copy taken now, since MPI
		// may read send after blocks land in recv, and Open MPI's
		// blocking alltoall does.
		send = append([]byte(nil), send...)
	}
	return m.issue(what, [][]byte{send, recv}, nil, func(nb C.int) C.hy_rq {
		return C.hy_c_alltoall(nb, ptr(send), C.longlong(len(send)/n), ptr(recv), c.h)
	})
}

func (c *Comm) alltoallvOp(m collMode, what string, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	sc, sd, err := checkBlocks(what, "send", scounts, sdispls, c.size, len(send))
	if err != nil {
		return nil, err
	}
	rc, rd, err := checkBlocks(what, "receive", rcounts, rdispls, c.size, len(recv))
	if err != nil {
		return nil, err
	}
	if scounts[c.rank] != rcounts[c.rank] {
		return nil, newErr(ErrCount, what, "rank %d sends itself %d bytes but expects %d", c.rank, scounts[c.rank], rcounts[c.rank])
	}
	if m != collCheck && sameBuf(send, recv) {
		send = append([]byte(nil), send...)
	}
	return m.issue(what, [][]byte{send, recv}, [][]C.int{sc, sd, rc, rd}, func(nb C.int) C.hy_rq {
		return C.hy_c_alltoallv(nb, ptr(send), cints(sc), cints(sd), ptr(recv), cints(rc), cints(rd), c.h)
	})
}

// The blocking forms.

// Reduce combines every rank's send element-wise with op into root's recv.
// send and recv may be the same slice (in place).
func (c *Comm) Reduce(send, recv []byte, dt Datatype, op Op, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interReduce, Root: root, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	_, err := c.reduceOp(collBlock, "Reduce", send, recv, dt, op, root)
	return err
}

// Scan is the inclusive prefix reduction over ranks 0..Rank().
func (c *Comm) Scan(send, recv []byte, dt Datatype, op Op) error {
	_, err := c.scanOp(collBlock, "Scan", 0, send, recv, dt, op)
	return err
}

// Exscan is the exclusive prefix reduction; rank 0's recv is unchanged.
func (c *Comm) Exscan(send, recv []byte, dt Datatype, op Op) error {
	_, err := c.scanOp(collBlock, "Exscan", 1, send, recv, dt, op)
	return err
}

// ReduceScatterBlock reduces Size()*len(recv) bytes and leaves block i on
// rank i. send and recv may be the same slice (in place: recv holds the
// whole input and gets block i at its start).
func (c *Comm) ReduceScatterBlock(send, recv []byte, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interReduceScatterBlock, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	_, err := c.reduceScatterBlockOp(collBlock, "ReduceScatterBlock", send, recv, dt, op)
	return err
}

// ReduceScatter reduces sum(counts) bytes and leaves counts[i] bytes
// (starting after the blocks of lower ranks) on rank i. Counts are bytes.
// send and recv may be the same slice (in place).
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interReduceScatter, Send: send, Recv: recv, RecvCounts: counts, Datatype: dt, Op: op})
	}
	_, err := c.reduceScatterOp(collBlock, "ReduceScatter", send, recv, counts, dt, op)
	return err
}

// Gather collects len(send) bytes from each rank into root's recv, in rank
// order.
func (c *Comm) Gather(send, recv []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interGather, Root: root, Send: send, Recv: recv})
	}
	_, err := c.gatherOp(collBlock, "Gather", send, recv, root)
	return err
}

// Gatherv: rank i's send lands at recv[displs[i]:displs[i]+counts[i]] on
// root (bytes).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interGatherv, Root: root, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	_, err := c.gathervOp(collBlock, "Gatherv", send, recv, counts, displs, root)
	return err
}

// Scatter sends block i of root's send (len(recv) bytes each) to rank i.
func (c *Comm) Scatter(send, recv []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interScatter, Root: root, Send: send, Recv: recv})
	}
	_, err := c.scatterOp(collBlock, "Scatter", send, recv, root)
	return err
}

// Scatterv: rank i receives send[displs[i]:displs[i]+counts[i]] from root
// (bytes).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interScatterv, Root: root, Send: send, Recv: recv, SendCounts: counts, SendDispls: displs})
	}
	_, err := c.scattervOp(collBlock, "Scatterv", send, counts, displs, recv, root)
	return err
}

// Allgather is Gather with the result on every rank.
func (c *Comm) Allgather(send, recv []byte) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAllgather, Send: send, Recv: recv})
	}
	_, err := c.allgatherOp(collBlock, "Allgather", send, recv)
	return err
}

// Allgatherv is Gatherv with the result on every rank.
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAllgatherv, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	_, err := c.allgathervOp(collBlock, "Allgatherv", send, recv, counts, displs)
	return err
}

// Alltoall sends block j of send to rank j; block i of recv comes from rank
// i.
func (c *Comm) Alltoall(send, recv []byte) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAlltoall, Send: send, Recv: recv})
	}
	_, err := c.alltoallOp(collBlock, "Alltoall", send, recv)
	return err
}

// Alltoallv is Alltoall with per-peer byte counts and displacements.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAlltoallv, Send: send, Recv: recv, SendCounts: scounts, SendDispls: sdispls, RecvCounts: rcounts, RecvDispls: rdispls})
	}
	_, err := c.alltoallvOp(collBlock, "Alltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
	return err
}

// The nonblocking forms: buffers must not be touched until the request
// completes.

// Ireduce starts a reduction to root.
func (c *Comm) Ireduce(send, recv []byte, dt Datatype, op Op, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interReduce, Root: root, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.reduceOp(collStart, "Ireduce", send, recv, dt, op, root)
}

// Iscan starts an inclusive prefix reduction.
func (c *Comm) Iscan(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.scanOp(collStart, "Iscan", 0, send, recv, dt, op)
}

// Iexscan starts an exclusive prefix reduction.
func (c *Comm) Iexscan(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return c.scanOp(collStart, "Iexscan", 1, send, recv, dt, op)
}

// IreduceScatterBlock starts a ReduceScatterBlock.
func (c *Comm) IreduceScatterBlock(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interReduceScatterBlock, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
	return c.reduceScatterBlockOp(collStart, "IreduceScatterBlock", send, recv, dt, op)
}

// IreduceScatter starts a ReduceScatter.
func (c *Comm) IreduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interReduceScatter, Send: send, Recv: recv, RecvCounts: counts, Datatype: dt, Op: op})
	}
	return c.reduceScatterOp(collStart, "IreduceScatter", send, recv, counts, dt, op)
}

// Igather starts a Gather.
func (c *Comm) Igather(send, recv []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interGather, Root: root, Send: send, Recv: recv})
	}
	return c.gatherOp(collStart, "Igather", send, recv, root)
}

// Igatherv starts a Gatherv.
func (c *Comm) Igatherv(send, recv []byte, counts, displs []int, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interGatherv, Root: root, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	return c.gathervOp(collStart, "Igatherv", send, recv, counts, displs, root)
}

// Iscatter starts a Scatter.
func (c *Comm) Iscatter(send, recv []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interScatter, Root: root, Send: send, Recv: recv})
	}
	return c.scatterOp(collStart, "Iscatter", send, recv, root)
}

// Iscatterv starts a Scatterv.
func (c *Comm) Iscatterv(send []byte, counts, displs []int, recv []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interScatterv, Root: root, Send: send, Recv: recv, SendCounts: counts, SendDispls: displs})
	}
	return c.scattervOp(collStart, "Iscatterv", send, counts, displs, recv, root)
}

// Iallgather starts an Allgather.
func (c *Comm) Iallgather(send, recv []byte) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAllgather, Send: send, Recv: recv})
	}
	return c.allgatherOp(collStart, "Iallgather", send, recv)
}

// Iallgatherv starts an Allgatherv.
func (c *Comm) Iallgatherv(send, recv []byte, counts, displs []int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAllgatherv, Send: send, Recv: recv, RecvCounts: counts, RecvDispls: displs})
	}
	return c.allgathervOp(collStart, "Iallgatherv", send, recv, counts, displs)
}

// Ialltoall starts an Alltoall.
func (c *Comm) Ialltoall(send, recv []byte) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAlltoall, Send: send, Recv: recv})
	}
	return c.alltoallOp(collStart, "Ialltoall", send, recv)
}

// Ialltoallv starts an Alltoallv.
func (c *Comm) Ialltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAlltoallv, Send: send, Recv: recv, SendCounts: scounts, SendDispls: sdispls, RecvCounts: rcounts, RecvDispls: rdispls})
	}
	return c.alltoallvOp(collStart, "Ialltoallv", send, scounts, sdispls, recv, rcounts, rdispls)
}

// IreduceSlice starts a reduction of send into root's recv.
func IreduceSlice[T Numeric](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	return c.Ireduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op, root)
}
