package main

import (
	"encoding/binary"
	"hash/fnv"
	"math"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Every collective against a serial reference: every root, every
	// datatype and operator, odd and zero counts, in place, irregular
	// v-counts, and a non-commutative user operator.
	register("coll", func(c *mpi.Comm) {
		collBarrierBcast(c)
		collReductions(c)
		collUserOp(c)
		collGatherFamily(c)
		collFloatDeterminism(c)
	})
}

func collBarrierBcast(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for range 3 {
		must(c.Barrier(), "Barrier")
	}
	for _, size := range []int{0, 1, 7, 1040, 1041, 70_000, 600_000} {
		for root := range n {
			buf := make([]byte, size)
			if r == root {
				pattern(buf, size*31+root)
			}
			must(c.Bcast(buf, root), "Bcast %d bytes from %d", size, root)
			checkPattern(buf, size*31+root, "Bcast")
		}
	}
}

func collReductions(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	all := span(0, n)
	for _, tc := range dtCases {
		for _, op := range tc.ops {
			for _, count := range []int{0, 1, 5} {
				in := tc.input(r, count)
				want := tc.fold(op, all, count)
				es := len(in) / max(count, 1)
				// Reduce at every root (count 5), at the last root otherwise.
				roots := []int{n - 1}
				if count == 5 {
					roots = all
				}
				for _, root := range roots {
					out := make([]byte, len(in))
					must(c.Reduce(in, out, tc.dt, op, root), "Reduce %v %v", tc.dt, op)
					if r == root {
						expect(out, want, "Reduce %v %v count %d root %d", tc.dt, op, count, root)
					}
				}
				out := make([]byte, len(in))
				must(c.Allreduce(in, out, tc.dt, op), "Allreduce")
				expect(out, want, "Allreduce %v %v count %d", tc.dt, op, count)
				if count == 0 {
					continue
				}
				// In place: recv holds the input.
				inout := append([]byte(nil), in...)
				must(c.Allreduce(inout, inout, tc.dt, op), "Allreduce in place")
				expect(inout, want, "Allreduce in place %v %v", tc.dt, op)
				must(c.Scan(in, out, tc.dt, op), "Scan")
				expect(out, tc.fold(op, span(0, r+1), count), "Scan %v %v", tc.dt, op)
				ex := make([]byte, len(in))
				pattern(ex, 5)
				keep := append([]byte(nil), ex...)
				must(c.Exscan(in, ex, tc.dt, op), "Exscan")
				if r == 0 {
					expect(ex, keep, "Exscan on rank 0 must leave recv alone")
				} else {
					expect(ex, tc.fold(op, span(0, r), count), "Exscan %v %v", tc.dt, op)
				}
				// Reduce-scatter of blocks of count elements.
				bigIn := tc.input(r, count*n)
				bigWant := tc.fold(op, all, count*n)
				blk := make([]byte, count*es)
				must(c.ReduceScatterBlock(bigIn, blk, tc.dt, op), "ReduceScatterBlock")
				expect(blk, bigWant[r*count*es:(r+1)*count*es], "ReduceScatterBlock %v %v", tc.dt, op)
			}
		}
	}
	// Large allreduce (the ring path) and irregular ReduceScatter, in and
	// out of place.
	for _, tc := range []dtCase{dtCases[5], dtCases[10]} {
		count := 40_000 + 3
		in := tc.input(r, count)
		want := tc.fold(mpi.Sum, all, count)
		out := make([]byte, len(in))
		must(c.Allreduce(in, out, tc.dt, mpi.Sum), "big Allreduce")
		expect(out, want, "big Allreduce %v", tc.dt)
		for root := range n {
			got := make([]byte, len(in))
			must(c.Reduce(in, got, tc.dt, mpi.Sum, root), "big Reduce")
			if r == root {
				expect(got, want, "big Reduce %v root %d", tc.dt, root)
			}
		}
		must(c.Allreduce(in, in, tc.dt, mpi.Max), "big Allreduce in place")
		expect(in, tc.fold(mpi.Max, all, count), "big Allreduce in place %v", tc.dt)
		// Big reduce-scatter (the ring path), blocks of an odd count.
		bc := 20_001
		bin := tc.input(r, bc*n)
		bwant := tc.fold(mpi.Sum, all, bc*n)
		eb := tc.dt.Size() * bc
		bout := make([]byte, eb)
		must(c.ReduceScatterBlock(bin, bout, tc.dt, mpi.Sum), "big ReduceScatterBlock")
		expect(bout, bwant[r*eb:(r+1)*eb], "big ReduceScatterBlock %v", tc.dt)
		must(c.ReduceScatterBlock(bin, bin, tc.dt, mpi.Sum), "big ReduceScatterBlock in place")
		expect(bin[:eb], bwant[r*eb:(r+1)*eb], "big ReduceScatterBlock in place %v", tc.dt)

		es := tc.dt.Size()
		counts := make([]int, n)
		total := 0
		for i := range counts {
			counts[i] = es * ((i * 7) % 4) // some zero
			total += counts[i]
		}
		full := tc.input(r, total/es)
		fwant := tc.fold(mpi.Sum, all, total/es)
		off := 0
		for i := 0; i < r; i++ {
			off += counts[i]
		}
		got := make([]byte, counts[r])
		must(c.ReduceScatter(full, got, counts, tc.dt, mpi.Sum), "ReduceScatter")
		expect(got, fwant[off:off+counts[r]], "ReduceScatter %v", tc.dt)
		must(c.ReduceScatter(full, full, counts, tc.dt, mpi.Sum), "ReduceScatter in place")
		expect(full[:counts[r]], fwant[off:off+counts[r]], "ReduceScatter in place %v", tc.dt)
	}
}

