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
