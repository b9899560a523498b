package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hympi/hympi/mpi"
)

func init() {
	// Dup, Split, Create and CreateGroup: membership and order, traffic on
	// several communicators interleaved (point-to-point and collectives,
	// including two overlapping broadcast groups as in the thesis), and
	// many Dup/Free cycles without cross-talk or running out of contexts.
	register("comms", func(c *mpi.Comm) {
		commsGroups(c)
		commsSplit(c)
		commsOverlap(c)
		commsCycles(c)
	})
}

// members is the world ranks of c in rank order.
func members(c *mpi.Comm) []int {
	g := c.Group()
	ranks := make([]int, g.Size())
	for i := range ranks {
		ranks[i] = i
	}
	w, err := g.TranslateRanks(ranks, mpi.World().Group())
	must(err, "TranslateRanks")
	return w
}

func commsGroups(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	g := c.Group()
	if g.Size() != n || g.Rank() != r {
		fail("World group: size %d rank %d", g.Size(), g.Rank())
	}
	rev := make([]int, n)
	for i := range rev {
		rev[i] = n - 1 - i
	}
	gr, err := g.Incl(rev)
	must(err, "Incl")
	if gr.Rank() != n-1-r || g.Compare(gr) != mpi.Similar && n > 1 || g.Compare(g) != mpi.Ident {
		fail("Incl reversed: rank %d compare %d", gr.Rank(), g.Compare(gr))
	}
	t, err := gr.TranslateRanks([]int{0, mpi.ProcNull}, g)
	must(err, "TranslateRanks")
	if t[0] != n-1 || t[1] != mpi.ProcNull {
		fail("TranslateRanks: %v", t)
	}
	ex, err := g.Excl([]int{0})
	must(err, "Excl")
	if ex.Size() != n-1 || (r == 0) != (ex.Rank() == mpi.Undefined) {
		fail("Excl: size %d rank %d", ex.Size(), ex.Rank())
	}
	u, err := ex.Union(g)
	must(err, "Union")
	if u.Size() != n || u.Compare(g) != mpi.Similar && n > 1 {
		fail("Union: size %d", u.Size())
	}
	in, err := ex.Intersection(g)
	must(err, "Intersection")
	d, err := g.Difference(ex)
	must(err, "Difference")
	if in.Size() != n-1 || d.Size() != 1 || in.Compare(ex) != mpi.Ident {
		fail("Intersection/Difference: %d %d", in.Size(), d.Size())
	}
	for _, bad := range []error{second(g.Incl([]int{n})), second(g.Incl([]int{0, 0})), second(g.Excl([]int{-1}))} {
		if !errors.Is(bad, mpi.ErrRank) {
			fail("bad group ranks: %v", bad)
		}
	}
}

