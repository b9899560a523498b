//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCollMemo runs a sequence of collectives in which each call repeats
// an earlier one or changes one argument, and checks every result against
// a serial reference and whether the call ran a memoised schedule, as a
// model of the memo (memoModel: memoSlots shapes, the one used least
// recently replaced) says it must: a repeat of a shape still memoised
// must (the memo is used), a change must not (a stale schedule would move
// the wrong bytes or hang).
func TestCollMemo(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			comms := inProcessJob(t, n)
			runRanks(t, comms, func(c *Comm) error { return memoSequence(c, n) })
			for _, c := range comms {
				if c.memoLen() == 0 {
					t.Errorf("rank %d: no memo after the sequence", c.rank)
				}
			}
		})
	}
}

// memoStep is one step of the sequence: run makes its calls on rank me
// and returns the bytes to compare with want (nil: nothing to compare);
// keys names each call's memo key ("": never memoised; "shape#counts" for
// a v-collective: the shape is the key, the counts must match too).
type memoStep struct {
	name string
	keys []string
	run  func(c *Comm) ([]byte, error)
	want func(me int) []byte
}

// memoModel is the memo's reference: memoSlots slots of a key and the
// clock of their last use; a call hits when its key's slot has its
// counts, and is kept in its key's slot or else the one used least
// recently.
type memoModel struct {
	slots [memoSlots]struct {
		shape, counts string
		used          int
	}
	clock int
}

// call reports whether a call of key k hits, and records it.
func (m *memoModel) call(k string) bool {
	if k == "" {
		return false
	}
	shape, counts, _ := strings.Cut(k, "#")
	m.clock++
	at := -1
	for i := range m.slots {
		if m.slots[i].shape == shape {
			at = i
		}
	}
	if at < 0 {
		at = 0
		for i := range m.slots {
			if m.slots[i].used < m.slots[at].used {
				at = i
			}
		}
	}
	sl := &m.slots[at]
	hit := sl.shape == shape && sl.counts == counts
	sl.shape, sl.counts, sl.used = shape, counts, m.clock
	return hit
}

