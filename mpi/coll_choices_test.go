//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"

	"github.com/hympi/hympi/shm"
)

// TestNeighborSmall: a neighbourhood exchange takes the collective ring
// unless one of this rank's peers would get two messages of which one is
// too large for the ring (CollMsgMax: the two would take different rings and could
// arrive out of order; the nbrmatrix scenario's graph shows it).
func TestNeighborSmall(t *testing.T) {
	const X, big = ProcNull, shm.CollMsgMax + 1
	tests := []struct {
		name   string
		dests  []int
		counts []int
		want   bool
	}{
		{"all fit, distinct", []int{1, 3}, []int{8, 8}, true},
		{"all fit, repeated", []int{1, 1}, []int{8, 232}, true},
		{"all fit in a span, repeated", []int{1, 1}, []int{1024, shm.CollMsgMax}, true},
		{"large, distinct", []int{1, 3}, []int{big, 8}, true},
		{"large, repeated", []int{1, 1}, []int{big, 8}, false},
		{"large, repeated after others", []int{2, 1, 3, 1}, []int{8, 8, 8, big}, false},
		{"large, ProcNull repeated", []int{X, 1, X}, []int{big, 8, 8}, true},
		{"none", nil, nil, true},
	}
	for _, tc := range tests {
		if got := neighborSmall(tc.dests, tc.counts); got != tc.want {
			t.Errorf("%s: neighborSmall(%v, %v) = %v, want %v", tc.name, tc.dests, tc.counts, got, tc.want)
		}
	}
	many := make([]int, neighborRepeatScan+1)
	for i := range many {
		many[i] = i
	}
	if neighborSmall(many, append(make([]int, len(many)-1), big)) {
		t.Errorf("%d distinct destinations with a large block: want the descriptor ring (not scanned)", len(many))
	}
}

