//go:build ompi || mpich

package mpi

/*
#include "backend_cgo_nbc.h"

// One collective on an intercommunicator: the system MPI's own, in bytes
// (elements of dt for the reductions). root is already MPI_ROOT,
// MPI_PROC_NULL or a remote rank.
static inline hy_rq hy_c_inter(int nb, int kind, int root, void *s, long long sn, void *r, long long rn, int *sc, int *sd,
			       int *rc, int *rd, hy_h dt, hy_h op, hy_h c) {
	if (HY_BIG(sn) || HY_BIG(rn)) return hy_rq_big;
	MPI_Comm cm = HY_COMM(c);
	switch (kind) {
	case 0: HY_NBC(MPI_Barrier(cm), MPI_Ibarrier(cm, &r_));
	case 1: {
		void *b = root == MPI_ROOT ? s : r;
		long long n = root == MPI_ROOT ? sn : rn;
		HY_NBC(MPI_Bcast(b, n, MPI_BYTE, root, cm), MPI_Ibcast(b, n, MPI_BYTE, root, cm, &r_));
	}
	case 2: HY_NBC(MPI_Gather(s, sn, MPI_BYTE, r, rn, MPI_BYTE, root, cm),
		       MPI_Igather(s, sn, MPI_BYTE, r, rn, MPI_BYTE, root, cm, &r_));
	case 3: HY_NBC(MPI_Gatherv(s, sn, MPI_BYTE, r, rc, rd, MPI_BYTE, root, cm),
		       MPI_Igatherv(s, sn, MPI_BYTE, r, rc, rd, MPI_BYTE, root, cm, &r_));
	case 4: HY_NBC(MPI_Scatter(s, sn, MPI_BYTE, r, rn, MPI_BYTE, root, cm),
		       MPI_Iscatter(s, sn, MPI_BYTE, r, rn, MPI_BYTE, root, cm, &r_));
	case 5: HY_NBC(MPI_Scatterv(s, sc, sd, MPI_BYTE, r, rn, MPI_BYTE, root, cm),
		       MPI_Iscatterv(s, sc, sd, MPI_BYTE, r, rn, MPI_BYTE, root, cm, &r_));
	case 6: HY_NBC(MPI_Allgather(s, sn, MPI_BYTE, r, rn, MPI_BYTE, cm),
		       MPI_Iallgather(s, sn, MPI_BYTE, r, rn, MPI_BYTE, cm, &r_));
	case 7: HY_NBC(MPI_Allgatherv(s, sn, MPI_BYTE, r, rc, rd, MPI_BYTE, cm),
		       MPI_Iallgatherv(s, sn, MPI_BYTE, r, rc, rd, MPI_BYTE, cm, &r_));
	case 8: HY_NBC(MPI_Alltoall(s, sn, MPI_BYTE, r, rn, MPI_BYTE, cm),
		       MPI_Ialltoall(s, sn, MPI_BYTE, r, rn, MPI_BYTE, cm, &r_));
	case 9: HY_NBC(MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, cm),
		       MPI_Ialltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, cm, &r_));
	case 10: HY_NBC(MPI_Reduce(s, r, sn, HY_DT(dt), HY_OP(op), root, cm),
			MPI_Ireduce(s, r, sn, HY_DT(dt), HY_OP(op), root, cm, &r_));
	case 11: HY_NBC(MPI_Allreduce(s, r, sn, HY_DT(dt), HY_OP(op), cm),
			MPI_Iallreduce(s, r, sn, HY_DT(dt), HY_OP(op), cm, &r_));
	case 12: HY_NBC(MPI_Reduce_scatter_block(s, r, rn, HY_DT(dt), HY_OP(op), cm),
			MPI_Ireduce_scatter_block(s, r, rn, HY_DT(dt), HY_OP(op), cm, &r_));
	default: HY_NBC(MPI_Reduce_scatter(s, r, rc, HY_DT(dt), HY_OP(op), cm),
			MPI_Ireduce_scatter(s, r, rc, HY_DT(dt), HY_OP(op), cm, &r_));
	}
}
*/
import "C"

