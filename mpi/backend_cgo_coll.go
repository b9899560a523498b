//go:build ompi || mpich

package mpi

// #include "backend_cgo.h"
import "C"

import (
	"math"
	"unsafe"
)

// Collectives of the system-MPI backend. Counts and displacements are
// bytes, as in the engine; the argument checks are the engine's, so a bad
// call fails before MPI sees it and on every build alike.

func (c *Comm) checkRoot(op string, root int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if root < 0 || root >= c.size {
		return newErr(ErrRoot, op, "root %d not in communicator of size %d", root, c.size)
	}
	return nil
}

// sameBuf reports whether a and b start at the same byte: send and recv
// given as the same slice mean MPI_IN_PLACE.
func sameBuf(a, b []byte) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func flag(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func checkReduceArgs(op string, send, recv []byte, dt Datatype, o Op, needRecv bool) (dth, oph C.hy_h, err error) {
	dth, oph, elem, err := resolve(op, dt, o)
	if err != nil {
		return 0, 0, err
	}
	if len(send)%elem != 0 {
		return 0, 0, newErr(ErrCount, op, "%d bytes is not a whole number of %v elements", len(send), dt)
	}
	if needRecv && len(recv) < len(send) {
		return 0, 0, newErr(ErrBuffer, op, "receive buffer of %d bytes for %d bytes", len(recv), len(send))
	}
	return dth, oph, nil
}

// checkBlocks validates v-variant counts and displacements (bytes) against
// a buffer of bufLen bytes, and converts them to MPI's ints.
func checkBlocks(op, what string, counts, displs []int, n, bufLen int) ([]C.int, []C.int, error) {
	if len(counts) != n || len(displs) != n {
		return nil, nil, newErr(ErrCount, op, "%s: %d counts and %d displacements for %d ranks", what, len(counts), len(displs), n)
	}
	if bufLen > math.MaxInt32 {
		return nil, nil, newErr(ErrCount, op, "%s: buffer of %d bytes is beyond MPI's int displacements", what, bufLen)
	}
	cs, ds := make([]C.int, n), make([]C.int, n)
	for i := range n {
		if counts[i] < 0 {
			return nil, nil, newErr(ErrCount, op, "%s: count %d of rank %d is negative", what, counts[i], i)
		}
		if displs[i] < 0 || displs[i] > bufLen || counts[i] > bufLen-displs[i] {
			return nil, nil, newErr(ErrBuffer, op, "%s: block of rank %d (%d bytes at %d) outside the %d-byte buffer", what, i, counts[i], displs[i], bufLen)
		}
		cs[i], ds[i] = C.int(counts[i]), C.int(displs[i])
	}
	return cs, ds, nil
}

func cints(cs []C.int) *C.int {
	if len(cs) == 0 {
		return nil
	}
	return &cs[0]
}

// Barrier blocks until every rank of c has called it.
func (c *Comm) Barrier() error {
	if err := c.check("Barrier"); err != nil {
		return err
	}
	return mpiErr("Barrier", C.hy_barrier(c.h))
}

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier() (*Request, error) {
	if err := c.check("Ibarrier"); err != nil {
		return nil, err
	}
	return start(nil, "Ibarrier", nil).started(C.hy_ibarrier(c.h))
}

// Bcast sends root's buf to every rank.
func (c *Comm) Bcast(buf []byte, root int) error {
	if err := c.checkRoot("Bcast", root); err != nil {
		return err
	}
	return mpiErr("Bcast", C.hy_bcast(ptr(buf), C.longlong(len(buf)), C.int(root), c.h))
}

// Ibcast starts a broadcast; buf must not be touched until it completes.
func (c *Comm) Ibcast(buf []byte, root int) (*Request, error) {
	if err := c.checkRoot("Ibcast", root); err != nil {
		return nil, err
	}
	return start(nil, "Ibcast", buf).started(C.hy_ibcast(ptr(buf), C.longlong(len(buf)), C.int(root), c.h))
}

// Reduce combines every rank's send element-wise with op into root's recv.
// send and recv may be the same slice (in place).
func (c *Comm) Reduce(send, recv []byte, dt Datatype, op Op, root int) error {
	if err := c.checkRoot("Reduce", root); err != nil {
		return err
	}
	dth, oph, err := checkReduceArgs("Reduce", send, recv, dt, op, c.rank == root)
	if err != nil {
		return err
	}
	inPlace := c.rank == root && sameBuf(send, recv)
	n := len(send) / dt.Size()
	return mpiErr("Reduce", C.hy_reduce(ptr(send), ptr(recv), C.longlong(n), dth, oph, C.int(root), flag(inPlace), c.h))
}

// Allreduce is Reduce with the result on every rank. send and recv may be
// the same slice (in place).
func (c *Comm) Allreduce(send, recv []byte, dt Datatype, op Op) error {
	if err := c.check("Allreduce"); err != nil {
		return err
	}
	dth, oph, err := checkReduceArgs("Allreduce", send, recv, dt, op, true)
	if err != nil {
		return err
	}
	n := len(send) / dt.Size()
	return mpiErr("Allreduce", C.hy_allreduce(ptr(send), ptr(recv), C.longlong(n), dth, oph, flag(sameBuf(send, recv)), c.h))
}

// Iallreduce starts an allreduce.
func (c *Comm) Iallreduce(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	if err := c.check("Iallreduce"); err != nil {
		return nil, err
	}
	dth, oph, err := checkReduceArgs("Iallreduce", send, recv, dt, op, true)
	if err != nil {
		return nil, err
	}
	n := len(send) / dt.Size()
	r := start(nil, "Iallreduce", recv)
	r.pinBuf(send)
	return r.started(C.hy_iallreduce(ptr(send), ptr(recv), C.longlong(n), dth, oph, flag(sameBuf(send, recv)), c.h))
}

// Scan is the inclusive prefix reduction over ranks 0..Rank().
func (c *Comm) Scan(send, recv []byte, dt Datatype, op Op) error {
	return c.scan("Scan", 0, send, recv, dt, op)
}

// Exscan is the exclusive prefix reduction; rank 0's recv is unchanged.
func (c *Comm) Exscan(send, recv []byte, dt Datatype, op Op) error {
	return c.scan("Exscan", 1, send, recv, dt, op)
}

func (c *Comm) scan(what string, ex C.int, send, recv []byte, dt Datatype, op Op) error {
	if err := c.check(what); err != nil {
		return err
	}
	dth, oph, err := checkReduceArgs(what, send, recv, dt, op, true)
	if err != nil {
		return err
	}
	n := len(send) / dt.Size()
	return mpiErr(what, C.hy_scan(ex, ptr(send), ptr(recv), C.longlong(n), dth, oph, flag(sameBuf(send, recv)), c.h))
}

// ReduceScatterBlock reduces Size()*len(recv) bytes and leaves block i on
// rank i. send and recv may be the same slice (in place: recv holds the
// whole input and gets block i at its start).
func (c *Comm) ReduceScatterBlock(send, recv []byte, dt Datatype, op Op) error {
	if err := c.check("ReduceScatterBlock"); err != nil {
		return err
	}
	n := c.size
	inPlace := sameBuf(send, recv)
	var m int
	if inPlace {
		if len(recv)%n != 0 {
			return newErr(ErrCount, "ReduceScatterBlock", "in place: %d bytes do not split into %d blocks", len(recv), n)
		}
		m = len(recv) / n
	} else {
		m = len(recv)
		if len(send) != n*m {
			return newErr(ErrCount, "ReduceScatterBlock", "send has %d bytes, want %d ranks × %d", len(send), n, m)
		}
	}
	counts := make([]int, n)
	for i := range counts {
		counts[i] = m
	}
	return c.reduceScatter("ReduceScatterBlock", send, recv, counts, dt, op, inPlace)
}

// ReduceScatter reduces sum(counts) bytes and leaves counts[i] bytes
// (starting after the blocks of lower ranks) on rank i. Counts are bytes.
// send and recv may be the same slice (in place).
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) error {
	if err := c.check("ReduceScatter"); err != nil {
		return err
	}
	if len(counts) != c.size {
		return newErr(ErrCount, "ReduceScatter", "%d counts for %d ranks", len(counts), c.size)
	}
	total := 0
	for i, k := range counts {
		if k < 0 {
			return newErr(ErrCount, "ReduceScatter", "count %d of rank %d is negative", k, i)
		}
		total += k
	}
	inPlace := sameBuf(send, recv)
	switch {
	case inPlace && len(recv) < total:
		return newErr(ErrBuffer, "ReduceScatter", "in place: buffer of %d bytes for %d", len(recv), total)
	case !inPlace && len(send) < total:
		return newErr(ErrBuffer, "ReduceScatter", "send buffer of %d bytes for %d", len(send), total)
	case !inPlace && len(recv) < counts[c.rank]:
		return newErr(ErrBuffer, "ReduceScatter", "receive buffer of %d bytes for %d", len(recv), counts[c.rank])
	}
	return c.reduceScatter("ReduceScatter", send, recv, counts, dt, op, inPlace)
}

