package main

import (
	"fmt"
	"slices"

	"github.com/hympi/hympi/mpi"
)

// The correctness matrix of package mpi's neighbourhood collectives:
// NeighborAllgather(v) and NeighborAlltoall(v,w), each blocking, I*,
// *Init started twice with fresh data and (but the w-variant) typed, on a periodic ring, a non-periodic
// line and (on an even number of ranks from 4) a 2-D Cartesian grid, and on
// a distributed graph with a repeated edge, against references every rank
// works out alone; point-to-point messages pending on the same communicator
// across each call; then two neighbourhood collectives on World and a Dup
// in flight at once. Rank 0 prints the case counts, which the test checks.

type nmColl int

const (
	nmAllgather nmColl = iota
	nmAllgatherv
	nmAlltoall
	nmAlltoallv
	nmAlltoallw
	nmColls
)

var nmNames = [nmColls]string{"NeighborAllgather", "NeighborAllgatherv", "NeighborAlltoall", "NeighborAlltoallv",
	"NeighborAlltoallw"}

// nmTopo is a neighbourhood and the identity of every message in it: the
// message a rank sends as its block q is sendID[q], and the one it receives
// as block k is recvID[k] (-1 for ProcNull), so that the expected content
// of a block follows from the receiver's own view.
type nmTopo struct {
	name           string
	nb             *mpi.Neighbors
	sendID, recvID []int
}

// nmCart: in MPI's Cartesian semantics block 2d+b received (b=0 from
// below) is the neighbour's block 2d+1-b.
func nmCart(name string, dims []int, periods []bool, r int) nmTopo {
	nb := mpi.CartNeighbors(dims, periods, r)
	t := nmTopo{name: name, nb: nb}
	for q := range nb.Destinations {
		t.sendID = append(t.sendID, r*64+q)
	}
	for k, s := range nb.Sources {
		id := -1
		if s != mpi.ProcNull {
			id = s*64 + (k ^ 1)
		}
		t.recvID = append(t.recvID, id)
	}
	return t
}

// nmGraph: for a general graph the j-th message from a source lands in
// the j-th receive block from it, the messages taken in send order.
func nmGraph(name string, src, dst []int, r int) nmTopo {
	nb := mpi.DistGraphNeighbors(src, dst)
	t := nmTopo{name: name, nb: nb}
	t.sendID = make([]int, len(dst))
	for q, p := range dst {
		t.sendID[q] = 1<<20 + r*4096 + p*64 + countOf(dst[:q], p)
	}
	for k, s := range src {
		t.recvID = append(t.recvID, 1<<20+s*4096+r*64+countOf(src[:k], s))
	}
	return t
}

func countOf(v []int, x int) (n int) {
	for _, y := range v {
		if y == x {
			n++
		}
	}
	return n
}

// nmCount is the int32s of a message, from its identity: one in four is
// larger than a collective slot, so that a rank's messages to one peer (the
// graph's repeated edge) may be of both kinds, which must still arrive in
// the order sent.
func nmCount(id int) int {
	if id%4 == 0 {
		return 60 + id%3
	}
	return 1 + id%3
}

// nmCase is one call on one topology.
type nmCase struct {
	coll              nmColl
	form              cmForm
	c                 *mpi.Comm
	t                 nmTopo
	send, recv, xrecv []int32
	sc, sd, rc, rd    []int // bytes
	wsc, wrc          []int // elements of st and rt
	st, rt            []mpi.Datatype
	req               *mpi.Request
	per               *mpi.Persistent
	xsend             []int32
}

func newNmCase(c *mpi.Comm, t nmTopo, coll nmColl, form cmForm) *nmCase {
	k := &nmCase{coll: coll, form: form, c: c, t: t}
	nd, ns := len(t.nb.Destinations), len(t.nb.Sources)
	k.sc, k.sd, k.rc, k.rd = make([]int, nd), make([]int, nd), make([]int, ns), make([]int, ns)
	// Blocks laid out back to front with a gap after each, so that a
	// displacement read as a block index or a count in the wrong unit
	// moves data.
	lay := func(counts, displs []int, cnt func(i int) int) int {
		off := 0
		for i := len(counts) - 1; i >= 0; i-- {
			counts[i], displs[i] = 4*cnt(i), off
			off += counts[i] + 4
		}
		return off / 4
	}
	me := c.Rank()
	var slen, rlen int
	switch coll {
	case nmAllgather, nmAlltoall:
		slen, rlen = 2*max(nd, 1), 2*ns
	case nmAllgatherv:
		slen = nmCount(me)
		rlen = lay(k.rc, k.rd, func(i int) int {
			if s := t.nb.Sources[i]; s != mpi.ProcNull {
				return nmCount(s)
			}
			return 2
		})
	default:
		slen = lay(k.sc, k.sd, func(q int) int { return nmCount(t.sendID[q]) })
		rlen = lay(k.rc, k.rd, func(i int) int {
			if id := t.recvID[i]; id >= 0 {
				return nmCount(id)
			}
			return 2
		})
	}
	k.send, k.xsend = make([]int32, slen+1), make([]int32, slen+1)
	k.recv, k.xrecv = make([]int32, rlen+1), make([]int32, rlen+1)
	if coll == nmAlltoallw {
		k.st, k.rt = make([]mpi.Datatype, nd), make([]mpi.Datatype, ns)
		k.wsc, k.wrc = make([]int, nd), make([]int, ns)
		for q := range nd {
			k.st[q] = cmWTypes[(me+q)%3]
			k.wsc[q] = k.sc[q] / k.st[q].Size()
		}
		for i := range ns {
			k.rt[i] = cmWTypes[(me+2*i+1)%3]
			k.wrc[i] = k.rc[i] / k.rt[i].Size()
		}
	}
	return k
}

