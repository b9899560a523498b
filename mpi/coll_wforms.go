package mpi

import "math"

// The argument translation of the collectives whose blocks are typed per
// peer (Alltoallw, NeighborAlltoallw) or uniform over a neighbourhood
// (NeighborAllgather, NeighborAlltoall), shared by the engine and the
// system-MPI backends. Each form is the byte-counted v-variant underneath,
// so the translation is all there is to them; it writes into lists the
// caller provides, so the engine can hand it a schedule's scratch and stay
// allocation-free.

// typedBytes writes counts[i] elements of types[i], in bytes, to out[i].
// side names the buffer in errors.
func typedBytes(what, side string, counts []int, types []Datatype, out []int) error {
	if len(counts) != len(out) || len(types) != len(out) {
		return newErr(ErrCount, what, "%s: %d counts and %d datatypes for %d peers", side, len(counts), len(types), len(out))
	}
	for i, k := range counts {
		sz := types[i].Size()
		switch {
		case sz <= 0:
			return newErr(ErrType, what, "%s: datatype %d of peer %d is not valid", side, int(types[i]), i)
		case k < 0:
			return newErr(ErrCount, what, "%s: count %d of peer %d is negative", side, k, i)
		case k > math.MaxInt/sz:
			return newErr(ErrCount, what, "%s: %d elements of %v overflow", side, k, types[i])
		}
		out[i] = k * sz
	}
	return nil
}

// fillBlocks writes m-byte blocks, stride bytes apart, to counts and
// displs (stride 0: every block is the same bytes, an allgather's send).
func fillBlocks(counts, displs []int, m, stride int) {
	for i := range counts {
		counts[i], displs[i] = m, i*stride
	}
}

// neighborBlock is the block size of a NeighborAlltoall: the send buffer
// split over the destinations, or, at a rank that sends to none, the
// receive buffer over the sources.
func neighborBlock(what string, nb *Neighbors, send, recv []byte) (int, error) {
	if nb == nil {
		return 0, newErr(ErrArg, what, "no neighbourhood")
	}
	nd, ns := len(nb.Destinations), len(nb.Sources)
	switch {
	case nd > 0 && len(send)%nd != 0:
		return 0, newErr(ErrCount, what, "send buffer of %d bytes does not split into %d blocks", len(send), nd)
	case nd > 0:
		m := len(send) / nd
		if len(recv) < ns*m {
			return 0, newErr(ErrBuffer, what, "receive buffer of %d bytes for %d sources × %d", len(recv), ns, m)
		}
		return m, nil
	case ns > 0:
		return len(recv) / ns, nil
	}
	return 0, nil
}