func (c *Comm) reduceScatter(what string, send, recv []byte, counts []int, dt Datatype, op Op, inPlace bool) error {
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
		return err
	}
	elem := dt.Size()
	cs := make([]C.int, len(counts))
	for i, k := range counts {
		if k%elem != 0 {
			return newErr(ErrCount, what, "count %d of rank %d is not a whole number of %v elements", k, i, dt)
		}
		if k/elem > math.MaxInt32 {
			return newErr(ErrCount, what, "count %d of rank %d is beyond MPI's int counts", k, i)
		}
		cs[i] = C.int(k / elem)
	}
	return mpiErr(what, C.hy_reduce_scatter(ptr(send), ptr(recv), cints(cs), dth, oph, flag(inPlace), c.h))
}

// Gather collects len(send) bytes from each rank into root's recv, in rank
// order.
func (c *Comm) Gather(send, recv []byte, root int) error {
	if err := c.checkRoot("Gather", root); err != nil {
		return err
	}
	if c.rank == root && len(recv) < c.size*len(send) {
		return newErr(ErrBuffer, "Gather", "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	m := C.longlong(len(send))
	return mpiErr("Gather", C.hy_gather(ptr(send), m, ptr(recv), m, C.int(root), c.h))
}

// Gatherv: rank i's send lands at recv[displs[i]:displs[i]+counts[i]] on
// root (bytes).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	if err := c.checkRoot("Gatherv", root); err != nil {
		return err
	}
	var cs, ds []C.int
	if c.rank == root {
		var err error
		if cs, ds, err = checkBlocks("Gatherv", "receive", counts, displs, c.size, len(recv)); err != nil {
			return err
		}
		if counts[root] != len(send) {
			return newErr(ErrCount, "Gatherv", "root sends %d bytes, its count is %d", len(send), counts[root])
		}
	}
	if len(send) > math.MaxInt32 {
		return newErr(ErrCount, "Gatherv", "%d bytes is beyond MPI's int counts", len(send))
	}
	return mpiErr("Gatherv", C.hy_gatherv(ptr(send), C.int(len(send)), ptr(recv), cints(cs), cints(ds), C.int(root), c.h))
}