func memoSequence(c *Comm, n int) error {
	me := c.rank
	const k = 16 // elements
	// contribution of rank r in round g: element i is r*100+i+g.
	contrib := func(r, g, m int) []int64 {
		v := make([]int64, m)
		for i := range v {
			v[i] = int64(r*100 + i + g)
		}
		return v
	}
	sum := func(g, m int) []byte {
		tot := make([]int64, m)
		for r := range n {
			for i, x := range contrib(r, g, m) {
				tot[i] += x
			}
		}
		return putInt64s(tot)
	}
	maxOf := func(g, m int) []byte { return putInt64s(contrib(n-1, g, m)) }
	send, recv, other := putInt64s(contrib(me, 0, k)), make([]byte, 8*k), make([]byte, 8*k)
	inplace, send2 := make([]byte, 8*k), putInt64s(contrib(me, 9, k))
	bcast := make([]byte, 24)
	rootData := func(root int) []byte { b := make([]byte, 24); fill(b, root); return b }
	user, err := NewOp(func(in, inout []byte, _ Datatype) {
		a, b := int64s(in), int64s(inout)
		for i := range b {
			b[i] += a[i]
		}
		copy(inout, putInt64s(b))
	}, true)
	if err != nil {
		return err
	}
	allreduce := func(s, r []byte, op Op) func(c *Comm) ([]byte, error) {
		return func(c *Comm) ([]byte, error) { return r, c.Allreduce(s, r, Int64, op) }
	}
	bc := func(root int) func(c *Comm) ([]byte, error) {
		return func(c *Comm) ([]byte, error) {
			clear(bcast)
			if me == root {
				copy(bcast, rootData(root))
			}
			return bcast, c.Bcast(bcast, root)
		}
	}
	red := func(root int) func(c *Comm) ([]byte, error) {
		return func(c *Comm) ([]byte, error) {
			clear(recv)
			if err := c.Reduce(send, recv, Int64, Sum, root); err != nil || me != root {
				return nil, err
			}
			return recv, nil
		}
	}
	// Alltoallv and Scatterv: one int64 per block; block j of rank r's
	// send buffer (at sd[j]) is r*10+j, and rank r's block from rank j
	// lands at rd[j].
	sc, sd, rd := make([]int, n), make([]int, n), make([]int, n)
	for i := range n {
		sc[i], sd[i], rd[i] = 8, 8*i, 8*i
	}
	a2aSend, a2aRecv := make([]byte, 8*n), make([]byte, 8*n)
	block := func(r, j int) []byte { return putInt64s([]int64{int64(r*10 + j)}) }
	a2av := func(c *Comm) ([]byte, error) {
		for j := range n {
			copy(a2aSend[sd[j]:], block(me, j))
		}
		clear(a2aRecv)
		return a2aRecv, c.Alltoallv(a2aSend, sc, sd, a2aRecv, sc, rd)
	}
	a2avWant := func(int) []byte {
		w := make([]byte, 8*n)
		for j := range n {
			copy(w[rd[j]:], block(j, me))
		}
		return w
	}
	scvRecv := make([]byte, 8)
	scv := func(c *Comm) ([]byte, error) {
		for j := range n {
			copy(a2aSend[sd[j]:], block(me, j))
		}
		clear(scvRecv)
		return scvRecv, c.Scatterv(a2aSend, sc, sd, scvRecv, 0)
	}
	scvWant := func(int) []byte { return block(0, me) }
	// Gatherv and Allgatherv: rank r's one int64 (r*10) lands at gd[r].
	gd := make([]int, n)
	for i := range n {
		gd[i] = 8 * i
	}
	gvSend, gvRecv := block(me, 0), make([]byte, 8*n)
	gvWant := func(int) []byte {
		w := make([]byte, 8*n)
		for r := range n {
			copy(w[gd[r]:], block(r, 0))
		}
		return w
	}
	// Off the root a rooted v-collective's key has no arrays (rootCounts):
	// its counts or displacements changed in place still hit there.
	rooted := func(k string) string {
		if me == 0 {
			return k
		}
		shape, _, _ := strings.Cut(k, "#")
		return shape + "#-"
	}
	gv := func(c *Comm) ([]byte, error) {
		clear(gvRecv)
		if err := c.Gatherv(gvSend, gvRecv, sc, gd, 0); err != nil || me != 0 {
			return nil, err
		}
		return gvRecv, nil
	}
	agv := func(c *Comm) ([]byte, error) {
		clear(gvRecv)
		return gvRecv, c.Allgatherv(gvSend, gvRecv, sc, gd)
	}
	reverse := func(d []int) func(c *Comm) ([]byte, error) {
		return func(c *Comm) ([]byte, error) {
			for i := range d {
				d[i] = (n - 1 - i) * 8
			}
			return nil, nil
		}
	}
	// ReduceScatter: rank r's element j is r*10+j; rank me gets the
	// sums of elements [sum(rsc[:me])/8, +rsc[me]/8).
	rsc := make([]int, n)
	for i := range rsc {
		rsc[i] = 8
	}
	rsSend, rsRecv := make([]byte, 16*n), make([]byte, 16)
	for j := range 2 * n {
		copy(rsSend[8*j:], putInt64s([]int64{int64(me*10 + j)}))
	}
	rs := func(c *Comm) ([]byte, error) {
		clear(rsRecv)
		return rsRecv[:rsc[me]], c.ReduceScatter(rsSend, rsRecv, rsc, Int64, Sum)
	}
	rsWant := func(me int) []byte {
		at := 0
		for _, x := range rsc[:me] {
			at += x / 8
		}
		w := make([]int64, rsc[me]/8)
		for i := range w {
			w[i] = int64(10*n*(n-1)/2 + n*(at+i))
		}
		return putInt64s(w)
	}
	// Alltoallw: Alltoallv's blocks as one Int64 (or Uint64) each.
	wc, wt, wrt := make([]int, n), make([]Datatype, n), make([]Datatype, n)
	for i := range n {
		wc[i], wt[i], wrt[i] = 1, Int64, Int64
	}
	a2aw := func(c *Comm) ([]byte, error) {
		for j := range n {
			copy(a2aSend[sd[j]:], block(me, j))
		}
		clear(a2aRecv)
		return a2aRecv, c.Alltoallw(a2aSend, wc, sd, wt, a2aRecv, wc, rd, wrt)
	}
	// NeighborAlltoallv on a ring: one int64 from the left (or, turned
	// round, from the right).
	nb := &Neighbors{Sources: []int{(me + n - 1) % n}, Destinations: []int{(me + 1) % n}}
	one, zero := []int{8}, []int{0}
	nbSend, nbRecv := putInt64s([]int64{int64(me)}), make([]byte, 8)
	nbr := func(c *Comm) ([]byte, error) {
		clear(nbRecv)
		return nbRecv, c.NeighborAlltoallv(nb, nbSend, one, zero, nbRecv, one, zero)
	}
	nbWant := func(me int) []byte { return putInt64s([]int64{int64(nb.Sources[0])}) }
	turned := "nbr#2" // at two ranks left is right: the lists stay as they were
	if n == 2 {
		turned = "nbr#1"
	}
	// The other neighbourhood forms on the same buffers and lists: each a
	// kind of its own (one source and destination make their schedules
	// alike, so only the memo's count tells a wrong hit).
	nbA2A := func(c *Comm) ([]byte, error) {
		clear(nbRecv)
		return nbRecv, c.NeighborAlltoall(nb, nbSend, nbRecv)
	}
	nbAG := func(c *Comm) ([]byte, error) {
		clear(nbRecv)
		return nbRecv, c.NeighborAllgather(nb, nbSend, nbRecv)
	}
	agvRecv, agvDispl := make([]byte, 16), []int{0}
	nbAGV := func(c *Comm) ([]byte, error) {
		clear(agvRecv)
		return agvRecv, c.NeighborAllgatherv(nb, nbSend, agvRecv, one, agvDispl)
	}
	nbAGVWant := func(me int) []byte {
		w := make([]byte, 16)
		copy(w[agvDispl[0]:], putInt64s([]int64{int64(nb.Sources[0])}))
		return w
	}
	nwc, nwt, nwrt := []int{1}, []Datatype{Int64}, []Datatype{Int64}
	nbW := func(c *Comm) ([]byte, error) {
		clear(nbRecv)
		return nbRecv, c.NeighborAlltoallw(nb, nbSend, nwc, zero, nwt, nbRecv, nwc, zero, nwrt)
	}
	back := "nbA2A#1"
	if n > 2 {
		back = "nbA2A#2"
	}
	s1 := func(int) []byte { return sum(0, k) }
	shortU := func(c *Comm) ([]byte, error) {
		return recv[:8*5], c.Allreduce(send[:8*5], recv[:8*5], Uint64, Sum)
	}
	steps := []memoStep{
		{"first Allreduce", []string{"ar s r sum"}, allreduce(send, recv, Sum), s1},
		{"same again", []string{"ar s r sum"}, allreduce(send, recv, Sum), s1},
		{"new send contents", []string{"ar s r sum"}, func(c *Comm) ([]byte, error) {
			copy(send, putInt64s(contrib(me, 7, k)))
			return recv, c.Allreduce(send, recv, Int64, Sum)
		}, func(int) []byte { return sum(7, k) }},
		{"other recv buffer", []string{"ar s o sum"}, allreduce(send, other, Sum), func(int) []byte { return sum(7, k) }},
		{"other send buffer", []string{"ar s2 o sum"}, allreduce(send2, other, Sum), func(int) []byte { return sum(9, k) }},
		{"in place", []string{"ar ip sum"}, func(c *Comm) ([]byte, error) {
			copy(inplace, putInt64s(contrib(me, 3, k)))
			return inplace, c.Allreduce(inplace, inplace, Int64, Sum)
		}, func(int) []byte { return sum(3, k) }},
		{"not in place again", []string{"ar s r sum"}, allreduce(send, recv, Sum), func(int) []byte { return sum(7, k) }},
		{"other op", []string{"ar s r max"}, allreduce(send, recv, Max), func(int) []byte { return maxOf(7, k) }},
		{"shorter", []string{"ar s5 r5 sum i64"}, allreduce(send[:8*5], recv[:8*5], Sum), func(int) []byte { return sum(7, 5) }},
		{"other datatype", []string{"ar s5 r5 sum u64"}, shortU, func(int) []byte { return sum(7, 5) }},
		{"user op (never memoised)", []string{""}, allreduce(send, recv, user), func(int) []byte { return sum(7, k) }},
		{"the memo outlives it", []string{"ar s5 r5 sum u64"}, shortU, func(int) []byte { return sum(7, 5) }},
		{"Bcast root 0", []string{"bc 0"}, bc(0), func(int) []byte { return rootData(0) }},
		{"Bcast root 0 again", []string{"bc 0"}, bc(0), func(int) []byte { return rootData(0) }},
		{"Bcast root 1", []string{"bc 1"}, bc(1), func(int) []byte { return rootData(1) }},
		{"Reduce root 1", []string{"red 1"}, red(1), func(int) []byte { return sum(7, k) }},
		{"Reduce root 1 again", []string{"red 1"}, red(1), func(int) []byte { return sum(7, k) }},
		{"Reduce root 0", []string{"red 0"}, red(0), func(int) []byte { return sum(7, k) }},
		{"Barrier", []string{"bar"}, func(c *Comm) ([]byte, error) { return nil, c.Barrier() }, nil},
		{"Barrier again", []string{"bar"}, func(c *Comm) ([]byte, error) { return nil, c.Barrier() }, nil},
		{"Ibarrier takes the Barrier's", []string{"bar"}, func(c *Comm) ([]byte, error) { return nil, wait(c.Ibarrier()) }, nil},
		{"Allreduce after it", []string{"ar s r sum"}, allreduce(send, recv, Sum), func(int) []byte { return sum(7, k) }},
		{"Iallreduce of its shape", []string{"ar s r sum"}, func(c *Comm) ([]byte, error) {
			clear(recv)
			return recv, wait(c.Iallreduce(send, recv, Int64, Sum))
		}, func(int) []byte { return sum(7, k) }},
		{"Iallreduce memoised when collected", []string{"ar s r sum"}, func(c *Comm) ([]byte, error) {
			clear(recv)
			return recv, wait(c.Iallreduce(send, recv, Int64, Sum))
		}, func(int) []byte { return sum(7, k) }},
		{"two outstanding: one from the memo", []string{"ar s r sum", "ar s2 o sum"}, func(c *Comm) ([]byte, error) {
			clear(recv)
			clear(other)
			a, err := c.Iallreduce(send, recv, Int64, Sum)
			if err != nil {
				return nil, err
			}
			// The same shape again but other buffers (pending
			// collectives must not share a receive buffer): built.
			b, err := c.Iallreduce(send2, other, Int64, Sum)
			if err != nil {
				return nil, err
			}
			if _, err := a.Wait(); err != nil {
				return nil, err
			}
			if err := wait(b, nil); err != nil {
				return nil, err
			}
			if want := sum(9, k); !slices.Equal(other, want) {
				return nil, fmt.Errorf("second: got %v, want %v", int64s(other), int64s(want))
			}
			return recv, nil
		}, func(int) []byte { return sum(7, k) }},
		{"Ibcast root 0", []string{"bc 0"}, func(c *Comm) ([]byte, error) {
			clear(bcast)
			if me == 0 {
				copy(bcast, rootData(0))
			}
			return bcast, wait(c.Ibcast(bcast, 0))
		}, func(int) []byte { return rootData(0) }},
		{"Ibcast root 1", []string{"bc 1"}, func(c *Comm) ([]byte, error) {
			clear(bcast)
			if me == 1 {
				copy(bcast, rootData(1))
			}
			return bcast, wait(c.Ibcast(bcast, 1))
		}, func(int) []byte { return rootData(1) }},
		{"Bcast root 1 takes the Ibcast's", []string{"bc 1"}, bc(1), func(int) []byte { return rootData(1) }},
		{"Alltoallv", []string{"a2av#1"}, a2av, a2avWant},
		{"Alltoallv again", []string{"a2av#1"}, a2av, a2avWant},
		{"receive displacements changed in place", []string{"a2av#2"}, func(c *Comm) ([]byte, error) {
			for i := range rd {
				rd[i] = (n - 1 - i) * 8
			}
			return a2av(c)
		}, a2avWant},
		{"Ialltoallv of its shape", []string{"a2av#2"}, func(c *Comm) ([]byte, error) {
			clear(a2aRecv)
			return a2aRecv, wait(c.Ialltoallv(a2aSend, sc, sd, a2aRecv, sc, rd))
		}, a2avWant},
		{"Scatterv", []string{rooted("scv#1")}, scv, scvWant},
		{"Scatterv again", []string{rooted("scv#1")}, scv, scvWant},
		{"send displacements changed in place", []string{rooted("scv#2")}, func(c *Comm) ([]byte, error) {
			for i := range sd {
				sd[i] = (n - 1 - i) * 8
			}
			return scv(c)
		}, scvWant},
		{"Gatherv", []string{rooted("gv#1")}, gv, gvWant},
		{"Gatherv again", []string{rooted("gv#1")}, gv, gvWant},
		{"Allgatherv", []string{"agv#1"}, agv, gvWant},
		{"Allgatherv again", []string{"agv#1"}, agv, gvWant},
		{"displacements reversed", nil, reverse(gd), nil},
		{"Gatherv, displacements changed in place", []string{rooted("gv#2")}, gv, gvWant},
		{"Gatherv again, new displacements", []string{rooted("gv#2")}, gv, gvWant},
		{"Allgatherv, displacements changed in place", []string{"agv#2"}, agv, gvWant},
		{"Allgatherv again, new displacements", []string{"agv#2"}, agv, gvWant},
		{"ReduceScatter", []string{"rs#1"}, rs, rsWant},
		{"ReduceScatter again", []string{"rs#1"}, rs, rsWant},
		{"ReduceScatter counts changed in place", []string{"rs#2"}, func(c *Comm) ([]byte, error) {
			rsc[0] = 16
			return rs(c)
		}, rsWant},
		{"IreduceScatter of its shape", []string{"rs#2"}, func(c *Comm) ([]byte, error) {
			clear(rsRecv)
			return rsRecv[:rsc[me]], wait(c.IreduceScatter(rsSend, rsRecv, rsc, Int64, Sum))
		}, rsWant},
		{"Alltoallw", []string{"a2aw#1"}, a2aw, a2avWant},
		{"Alltoallw again", []string{"a2aw#1"}, a2aw, a2avWant},
		{"Alltoallw datatypes changed in place", []string{"a2aw#2"}, func(c *Comm) ([]byte, error) {
			for i := range wrt {
				wrt[i] = Uint64
			}
			return a2aw(c)
		}, a2avWant},
		{"Ialltoallw of its shape", []string{"a2aw#2"}, func(c *Comm) ([]byte, error) {
			clear(a2aRecv)
			return a2aRecv, wait(c.Ialltoallw(a2aSend, wc, sd, wt, a2aRecv, wc, rd, wrt))
		}, a2avWant},
		{"NeighborAlltoallv", []string{"nbr#1"}, nbr, nbWant},
		{"NeighborAlltoallv again", []string{"nbr#1"}, nbr, nbWant},
		{"neighbourhood turned round in place", []string{turned}, func(c *Comm) ([]byte, error) {
			nb.Sources[0], nb.Destinations[0] = nb.Destinations[0], nb.Sources[0]
			return nbr(c)
		}, nbWant},
		{"IneighborAlltoallv of its shape", []string{turned}, func(c *Comm) ([]byte, error) {
			clear(nbRecv)
			return nbRecv, wait(c.IneighborAlltoallv(nb, nbSend, one, zero, nbRecv, one, zero))
		}, nbWant},
		{"NeighborAlltoall on NeighborAlltoallv's buffers", []string{"nbA2A#1"}, nbA2A, nbWant},
		{"NeighborAlltoall again", []string{"nbA2A#1"}, nbA2A, nbWant},
		{"IneighborAlltoall of its shape", []string{"nbA2A#1"}, func(c *Comm) ([]byte, error) {
			clear(nbRecv)
			return nbRecv, wait(c.IneighborAlltoall(nb, nbSend, nbRecv))
		}, nbWant},
		{"NeighborAllgather on the same buffers", []string{"nbAG#1"}, nbAG, nbWant},
		{"NeighborAllgather again", []string{"nbAG#1"}, nbAG, nbWant},
		{"IneighborAllgather of its shape", []string{"nbAG#1"}, func(c *Comm) ([]byte, error) {
			clear(nbRecv)
			return nbRecv, wait(c.IneighborAllgather(nb, nbSend, nbRecv))
		}, nbWant},
		{"NeighborAllgatherv", []string{"nbAGV#1"}, nbAGV, nbAGVWant},
		{"NeighborAllgatherv again", []string{"nbAGV#1"}, nbAGV, nbAGVWant},
		{"NeighborAllgatherv displacement changed in place", []string{"nbAGV#2"}, func(c *Comm) ([]byte, error) {
			agvDispl[0] = 8
			return nbAGV(c)
		}, nbAGVWant},
		{"IneighborAllgatherv of its shape", []string{"nbAGV#2"}, func(c *Comm) ([]byte, error) {
			clear(agvRecv)
			return agvRecv, wait(c.IneighborAllgatherv(nb, nbSend, agvRecv, one, agvDispl))
		}, nbAGVWant},
		{"NeighborAlltoallw", []string{"nbW#1"}, nbW, nbWant},
		{"NeighborAlltoallw again", []string{"nbW#1"}, nbW, nbWant},
		{"NeighborAlltoallw datatypes changed in place", []string{"nbW#2"}, func(c *Comm) ([]byte, error) {
			nwrt[0] = Uint64
			return nbW(c)
		}, nbWant},
		{"IneighborAlltoallw of its shape", []string{"nbW#2"}, func(c *Comm) ([]byte, error) {
			clear(nbRecv)
			return nbRecv, wait(c.IneighborAlltoallw(nb, nbSend, nwc, zero, nwt, nbRecv, nwc, zero, nwrt))
		}, nbWant},
		{"NeighborAlltoall, neighbourhood turned back in place", []string{back}, func(c *Comm) ([]byte, error) {
			nb.Sources[0], nb.Destinations[0] = nb.Destinations[0], nb.Sources[0]
			return nbA2A(c)
		}, nbWant},
		{"NeighborAlltoallv after it: its lists back as first keyed", []string{"nbr#1"}, nbr, nbWant},
	}
	var model memoModel
	for _, st := range steps {
		want := false
		for _, k := range st.keys {
			want = model.call(k) || want
		}
		before := c.memoHits
		got, err := st.run(c)
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		if hit := c.memoHits != before; hit != want {
			return fmt.Errorf("%s: memo used %v, want %v", st.name, hit, want)
		}
		if st.want != nil && got != nil {
			if want := st.want(me); !slices.Equal(got, want) {
				return fmt.Errorf("%s: got %v, want %v", st.name, int64s(got), int64s(want))
			}
		}
	}
	return nil
}