func (k *nmCase) String() string {
	return fmt.Sprintf("%s %s on %s of %d ranks", nmNames[k.coll], cmFormNames[k.form], k.t.name, k.c.Size())
}

// fill writes the inputs of round seed and the expected receive buffer.
func (k *nmCase) fill(seed int) {
	for i := range k.send {
		k.send[i] = cmSent
	}
	for i := range k.recv {
		k.recv[i], k.xrecv[i] = cmSent, cmSent
	}
	me := k.c.Rank()
	put := func(b []int32, at, cnt, id int) {
		for e := range cnt {
			b[at+e] = cmDV(seed, id, 7, e)
		}
	}
	nb := k.t.nb
	switch k.coll {
	case nmAllgather:
		put(k.send, 0, 2, me)
		for i, s := range nb.Sources {
			if s != mpi.ProcNull {
				put(k.xrecv, 2*i, 2, s)
			}
		}
	case nmAllgatherv:
		put(k.send, 0, nmCount(me), me)
		for i, s := range nb.Sources {
			if s != mpi.ProcNull {
				put(k.xrecv, k.rd[i]/4, nmCount(s), s)
			}
		}
	case nmAlltoall:
		for q := range nb.Destinations {
			put(k.send, 2*q, 2, k.t.sendID[q])
		}
		for i, id := range k.t.recvID {
			if id >= 0 {
				put(k.xrecv, 2*i, 2, id)
			}
		}
	default:
		for q := range nb.Destinations {
			put(k.send, k.sd[q]/4, k.sc[q]/4, k.t.sendID[q])
		}
		for i, id := range k.t.recvID {
			if id >= 0 {
				put(k.xrecv, k.rd[i]/4, k.rc[i]/4, id)
			}
		}
	}
	copy(k.xsend, k.send)
}

func (k *nmCase) check(seed int) {
	if !slices.Equal(k.send, k.xsend) {
		fail("%v seed %d: send buffer changed: %v, want %v", k, seed, k.send, k.xsend)
	}
	if !slices.Equal(k.recv, k.xrecv) {
		fail("%v seed %d: received %v, want %v (sources %v)", k, seed, k.recv, k.xrecv, k.t.nb.Sources)
	}
	nmCount1++
}

var nmCount1 int

func (k *nmCase) issue() error {
	c, nb := k.c, k.t.nb
	s32, r32 := k.send[:len(k.send)-1], k.recv[:len(k.recv)-1]
	var err error
	switch k.coll {
	case nmAllgather, nmAlltoall:
		s32 = k.send[:2*len(nb.Destinations)]
		if k.coll == nmAllgather {
			s32 = k.send[:2]
		}
		r32 = k.recv[:2*len(nb.Sources)]
	case nmAllgatherv:
		s32 = k.send[:nmCount(c.Rank())]
	}
	s, r := raw(s32), raw(r32)
	elems := func(v []int) []int {
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = x / 4
		}
		return out
	}
	switch k.form {
	case cmTyped:
		switch k.coll {
		case nmAllgather:
			err = mpi.NeighborAllgatherSlice(c, nb, s32, r32)
		case nmAllgatherv:
			err = mpi.NeighborAllgathervSlice(c, nb, s32, r32, elems(k.rc), elems(k.rd))
		case nmAlltoall:
			err = mpi.NeighborAlltoallSlice(c, nb, s32, r32)
		case nmAlltoallv:
			err = mpi.NeighborAlltoallvSlice(c, nb, s32, elems(k.sc), elems(k.sd), r32, elems(k.rc), elems(k.rd))
		}
	case cmBlocking:
		switch k.coll {
		case nmAllgather:
			err = c.NeighborAllgather(nb, s, r)
		case nmAllgatherv:
			err = c.NeighborAllgatherv(nb, s, r, k.rc, k.rd)
		case nmAlltoall:
			err = c.NeighborAlltoall(nb, s, r)
		case nmAlltoallv:
			err = c.NeighborAlltoallv(nb, s, k.sc, k.sd, r, k.rc, k.rd)
		case nmAlltoallw:
			err = c.NeighborAlltoallw(nb, s, k.wsc, k.sd, k.st, r, k.wrc, k.rd, k.rt)
		}
	case cmNonblocking:
		switch k.coll {
		case nmAllgather:
			k.req, err = c.IneighborAllgather(nb, s, r)
		case nmAllgatherv:
			k.req, err = c.IneighborAllgatherv(nb, s, r, k.rc, k.rd)
		case nmAlltoall:
			k.req, err = c.IneighborAlltoall(nb, s, r)
		case nmAlltoallv:
			k.req, err = c.IneighborAlltoallv(nb, s, k.sc, k.sd, r, k.rc, k.rd)
		case nmAlltoallw:
			k.req, err = c.IneighborAlltoallw(nb, s, k.wsc, k.sd, k.st, r, k.wrc, k.rd, k.rt)
		}
	case cmPersistent:
		switch k.coll {
		case nmAllgather:
			k.per, err = c.NeighborAllgatherInit(nb, s, r)
		case nmAllgatherv:
			k.per, err = c.NeighborAllgathervInit(nb, s, r, k.rc, k.rd)
		case nmAlltoall:
			k.per, err = c.NeighborAlltoallInit(nb, s, r)
		case nmAlltoallv:
			k.per, err = c.NeighborAlltoallvInit(nb, s, k.sc, k.sd, r, k.rc, k.rd)
		case nmAlltoallw:
			k.per, err = c.NeighborAlltoallwInit(nb, s, k.wsc, k.sd, k.st, r, k.wrc, k.rd, k.rt)
		}
	}
	return err
}

