package colls

import "github.com/hympi/hympi/mpi"

// calls are one collective's three entry points over fixed buffers.
type calls struct {
	blocking func() error
	start    func() (*mpi.Request, error)
	init     func() (*mpi.Persistent, error)
}

// bind returns s's calls on comm c over send and recv (sliced to the
// lengths s needs on this rank; roots are rank 0).
func bind(c *mpi.Comm, s Shape, send, recv []byte) calls {
	rank := c.Rank()
	sb, rb := send[:s.SendLen(rank)], recv[:s.RecvLen(rank)]
	dt, op := mpi.Float32, mpi.Sum
	switch s.Coll {
	case Barrier:
		return calls{c.Barrier, c.Ibarrier, c.BarrierInit}
	case Bcast:
		return calls{
			func() error { return c.Bcast(sb, 0) },
			func() (*mpi.Request, error) { return c.Ibcast(sb, 0) },
			func() (*mpi.Persistent, error) { return c.BcastInit(sb, 0) },
		}
	case Gather:
		return calls{
			func() error { return c.Gather(sb, rb, 0) },
			func() (*mpi.Request, error) { return c.Igather(sb, rb, 0) },
			func() (*mpi.Persistent, error) { return c.GatherInit(sb, rb, 0) },
		}
	case Gatherv:
		return calls{
			func() error { return c.Gatherv(sb, rb, s.Counts, s.Displs, 0) },
			func() (*mpi.Request, error) { return c.Igatherv(sb, rb, s.Counts, s.Displs, 0) },
			func() (*mpi.Persistent, error) { return c.GathervInit(sb, rb, s.Counts, s.Displs, 0) },
		}
	case Scatter:
		return calls{
			func() error { return c.Scatter(sb, rb, 0) },
			func() (*mpi.Request, error) { return c.Iscatter(sb, rb, 0) },
			func() (*mpi.Persistent, error) { return c.ScatterInit(sb, rb, 0) },
		}
	case Scatterv:
		return calls{
			func() error { return c.Scatterv(sb, s.Counts, s.Displs, rb, 0) },
			func() (*mpi.Request, error) { return c.Iscatterv(sb, s.Counts, s.Displs, rb, 0) },
			func() (*mpi.Persistent, error) { return c.ScattervInit(sb, s.Counts, s.Displs, rb, 0) },
		}
	case Allgather:
		return calls{
			func() error { return c.Allgather(sb, rb) },
			func() (*mpi.Request, error) { return c.Iallgather(sb, rb) },
			func() (*mpi.Persistent, error) { return c.AllgatherInit(sb, rb) },
		}
	case Allgatherv:
		return calls{
			func() error { return c.Allgatherv(sb, rb, s.Counts, s.Displs) },
			func() (*mpi.Request, error) { return c.Iallgatherv(sb, rb, s.Counts, s.Displs) },
			func() (*mpi.Persistent, error) { return c.AllgathervInit(sb, rb, s.Counts, s.Displs) },
		}
	case Alltoall:
		return calls{
			func() error { return c.Alltoall(sb, rb) },
			func() (*mpi.Request, error) { return c.Ialltoall(sb, rb) },
			func() (*mpi.Persistent, error) { return c.AlltoallInit(sb, rb) },
		}
	case Alltoallv:
		k, d := s.Counts, s.Displs
		return calls{
			func() error { return c.Alltoallv(sb, k, d, rb, k, d) },
			func() (*mpi.Request, error) { return c.Ialltoallv(sb, k, d, rb, k, d) },
			func() (*mpi.Persistent, error) { return c.AlltoallvInit(sb, k, d, rb, k, d) },
		}
	case Alltoallw:
		k, d, t := s.Counts, s.Displs, make([]mpi.Datatype, s.N)
		for i := range t {
			t[i] = mpi.Byte
		}
		return calls{
			func() error { return c.Alltoallw(sb, k, d, t, rb, k, d, t) },
			func() (*mpi.Request, error) { return c.Ialltoallw(sb, k, d, t, rb, k, d, t) },
			func() (*mpi.Persistent, error) { return c.AlltoallwInit(sb, k, d, t, rb, k, d, t) },
		}
	case ReduceLocal:
		return calls{blocking: func() error { return mpi.ReduceLocal(sb, rb, dt, op) }}
	case NeighborAllgather, NeighborAllgatherv, NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw:
		return bindNeighbor(c, s, sb, rb)
	case Reduce:
		return calls{
			func() error { return c.Reduce(sb, rb, dt, op, 0) },
			func() (*mpi.Request, error) { return c.Ireduce(sb, rb, dt, op, 0) },
			func() (*mpi.Persistent, error) { return c.ReduceInit(sb, rb, dt, op, 0) },
		}
	case Allreduce:
		return calls{
			func() error { return c.Allreduce(sb, rb, dt, op) },
			func() (*mpi.Request, error) { return c.Iallreduce(sb, rb, dt, op) },
			func() (*mpi.Persistent, error) { return c.AllreduceInit(sb, rb, dt, op) },
		}
	case ReduceScatter:
		return calls{
			func() error { return c.ReduceScatter(sb, rb, s.Counts, dt, op) },
			func() (*mpi.Request, error) { return c.IreduceScatter(sb, rb, s.Counts, dt, op) },
			func() (*mpi.Persistent, error) { return c.ReduceScatterInit(sb, rb, s.Counts, dt, op) },
		}
	case ReduceScatterBlock:
		return calls{
			func() error { return c.ReduceScatterBlock(sb, rb, dt, op) },
			func() (*mpi.Request, error) { return c.IreduceScatterBlock(sb, rb, dt, op) },
			func() (*mpi.Persistent, error) { return c.ReduceScatterBlockInit(sb, rb, dt, op) },
		}
	case Scan:
		return calls{
			func() error { return c.Scan(sb, rb, dt, op) },
			func() (*mpi.Request, error) { return c.Iscan(sb, rb, dt, op) },
			func() (*mpi.Persistent, error) { return c.ScanInit(sb, rb, dt, op) },
		}
	case Exscan:
		return calls{
			func() error { return c.Exscan(sb, rb, dt, op) },
			func() (*mpi.Request, error) { return c.Iexscan(sb, rb, dt, op) },
			func() (*mpi.Persistent, error) { return c.ExscanInit(sb, rb, dt, op) },
		}
	}
	panic("colls: no calls for " + s.Coll.String())
}

