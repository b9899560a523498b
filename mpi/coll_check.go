//go:build !ompi && !mpich

package mpi

import "unsafe"

// Argument checks of the collectives. Everything a rank can check alone is
// checked before the collective starts, so a bad call sends nothing and the
// job can go on with a correct collective afterwards.

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

// checkReduceArgs validates the datatype, operator and buffers of a
// reduction of len(send) bytes into recv (when needRecv), and resolves the
// operator.
func checkReduceArgs(op string, send, recv []byte, dt Datatype, o Op, needRecv bool) (reducer, error) {
	red, err := resolveOp(op, dt, o)
	if err != nil {
		return red, err
	}
	if len(send)%red.elem != 0 {
		return red, newErr(ErrCount, op, "%d bytes is not a whole number of %v elements", len(send), dt)
	}
	if needRecv && len(recv) < len(send) {
		return red, newErr(ErrBuffer, op, "receive buffer of %d bytes for %d bytes", len(recv), len(send))
	}
	return red, nil
}

// checkBlocks validates v-variant counts and displacements (bytes) against
// a buffer of bufLen bytes.
func checkBlocks(op, what string, counts, displs []int, n, bufLen int) error {
	if len(counts) != n || len(displs) != n {
		return newErr(ErrCount, op, "%s: %d counts and %d displacements for %d ranks", what, len(counts), len(displs), n)
	}
	for i := range n {
		if counts[i] < 0 {
			return newErr(ErrCount, op, "%s: count %d of rank %d is negative", what, counts[i], i)
		}
		if displs[i] < 0 || displs[i] > bufLen || counts[i] > bufLen-displs[i] {
			return newErr(ErrBuffer, op, "%s: block of rank %d (%d bytes at %d) outside the %d-byte buffer", what, i, counts[i], displs[i], bufLen)
		}
	}
	return nil
}

// block is buf's block of rank i in a v-variant.
func block(buf []byte, counts, displs []int, i int) []byte {
	return buf[displs[i] : displs[i]+counts[i]]
}