// nmRun1 runs one case with ring traffic pending across it.
func nmRun1(k *nmCase) {
	if k.form == cmPersistent {
		k.fill(0)
		must(k.issue(), "%v: init", k)
		for range 2 {
			cmSeq++
			k.fill(cmSeq)
			g := cmRingPost(k.c, cmSeq)
			_, err := k.per.Start()
			must(err, "%v: Start", k)
			_, err = k.per.Wait()
			must(err, "%v: Wait", k)
			g.check()
			k.check(cmSeq)
		}
		must(k.per.Free(), "%v: Free", k)
		return
	}
	cmSeq++
	k.fill(cmSeq)
	g := cmRingPost(k.c, cmSeq)
	must(k.issue(), "%v", k)
	if k.form == cmNonblocking {
		sts, err := mpi.Waitall([]*mpi.Request{g.q[0], k.req, g.q[1]})
		must(err, "%v: Waitall", k)
		g.verify(sts[0])
	} else {
		g.check()
	}
	k.check(cmSeq)
}

// nmTopos are the neighbourhoods of rank r of n.
func nmTopos(r, n int) []nmTopo {
	ts := []nmTopo{
		nmCart("periodic ring", []int{n}, []bool{true}, r),
		nmCart("line", []int{n}, []bool{false}, r),
	}
	if n >= 4 && n%2 == 0 {
		ts = append(ts, nmCart("2-D grid", []int{2, n / 2}, []bool{false, true}, r))
	}
	// Twice to the next rank, once to the one after: a repeated edge.
	up := func(d int) int { return (r + d) % n }
	down := func(d int) int { return ((r-d)%n + n) % n }
	return append(ts, nmGraph("graph", []int{down(1), down(2), down(1)}, []int{up(1), up(2), up(1)}, r))
}

func init() {
	register("nbrmatrix", func(w *mpi.Comm) {
		r, n := w.Rank(), w.Size()
		dup, err := w.Dup()
		must(err, "Dup")
		per := make([]int, nmColls)
		topos := nmTopos(r, n)
		for coll := range nmColls {
			before := nmCount1
			for _, t := range topos {
				for _, form := range []cmForm{cmBlocking, cmNonblocking, cmPersistent, cmTyped} {
					if form == cmTyped && coll == nmAlltoallw {
						continue // no typed form: a datatype per neighbour
					}
					nmRun1(newNmCase(w, t, coll, form))
				}
			}
			per[coll] = nmCount1 - before
		}
		// Two neighbourhood collectives in flight at once, on World and
		// on its Dup, with a ring pending on the Dup; completed in
		// reverse order.
		start := nmCount1
		for coll := range nmColls {
			for _, t := range topos {
				ks := []*nmCase{newNmCase(w, t, coll, cmNonblocking), newNmCase(dup, t, (coll+2)%nmColls, cmNonblocking)}
				cmSeq++
				seed := cmSeq
				g := cmRingPost(dup, seed)
				for x, k := range ks {
					k.fill(seed + x)
					must(k.issue(), "%v", k)
				}
				for x := len(ks) - 1; x >= 0; x-- {
					_, err := ks[x].req.Wait()
					must(err, "%v: Wait", ks[x])
					ks[x].check(seed + x)
				}
				g.check()
			}
		}
		cross := nmCount1 - start
		if r == 0 {
			for i, v := range per {
				fmt.Printf("nbr %s %d\n", nmNames[i], v)
			}
			fmt.Printf("nbr crosscomm %d\n", cross)
		}
		must(dup.Free(), "Free")
	})
}
