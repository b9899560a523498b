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

// aliases reports whether a starts at byte off of b: a rank's own block
// given inside the other buffer, which the engine reads as in place and
// MPI spells MPI_IN_PLACE (MPICH refuses aliased buffers).
func aliases(a, b []byte, off int) bool {
	return len(a) > 0 && off >= 0 && off < len(b) && unsafe.SliceData(a) == &b[off]
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
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interBarrier})
	}
	if err := c.check("Barrier"); err != nil {
		return err
	}
	return mpiErr("Barrier", C.hy_barrier(c.h))
}

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier() (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interBarrier})
	}
	if err := c.check("Ibarrier"); err != nil {
		return nil, err
	}
	return start(nil, "Ibarrier", nil).started(C.hy_ibarrier(c.h))
}

// Bcast sends root's buf to every rank.
func (c *Comm) Bcast(buf []byte, root int) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interBcast, Root: root, Send: buf, Recv: buf})
	}
	if err := c.checkRoot("Bcast", root); err != nil {
		return err
	}
	return mpiErr("Bcast", C.hy_bcast(ptr(buf), C.longlong(len(buf)), C.int(root), c.h))
}

// Ibcast starts a broadcast; buf must not be touched until it completes.
func (c *Comm) Ibcast(buf []byte, root int) (*Request, error) {
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interBcast, Root: root, Send: buf, Recv: buf})
	}
	if err := c.checkRoot("Ibcast", root); err != nil {
		return nil, err
	}
	return start(nil, "Ibcast", buf).started(C.hy_ibcast(ptr(buf), C.longlong(len(buf)), C.int(root), c.h))
}

// Allreduce is Reduce with the result on every rank. send and recv may be
// the same slice (in place).
func (c *Comm) Allreduce(send, recv []byte, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.interColl(interArgs{Kind: interAllreduce, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
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
	if c.IsInter() {
		return c.iinterColl(interArgs{Kind: interAllreduce, Send: send, Recv: recv, Datatype: dt, Op: op})
	}
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