// TestSmallCollChoices pins the small-message choices of an
// oversubscribed job that the schedules show: Reduce_scatter in one round
// on up to reduceScatterPairRanks ranks whatever its size (its blocks that
// fit a slot on the collective ring), a reduction to rank 0 and a scatter
// beyond; a neighbourhood exchange on the collective ring but for a peer
// sent two blocks of which one is too large.
func TestSmallCollChoices(t *testing.T) {
	rsb := func(n, size int) func(c *Comm, s *schedule) error {
		return func(c *Comm, s *schedule) error {
			return c.reduceScatterBlockBuild(s, "ReduceScatterBlock", make([]byte, size), make([]byte, size/n), Int64, Sum)
		}
	}
	nbr := func(nb *Neighbors, m int) func(c *Comm, s *schedule) error {
		return func(c *Comm, s *schedule) error {
			return c.neighborAlltoallBuild(s, "NeighborAlltoall", nb, make([]byte, m*len(nb.Destinations)), make([]byte, m*len(nb.Sources)))
		}
	}
	repeated := &Neighbors{Sources: []int{1, 1}, Destinations: []int{1, 1}}
	for _, tc := range []struct {
		name    string
		n, rank int
		build   func(c *Comm, s *schedule) error
		rounds  int // 0: more than one
		small   bool
	}{
		{"ReduceScatterBlock n=4 1KiB", 4, 1, rsb(4, 1024), 1, true},
		{"ReduceScatterBlock n=8 1KiB", 8, 3, rsb(8, 1024), 1, true},
		{"ReduceScatterBlock n=8 32KiB", 8, 0, rsb(8, 32<<10), 1, true},
		{"ReduceScatterBlock n=16 1KiB", 16, 5, rsb(16, 1024), 0, true},
		{"ReduceScatterBlock n=16 16KiB", 16, 5, rsb(16, 16<<10), 0, false},
		{"NeighborAlltoall ring 8B", 4, 0, nbr(CartNeighbors([]int{4}, []bool{true}, 0), 8), 1, true},
		{"NeighborAlltoall ring 1KiB", 4, 0, nbr(CartNeighbors([]int{4}, []bool{true}, 0), 1024), 1, true},
		{"NeighborAlltoall repeated 8B", 2, 0, nbr(repeated, 8), 1, true},
		{"NeighborAlltoall repeated 1KiB", 2, 0, nbr(repeated, 1024), 1, true},
		{"NeighborAlltoall repeated 8KiB", 2, 0, nbr(repeated, 8192), 1, true},
		{"NeighborAlltoall repeated 16KiB", 2, 0, nbr(repeated, 16384), 1, false},
	} {
		s := new(schedule)
		s.reset()
		if err := tc.build(modelComm(tc.rank, tc.n, true), s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := len(s.rounds); (tc.rounds == 0 && got <= 1) || (tc.rounds > 0 && got != tc.rounds) {
			t.Errorf("%s: %d rounds, want %d (0: more than one)", tc.name, got, tc.rounds)
		}
		if s.small != tc.small {
			t.Errorf("%s: collective ring %v, want %v", tc.name, s.small, tc.small)
		}
	}
}

// TestVFormsTakeTheirTwinsShapes pins that Gatherv, Scatterv and
// Allgatherv of an oversubscribed job take their regular twins' shapes:
// with equal counts the same rounds and transfers (peers, directions,
// lengths, single-copy reads) on the collective ring, and with uneven
// counts, zeros among them, the same shape with each block its own length
// (a zero block still a message: the receiver cannot know it is empty
// before the pair agrees). Different shapes cost the v forms up to 3x
// Open MPI's time at 4 ranks on 2 CPUs where the twins took 0.2-0.9x.
func TestVFormsTakeTheirTwinsShapes(t *testing.T) {
	type build func(c *Comm, s *schedule, counts []int) error
	displs := func(counts []int) []int {
		d, at := make([]int, len(counts)), 0
		for i, k := range counts {
			d[i], at = at, at+k
		}
		return d
	}
	sum := func(counts []int) (t int) {
		for _, k := range counts {
			t += k
		}
		return t
	}
	const root = 1
	twins := []struct {
		name     string
		regular  func(c *Comm, s *schedule, m int) error
		v        build
		blockLen func(rank, peer int, counts []int) int // the length of a transfer of rank's with peer
	}{
		{"Gatherv", func(c *Comm, s *schedule, m int) error {
			return c.gatherBuild(s, "Gather", make([]byte, m), make([]byte, m*c.size), root)
		}, func(c *Comm, s *schedule, counts []int) error {
			return c.gathervBuild(s, "Gatherv", make([]byte, counts[c.rank]), make([]byte, sum(counts)), counts, displs(counts), root)
		}, func(rank, peer int, counts []int) int {
			if rank == root {
				return counts[peer]
			}
			return counts[rank]
		}},
		{"Scatterv", func(c *Comm, s *schedule, m int) error {
			return c.scatterBuild(s, "Scatter", make([]byte, m*c.size), make([]byte, m), root)
		}, func(c *Comm, s *schedule, counts []int) error {
			return c.scattervBuild(s, "Scatterv", make([]byte, sum(counts)), counts, displs(counts), make([]byte, counts[c.rank]), root)
		}, func(rank, peer int, counts []int) int {
			if rank == root {
				return counts[peer]
			}
			return counts[rank]
		}},
		{"Allgatherv", func(c *Comm, s *schedule, m int) error {
			return c.allgatherBuild(s, "Allgather", make([]byte, m), make([]byte, m*c.size))
		}, func(c *Comm, s *schedule, counts []int) error {
			return c.allgathervBuild(s, "Allgatherv", make([]byte, counts[c.rank]), make([]byte, sum(counts)), counts, displs(counts))
		}, func(rank, peer int, counts []int) int {
			// Its own block goes out; the peer's comes in.
			return -1
		}},
	}
	for _, tw := range twins {
		for _, n := range []int{3, 4, 5, 8} {
			for _, m := range []int{8, 1024} {
				equal := make([]int, n)
				uneven := make([]int, n)
				for i := range n {
					equal[i] = m
					uneven[i] = (i % 3) * m / 2 // zeros at 0, 3, 6
				}
				for rank := range n {
					c := modelComm(rank, n, true)
					reg, ev, uv := new(schedule), new(schedule), new(schedule)
					reg.reset()
					ev.reset()
					uv.reset()
					if err := tw.regular(c, reg, m); err != nil {
						t.Fatalf("%s twin n=%d rank %d: %v", tw.name, n, rank, err)
					}
					if err := tw.v(c, ev, equal); err != nil {
						t.Fatalf("%s equal n=%d rank %d: %v", tw.name, n, rank, err)
					}
					if err := tw.v(c, uv, uneven); err != nil {
						t.Fatalf("%s uneven n=%d rank %d: %v", tw.name, n, rank, err)
					}
					where := func(what string) string {
						return fmt.Sprintf("%s %s n=%d m=%d rank %d", tw.name, what, n, m, rank)
					}
					sameShape(t, where("equal counts"), reg, ev, nil)
					sameShape(t, where("uneven counts"), reg, uv, func(x *collXfer) int {
						if l := tw.blockLen(rank, x.peer, uneven); l >= 0 {
							return l
						}
						if x.send {
							return uneven[rank]
						}
						return uneven[x.peer]
					})
				}
			}
		}
	}
}

// sameShape compares schedule b with a round by round and transfer by
// transfer; length, when not nil, is what each of b's transfers must
// carry (nil: a's length).
func sameShape(t *testing.T, where string, a, b *schedule, length func(x *collXfer) int) {
	t.Helper()
	if len(a.rounds) != len(b.rounds) || len(a.xfers) != len(b.xfers) {
		t.Errorf("%s: %d rounds, %d transfers; the twin %d, %d", where, len(b.rounds), len(b.xfers), len(a.rounds), len(a.xfers))
		return
	}
	// The v forms' messages may take the collective ring even where the
	// twin's blocks are too large for it (onePerPair: each picks its ring
	// by its own size); never the other way round.
	if a.small && !b.small {
		t.Errorf("%s: not on the collective ring, the twin is", where)
	}
	for i := range a.rounds {
		if ra, rb := a.rounds[i], b.rounds[i]; ra.x0 != rb.x0 || ra.x1 != rb.x1 || ra.gate != rb.gate {
			t.Errorf("%s: round %d is %+v, the twin's %+v", where, i, rb, ra)
		}
	}
	for i := range a.xfers {
		xa, xb := &a.xfers[i], &b.xfers[i]
		want := len(xa.buf)
		if length != nil {
			want = length(xb)
		}
		if xa.peer != xb.peer || xa.send != xb.send || len(xb.buf) != want || (length == nil && xa.read != xb.read) {
			t.Errorf("%s: transfer %d {peer %d send %v len %d read %v}, want {peer %d send %v len %d}",
				where, i, xb.peer, xb.send, len(xb.buf), xb.read, xa.peer, xa.send, want)
		}
	}
}