// bindNeighbor binds the neighbourhood collectives, on the periodic ring
// osu_colls.c makes with MPI_Cart_create.
func bindNeighbor(c *mpi.Comm, s Shape, sb, rb []byte) calls {
	nb := mpi.CartNeighbors([]int{s.N}, []bool{true}, c.Rank())
	k, d, t := []int{s.Count, s.Count}, []int{0, s.Count}, []mpi.Datatype{mpi.Byte, mpi.Byte}
	switch s.Coll {
	case NeighborAllgather:
		return calls{
			func() error { return c.NeighborAllgather(nb, sb, rb) },
			func() (*mpi.Request, error) { return c.IneighborAllgather(nb, sb, rb) },
			func() (*mpi.Persistent, error) { return c.NeighborAllgatherInit(nb, sb, rb) },
		}
	case NeighborAllgatherv:
		return calls{
			func() error { return c.NeighborAllgatherv(nb, sb, rb, k, d) },
			func() (*mpi.Request, error) { return c.IneighborAllgatherv(nb, sb, rb, k, d) },
			func() (*mpi.Persistent, error) { return c.NeighborAllgathervInit(nb, sb, rb, k, d) },
		}
	case NeighborAlltoall:
		return calls{
			func() error { return c.NeighborAlltoall(nb, sb, rb) },
			func() (*mpi.Request, error) { return c.IneighborAlltoall(nb, sb, rb) },
			func() (*mpi.Persistent, error) { return c.NeighborAlltoallInit(nb, sb, rb) },
		}
	case NeighborAlltoallv:
		return calls{
			func() error { return c.NeighborAlltoallv(nb, sb, k, d, rb, k, d) },
			func() (*mpi.Request, error) { return c.IneighborAlltoallv(nb, sb, k, d, rb, k, d) },
			func() (*mpi.Persistent, error) { return c.NeighborAlltoallvInit(nb, sb, k, d, rb, k, d) },
		}
	}
	return calls{
		func() error { return c.NeighborAlltoallw(nb, sb, k, d, t, rb, k, d, t) },
		func() (*mpi.Request, error) { return c.IneighborAlltoallw(nb, sb, k, d, t, rb, k, d, t) },
		func() (*mpi.Persistent, error) { return c.NeighborAlltoallwInit(nb, sb, k, d, t, rb, k, d, t) },
	}
}