// Scatter sends block i of root's send (len(recv) bytes each) to rank i.
func (c *Comm) Scatter(send, recv []byte, root int) error {
	if err := c.checkRoot("Scatter", root); err != nil {
		return err
	}
	if c.rank == root && len(send) < c.size*len(recv) {
		return newErr(ErrBuffer, "Scatter", "send buffer of %d bytes for %d ranks × %d", len(send), c.size, len(recv))
	}
	m := C.longlong(len(recv))
	return mpiErr("Scatter", C.hy_scatter(ptr(send), m, ptr(recv), m, C.int(root), c.h))
}

// Scatterv: rank i receives send[displs[i]:displs[i]+counts[i]] from root
// (bytes).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	if err := c.checkRoot("Scatterv", root); err != nil {
		return err
	}
	var cs, ds []C.int
	if c.rank == root {
		var err error
		if cs, ds, err = checkBlocks("Scatterv", "send", counts, displs, c.size, len(send)); err != nil {
			return err
		}
		if counts[root] > len(recv) {
			return newErr(ErrBuffer, "Scatterv", "root's block of %d bytes, receive buffer of %d", counts[root], len(recv))
		}
		recv = recv[:counts[root]]
	}
	if len(recv) > math.MaxInt32 {
		return newErr(ErrCount, "Scatterv", "%d bytes is beyond MPI's int counts", len(recv))
	}
	return mpiErr("Scatterv", C.hy_scatterv(ptr(send), cints(cs), cints(ds), ptr(recv), C.int(len(recv)), C.int(root), c.h))
}

