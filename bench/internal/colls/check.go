package colls

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Shape is one collective's arguments at one size on a job of N ranks.
// Byte collectives move Count bytes per block; reductions sum Count
// float32s, and the reduce-scatters leave Block floats on each rank (the
// last also Rem for Reduce_scatter). Counts and Displs are per rank, in
// bytes, for the v-variants and Reduce_scatter.
type Shape struct {
	Coll           Coll
	Size           int
	N              int
	Count          int
	Block, Rem     int
	Counts, Displs []int
}

// NewShape lays out c at size bytes on n ranks, as osu_colls.c does.
func NewShape(c Coll, size, n int) Shape {
	s := Shape{Coll: c, Size: size, N: n, Counts: make([]int, n), Displs: make([]int, n)}
	if c.Reduction() {
		s.Count = max(size/4, 1)
		s.Block = max(s.Count/n, 1)
		if c == ReduceScatter && s.Count > s.Block*n {
			s.Rem = s.Count - s.Block*n
		}
	} else {
		s.Count = size
	}
	for i := range n {
		switch c {
		case ReduceScatter, ReduceScatterBlock:
			s.Counts[i] = 4 * s.Block
			if i == n-1 {
				s.Counts[i] += 4 * s.Rem
			}
			s.Displs[i] = 4 * i * s.Block
		default:
			s.Counts[i], s.Displs[i] = s.Count, i*s.Count
		}
	}
	return s
}

// SendLen and RecvLen are the bytes of the send and receive buffers a
// call of s uses on rank (roots are rank 0).
func (s Shape) SendLen(rank int) int {
	switch s.Coll {
	case Barrier:
		return 0
	case Scatter, Scatterv:
		if rank == 0 {
			return s.N * s.Count
		}
		return s.Count
	case Alltoall, Alltoallv, Alltoallw:
		return s.N * s.Count
	case NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw:
		return 2 * s.Count
	case ReduceScatterBlock:
		return 4 * s.Block * s.N
	case ReduceScatter:
		return 4 * (s.Block*s.N + s.Rem)
	}
	if s.Coll.Reduction() {
		return 4 * s.Count
	}
	return s.Count
}

// RecvLen: see SendLen.
func (s Shape) RecvLen(rank int) int {
	switch s.Coll {
	case Barrier, Bcast:
		return 0
	case Gather, Gatherv:
		if rank == 0 {
			return s.N * s.Count
		}
		return s.Count
	case Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw:
		return s.N * s.Count
	case NeighborAllgather, NeighborAllgatherv, NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw:
		return 2 * s.Count
	case Scatter, Scatterv:
		return s.Count
	case ReduceScatterBlock:
		return 4 * s.Block
	case ReduceScatter:
		return s.Counts[rank]
	}
	return 4 * s.Count
}

// ringNeighbors are rank's neighbours on the periodic ring of n ranks the
// neighbourhood collectives run on: below, then above (MPI_Cart_shift's).
func ringNeighbors(rank, n int) [2]int { return [2]int{(rank + n - 1) % n, (rank + 1) % n} }

// pat is byte j of the block rank from sends to rank to.
func pat(from, to, j int) byte { return byte(from*31 + to*7 + j*13 + 1) }

// fpat is float i of rank r's reduction input: small whole numbers, so
// every sum is exact whatever the order of the additions.
func fpat(r, i int) float32 { return float32(r + 1 + i%5) }

// sumRanks is the sum over ranks lo..hi-1 of fpat(r, i).
func sumRanks(lo, hi, i int) float32 {
	var s float32
	for r := lo; r < hi; r++ {
		s += fpat(r, i)
	}
	return s
}

func putF(b []byte, i int, v float32) { binary.NativeEndian.PutUint32(b[4*i:], math.Float32bits(v)) }
func getF(b []byte, i int) float32    { return math.Float32frombits(binary.NativeEndian.Uint32(b[4*i:])) }

