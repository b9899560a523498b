package colls

import (
	"fmt"
	"testing"
)

// reference computes every rank's result of s serially from the ranks'
// send buffers, the way the standard defines each collective; it shares
// nothing with Verify but the layout (Shape) and the inputs (Fill).
func reference(s Shape, sends [][]byte) (outSend, outRecv [][]byte) {
	n := s.N
	outSend, outRecv = make([][]byte, n), make([][]byte, n)
	for r := range n {
		outSend[r] = append([]byte(nil), sends[r]...)
		outRecv[r] = make([]byte, s.RecvLen(r))
	}
	sum := func(lo, hi int) []byte { // float sums of ranks lo..hi-1, elementwise
		out := make([]byte, len(sends[0]))
		for i := range len(out) / 4 {
			var v float32
			for r := lo; r < hi; r++ {
				v += getF(sends[r], i)
			}
			putF(out, i, v)
		}
		return out
	}
	for r := range n {
		switch s.Coll {
		case Bcast:
			copy(outSend[r], sends[0])
		case Gather, Gatherv, Allgather, Allgatherv:
			if r == 0 || s.Coll == Allgather || s.Coll == Allgatherv {
				for src := range n {
					copy(outRecv[r][s.Displs[src]:], sends[src][:s.Counts[src]])
				}
			}
		case Scatter, Scatterv:
			copy(outRecv[r], sends[0][s.Displs[r]:s.Displs[r]+s.Counts[r]])
		case Alltoall, Alltoallv, Alltoallw:
			for src := range n {
				copy(outRecv[r][s.Displs[src]:], sends[src][s.Displs[r]:s.Displs[r]+s.Counts[r]])
			}
		case NeighborAllgather, NeighborAllgatherv:
			for k, src := range [2]int{(r + n - 1) % n, (r + 1) % n} {
				copy(outRecv[r][k*s.Count:], sends[src][:s.Count])
			}
		case NeighborAlltoall, NeighborAlltoallv, NeighborAlltoallw:
			// MPI's Cartesian pairing: block k (0 from below) is the
			// source's block 1-k (sent up, or down).
			for k, src := range [2]int{(r + n - 1) % n, (r + 1) % n} {
				copy(outRecv[r][k*s.Count:], sends[src][(1-k)*s.Count:(2-k)*s.Count])
			}
		case ReduceLocal:
			copy(outRecv[r], sends[r][:4*s.Count])
		case Reduce, Allreduce:
			if r == 0 || s.Coll == Allreduce {
				copy(outRecv[r], sum(0, n))
			}
		case Scan:
			copy(outRecv[r], sum(0, r+1))
		case Exscan:
			if r > 0 {
				copy(outRecv[r], sum(0, r))
			}
		case ReduceScatter, ReduceScatterBlock:
			copy(outRecv[r], sum(0, n)[s.Displs[r]:])
		}
	}
	return outSend, outRecv
}

// definedAt says whether rank's result of c is defined by the standard
// (the root's for rooted collectives, every rank's but 0's for Exscan).
func definedAt(c Coll, rank int) bool {
	switch c {
	case Barrier:
		return false
	case Gather, Gatherv, Reduce:
		return rank == 0
	case Exscan:
		return rank != 0
	}
	return true
}

// TestVerify: Verify accepts the standard's result of every collective on
// every rank, and rejects it with one element changed wherever the result
// is defined.
func TestVerify(t *testing.T) {
	for c := range NumColls {
		for _, n := range []int{2, 3, 5, 8} {
			for _, size := range []int{1, 8, 12, 1000, 4096} {
				if c.Reduction() && size < 4 {
					continue
				}
				s := NewShape(c, size, n)
				name := fmt.Sprintf("%s/n=%d/%d", c, n, size)
				sends := make([][]byte, n)
				for r := range n {
					sends[r] = make([]byte, s.SendLen(r)+64)
					s.Fill(r, sends[r], make([]byte, 8))
				}
				outSend, outRecv := reference(s, sends)
				for r := range n {
					if err := s.Verify(r, outSend[r], outRecv[r]); err != nil {
						t.Fatalf("%s rank %d: right result rejected: %v", name, r, err)
					}
					if !definedAt(c, r) {
						continue
					}
					buf, i := outRecv[r], s.RecvLen(r)-1 // the last element: a short loop would miss it
					if c == Bcast {
						buf, i = outSend[r], s.Count-1
					}
					buf[i] ^= 0x40
					if err := s.Verify(r, outSend[r], outRecv[r]); err == nil {
						t.Fatalf("%s rank %d: byte %d changed, result accepted", name, r, i)
					}
					buf[i] ^= 0x40
				}
			}
		}
	}
}

// TestVerifyWrongBlock: blocks from the wrong peer (a swapped gather, a
// broadcast from rank 1) are caught, not only corrupted bytes.
func TestVerifyWrongBlock(t *testing.T) {
	s := NewShape(Allgather, 16, 3)
	sends := make([][]byte, 3)
	for r := range 3 {
		sends[r] = make([]byte, 16)
		s.Fill(r, sends[r], nil)
	}
	recv := append(append(append([]byte(nil), sends[1]...), sends[0]...), sends[2]...)
	if err := s.Verify(0, nil, recv); err == nil {
		t.Error("allgather with blocks 0 and 1 swapped accepted")
	}
	b := NewShape(Bcast, 16, 3)
	one := make([]byte, 16)
	for j := range one {
		one[j] = pat(1, 0, j)
	}
	if err := b.Verify(2, one, nil); err == nil {
		t.Error("bcast of rank 1's pattern accepted")
	}
}

func TestShape(t *testing.T) {
	tests := []struct {
		c                   Coll
		size, n             int
		count, block, rem   int
		send0, recv0, recvL int // SendLen(0), RecvLen(0), RecvLen(n-1)
	}{
		{Bcast, 8, 4, 8, 0, 0, 8, 0, 0},
		{Gather, 8, 4, 8, 0, 0, 8, 32, 8},
		{Scatter, 8, 4, 8, 0, 0, 32, 8, 8},
		{Alltoall, 1024, 8, 1024, 0, 0, 8192, 8192, 8192},
		{Allreduce, 8, 8, 2, 1, 0, 8, 8, 8},
		{ReduceScatterBlock, 8, 8, 2, 1, 0, 32, 4, 4}, // one float per rank at least
		{ReduceScatter, 40, 3, 10, 3, 1, 40, 12, 16},  // the remainder on the last rank
		{Barrier, 0, 2, 0, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		s := NewShape(tt.c, tt.size, tt.n)
		got := []int{s.Count, s.Block, s.Rem, s.SendLen(0), s.RecvLen(0), s.RecvLen(tt.n - 1)}
		want := []int{tt.count, tt.block, tt.rem, tt.send0, tt.recv0, tt.recvL}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s %d B on %d: count, block, rem, send0, recv0, recvLast = %v, want %v", tt.c, tt.size, tt.n, got, want)
		}
	}
}
