//go:build !ompi && !mpich

package mpi

import "testing"

// TestNeighborSmall: a neighbourhood exchange takes the collective ring
// unless one of this rank's peers would get two messages of which one is
// too large for a slot (the two would take different rings and could
// arrive out of order; the nbrmatrix scenario's graph shows it).
func TestNeighborSmall(t *testing.T) {
	const X, big = ProcNull, 1000
	tests := []struct {
		name   string
		dests  []int
		counts []int
		want   bool
	}{
		{"all fit, distinct", []int{1, 3}, []int{8, 8}, true},
		{"all fit, repeated", []int{1, 1}, []int{8, 232}, true},
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
		{"NeighborAlltoall repeated 1KiB", 2, 0, nbr(repeated, 1024), 1, false},
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