func wait(r *Request, err error) error {
	if err != nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// TestCollKeyPacking: the memo key packs kind, datatype, operator, root
// and the nil flags into one word; every argument must still tell two
// calls apart, and what does not fit the packing must not be memoised.
func TestCollKeyPacking(t *testing.T) {
	a, b := make([]byte, 16), make([]byte, 16)
	base := keyOf(memoReduce, a, b, Int64, Sum, 1)
	differ := []struct {
		name string
		k    collKey
	}{
		{"kind", keyOf(memoAllreduce, a, b, Int64, Sum, 1)},
		{"datatype", keyOf(memoReduce, a, b, Float64, Sum, 1)},
		{"operator", keyOf(memoReduce, a, b, Int64, Max, 1)},
		{"root", keyOf(memoReduce, a, b, Int64, Sum, 2)},
		{"send buffer", keyOf(memoReduce, b, b, Int64, Sum, 1)},
		{"send length", keyOf(memoReduce, a[:8], b, Int64, Sum, 1)},
		{"receive buffer", keyOf(memoReduce, a, a, Int64, Sum, 1)},
		{"receive length", keyOf(memoReduce, a, b[:8], Int64, Sum, 1)},
		{"nil receive", keyOf(memoReduce, a, nil, Int64, Sum, 1)},
		{"empty receive", keyOf(memoReduce, a, b[:0], Int64, Sum, 1)},
		{"largest root", keyOf(memoReduce, a, b, Int64, Sum, keyRootMax)},
	}
	for _, d := range differ {
		if d.k.kind() != memoReduce && d.name != "kind" {
			t.Errorf("%s: kind %d, want %d", d.name, d.k.kind(), memoReduce)
		}
		if d.k.same(&base) {
			t.Errorf("%s: same key as the base call", d.name)
		}
	}
	if d1, d2 := differ[8].k, differ[9].k; d1.same(&d2) {
		t.Error("a nil receive buffer and an empty one have the same key")
	}
	if again := keyOf(memoReduce, a, b, Int64, Sum, 1); !again.same(&base) {
		t.Error("the same call has another key")
	}
	over := base
	over.setOversub(true)
	if over.same(&base) || over.kind() != memoReduce {
		t.Error("oversubscription does not change the key, or changes its kind")
	}
	over.setOversub(false)
	if !over.same(&base) {
		t.Error("clearing oversubscription does not restore the key")
	}
	for _, k := range []collKey{
		keyOf(memoReduce, a, b, Int64, Sum, keyRootMax+1),
		keyOf(memoReduce, a, b, Int64, Sum, -1),
		keyOf(memoReduce, a, b, opaqueTypeBase, Sum, 0),
		keyOf(memoReduce, a, b, Int64, userOpBase, 0),
		keyOf(memoReduce, make([]byte, memoMax+1), b, Int64, Sum, 0),
	} {
		if k.kind() != memoNone {
			t.Errorf("key %+v is memoised", k)
		}
	}
}

// TestCollMemoAlternation: loops of different collectives in turn (a
// collective and a Barrier, as OSU's benchmarks call them; a rotation of
// four and a Barrier) must run every call from the memo once warm, and
// allocate nothing; freeing the communicator empties the memo.
func TestCollMemoAlternation(t *testing.T) {
	type loop struct {
		name  string
		calls int // memoised calls per iteration
		iter  func(c *Comm, i int, b []byte) error
	}
	loops := []loop{
		{"Bcast+Barrier", 2, func(c *Comm, i int, b []byte) error {
			if c.rank == 0 {
				b[0] = byte(i)
			}
			if err := c.Bcast(b[:8], 0); err != nil {
				return err
			}
			if b[0] != byte(i) {
				return fmt.Errorf("Bcast %d: got %d", i, b[0])
			}
			return c.Barrier()
		}},
		{"Allreduce+Reduce+Allgather+Bcast+Barrier", 5, func(c *Comm, i int, b []byte) error {
			n := c.size
			in, out, all := b[:8], b[8:16], b[16:16+n]
			in[0] = byte(i)
			if err := c.Allreduce(in, out, Uint64, Sum); err != nil {
				return err
			}
			if out[0] != byte(n*i) {
				return fmt.Errorf("Allreduce %d: got %d, want %d", i, out[0], byte(n*i))
			}
			if err := c.Reduce(in, out, Uint64, Max, n-1); err != nil {
				return err
			}
			if err := c.Allgather(b[c.rank:c.rank+1], all); err != nil {
				return err
			}
			if err := c.Bcast(b[32:40], n-1); err != nil {
				return err
			}
			return c.Barrier()
		}},
	}
	for _, n := range []int{2, 4} {
		for _, lp := range loops {
			t.Run(fmt.Sprintf("n=%d/%s", n, lp.name), func(t *testing.T) {
				comms := inProcessJob(t, n)
				const warm, runs = 5, 20
				var allocs float64
				dups := make([]*Comm, n)
				runRanks(t, comms, func(w *Comm) error {
					c, err := w.Dup()
					if err != nil {
						return err
					}
					dups[w.rank] = c
					b := make([]byte, 64)
					i := 0
					for ; i < warm; i++ {
						if err := lp.iter(c, i, b); err != nil {
							return err
						}
					}
					before := c.memoHits
					f := func() {
						if e := lp.iter(c, i, b); e != nil && err == nil {
							err = e
						}
						i++
					}
					if c.rank == 0 {
						allocs = testing.AllocsPerRun(runs, f)
					} else {
						for range runs + 1 { // AllocsPerRun calls f once more
							f()
						}
					}
					if err != nil {
						return err
					}
					if hits := c.memoHits - before; hits != uint64(lp.calls*(runs+1)) {
						return fmt.Errorf("%d of %d calls ran from the memo", hits, lp.calls*(runs+1))
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					return c.Free()
				})
				if allocs != 0 {
					t.Errorf("%v allocations per iteration, want 0", allocs)
				}
				for _, c := range dups {
					if k := c.memoLen(); k != 0 {
						t.Errorf("rank %d: %d entries memoised after Free", c.rank, k)
					}
				}
			})
		}
	}
}