// Allgather is Gather with the result on every rank.
func (c *Comm) Allgather(send, recv []byte) error {
	if err := c.check("Allgather"); err != nil {
		return err
	}
	if len(recv) < c.size*len(send) {
		return newErr(ErrBuffer, "Allgather", "receive buffer of %d bytes for %d ranks × %d", len(recv), c.size, len(send))
	}
	m := len(send)
	inPlace := sameBuf(send, recv[c.rank*m:(c.rank+1)*m])
	return mpiErr("Allgather", C.hy_allgather(ptr(send), C.longlong(m), ptr(recv), C.longlong(m), flag(inPlace), c.h))
}

// Allgatherv is Gatherv with the result on every rank.
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	if err := c.check("Allgatherv"); err != nil {
		return err
	}
	cs, ds, err := checkBlocks("Allgatherv", "receive", counts, displs, c.size, len(recv))
	if err != nil {
		return err
	}
	if counts[c.rank] != len(send) {
		return newErr(ErrCount, "Allgatherv", "rank %d sends %d bytes, its count is %d", c.rank, len(send), counts[c.rank])
	}
	return mpiErr("Allgatherv", C.hy_allgatherv(ptr(send), C.int(len(send)), ptr(recv), cints(cs), cints(ds), c.h))
}

// Alltoall sends block j of send to rank j; block i of recv comes from rank
// i.
func (c *Comm) Alltoall(send, recv []byte) error {
	if err := c.check("Alltoall"); err != nil {
		return err
	}
	n := c.size
	if len(send)%n != 0 {
		return newErr(ErrCount, "Alltoall", "send buffer of %d bytes does not split into %d blocks", len(send), n)
	}
	if len(recv) < len(send) {
		return newErr(ErrBuffer, "Alltoall", "receive buffer of %d bytes for %d", len(recv), len(send))
	}
	return mpiErr("Alltoall", C.hy_alltoall(ptr(send), C.longlong(len(send)/n), ptr(recv), c.h))
}

// Alltoallv is Alltoall with per-peer byte counts and displacements.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	if err := c.check("Alltoallv"); err != nil {
		return err
	}
	sc, sd, err := checkBlocks("Alltoallv", "send", scounts, sdispls, c.size, len(send))
	if err != nil {
		return err
	}
	rc, rd, err := checkBlocks("Alltoallv", "receive", rcounts, rdispls, c.size, len(recv))
	if err != nil {
		return err
	}
	if scounts[c.rank] != rcounts[c.rank] {
		return newErr(ErrCount, "Alltoallv", "rank %d sends itself %d bytes but expects %d", c.rank, scounts[c.rank], rcounts[c.rank])
	}
	return mpiErr("Alltoallv", C.hy_alltoallv(ptr(send), cints(sc), cints(sd), ptr(recv), cints(rc), cints(rd), c.h))
}

// ReduceLocal is inout = in op inout, without communication
// (MPI_Reduce_local).
func ReduceLocal(in, inout []byte, dt Datatype, op Op) error {
	dth, oph, elem, err := resolve("ReduceLocal", dt, op)
	if err != nil {
		return err
	}
	if len(in) != len(inout) {
		return newErr(ErrCount, "ReduceLocal", "in has %d bytes, inout %d", len(in), len(inout))
	}
	if len(in)%elem != 0 {
		return newErr(ErrCount, "ReduceLocal", "%d bytes is not a whole number of %v elements", len(in), dt)
	}
	if len(in) == 0 {
		return nil
	}
	return mpiErr("ReduceLocal", C.hy_reduce_local(ptr(in), ptr(inout), C.longlong(len(in)/elem), dth, oph))
}
