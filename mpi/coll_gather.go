//go:build !ompi && !mpich

package mpi

// Gather, scatter, allgather and all-to-all. Every block goes straight from
// the sender's buffer to its place in the receiver's (no staging), and a
// rank's own block is a local copy.

// gathervSchedule: every rank sends its block to root, which receives each
// directly into place (counts and displs matter at root only).
func gathervSchedule(s *schedule, rank, root, n int, send, recv []byte, counts, displs []int) {
	if rank != root {
		s.round(collRound{sends: []collXfer{{peer: root, buf: send}}})
		return
	}
	var rd collRound
	for i := range n {
		if i != root {
			rd.recvs = append(rd.recvs, collXfer{peer: i, buf: block(recv, counts, displs, i)})
		}
	}
	own := block(recv, counts, displs, root)
	rd.after = func() { copy(own, send) }
	s.round(rd)
}

// scattervSchedule: root sends each rank its block.
func scattervSchedule(s *schedule, rank, root, n int, send []byte, counts, displs []int, recv []byte) {
	if rank != root {
		s.round(collRound{recvs: []collXfer{{peer: root, buf: recv}}})
		return
	}
	var rd collRound
	for k := 1; k < n; k++ {
		i := (root + k) % n
		rd.sends = append(rd.sends, collXfer{peer: i, buf: block(send, counts, displs, i)})
	}
	own := block(send, counts, displs, root)
	rd.after = func() { copy(recv, own) }
	s.round(rd)
}

// allgathervSchedule is a ring: in step k each rank passes the block it got
// in step k-1 (its own at first) to the right, so after n-1 steps every
// block has been everywhere, each link carrying each block once.
func allgathervSchedule(s *schedule, rank, n int, send, recv []byte, counts, displs []int) {
	own := block(recv, counts, displs, rank)
	if !sameBuf(send, own) {
		// A round of its own rather than now: a persistent collective
		// builds its schedule to check the arguments before any start.
		s.local(func() { copy(own, send) })
	}
	right, left := (rank+1)%n, (rank-1+n)%n
	for k := 0; k < n-1; k++ {
		out := (rank - k + n) % n
		in := (rank - k - 1 + n) % n
		s.round(collRound{
			sends: []collXfer{{peer: right, buf: block(recv, counts, displs, out)}},
			recvs: []collXfer{{peer: left, buf: block(recv, counts, displs, in)}},
		})
	}
}

// alltoallvSchedule posts every receive and every send in one round; the
// sends start with the right neighbour and go round, so ranks do not all
// send to rank 0 first.
func alltoallvSchedule(s *schedule, rank, n int, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) {
	var rd collRound
	for k := 1; k < n; k++ {
		to, from := (rank+k)%n, (rank-k+n)%n
		rd.recvs = append(rd.recvs, collXfer{peer: from, buf: block(recv, rcounts, rdispls, from)})
		rd.sends = append(rd.sends, collXfer{peer: to, buf: block(send, scounts, sdispls, to)})
	}
	mine := block(send, scounts, sdispls, rank)
	dst := block(recv, rcounts, rdispls, rank)
	// The own block is copied first (the caller checked both lengths agree).
	s.local(func() { copy(dst, mine) })
	s.round(rd)
}

// uniform is counts and displacements of n blocks of m bytes in rank order.
func uniform(n, m int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = m, i*m
	}
	return counts, displs
}