func commsSplit(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	// Two colors (even, odd), ordered by descending key; rank 3 opts out.
	color := r % 2
	if r == 3 {
		color = mpi.Undefined
	}
	s, err := c.Split(color, -r)
	must(err, "Split")
	if r == 3 {
		if s != nil {
			fail("Split with Undefined gave a communicator")
		}
	} else {
		var want []int
		for i := n - 1; i >= 0; i-- {
			if i%2 == color && i != 3 {
				want = append(want, i)
			}
		}
		if got := members(s); fmt.Sprint(got) != fmt.Sprint(want) {
			fail("Split color %d: members %v, want %v", color, got, want)
		}
		// Ties in key are broken by the old rank.
		t, err := s.Split(0, 7)
		must(err, "Split with equal keys")
		if fmt.Sprint(members(t)) != fmt.Sprint(members(s)) {
			fail("Split with equal keys reordered: %v vs %v", members(t), members(s))
		}
		// Collectives in the split communicator.
		sum := make([]int64, 1)
		must(mpi.AllreduceSlice(s, []int64{int64(r)}, sum, mpi.Sum), "Allreduce on split")
		var ws int64
		for _, w := range want {
			ws += int64(w)
		}
		if sum[0] != ws {
			fail("Allreduce on split color %d: %d, want %d", color, sum[0], ws)
		}
		must(t.Free(), "Free")
		must(s.Free(), "Free")
	}
	// Dup: same members and order, its own traffic.
	d, err := c.Dup()
	must(err, "Dup")
	if d.Rank() != r || d.Size() != n || fmt.Sprint(members(d)) != fmt.Sprint(members(c)) {
		fail("Dup: rank %d size %d", d.Rank(), d.Size())
	}
	// Same tag on both communicators: each receive gets its own.
	if n > 1 {
		must(c.Send([]byte{1}, (r+1)%n, 5), "Send on c")
		must(d.Send([]byte{2}, (r+1)%n, 5), "Send on dup")
		b := make([]byte, 1)
		_, err := d.Recv(b, (r-1+n)%n, 5)
		must(err, "Recv on dup")
		if b[0] != 2 {
			fail("dup received the parent's message")
		}
		_, err = c.Recv(b, (r-1+n)%n, 5)
		must(err, "Recv on c")
		if b[0] != 1 {
			fail("parent received the dup's message")
		}
	}
	// Free with a nonblocking collective and a receive still pending on
	// the communicator: both complete normally afterwards.
	pend := make([]byte, 64)
	if r == 0 {
		pattern(pend, 11)
	}
	pb, err := d.Ibcast(pend, 0)
	must(err, "Ibcast before Free")
	var pr *mpi.Request
	got := make([]byte, 1)
	if n > 1 {
		pr, err = d.Irecv(got, (r-1+n)%n, 8)
		must(err, "Irecv before Free")
		must(d.Send([]byte{byte(r)}, (r+1)%n, 8), "Send before Free")
	}
	must(d.Free(), "Free")
	_, err = pb.Wait()
	must(err, "Ibcast after Free")
	checkPattern(pend, 11, "Ibcast pending at Free")
	if pr != nil {
		_, err = pr.Wait()
		must(err, "Irecv after Free")
		if got[0] != byte((r-1+n)%n) {
			fail("receive pending at Free got %d", got[0])
		}
	}
	if err := d.Barrier(); !errors.Is(err, mpi.ErrComm) {
		fail("Barrier on freed communicator: %v", err)
	}
	if err := mpi.World().Free(); !errors.Is(err, mpi.ErrComm) {
		fail("Free(World): %v", err)
	}
	if err := mpi.Self().Free(); !errors.Is(err, mpi.ErrComm) {
		fail("Free(Self): %v", err)
	}
}