// Collectives on intercommunicators over the system MPI's own, with the
// engine's argument checks (coll_inter.go), so a bad call gives the same
// class on every build.

// interColl runs the collective a describes on the intercommunicator c.
func (c *Comm) interColl(a interArgs) error {
	_, err := c.interOp(collBlock, interName(a.Kind, ""), &a)
	return err
}

// iinterColl starts the collective a describes on the intercommunicator c.
func (c *Comm) iinterColl(a interArgs) (*Request, error) {
	return c.interOp(collStart, interName(a.Kind, "I"), &a)
}

// interCollInit binds a persistent collective on the intercommunicator c;
// each Start runs it again over the same buffers.
func (c *Comm) interCollInit(a interArgs) (*Persistent, error) {
	what := interName(a.Kind, "") + "Init"
	a.SendCounts, a.SendDispls = clone(a.SendCounts), clone(a.SendDispls)
	a.RecvCounts, a.RecvDispls = clone(a.RecvCounts), clone(a.RecvDispls)
	return persistent(what, func() error {
		_, err := c.interOp(collCheck, what, &a)
		return err
	}, func() (*Request, error) { return c.interOp(collStart, what, &a) })
}

// idleBuf is what a rank of the root's group other than the root passes:
// room for one element of any predefined type.
var idleBuf [64]byte

