package mpi

// Typed forms of the neighbourhood collectives, as typed.go's: slices of a
// Numeric element type, counts and displacements in elements. (The
// w-variant keeps its byte API: its datatypes differ per neighbour.)

// NeighborAllgatherSlice sends send to every destination of nb; block k
// of recv (len(send) elements) comes from nb.Sources[k].
func NeighborAllgatherSlice[T Numeric](c *Comm, nb *Neighbors, send, recv []T) error {
	return c.NeighborAllgather(nb, AsBytes(send), AsBytes(recv))
}

// NeighborAllgathervSlice is NeighborAllgatherSlice with block k of recv
// counts[k] elements at displs[k].
func NeighborAllgathervSlice[T Numeric](c *Comm, nb *Neighbors, send, recv []T, counts, displs []int) error {
	bc, err := byteCounts[T]("NeighborAllgatherv", counts)
	if err != nil {
		return err
	}
	bd, err := byteCounts[T]("NeighborAllgatherv", displs)
	if err != nil {
		return err
	}
	return c.NeighborAllgatherv(nb, AsBytes(send), AsBytes(recv), bc, bd)
}

// NeighborAlltoallSlice sends block k of send to nb.Destinations[k] and
// receives block k of recv from nb.Sources[k]; blocks are
// len(send)/len(nb.Destinations) elements.
func NeighborAlltoallSlice[T Numeric](c *Comm, nb *Neighbors, send, recv []T) error {
	return c.NeighborAlltoall(nb, AsBytes(send), AsBytes(recv))
}

// NeighborAlltoallvSlice is NeighborAlltoallSlice with per-neighbour
// counts and displacements in elements.
func NeighborAlltoallvSlice[T Numeric](c *Comm, nb *Neighbors, send []T, scounts, sdispls []int, recv []T, rcounts, rdispls []int) error {
	var bs [4][]int
	for i, xs := range [4][]int{scounts, sdispls, rcounts, rdispls} {
		b, err := byteCounts[T]("NeighborAlltoallv", xs)
		if err != nil {
			return err
		}
		bs[i] = b
	}
	return c.NeighborAlltoallv(nb, AsBytes(send), bs[0], bs[1], AsBytes(recv), bs[2], bs[3])
}