func collUserOp(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	mat, err := mpi.OpaqueType(32)
	must(err, "OpaqueType")
	op, err := mpi.NewOp(matMul, false)
	must(err, "NewOp")
	all := span(0, n)
	for _, count := range []int{0, 1, 3} {
		in := matInput(r, count)
		want := matFold(all, count)
		for root := range n {
			out := make([]byte, len(in))
			must(c.Reduce(in, out, mat, op, root), "user Reduce")
			if r == root {
				expect(out, want, "non-commutative Reduce root %d count %d", root, count)
			}
		}
		out := make([]byte, len(in))
		must(c.Allreduce(in, out, mat, op), "user Allreduce")
		expect(out, want, "non-commutative Allreduce count %d", count)
		if count == 0 {
			continue
		}
		must(c.Scan(in, out, mat, op), "user Scan")
		expect(out, matFold(span(0, r+1), count), "non-commutative Scan")
		if r > 0 {
			must(c.Exscan(in, out, mat, op), "user Exscan")
			expect(out, matFold(span(0, r), count), "non-commutative Exscan")
		} else {
			must(c.Exscan(in, out, mat, op), "user Exscan")
		}
		big := matInput(r, count*n)
		blk := make([]byte, 32*count)
		must(c.ReduceScatterBlock(big, blk, mat, op), "user ReduceScatterBlock")
		expect(blk, matFold(all, count*n)[r*32*count:(r+1)*32*count], "non-commutative ReduceScatterBlock")
	}
	// A commutative user op on a predefined type: integer sum by hand.
	add, err := mpi.NewOp(func(in, inout []byte, dt mpi.Datatype) {
		for i := 0; i+4 <= len(in); i += 4 {
			binary.LittleEndian.PutUint32(inout[i:], binary.LittleEndian.Uint32(in[i:])+binary.LittleEndian.Uint32(inout[i:]))
		}
	}, true)
	must(err, "NewOp")
	in := dtCases[6].input(r, 9)
	out := make([]byte, len(in))
	must(c.Allreduce(in, out, mpi.Uint32, add), "user commutative Allreduce")
	expect(out, dtCases[6].fold(mpi.Sum, all, 9), "user commutative Allreduce")
	must(mpi.ReduceLocal(in, out, mpi.Uint32, add), "ReduceLocal")
	must(op.Free(), "Op.Free")
	must(add.Free(), "Op.Free")
}

// irregular is the v-counts of the gather family: block i has size(i)
// bytes (some zero), placed in reverse rank order with gaps.
func irregular(n int, size func(i int) int) (counts, displs []int, total int) {
	counts, displs = make([]int, n), make([]int, n)
	off := 0
	for i := n - 1; i >= 0; i-- {
		counts[i] = size(i)
		displs[i] = off
		off += counts[i] + 3
	}
	return counts, displs, off
}