// commsOverlap: two overlapping groups A = {0..⌈n/2⌉} and B = {⌊n/2⌋..n-1}
// broadcast at the same time, interleaved with traffic on the parent, as
// in the thesis's concurrent-broadcast test.
func commsOverlap(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	g := c.Group()
	ga, err := g.Incl(span(0, (n+1)/2+min(1, n-(n+1)/2)))
	must(err, "Incl A")
	gb, err := g.Incl(span(n/2, n))
	must(err, "Incl B")
	a, err := c.Create(ga)
	must(err, "Create A")
	b, err := c.Create(gb)
	must(err, "Create B")
	if (a == nil) != (ga.Rank() == mpi.Undefined) || (b == nil) != (gb.Rank() == mpi.Undefined) {
		fail("Create membership: a=%v b=%v", a != nil, b != nil)
	}
	if a != nil && (a.Rank() != ga.Rank() || a.Size() != ga.Size()) {
		fail("Create A: rank %d size %d", a.Rank(), a.Size())
	}
	// CreateGroup over B's members only.
	var cb *mpi.Comm
	if gb.Rank() != mpi.Undefined {
		cb, err = c.CreateGroup(gb, 9)
		must(err, "CreateGroup")
		if cb.Size() != gb.Size() || cb.Rank() != gb.Rank() {
			fail("CreateGroup: rank %d size %d", cb.Rank(), cb.Size())
		}
	}
	for round := range 30 {
		size := []int{3, 2000, 70_000}[round%3]
		var ra, rb, rcb *mpi.Request
		bufA, bufB, bufC := make([]byte, size), make([]byte, size), make([]byte, 8)
		if a != nil {
			root := round % a.Size()
			if a.Rank() == root {
				pattern(bufA, round)
			}
			ra, err = a.Ibcast(bufA, root)
			must(err, "Ibcast A")
		}
		if b != nil {
			root := (round + 1) % b.Size()
			if b.Rank() == root {
				pattern(bufB, -round)
			}
			rb, err = b.Ibcast(bufB, root)
			must(err, "Ibcast B")
		}
		if cb != nil {
			binary.LittleEndian.PutUint64(bufC, 1)
			rcb, err = cb.Iallreduce(bufC, bufC, mpi.Uint64, mpi.Sum)
			must(err, "Iallreduce CreateGroup")
		}
		// The parent's collectives and point-to-point between.
		must(c.Barrier(), "parent Barrier")
		if n > 1 {
			_, err := c.Sendrecv([]byte{byte(round)}, (r+1)%n, round, make([]byte, 1), (r-1+n)%n, round)
			must(err, "Sendrecv")
		}
		for _, q := range []*mpi.Request{rcb, rb, ra} {
			if q != nil {
				_, err := q.Wait()
				must(err, "Wait")
			}
		}
		if a != nil {
			checkPattern(bufA, round, "Ibcast A")
		}
		if b != nil {
			checkPattern(bufB, -round, "Ibcast B")
		}
		if cb != nil && binary.LittleEndian.Uint64(bufC) != uint64(cb.Size()) {
			fail("Iallreduce on CreateGroup comm: %d", binary.LittleEndian.Uint64(bufC))
		}
	}
	for _, x := range []*mpi.Comm{a, b, cb} {
		if x != nil {
			must(x.Free(), "Free")
		}
	}
}

// commsCycles: 200 Dup/Free cycles (context ids never run out), each new
// communicator carrying traffic checked against its own cycle while a
// long-lived Dup keeps its context throughout, and stray messages left on
// freed communicators never reaching later ones.
func commsCycles(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	keep, err := c.Dup() // one long-lived communicator among them
	must(err, "Dup")
	for cycle := range 200 {
		d, err := c.Dup()
		must(err, "Dup cycle %d", cycle)
		v := []int64{int64(cycle + r)}
		out := make([]int64, 1)
		must(mpi.AllreduceSlice(d, v, out, mpi.Sum), "Allreduce on dup")
		if want := int64(n*cycle + n*(n-1)/2); out[0] != want {
			fail("cycle %d: Allreduce %d, want %d", cycle, out[0], want)
		}
		if n > 1 && cycle%10 == 0 {
			must(d.Send([]byte{byte(cycle)}, (r+1)%n, 1), "Send")
			b := make([]byte, 1)
			_, err := d.Recv(b, (r-1+n)%n, 1)
			must(err, "Recv")
			if b[0] != byte(cycle) {
				fail("cycle %d: received %d", cycle, b[0])
			}
		}
		// A system MPI may reuse a freed context id, and leaving a message
		// unreceived is erroneous in MPI: only hympi promises this.
		if n > 1 && cycle%10 == 5 && !systemMPI {
			// A message nobody receives, left on the communicator as it
			// is freed: it must never show up on a later one.
			must(d.Send([]byte{0xee}, (r+1)%n, 3), "stray Send")
		}
		if n > 1 && cycle%10 == 6 {
			must(d.Barrier(), "Barrier")
			if _, found, err := d.Iprobe(mpi.AnySource, mpi.AnyTag); err != nil || found {
				fail("cycle %d: a freed communicator's message reached a new one (found=%v err=%v)", cycle, found, err)
			}
		}
		must(d.Free(), "Free cycle %d", cycle)
	}
	out := make([]int64, 1)
	must(mpi.AllreduceSlice(keep, []int64{1}, out, mpi.Sum), "Allreduce on kept dup")
	if out[0] != int64(n) {
		fail("kept dup: %d", out[0])
	}
	must(keep.Free(), "Free")
}
