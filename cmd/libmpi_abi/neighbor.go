package main

/*
#include "nbc.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// neighborsOf turns the C side's neighbourhood into the engine's.
func neighborsOf(nb *C.hc_nbrs, rank int) *mpi.Neighbors {
	if nb.cart != nil {
		nd := int(nb.ndims)
		v := unsafe.Slice(nb.cart, 2*max(nd, 1))
		dims, periods := make([]int, nd), make([]bool, nd)
		for d := range nd {
			dims[d], periods[d] = int(v[d]), v[nd+d] != 0
		}
		return mpi.CartNeighbors(dims, periods, rank)
	}
	ranks := func(p *C.int, n C.int) []int {
		out := make([]int, int(n))
		if p != nil {
			for i, x := range unsafe.Slice(p, int(n)) {
				out[i] = rankIn(x)
			}
		}
		return out
	}
	return &mpi.Neighbors{Sources: ranks(nb.sources, nb.indeg), Destinations: ranks(nb.dests, nb.outdeg)}
}

// hympi_go_ineighbor starts or binds a neighbour collective: every form is
// a neighbour all-to-all with byte counts and displacements (a.sc, a.sd for
// the outdeg destinations, a.rc, a.rd for the indeg sources).
//
//export hympi_go_ineighbor
func hympi_go_ineighbor(ci C.int, a *C.hc_nbc, nb *C.hc_nbrs, persistent C.int, req *C.intptr_t) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	n := neighborsOf(nb, c.Rank())
	sc, sd := int64s(a.sc, int(nb.outdeg)), int64s(a.sd, int(nb.outdeg))
	rcs, rd := int64s(a.rc, int(nb.indeg)), int64s(a.rd, int(nb.indeg))
	s, r := bytesAt(a.sbuf, extentOf(sc, sd)), bytesAt(a.rbuf, extentOf(rcs, rd))
	start := func() (*mpi.Request, error) { return c.IneighborAlltoallv(n, s, sc, sd, r, rcs, rd) }
	bind := func() (*mpi.Persistent, error) { return c.NeighborAlltoallvInit(n, s, sc, sd, r, rcs, rd) }
	var b collBinding
	if pk := a.pk; pk != nil {
		// Non-contiguous blocks: C scratch, already in a.sbuf and a.rbuf.
		b.pre = func() { C.hc_pk_run(pk, 0) }
		b.post = func() { C.hc_pk_run(pk, 1) }
		b.owned = pk
		C.hc_pk_hold(pk)
	}
	return collRequest(ci, persistent != 0, &b, start, bind, req)
}

// nbrMemo keeps the engine's form of the last few communicators'
// neighbourhoods. A topology never changes over a communicator's life, and
// building it anew (CartNeighbors and the lists) was most of a small
// blocking neighbour collective's allocations. An entry holds its *mpi.Comm,
// so a communicator freed and replaced in the same slot is a new pointer and
// never finds the old neighbourhood; eight entries bound what stays alive.
var nbrMemo struct {
	mu   sync.Mutex
	next int
	c    [8]*mpi.Comm
	nb   [8]*mpi.Neighbors
}

func memoNeighbors(c *mpi.Comm, nb *C.hc_nbrs) *mpi.Neighbors {
	m := &nbrMemo
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.c {
		if x == c {
			return m.nb[i]
		}
	}
	n := neighborsOf(nb, c.Rank())
	m.c[m.next], m.nb[m.next] = c, n
	m.next = (m.next + 1) % len(m.c)
	return n
}

// intsOf views C's int64 counts as the engine's ints without a copy where
// the two are one size (every 64-bit target), and copies elsewhere.
func intsOf(p *C.int64_t, n int) []int {
	if unsafe.Sizeof(int(0)) != unsafe.Sizeof(C.int64_t(0)) {
		return int64s(p, n)
	}
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*int)(unsafe.Pointer(p)), n)
}

// hympi_go_neighbor runs a neighbour collective to completion through the
// engine's blocking entry: no request, no second call from C to wait on
// it. The blocks are contiguous (the C side packs any that are not before
// the call and unpacks after it).
//
//export hympi_go_neighbor
func hympi_go_neighbor(ci C.int, a *C.hc_nbc, nb *C.hc_nbrs) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return rc
	}
	n := memoNeighbors(c, nb)
	sc, sd := intsOf(a.sc, int(nb.outdeg)), intsOf(a.sd, int(nb.outdeg))
	rcs, rd := intsOf(a.rc, int(nb.indeg)), intsOf(a.rd, int(nb.indeg))
	s, r := bytesAt(a.sbuf, extentOf(sc, sd)), bytesAt(a.rbuf, extentOf(rcs, rd))
	return errCode(c.NeighborAlltoallv(n, s, sc, sd, r, rcs, rd))
}
