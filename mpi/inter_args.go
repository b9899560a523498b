package mpi

import "github.com/hympi/hympi/internal/enginehook"

// The description of a collective on an intercommunicator, shared by the
// engine and the system-MPI backends.

// Root is the root argument of the root itself in a rooted collective on
// an intercommunicator (MPI_ROOT); the other members of the root's group
// pass ProcNull, and the members of the other group pass the root's rank
// in their remote group.
const Root = -4

// The kinds and arguments of a collective on an intercommunicator are
// internal/enginehook's: the C library reaches these collectives through
// hooks (internal/cabi), and a Go program through the Comm methods.
type (
	interKind = enginehook.InterKind
	interArgs = enginehook.InterArgs[Datatype, Op]
)

const (
	interBarrier            = enginehook.InterBarrier
	interBcast              = enginehook.InterBcast
	interGather             = enginehook.InterGather
	interGatherv            = enginehook.InterGatherv
	interScatter            = enginehook.InterScatter
	interScatterv           = enginehook.InterScatterv
	interAllgather          = enginehook.InterAllgather
	interAllgatherv         = enginehook.InterAllgatherv
	interAlltoall           = enginehook.InterAlltoall
	interAlltoallv          = enginehook.InterAlltoallv
	interReduce             = enginehook.InterReduce
	interAllreduce          = enginehook.InterAllreduce
	interReduceScatterBlock = enginehook.InterReduceScatterBlock
	interReduceScatter      = enginehook.InterReduceScatter
)

var interNames = [...]string{"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
	"Allgatherv", "Alltoall", "Alltoallv", "Reduce", "Allreduce", "ReduceScatterBlock", "ReduceScatter"}

// interName is the operation name errors give: prefix (I for the
// nonblocking form) and the collective's.
func interName(k interKind, prefix string) string {
	if k < 0 || int(k) >= len(interNames) {
		return prefix + "InterColl"
	}
	return prefix + interNames[k]
}
