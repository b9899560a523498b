package main

import (
	"slices"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Neighbourhood all-to-all on a distributed graph made by
	// DistGraphFromEdges (edges described by ranks other than their ends,
	// repeated edges, a self loop, the last of 3 or more ranks alone) and on
	// a graph from GraphNeighbors, blocking, nonblocking and persistent:
	// block j a rank sends to a peer is the peer's j-th block from it.
	register("graphnbr", func(w *mpi.Comm) {
		r, n := w.Rank(), w.Size()
		m := n
		if n >= 3 {
			m = n - 1
		}
		var src, dst []int
		for a := range m {
			src = append(src, a, a, a)
			dst = append(dst, (a+1)%m, (a+2)%m, (a+1)%m)
		}
		src, dst = append(src, 0), append(dst, 0)
		// Rank e % n describes edge e; the lists come out ordered by
		// describing rank, then by place in its list.
		var mySrc, myDst, order []int
		for d := range n {
			for e := d; e < len(src); e += n {
				order = append(order, e)
				if d == r {
					mySrc, myDst = append(mySrc, src[e]), append(myDst, dst[e])
				}
			}
		}
		lists := func(rank int) (in, out []int) {
			for _, e := range order {
				if dst[e] == rank {
					in = append(in, src[e])
				}
				if src[e] == rank {
					out = append(out, dst[e])
				}
			}
			return in, out
		}
		nb, err := w.DistGraphFromEdges(mySrc, myDst)
		must(err, "DistGraphFromEdges")
		in, out := lists(r)
		if !slices.Equal(nb.Sources, in) || !slices.Equal(nb.Destinations, out) {
			fail("DistGraphFromEdges: %v / %v, want %v / %v", nb.Sources, nb.Destinations, in, out)
		}
		exchange(w, nb, func(p int) ([]int, []int) { return lists(p) })

		// A graph: node 0 alone, the others a ring both ways.
		var index, edges []int
		for i := range n {
			if i > 0 {
				q := n - 1
				edges = append(edges, 1+(i-2+q)%q, 1+i%q)
			}
			index = append(index, len(edges))
		}
		g := func(p int) ([]int, []int) {
			nb, err := mpi.GraphNeighbors(index, edges, p)
			must(err, "GraphNeighbors(%d)", p)
			return nb.Sources, nb.Destinations
		}
		gs, gd := g(r)
		exchange(w, mpi.DistGraphNeighbors(gs, gd), g)
		if _, err := w.DistGraphFromEdges([]int{0}, []int{n}); mpi.ClassOf(err) != mpi.ErrRank {
			fail("DistGraphFromEdges to rank %d: %v", n, err)
		}
	})
}

// exchange runs a neighbour all-to-all of 2-byte blocks (sender, block)
// over nb in every form and checks each block against lists, which gives
// any rank's sources and destinations.
func exchange(w *mpi.Comm, nb *mpi.Neighbors, lists func(int) ([]int, []int)) {
	r := w.Rank()
	in, out := nb.Sources, nb.Destinations
	send, recv := make([]byte, 2*len(out)), make([]byte, 2*len(in))
	counts := func(k int) ([]int, []int) {
		c, d := make([]int, k), make([]int, k)
		for i := range c {
			c[i], d[i] = 2, 2*i
		}
		return c, d
	}
	sc, sd := counts(len(out))
	rc, rd := counts(len(in))
	for k := range out {
		send[2*k], send[2*k+1] = byte(r), byte(k)
	}
	check := func(form string) {
		for k, s := range in {
			// The j-th block from s is s's j-th block to this rank.
			j := 0
			for _, x := range in[:k] {
				if x == s {
					j++
				}
			}
			_, sOut := lists(s)
			want := -1
			for q, x := range sOut {
				if x == r {
					if j == 0 {
						want = q
						break
					}
					j--
				}
			}
			if recv[2*k] != byte(s) || int(recv[2*k+1]) != want {
				fail("%s: block %d from %d is (%d, %d), want (%d, %d)", form, k, s, recv[2*k], recv[2*k+1], s, want)
			}
		}
	}
	clear(recv)
	must(w.NeighborAlltoallv(nb, send, sc, sd, recv, rc, rd), "NeighborAlltoallv")
	check("blocking")
	clear(recv)
	rq, err := w.IneighborAlltoallv(nb, send, sc, sd, recv, rc, rd)
	must(err, "IneighborAlltoallv")
	_, err = rq.Wait()
	must(err, "IneighborAlltoallv: Wait")
	check("nonblocking")
	p, err := w.NeighborAlltoallvInit(nb, send, sc, sd, recv, rc, rd)
	must(err, "NeighborAlltoallvInit")
	for range 2 {
		clear(recv)
		_, err := p.Start()
		must(err, "Start")
		_, err = p.Wait()
		must(err, "Wait")
		check("persistent")
	}
	must(p.Free(), "Free")
}