// Fill writes rank's input pattern into send and clears recv.
func (s Shape) Fill(rank int, send, recv []byte) {
	clear(recv)
	n := s.Count
	switch s.Coll {
	case Barrier:
	case Bcast:
		for j := range n {
			send[j] = 0
			if rank == 0 {
				send[j] = pat(0, 0, j)
			}
		}
	case Gather, Gatherv, Allgather, Allgatherv, NeighborAllgather, NeighborAllgatherv:
		for j := range n {
			send[j] = pat(rank, 0, j)
		}
	case NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw:
		// The pattern names the destination rank, not the block: on a
		// ring of two both blocks go to one rank, and any pairing of
		// them is then read alike.
		for k, d := range ringNeighbors(rank, s.N) {
			for j := range n {
				send[k*n+j] = pat(rank, d, j)
			}
		}
	case Scatter, Scatterv, Alltoall, Alltoallv, Alltoallw:
		if rank != 0 && (s.Coll == Scatter || s.Coll == Scatterv) {
			break // only the root's send is read
		}
		for d := range s.N {
			for j := range n {
				send[d*n+j] = pat(rank, d, j)
			}
		}
	default:
		for i := range s.SendLen(rank) / 4 {
			putF(send, i, fpat(rank, i))
		}
	}
}

// Verify checks rank's result of one call of s (Bcast's is in send, every
// other in recv) against the standard's definition; the error says where
// the first difference is.
func (s Shape) Verify(rank int, send, recv []byte) error {
	n := s.Count
	byteAt := func(b []byte, i int, want byte) error {
		if b[i] != want {
			return fmt.Errorf("%s size %d on rank %d of %d: byte %d is %d, want %d", s.Coll, s.Size, rank, s.N, i, b[i], want)
		}
		return nil
	}
	floatAt := func(i, off int, want float32) error {
		if got := getF(recv, i); got != want {
			return fmt.Errorf("%s size %d on rank %d of %d: element %d is %g, want %g", s.Coll, s.Size, rank, s.N, off+i, got, want)
		}
		return nil
	}
	switch s.Coll {
	case Barrier:
	case Bcast:
		for j := range n {
			if err := byteAt(send, j, pat(0, 0, j)); err != nil {
				return err
			}
		}
	case Gather, Gatherv, Allgather, Allgatherv:
		if rank != 0 && (s.Coll == Gather || s.Coll == Gatherv) {
			return nil
		}
		for src := range s.N {
			for j := range n {
				if err := byteAt(recv, src*n+j, pat(src, 0, j)); err != nil {
					return err
				}
			}
		}
	case Scatter, Scatterv:
		for j := range n {
			if err := byteAt(recv, j, pat(0, rank, j)); err != nil {
				return err
			}
		}
	case Alltoall, Alltoallv, Alltoallw:
		for src := range s.N {
			for j := range n {
				if err := byteAt(recv, src*n+j, pat(src, rank, j)); err != nil {
					return err
				}
			}
		}
	case NeighborAllgather, NeighborAllgatherv, NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw:
		to := rank
		if s.Coll == NeighborAllgather || s.Coll == NeighborAllgatherv {
			to = 0
		}
		for k, src := range ringNeighbors(rank, s.N) {
			for j := range n {
				if err := byteAt(recv, k*n+j, pat(src, to, j)); err != nil {
					return err
				}
			}
		}
	case ReduceLocal: // recv was zero: it is now send
		for i := range n {
			if err := floatAt(i, 0, fpat(rank, i)); err != nil {
				return err
			}
		}
	case Reduce, Allreduce, Scan, Exscan:
		hi := s.N
		switch {
		case s.Coll == Reduce && rank != 0, s.Coll == Exscan && rank == 0:
			return nil // undefined there
		case s.Coll == Scan:
			hi = rank + 1
		case s.Coll == Exscan:
			hi = rank
		}
		for i := range n {
			if err := floatAt(i, 0, sumRanks(0, hi, i)); err != nil {
				return err
			}
		}
	case ReduceScatter, ReduceScatterBlock:
		off := rank * s.Block
		for i := range s.RecvLen(rank) / 4 {
			if err := floatAt(i, off, sumRanks(0, s.N, off+i)); err != nil {
				return err
			}
		}
	}
	return nil
}