func (c *Comm) interOp(m collMode, what string, a *interArgs) (*Request, error) {
	if err := c.checkLive(what); err != nil {
		return nil, err
	}
	if !c.IsInter() {
		return nil, newErr(ErrComm, what, "not an intercommunicator")
	}
	nl, nr := c.size, c.remote
	rooted := a.Kind == interBcast || a.Kind == interGather || a.Kind == interGatherv ||
		a.Kind == interScatter || a.Kind == interScatterv || a.Kind == interReduce
	root := C.int(0)
	if rooted {
		switch {
		case a.Root == Root:
			root = C.MPI_ROOT
		case a.Root == ProcNull:
			root = C.MPI_PROC_NULL
		case a.Root < 0 || a.Root >= nr:
			return nil, newErr(ErrRoot, what, "root %d: not Root, ProcNull or a rank of the remote group of %d", a.Root, nr)
		default:
			root = C.int(a.Root)
		}
	}
	isRoot, idle := rooted && a.Root == Root, rooted && a.Root == ProcNull
	send, recv := a.Send, a.Recv
	sn, rn := len(send), len(recv)
	var sc, sd, rc, rd []C.int
	var dth, oph C.hy_h
	equal := func(side string, n int) (int, error) {
		if n%nr != 0 {
			return 0, newErr(ErrCount, what, "%s buffer of %d bytes is not %d equal blocks", side, n, nr)
		}
		return n / nr, nil
	}
	var err error
	switch a.Kind {
	case interBarrier:
		send, recv, sn, rn = nil, nil, 0, 0
	case interBcast, interGather, interScatter, interGatherv, interScatterv:
		if idle {
			// Open MPI 4.1 skips a zero-count nonblocking collective
			// without drawing its tag, so the next one on the
			// intercommunicator pairs with the wrong messages: the
			// buffer means nothing here, one byte of it keeps step.
			send, recv, sn, rn = idleBuf[:], idleBuf[:], 1, 1
			break
		}
		gather := a.Kind == interGather || a.Kind == interGatherv
		switch {
		case a.Kind == interBcast:
		case isRoot && a.Kind == interGather:
			rn, err = equal("receive", rn)
		case isRoot && a.Kind == interScatter:
			sn, err = equal("send", sn)
		case isRoot && a.Kind == interGatherv:
			rc, rd, err = checkBlocks(what, "receive", a.RecvCounts, a.RecvDispls, nr, rn)
		case isRoot && a.Kind == interScatterv:
			sc, sd, err = checkBlocks(what, "send", a.SendCounts, a.SendDispls, nr, sn)
		case gather:
			recv, rn = nil, 0
		default:
			send, sn = nil, 0
		}
	case interAllgather:
		rn, err = equal("receive", rn)
	case interAllgatherv:
		rc, rd, err = checkBlocks(what, "receive", a.RecvCounts, a.RecvDispls, nr, rn)
	case interAlltoall:
		if sn, err = equal("send", sn); err == nil {
			rn, err = equal("receive", rn)
		}
		if err == nil && sn != rn {
			err = newErr(ErrCount, what, "blocks of %d bytes sent, %d received", sn, rn)
		}
	case interAlltoallv:
		if sc, sd, err = checkBlocks(what, "send", a.SendCounts, a.SendDispls, nr, sn); err == nil {
			rc, rd, err = checkBlocks(what, "receive", a.RecvCounts, a.RecvDispls, nr, rn)
		}
	case interReduce, interAllreduce, interReduceScatterBlock, interReduceScatter:
		if idle {
			// As above: one element, of the caller's type if it is one.
			if dth, oph, _, err = resolve(what, a.Datatype, a.Op); err != nil {
				dth, oph, _, err = resolve(what, Byte, Max)
			}
			send, recv, sn, rn = idleBuf[:], idleBuf[:], 1, 0
			break
		}
		var elem int
		if dth, oph, elem, err = resolve(what, a.Datatype, a.Op); err != nil {
			return nil, err
		}
		whole := func(n int) error {
			if n%elem != 0 {
				return newErr(ErrCount, what, "%d bytes is not a whole number of %v elements", n, a.Datatype)
			}
			return nil
		}
		switch a.Kind {
		case interReduce:
			if isRoot {
				send, sn, rn = nil, rn/elem, 0
				err = whole(len(recv))
			} else {
				recv, sn = nil, sn/elem
				err = whole(len(send))
			}
		case interAllreduce:
			if err = whole(sn); err == nil && rn < sn {
				err = newErr(ErrBuffer, what, "receive buffer of %d bytes for %d to reduce", rn, sn)
			}
			sn, rn = sn/elem, 0
		case interReduceScatterBlock:
			if err = whole(rn); err == nil && sn != nl*rn {
				err = newErr(ErrCount, what, "send has %d bytes, want %d ranks × %d", sn, nl, rn)
			}
			sn, rn = 0, rn/elem
		default:
			if len(a.RecvCounts) != nl {
				return nil, newErr(ErrCount, what, "%d receive counts for %d ranks", len(a.RecvCounts), nl)
			}
			total := 0
			rc = make([]C.int, nl)
			for i, k := range a.RecvCounts {
				if k < 0 || k%elem != 0 {
					return nil, newErr(ErrCount, what, "count %d of rank %d", k, i)
				}
				rc[i] = C.int(k / elem)
				total += k
			}
			if sn != total || rn < a.RecvCounts[c.rank] {
				err = newErr(ErrBuffer, what, "buffers of %d and %d bytes for %d in all, %d here", sn, rn, total, a.RecvCounts[c.rank])
			}
			sn, rn = 0, 0
		}
	default:
		return nil, newErr(ErrArg, what, "unknown intercommunicator collective %d", int(a.Kind))
	}
	if err != nil {
		return nil, err
	}
	kind := C.int(a.Kind)
	return m.issue(what, [][]byte{send, recv}, [][]C.int{sc, sd, rc, rd}, func(nb C.int) C.hy_rq {
		return C.hy_c_inter(nb, kind, root, ptr(send), C.longlong(sn), ptr(recv), C.longlong(rn), cints(sc), cints(sd),
			cints(rc), cints(rd), dth, oph, c.h)
	})
}
