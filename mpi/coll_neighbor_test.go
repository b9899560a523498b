package mpi

import (
	"slices"
	"testing"
)

func TestCartNeighbors(t *testing.T) {
	const X = ProcNull
	tests := []struct {
		dims    []int
		periods []bool
		rank    int
		want    []int // sources = destinations
	}{
		{[]int{1}, []bool{true}, 0, []int{0, 0}},
		{[]int{1}, []bool{false}, 0, []int{X, X}},
		{[]int{2}, []bool{true}, 0, []int{1, 1}},
		{[]int{3}, []bool{false}, 0, []int{X, 1}},
		{[]int{3}, []bool{false}, 2, []int{1, X}},
		{[]int{5}, []bool{true}, 0, []int{4, 1}},
		// Row-major: rank 4 of 2x3 is (1,1).
		{[]int{2, 3}, []bool{true, false}, 4, []int{1, 1, 3, 5}},
		{[]int{2, 3}, []bool{false, false}, 2, []int{X, 5, 1, X}},
		{[]int{2, 2, 2}, []bool{true, true, true}, 7, []int{3, 3, 5, 5, 6, 6}},
	}
	for _, tc := range tests {
		nb := CartNeighbors(tc.dims, tc.periods, tc.rank)
		if !slices.Equal(nb.Sources, tc.want) || !slices.Equal(nb.Destinations, tc.want) {
			t.Errorf("CartNeighbors(%v, %v, %d) = %v / %v, want %v", tc.dims, tc.periods, tc.rank, nb.Sources, nb.Destinations, tc.want)
		}
		// Upward block first in every dimension: it pairs with the
		// neighbour's receive from below, which it posts first.
		for d := range tc.dims {
			if nb.SendOrder[2*d] != 2*d+1 || nb.SendOrder[2*d+1] != 2*d {
				t.Errorf("CartNeighbors(%v): send order %v", tc.dims, nb.SendOrder)
			}
		}
	}
}

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
