package mpi

import (
	"math"
	"unsafe"
)

// Typed forms of the buffer-taking calls. Each takes slices of a Numeric
// element type and, where the byte API takes counts and displacements,
// takes them in elements; the datatype of a reduction is the element type.
// They are thin: the bytes go exactly where the byte API would send them.
// Status.Count stays in bytes; ElemCount converts it.

// ElemCount is the number of whole T elements in a received message.
func ElemCount[T Numeric](st Status) int {
	return st.Count / elemSize[T]()
}

func elemSize[T Numeric]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// byteCounts scales element counts or displacements to bytes. nil stays
// nil (a non-root rank need not pass them). A negative entry stays negative
// for the byte API to refuse by name; one too large to scale is refused here.
func byteCounts[T Numeric](what string, xs []int) ([]int, error) {
	if xs == nil {
		return nil, nil
	}
	size := elemSize[T]()
	out := make([]int, len(xs))
	for i, x := range xs {
		if x > math.MaxInt/size || x < math.MinInt/size {
			return nil, newErr(ErrCount, what, "count %d of rank %d is too large", x, i)
		}
		out[i] = x * size
	}
	return out, nil
}

// SsendSlice sends data and returns once the receiver has matched it.
func SsendSlice[T Numeric](c *Comm, data []T, dest, tag int) error {
	return c.Ssend(AsBytes(data), dest, tag)
}

// BsendSlice copies data into the attached buffer (BufferAttach) and
// returns; the message leaves from there.
func BsendSlice[T Numeric](c *Comm, data []T, dest, tag int) error {
	return c.Bsend(AsBytes(data), dest, tag)
}

// IsendSlice starts a send of data; data must not change until it completes.
func IsendSlice[T Numeric](c *Comm, data []T, dest, tag int) (*Request, error) {
	return c.Isend(AsBytes(data), dest, tag)
}

// IssendSlice starts a synchronous send of data.
func IssendSlice[T Numeric](c *Comm, data []T, dest, tag int) (*Request, error) {
	return c.Issend(AsBytes(data), dest, tag)
}

// IrecvSlice starts a receive into data.
func IrecvSlice[T Numeric](c *Comm, data []T, source, tag int) (*Request, error) {
	return c.Irecv(AsBytes(data), source, tag)
}

// SendrecvSlice sends send to dest and receives into recv from source, as
// one call that cannot deadlock against a matching SendrecvSlice. The two
// element types may differ.
func SendrecvSlice[S, R Numeric](c *Comm, send []S, dest, sendtag int, recv []R, source, recvtag int) (Status, error) {
	return c.Sendrecv(AsBytes(send), dest, sendtag, AsBytes(recv), source, recvtag)
}

// IbcastSlice starts a broadcast of data from root.
func IbcastSlice[T Numeric](c *Comm, data []T, root int) (*Request, error) {
	return c.Ibcast(AsBytes(data), root)
}

// IallreduceSlice starts an allreduce of send into recv.
func IallreduceSlice[T Numeric](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.Iallreduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op)
}

// ScanSlice is the inclusive prefix reduction: rank r's recv combines the
// send of ranks 0..r.
func ScanSlice[T Numeric](c *Comm, send, recv []T, op Op) error {
	return c.Scan(AsBytes(send), AsBytes(recv), TypeOf[T](), op)
}

// ExscanSlice is the exclusive prefix reduction: rank r's recv combines the
// send of ranks 0..r-1; rank 0's recv is left as it was.
func ExscanSlice[T Numeric](c *Comm, send, recv []T, op Op) error {
	return c.Exscan(AsBytes(send), AsBytes(recv), TypeOf[T](), op)
}

// ReduceScatterBlockSlice reduces Size()·len(recv) elements and leaves
// block i on rank i.
func ReduceScatterBlockSlice[T Numeric](c *Comm, send, recv []T, op Op) error {
	return c.ReduceScatterBlock(AsBytes(send), AsBytes(recv), TypeOf[T](), op)
}

// ReduceScatterSlice reduces sum(counts) elements and leaves counts[i]
// elements on rank i.
func ReduceScatterSlice[T Numeric](c *Comm, send, recv []T, counts []int, op Op) error {
	bc, err := byteCounts[T]("ReduceScatter", counts)
	if err != nil {
		return err
	}
	return c.ReduceScatter(AsBytes(send), AsBytes(recv), bc, TypeOf[T](), op)
}

// GatherSlice collects len(send) elements from each rank into root's recv,
// in rank order.
func GatherSlice[T Numeric](c *Comm, send, recv []T, root int) error {
	return c.Gather(AsBytes(send), AsBytes(recv), root)
}

// GathervSlice: rank i's send lands at recv[displs[i]:displs[i]+counts[i]]
// on root. Counts and displacements are in elements and matter only at root.
func GathervSlice[T Numeric](c *Comm, send, recv []T, counts, displs []int, root int) error {
	bc, err := byteCounts[T]("Gatherv", counts)
	if err != nil {
		return err
	}
	bd, err := byteCounts[T]("Gatherv", displs)
	if err != nil {
		return err
	}
	return c.Gatherv(AsBytes(send), AsBytes(recv), bc, bd, root)
}

// ScatterSlice sends block i of root's send (len(recv) elements each) to
// rank i.
func ScatterSlice[T Numeric](c *Comm, send, recv []T, root int) error {
	return c.Scatter(AsBytes(send), AsBytes(recv), root)
}

// ScattervSlice: rank i receives send[displs[i]:displs[i]+counts[i]] from
// root. Counts and displacements are in elements and matter only at root.
func ScattervSlice[T Numeric](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	bc, err := byteCounts[T]("Scatterv", counts)
	if err != nil {
		return err
	}
	bd, err := byteCounts[T]("Scatterv", displs)
	if err != nil {
		return err
	}
	return c.Scatterv(AsBytes(send), bc, bd, AsBytes(recv), root)
}

// AllgatherSlice is GatherSlice with the result on every rank.
func AllgatherSlice[T Numeric](c *Comm, send, recv []T) error {
	return c.Allgather(AsBytes(send), AsBytes(recv))
}

// AllgathervSlice is GathervSlice with the result on every rank.
func AllgathervSlice[T Numeric](c *Comm, send, recv []T, counts, displs []int) error {
	bc, err := byteCounts[T]("Allgatherv", counts)
	if err != nil {
		return err
	}
	bd, err := byteCounts[T]("Allgatherv", displs)
	if err != nil {
		return err
	}
	return c.Allgatherv(AsBytes(send), AsBytes(recv), bc, bd)
}

// AlltoallSlice sends block j of send to rank j; block i of recv comes from
// rank i. Blocks are len(send)/Size() elements.
func AlltoallSlice[T Numeric](c *Comm, send, recv []T) error {
	return c.Alltoall(AsBytes(send), AsBytes(recv))
}

// AlltoallvSlice is AlltoallSlice with per-peer counts and displacements,
// in elements.
func AlltoallvSlice[T Numeric](c *Comm, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	var bs [4][]int
	for i, xs := range [4][]int{scounts, sdispls, rcounts, rdispls} {
		b, err := byteCounts[T]("Alltoallv", xs)
		if err != nil {
			return err
		}
		bs[i] = b
	}
	return c.Alltoallv(AsBytes(send), bs[0], bs[1], AsBytes(recv), bs[2], bs[3])
}
