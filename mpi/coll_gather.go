//go:build !ompi && !mpich

package mpi

// Gather, scatter, allgather and all-to-all. Every block goes straight from
// the sender's buffer to its place in the receiver's (no staging), and a
// rank's own block is a local copy.

// onePerPair puts the small messages of s on the collective ring when no
// rank sends another more than one message in the collective (the v
// forms, whose counts only the root or the pair itself knows, so no rank
// can tell whether every message fits a slot). The ring rule — one ring
// for all the messages of a collective — exists so that two messages
// between a pair cannot overtake each other; with one message a pair
// there is nothing to overtake, and each message picks its ring by its
// own size (engine.issue). Without it a Scatterv of 8 B took the
// descriptor ring and a cell per block where Scatter took the slot: at 4
// ranks on 2 CPUs 3.4× Open MPI's time against Scatter's 0.3×.
func (s *schedule) onePerPair() { s.small = true }

// gathervSched: every rank sends its block to root, which receives each
// directly into place (counts and displs matter at root only). The root's
// own block is copied once the others are in: the root reads them itself,
// so copying first would only make the senders wait for it (at 2 ranks a
// 1 MiB Gather took 130-216 µs copying first against 100-123).
func gathervSched(s *schedule, rank, root, n int, send, recv []byte, counts, displs []int) {
	s.next()
	if rank != root {
		s.send(root, send)
		return
	}
	for i := range n {
		if i != root {
			s.recv(i, block(recv, counts, displs, i))
		}
	}
	if own := block(recv, counts, displs, root); !sameBuf(own, send) {
		s.copyStep(own, send)
	}
}

// scattervSched: root sends each rank its block, and copies its own after
// the messages or, with overlap (ownOverlaps), while the ranks read theirs.
func scattervSched(s *schedule, rank, root, n int, send []byte, counts, displs []int, recv []byte, overlap bool) {
	s.next()
	if rank != root {
		s.recv(root, recv)
		return
	}
	for k := 1; k < n; k++ {
		i := (root + k) % n
		s.send(i, block(send, counts, displs, i))
	}
	if own := block(send, counts, displs, root); !sameBuf(own, recv) {
		s.ownCopy(recv, own, overlap)
	}
}

// ownOverlaps reports whether a Scatter root's own block of m bytes is
// copied while the other blocks travel (the schedule's own copy, made
// after the messages start) rather than after they arrive: with a CPU per
// rank and a large block, as Alltoall's (alltoallOverlapMin). Otherwise
// the root waits for the peers' reads of their blocks and only then copies
// its own: at 2 ranks (osu_colls from Go, 11 alternating runs on a loaded
// machine) a 4 MiB Scatter took 727 µs overlapped against 1257 (best runs
// 401 against 611), 1 MiB 91 against 108.
func ownOverlaps(m int, oversub bool) bool { return m >= alltoallOverlapMin && !oversub }

// ownCopy is the copy dst = src of a rank's own block, made after the
// current round's messages, or with overlap as the schedule's own copy
// once they start. Only the first round's may overlap: the own copy is
// made at the start.
func (s *schedule) ownCopy(dst, src []byte, overlap bool) {
	if overlap && len(s.rounds) == 1 && s.own[0] == nil {
		s.own = [2][]byte{dst, src}
		s.ownAfter = true
		return
	}
	s.copyStep(dst, src)
}

// allgathervSched: with direct, every rank sends its block to every other
// in one round; otherwise a ring, in which in step k each rank passes the
// block it got in step k-1 (its own at first) to the right, so after n-1
// steps every block has been everywhere, each link carrying each block
// once. The own block goes out from send, not from its place in recv, so
// the own copy may overlap the messages (allgatherOverlapMin).
func allgathervSched(s *schedule, rank, n int, send, recv []byte, counts, displs []int, direct bool) {
	blk := func(j int) []byte {
		if j == rank {
			return send
		}
		return block(recv, counts, displs, j)
	}
	if own := block(recv, counts, displs, rank); !sameBuf(own, send) {
		s.own = [2][]byte{own, send}
	}
	if n == 1 {
		return
	}
	if direct {
		s.next()
		for k := 1; k < n; k++ {
			from := (rank - k + n) % n
			s.recv(from, blk(from))
		}
		for k := 1; k < n; k++ {
			s.send((rank+k)%n, send)
		}
		return
	}
	right, left := (rank+1)%n, (rank-1+n)%n
	for k := 0; k < n-1; k++ {
		s.exchange(right, blk((rank-k+n)%n), left, blk((rank-k-1+n)%n))
	}
}

