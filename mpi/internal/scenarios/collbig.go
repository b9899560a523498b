package main

import (
	"fmt"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Collectives of large blocks: above the pairs' direct-copy threshold,
	// and above the size from which an oversubscribed job's one-round
	// collectives have their receivers read the blocks (coll_readers.go),
	// in blocking, nonblocking and persistent forms, in place, twice each
	// (the second run takes the memoised schedule) with new data.
	register("collbig", func(c *mpi.Comm) {
		for _, m := range []int{70_000, 300_000} {
			for k := range 2 {
				bigRooted(c, m, k)
				bigAll(c, m, k)
				bigNeighbors(c, m, k)
			}
		}
	})
}

// seedOf names the block rank from sends to rank to in call k of m-byte
// blocks.
func seedOf(from, to, m, k int) int { return from*1009 + to*31 + m + k*7 }

func bigRooted(c *mpi.Comm, m, k int) {
	r, n := c.Rank(), c.Size()
	for _, root := range []int{0, n - 1} {
		buf := make([]byte, m)
		if r == root {
			pattern(buf, seedOf(root, 0, m, k))
		}
		must(c.Bcast(buf, root), "Bcast %d from %d", m, root)
		checkPattern(buf, seedOf(root, 0, m, k), fmt.Sprintf("Bcast %d from %d", m, root))

		// Gather, then Scatter the gathered blocks back.
		send := make([]byte, m)
		pattern(send, seedOf(r, root, m, k))
		var all []byte
		if r == root {
			all = make([]byte, n*m)
		}
		must(c.Gather(send, all, root), "Gather %d to %d", m, root)
		if r == root {
			for i := range n {
				checkPattern(all[i*m:(i+1)*m], seedOf(i, root, m, k), fmt.Sprintf("Gather %d block %d", m, i))
			}
		}
		back := make([]byte, m)
		must(c.Scatter(all, back, root), "Scatter %d from %d", m, root)
		checkPattern(back, seedOf(r, root, m, k), fmt.Sprintf("Scatter %d from %d", m, root))

		// The v forms, blocks in reverse order.
		counts, displs := make([]int, n), make([]int, n)
		for i := range n {
			counts[i], displs[i] = m, (n-1-i)*m
		}
		must(c.Gatherv(send, all, counts, displs, root), "Gatherv %d to %d", m, root)
		if r == root {
			for i := range n {
				checkPattern(all[displs[i]:displs[i]+m], seedOf(i, root, m, k), fmt.Sprintf("Gatherv %d block %d", m, i))
			}
		}
		clear(back)
		must(c.Scatterv(all, counts, displs, back, root), "Scatterv %d from %d", m, root)
		checkPattern(back, seedOf(r, root, m, k), fmt.Sprintf("Scatterv %d from %d", m, root))
	}
}

func bigAll(c *mpi.Comm, m, k int) {
	r, n := c.Rank(), c.Size()
	counts, displs := make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = m, i*m
	}
	checkGathered := func(all []byte, what string) {
		for i := range n {
			checkPattern(all[i*m:(i+1)*m], seedOf(i, 0, m, k), fmt.Sprintf("%s %d block %d", what, m, i))
		}
	}
	own := make([]byte, m)
	pattern(own, seedOf(r, 0, m, k))
	all := make([]byte, n*m)
	must(c.Allgather(own, all), "Allgather %d", m)
	checkGathered(all, "Allgather")
	clear(all)
	must(c.Allgatherv(own, all, counts, displs), "Allgatherv %d", m)
	checkGathered(all, "Allgatherv")
	clear(all)
	p, err := c.AllgatherInit(own, all)
	must(err, "AllgatherInit %d", m)
	for range 2 {
		_, err := p.Start()
		must(err, "Allgather Start %d", m)
		_, err = p.Wait()
		must(err, "Allgather Wait %d", m)
		checkGathered(all, "persistent Allgather")
		clear(all)
	}
	must(p.Free(), "Allgather Free")

	// All-to-all: block j of rank i's send buffer is seedOf(i, j).
	send := make([]byte, n*m)
	fillSend := func(b []byte) {
		for j := range n {
			pattern(b[j*m:(j+1)*m], seedOf(r, j, m, k))
		}
	}
	checkRecv := func(b []byte, what string) {
		for i := range n {
			checkPattern(b[i*m:(i+1)*m], seedOf(i, r, m, k), fmt.Sprintf("%s %d block %d", what, m, i))
		}
	}
	fillSend(send)
	recv := make([]byte, n*m)
	must(c.Alltoall(send, recv), "Alltoall %d", m)
	checkRecv(recv, "Alltoall")
	clear(recv)
	must(c.Alltoallv(send, counts, displs, recv, counts, displs), "Alltoallv %d", m)
	checkRecv(recv, "Alltoallv")
	clear(recv)
	types := make([]mpi.Datatype, n)
	for i := range types {
		types[i] = mpi.Byte
	}
	must(c.Alltoallw(send, counts, displs, types, recv, counts, displs, types), "Alltoallw %d", m)
	checkRecv(recv, "Alltoallw")
	clear(recv)
	req, err := c.Ialltoall(send, recv)
	must(err, "Ialltoall %d", m)
	_, err = req.Wait()
	must(err, "Ialltoall Wait %d", m)
	checkRecv(recv, "Ialltoall")
	// In place.
	fillSend(recv)
	must(c.Alltoall(recv, recv), "Alltoall in place %d", m)
	checkRecv(recv, "Alltoall in place")
}

func bigNeighbors(c *mpi.Comm, m, k int) {
	r, n := c.Rank(), c.Size()
	nb := mpi.CartNeighbors([]int{n}, []bool{true}, r)
	left, right := (r-1+n)%n, (r+1)%n
	own := make([]byte, m)
	pattern(own, seedOf(r, 0, m, k))
	recv := make([]byte, 2*m)
	must(c.NeighborAllgather(nb, own, recv), "NeighborAllgather %d", m)
	checkPattern(recv[:m], seedOf(left, 0, m, k), fmt.Sprintf("NeighborAllgather %d from the left", m))
	checkPattern(recv[m:], seedOf(right, 0, m, k), fmt.Sprintf("NeighborAllgather %d from the right", m))
	// Block 0 goes left, block 1 right; the left neighbour's block for
	// us is its block 1, the right one's its block 0.
	send := make([]byte, 2*m)
	pattern(send[:m], seedOf(r, left, m, k))
	pattern(send[m:], seedOf(r, right, m, k))
	clear(recv)
	must(c.NeighborAlltoall(nb, send, recv), "NeighborAlltoall %d", m)
	checkPattern(recv[:m], seedOf(left, r, m, k), fmt.Sprintf("NeighborAlltoall %d from the left", m))
	checkPattern(recv[m:], seedOf(right, r, m, k), fmt.Sprintf("NeighborAlltoall %d from the right", m))
}