func collGatherFamily(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for _, m := range []int{0, 1, 13, 5000} {
		mine := make([]byte, m)
		pattern(mine, r*100+m)
		for root := range n {
			all := make([]byte, n*m)
			must(c.Gather(mine, all, root), "Gather")
			if r == root {
				for i := range n {
					checkPattern(all[i*m:(i+1)*m], i*100+m, "Gather")
				}
			}
			src := make([]byte, n*m)
			if r == root {
				for i := range n {
					pattern(src[i*m:(i+1)*m], i*7+root+m)
				}
			}
			got := make([]byte, m)
			must(c.Scatter(src, got, root), "Scatter")
			checkPattern(got, r*7+root+m, "Scatter")
		}
		all := make([]byte, n*m)
		must(c.Allgather(mine, all), "Allgather")
		for i := range n {
			checkPattern(all[i*m:(i+1)*m], i*100+m, "Allgather")
		}
		// Alltoall: block j of rank i is pattern(i*1000+j).
		send := make([]byte, n*m)
		for j := range n {
			pattern(send[j*m:(j+1)*m], r*1000+j+m)
		}
		recv := make([]byte, n*m)
		must(c.Alltoall(send, recv), "Alltoall")
		for i := range n {
			checkPattern(recv[i*m:(i+1)*m], i*1000+r+m, "Alltoall")
		}
	}
	// The v-variants with irregular counts, some zero.
	size := func(i int) int { return (i * 37) % 5 * 301 }
	counts, displs, total := irregular(n, size)
	mine := make([]byte, size(r))
	pattern(mine, r+77)
	for root := range n {
		buf := make([]byte, total)
		must(c.Gatherv(mine, buf, counts, displs, root), "Gatherv")
		if r == root {
			for i := range n {
				checkPattern(buf[displs[i]:displs[i]+counts[i]], i+77, "Gatherv")
			}
		}
		src := make([]byte, total)
		if r == root {
			for i := range n {
				pattern(src[displs[i]:displs[i]+counts[i]], i+root*3)
			}
		}
		got := make([]byte, size(r))
		must(c.Scatterv(src, counts, displs, got, root), "Scatterv")
		checkPattern(got, r+root*3, "Scatterv")
	}
	buf := make([]byte, total)
	must(c.Allgatherv(mine, buf, counts, displs), "Allgatherv")
	for i := range n {
		checkPattern(buf[displs[i]:displs[i]+counts[i]], i+77, "Allgatherv")
	}
	// Alltoallv: rank i sends rank j a block of (i+2j)%4*100 bytes.
	amount := func(i, j int) int { return (i + 2*j) % 4 * 100 }
	sc, sd, st := irregular(n, func(j int) int { return amount(r, j) })
	rc, rd, rt := irregular(n, func(i int) int { return amount(i, r) })
	send := make([]byte, st)
	for j := range n {
		pattern(send[sd[j]:sd[j]+sc[j]], r*50+j)
	}
	recv := make([]byte, rt)
	must(c.Alltoallv(send, sc, sd, recv, rc, rd), "Alltoallv")
	for i := range n {
		checkPattern(recv[rd[i]:rd[i]+rc[i]], i*50+r, "Alltoallv")
	}
}

// collFloatDeterminism: an Allreduce of floats whose sum depends on the
// order of additions must still give every rank the same bits.
func collFloatDeterminism(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	for _, count := range []int{7, 30_000} {
		in := make([]float64, count)
		for i := range in {
			in[i] = 0.1*float64(r+1) + 1e-7*float64(i) + math.Pi*float64(i%3)
		}
		out := make([]float64, count)
		must(mpi.AllreduceSlice(c, in, out, mpi.Sum), "float Allreduce")
		h := fnv.New64a()
		h.Write(raw(out))
		mine := make([]byte, 8)
		binary.LittleEndian.PutUint64(mine, h.Sum64())
		all := make([]byte, 8*n)
		must(c.Allgather(mine, all), "Allgather hashes")
		for i := range n {
			if string(all[8*i:8*i+8]) != string(mine) {
				fail("float Allreduce of %d: rank %d's result differs from rank %d's", count, i, r)
			}
		}
	}
}