// allgatherDirectMax: blocks up to this size are sent straight to every
// rank in one round rather than passed round the ring in n-1. At 4 ranks
// on 2 cores (osu_allgather, medians of 5) the one round took 2.7 µs
// against the ring's 4.1 at 8 B, 33 against 51 at 64 KiB, 177 against
// 231 at 256 KiB and tied at 1 MiB (943 against 1003); at 8 ranks it won
// up to 256 KiB (840 against 1316 µs) and lost at 1 MiB (6.2 against
// 5.3 ms), where every rank's buffer is read by all the others at once.
// Those were eager messages, though (an oversubscribed job's collective
// messages up to 1 MiB are): copied into the cells by the sender and out
// by the receiver. Read by the receivers instead (markReads), the one
// round won at every size oversubscribed: at 4 ranks on 2 cores 1 MiB
// took 0.8-1.1 ms against 3.1-6.2 ms round the ring, at 8 ranks 4.0 ms
// against 6.8 at best (osu_colls from Go, alternating runs on a loaded
// machine), so an oversubscribed job takes it whatever the size. A
// variable so benchmarks and tests can move it.
var allgatherDirectMax = 256 << 10

// alltoallvSched posts every receive and every send in one round, sends
// starting with the right neighbour and receives with the left, in the
// order of increasing distance so that no rank is everyone's first
// partner. The own block is the schedule's own copy. At 2 ranks this is a single
// exchange with the partner. Pairwise exchange (n-1 rounds, one peer
// each) lost to the one round at every size at 4 ranks on 2 cores
// (osu_alltoall -i 100 -x 10, medians of 7: 8 B 4.5 against 2.7 µs, 1 KiB
// 6.9 against 4.4, 1 MiB 1089 against 899), so it was not kept; every
// rank posting all its messages at once lets whichever ranks the
// scheduler runs make progress. Nor was routing through rank 0 (each rank
// sends its whole buffer to 0, which regroups the blocks and sends each
// rank its receive buffer: 2(n-1) messages instead of n(n-1), the trick
// of the flat barrier): at 4 ranks on 2 cores it took 5.1 against 4.4 µs
// at 8 B, 6.4 against 4.4 at 1 KiB and 19 against 8.4 at 8 KiB, rank 0's
// serial regrouping and its two hops costing more than the messages
// saved. Building it without closures or fresh slices
// took osu_alltoall from 1.5 to 0.6-0.8 µs at 8 B on 2 ranks and from
// 4.5-9 to 2.7-2.9 µs at 4 ranks on 2 cores.
func alltoallvSched(s *schedule, rank, n int, send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) {
	if dst, src := block(recv, rcounts, rdispls, rank), block(send, scounts, sdispls, rank); !sameBuf(dst, src) {
		s.own = [2][]byte{dst, src}
	}
	if n == 1 {
		return
	}
	s.next()
	for k := 1; k < n; k++ {
		from := (rank - k + n) % n
		s.recv(from, block(recv, rcounts, rdispls, from))
	}
	for k := 1; k < n; k++ {
		to := (rank + k) % n
		s.send(to, block(send, scounts, sdispls, to))
	}
}

// alltoallOverlapMin: from this block size a blocking Alltoall with a CPU
// per rank copies its own block after starting the exchange instead of
// before, so the copy overlaps the peers' reads of its send buffer. At 2
// ranks (osu_alltoall, medians of 15) 1 MiB took 201 µs against 361 µs
// copying first; 256 KiB tied (31 against 32 µs). Oversubscribed the copy
// has no idle CPU to overlap with, and at 4 ranks on 2 cores 1 MiB came
// out 2-6% slower, so there the copy stays first. A variable so benchmarks
// can move it.
var alltoallOverlapMin = 64 << 10

// allgatherOverlapMin: from this block size a blocking Allgather with a
// CPU per rank copies its own block into place after starting the
// messages (which send it from the send buffer), as Alltoall does
// (alltoallOverlapMin). At 2 ranks (osu_allgather, medians of 15) 1 MiB
// took 168 against 193 µs and 256 KiB 28 against 31; 64 KiB tied.
var allgatherOverlapMin = 64 << 10
