//go:build ompi || mpich

package mpi

// #include "backend_cgo.h"
import "C"

import "runtime"

// Intercommunicators of the system-MPI backend, over MPI's own. As on the
// engine, point-to-point names remote ranks, Dup and Split work, and
// collectives are refused (Comm.check); a Comm knows its remote size from
// wrapComm, so none of this costs a cgo call on the hot path.

// IsInter reports whether c is an intercommunicator.
func (c *Comm) IsInter() bool { return c != nil && c.inter }

// RemoteSize is the size of c's remote group (0 for an intracommunicator).
func (c *Comm) RemoteSize() int {
	if !c.IsInter() {
		return 0
	}
	return c.remote
}

// RemoteGroup is c's remote group (nil for an intracommunicator).
func (c *Comm) RemoteGroup() *Group {
	if !c.IsInter() || c.freed || Finalized() {
		return nil
	}
	g, _ := wrapGroup("RemoteGroup", C.hy_remote_group(c.h))
	return g
}

// IntercommCreate makes the intercommunicator between the group of local
// (this process's side) and the group whose leader is remoteLeader in peer
// (MPI_Intercomm_create). Every member of local calls it with the same
// localLeader; only the two leaders use peer, exchanging with tag.
func (local *Comm) IntercommCreate(localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	const op = "IntercommCreate"
	if err := local.check(op); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= local.size {
		return nil, newErr(ErrRank, op, "local leader %d not in communicator of size %d", localLeader, local.size)
	}
	// Only the leader's peer, remote leader and tag mean anything to MPI.
	ph, rl, t := hCommNull, 0, 0
	if local.rank == localLeader {
		if err := peer.checkSend(op, remoteLeader, tag); err != nil {
			return nil, err
		}
		if remoteLeader == ProcNull {
			return nil, newErr(ErrRank, op, "remote leader is ProcNull")
		}
		ph, rl, t = peer.h, remoteLeader, tag
	}
	return local.newComm(op, C.hy_inter_new(0, local.h, C.int(localLeader), ph, C.int(rl), C.int(t), 0, 0))
}

// InterDup duplicates the intercommunicator c (MPI_Comm_dup on an
// intercommunicator): same groups, new contexts.
func (c *Comm) InterDup() (*Comm, error) { return c.Dup() }

// Merge is the intracommunicator of both groups of the intercommunicator c
// (MPI_Intercomm_merge): the group whose members pass high false comes
// first; when both pass the same, the MPI picks the order.
func (c *Comm) Merge(high bool) (*Comm, error) {
	const op = "Merge"
	if err := c.checkLive(op); err != nil {
		return nil, err
	}
	if !c.inter {
		return nil, newErr(ErrComm, op, "not an intercommunicator")
	}
	h := 0
	if high {
		h = 1
	}
	return c.newComm(op, C.hy_inter_new(1, c.h, 0, hCommNull, 0, C.int(h), 0, 0))
}

// IntercommFromGroups makes the intercommunicator between the group local,
// which this process belongs to, and the disjoint group remote, with no
// communicator to start from (MPI_Intercomm_create_from_groups, MPI 4.0).
// Both groups pass the same tag. An MPI older than 4.0 (Open MPI 4.1) lacks
// it: the call is then an ErrOther error.
func IntercommFromGroups(local *Group, localLeader int, remote *Group, remoteLeader, tag int) (*Comm, error) {
	const op = "IntercommFromGroups"
	if world == nil || finalized.Load() {
		return nil, newErr(ErrNotInitialized, op, "MPI is not initialized")
	}
	if err := checkGroup(op, local, remote); err != nil {
		return nil, err
	}
	if remoteLeader < 0 || remoteLeader >= remote.Size() {
		return nil, newErr(ErrRank, op, "remote leader %d not in a group of %d", remoteLeader, remote.Size())
	}
	if local.rank == Undefined {
		return nil, newErr(ErrGroup, op, "this process is not in the local group")
	}
	if localLeader < 0 || localLeader >= local.Size() {
		return nil, newErr(ErrRank, op, "local leader %d not in a group of %d", localLeader, local.Size())
	}
	if C.HY_MPI4 == 0 {
		return nil, newErr(ErrOther, op, "not supported by this MPI (MPI_Intercomm_create_from_groups is MPI 4.0)")
	}
	c, err := world.newComm(op, C.hy_inter_new(2, 0, C.int(localLeader), hCommNull, C.int(remoteLeader),
		C.int(tag), local.h, remote.h))
	runtime.KeepAlive(local)
	runtime.KeepAlive(remote)
	return c, err
}
