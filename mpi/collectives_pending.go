package mpi

// This file fixes the signatures of the collectives, communicators and
// groups so that the C ABI and the benchmarks can be built against them
// while the offload engine is written. Every function here is replaced by
// the real implementation (issue 5) and this file is then deleted.

func errPending(op string) error {
	return newErr(ErrOther, op, "not implemented yet")
}

// Bcast sends root's buf to every rank.
func (c *Comm) Bcast(buf []byte, root int) error { return errPending("Bcast") }

// Reduce combines every rank's send element-wise with op into root's recv.
// send and recv may be the same slice (in place).
func (c *Comm) Reduce(send, recv []byte, dt Datatype, op Op, root int) error {
	return errPending("Reduce")
}

// Allreduce is Reduce with the result on every rank. send and recv may be
// the same slice (in place).
func (c *Comm) Allreduce(send, recv []byte, dt Datatype, op Op) error {
	return errPending("Allreduce")
}

// Scan is the inclusive prefix reduction over ranks 0..Rank().
func (c *Comm) Scan(send, recv []byte, dt Datatype, op Op) error { return errPending("Scan") }

// Exscan is the exclusive prefix reduction; rank 0's recv is unchanged.
func (c *Comm) Exscan(send, recv []byte, dt Datatype, op Op) error { return errPending("Exscan") }

// ReduceScatterBlock reduces Size()*len(recv) bytes and leaves block i on rank i.
func (c *Comm) ReduceScatterBlock(send, recv []byte, dt Datatype, op Op) error {
	return errPending("ReduceScatterBlock")
}

// ReduceScatter reduces sum(counts) bytes and leaves counts[i] bytes
// (starting after the blocks of lower ranks) on rank i. Counts are bytes.
func (c *Comm) ReduceScatter(send, recv []byte, counts []int, dt Datatype, op Op) error {
	return errPending("ReduceScatter")
}

// Gather collects len(send) bytes from each rank into root's recv, in rank order.
func (c *Comm) Gather(send, recv []byte, root int) error { return errPending("Gather") }

// Scatter sends block i of root's send (len(recv) bytes each) to rank i.
func (c *Comm) Scatter(send, recv []byte, root int) error { return errPending("Scatter") }

// Allgather is Gather with the result on every rank.
func (c *Comm) Allgather(send, recv []byte) error { return errPending("Allgather") }

// Alltoall sends block j of send to rank j; block i of recv comes from rank i.
func (c *Comm) Alltoall(send, recv []byte) error { return errPending("Alltoall") }

// Gatherv: rank i's send lands at recv[displs[i]:displs[i]+counts[i]] on root (bytes).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	return errPending("Gatherv")
}

// Scatterv: rank i receives send[displs[i]:displs[i]+counts[i]] from root (bytes).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	return errPending("Scatterv")
}

// Allgatherv is Gatherv with the result on every rank.
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	return errPending("Allgatherv")
}

// Alltoallv is Alltoall with per-peer byte counts and displacements.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	return errPending("Alltoallv")
}

// Ibarrier starts a barrier.
func (c *Comm) Ibarrier() (*Request, error) { return nil, errPending("Ibarrier") }

// Ibcast starts a broadcast.
func (c *Comm) Ibcast(buf []byte, root int) (*Request, error) { return nil, errPending("Ibcast") }

// Iallreduce starts an allreduce.
func (c *Comm) Iallreduce(send, recv []byte, dt Datatype, op Op) (*Request, error) {
	return nil, errPending("Iallreduce")
}

// BcastSlice broadcasts data from root.
func BcastSlice[T Numeric](c *Comm, data []T, root int) error {
	return c.Bcast(AsBytes(data), root)
}

// ReduceSlice reduces send into root's recv.
func ReduceSlice[T Numeric](c *Comm, send, recv []T, op Op, root int) error {
	return c.Reduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op, root)
}

// AllreduceSlice reduces send into every rank's recv.
func AllreduceSlice[T Numeric](c *Comm, send, recv []T, op Op) error {
	return c.Allreduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op)
}

// Group is an ordered set of processes (world ranks).
type Group struct {
	world []int // group rank → world rank
	me    int   // this process's rank in the group, or Undefined
}

// Size is the number of processes in g.
func (g *Group) Size() int { return 0 }

// Rank is this process's rank in g, Undefined if it is not a member.
func (g *Group) Rank() int { return Undefined }

// Incl is the group of g's ranks listed, in that order.
func (g *Group) Incl(ranks []int) (*Group, error) { return nil, errPending("Group.Incl") }

// Excl is g without the ranks listed.
func (g *Group) Excl(ranks []int) (*Group, error) { return nil, errPending("Group.Excl") }

// TranslateRanks maps ranks of g to ranks of other (Undefined when absent).
func (g *Group) TranslateRanks(ranks []int, other *Group) ([]int, error) {
	return nil, errPending("Group.TranslateRanks")
}

// Union is g's members followed by h's members not in g.
func (g *Group) Union(h *Group) (*Group, error) { return nil, errPending("Group.Union") }

// Intersection is g's members that are also in h, in g's order.
func (g *Group) Intersection(h *Group) (*Group, error) {
	return nil, errPending("Group.Intersection")
}

// Difference is g's members not in h, in g's order.
func (g *Group) Difference(h *Group) (*Group, error) { return nil, errPending("Group.Difference") }

// Group comparison results (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL).
const (
	Ident   = 0
	Similar = 2
	Unequal = 3
)

// Compare says whether g and h have the same members in the same order
// (Ident), the same members in another order (Similar), or not (Unequal).
func (g *Group) Compare(h *Group) int { return Unequal }

// Group is the group of c.
func (c *Comm) Group() *Group { return nil }

// Dup is a new communicator with c's group and a new context.
func (c *Comm) Dup() (*Comm, error) { return nil, errPending("Dup") }

// Split partitions c by color, ordering each part by key (ties by rank in
// c). Color Undefined returns (nil, nil).
func (c *Comm) Split(color, key int) (*Comm, error) { return nil, errPending("Split") }

// Create is the communicator of the members of g (collective over c);
// non-members get (nil, nil).
func (c *Comm) Create(g *Group) (*Comm, error) { return nil, errPending("Create") }

// CreateGroup is Create called by the members of g only (MPI_Comm_create_group);
// tag keeps concurrent calls apart.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	return nil, errPending("CreateGroup")
}

// Free releases c; its context may be reused once every member freed it.
func (c *Comm) Free() error { return errPending("Free") }

// OpFunc combines in into inout element by element (inout[i] = in[i] op
// inout[i]); both hold the same whole number of elements of dt.
type OpFunc func(in, inout []byte, dt Datatype)

// NewOp registers a user-defined reduction operator. Collectives apply a
// non-commutative operator in rank order.
func NewOp(fn OpFunc, commutative bool) (Op, error) { return 0, errPending("NewOp") }

// Free releases a user-defined operator.
func (o Op) Free() error { return errPending("Op.Free") }

// OpaqueType is a datatype of size-byte elements that only user-defined
// operators can combine (the C ABI maps pair and long double types to it).
func OpaqueType(size int) (Datatype, error) { return 0, errPending("OpaqueType") }

// ReduceLocal is inout = in op inout, without communication (MPI_Reduce_local).
func ReduceLocal(in, inout []byte, dt Datatype, op Op) error {
	return errPending("ReduceLocal")
}
