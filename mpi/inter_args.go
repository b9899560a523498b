package mpi

// The description of a collective on an intercommunicator, shared by the
// engine and the system-MPI backends.

// Root is the root argument of the root itself in a rooted collective on
// an intercommunicator (MPI_ROOT); the other members of the root's group
// pass ProcNull, and the members of the other group pass the root's rank
// in their remote group.
const Root = -4

// InterKind names a collective on an intercommunicator.
type InterKind int

// The collectives an intercommunicator has (MPI 4.1 §6.2.2). Scan and
// Exscan have no intercommunicator form.
const (
	InterBarrier InterKind = iota
	InterBcast
	InterGather
	InterGatherv
	InterScatter
	InterScatterv
	InterAllgather
	InterAllgatherv
	InterAlltoall
	InterAlltoallv
	InterReduce
	InterAllreduce
	InterReduceScatterBlock
	InterReduceScatter
)

// InterArgs are the arguments of one collective on an intercommunicator.
// Data moves between the groups: each rank's blocks are indexed by the
// ranks of the remote group, and a reduction combines the remote group's
// contributions in their rank order.
//
//   - Bcast: Send at the root, Recv in the other group.
//   - Gather, Scatter, Allgather, Alltoall: the side that holds one block
//     per remote rank splits its buffer into RemoteSize equal blocks.
//   - The v kinds: byte counts and displacements per remote rank,
//     RecvCounts/RecvDispls (Gatherv at the root, Allgatherv, Alltoallv)
//     and SendCounts/SendDispls (Scatterv at the root, Alltoallv).
//   - Reduce, Allreduce: Send reduced with Datatype and Op into Recv.
//   - ReduceScatterBlock: Send holds Size() blocks of len(Recv) bytes; the
//     reduction of the remote group's Send is scattered over this group.
//   - ReduceScatter: as ReduceScatterBlock with RecvCounts (bytes, one per
//     local rank) giving the blocks; Send holds their sum.
type InterArgs struct {
	Kind                                           InterKind
	Root                                           int
	Send, Recv                                     []byte
	SendCounts, SendDispls, RecvCounts, RecvDispls []int
	Datatype                                       Datatype
	Op                                             Op
}

var interNames = [...]string{"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
	"Allgatherv", "Alltoall", "Alltoallv", "Reduce", "Allreduce", "ReduceScatterBlock", "ReduceScatter"}

// interName is the operation name errors give: prefix (I for the
// nonblocking form) and the collective's.
func interName(k InterKind, prefix string) string {
	if k < 0 || int(k) >= len(interNames) {
		return prefix + "InterColl"
	}
	return prefix + interNames[k]
}
