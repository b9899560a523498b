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
		sizes := []int{70_000, 300_000}
		if c.Size() <= 4 {
			// Above pairCollEagerMin: a two-rank job's collective
			// messages go eager from there (mpi/direct.go).
			sizes = append(sizes, 600_000)
		}
		for _, m := range sizes {
			for k := range 2 {
				bigRooted(c, m, k)
				bigAll(c, m, k)
				bigNeighbors(c, m, k)
			}
		}
		// Reductions of 640 KB and 1.28 MB: at 2 ranks Reduce's
		// message, and in the larger one Allreduce's halves, are above
		// pairCollEagerMin (eager).
		bigReduce(c, 80_000)
		bigReduce(c, 160_000)
	})
}

// bigReduce checks Allreduce, Reduce to every root, Scan and
// Reduce_scatter_block of count elements against serial folds, for
// float64 and int32 sums, in and out of place, and for the non-commutative
// user operator (rank order over a large message).
func bigReduce(c *mpi.Comm, count int) {
	r, n := c.Rank(), c.Size()
	all := span(0, n)
	for _, tc := range []dtCase{dtCases[10], dtCases[5]} {
		in := tc.input(r, count)
		want := tc.fold(mpi.Sum, all, count)
		out := make([]byte, len(in))
		must(c.Allreduce(in, out, tc.dt, mpi.Sum), "big Allreduce %v", tc.dt)
		expect(out, want, "big Allreduce %v count %d", tc.dt, count)
		for _, root := range []int{0, n - 1} {
			got := make([]byte, len(in))
			must(c.Reduce(in, got, tc.dt, mpi.Sum, root), "big Reduce %v", tc.dt)
			if r == root {
				expect(got, want, "big Reduce %v root %d", tc.dt, root)
			}
		}
		must(c.Scan(in, out, tc.dt, mpi.Sum), "big Scan %v", tc.dt)
		expect(out, tc.fold(mpi.Sum, span(0, r+1), count), "big Scan %v", tc.dt)
		inout := tc.input(r, count)
		must(c.Allreduce(inout, inout, tc.dt, mpi.Max), "big Allreduce in place %v", tc.dt)
		expect(inout, tc.fold(mpi.Max, all, count), "big Allreduce in place %v", tc.dt)
		blk := count / n
		es := tc.dt.Size()
		bin := tc.input(r, blk*n)
		bwant := tc.fold(mpi.Sum, all, blk*n)
		bout := make([]byte, blk*es)
		must(c.ReduceScatterBlock(bin, bout, tc.dt, mpi.Sum), "big ReduceScatterBlock %v", tc.dt)
		expect(bout, bwant[r*blk*es:(r+1)*blk*es], "big ReduceScatterBlock %v", tc.dt)
	}
	mat, err := mpi.OpaqueType(32)
	must(err, "OpaqueType")
	op, err := mpi.NewOp(matMul, false)
	must(err, "NewOp")
	mcount := count / 4 // 32-byte elements: the same 640 KB
	in := matInput(r, mcount)
	want := matFold(all, mcount)
	out := make([]byte, len(in))
	must(c.Allreduce(in, out, mat, op), "big user Allreduce")
	expect(out, want, "big non-commutative Allreduce")
	must(c.Reduce(in, out, mat, op, n-1), "big user Reduce")
	if r == n-1 {
		expect(out, want, "big non-commutative Reduce root %d", n-1)
	}
	must(op.Free(), "Op Free")
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
