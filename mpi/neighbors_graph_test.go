package mpi

import (
	"slices"
	"testing"
)

func TestGraphNeighbors(t *testing.T) {
	// Node 0 alone, 1-2 joined three times, 2-3 once, 3 loops to itself.
	index := []int{0, 3, 7, 9}
	edges := []int{2, 2, 2, 1, 1, 1, 3, 2, 3}
	tests := []struct {
		rank int
		want []int
	}{
		{0, []int{}},
		{1, []int{2, 2, 2}},
		{2, []int{1, 1, 1, 3}},
		{3, []int{2, 3}},
	}
	for _, tc := range tests {
		nb, err := GraphNeighbors(index, edges, tc.rank)
		if err != nil {
			t.Fatalf("GraphNeighbors(rank %d): %v", tc.rank, err)
		}
		if !slices.Equal(nb.Sources, tc.want) || !slices.Equal(nb.Destinations, tc.want) || nb.SendOrder != nil {
			t.Errorf("GraphNeighbors(rank %d) = %v / %v, want %v", tc.rank, nb.Sources, nb.Destinations, tc.want)
		}
	}
	bad := []struct {
		name         string
		index, edges []int
		rank         int
		class        ErrorClass
	}{
		{"rank beyond the nodes", index, edges, 4, ErrRank},
		{"negative rank", index, edges, -1, ErrRank},
		{"no nodes", nil, nil, 0, ErrRank},
		{"index decreasing", []int{2, 1}, []int{1, 0}, 0, ErrArg},
		{"index beyond the edges", []int{1, 3}, []int{1, 0}, 0, ErrArg},
		{"edge to no node", []int{1, 2}, []int{1, 2}, 0, ErrArg},
		{"negative edge", []int{1, 2}, []int{-1, 0}, 1, ErrArg},
	}
	for _, tc := range bad {
		nb, err := GraphNeighbors(tc.index, tc.edges, tc.rank)
		if ClassOf(err) != tc.class || nb != nil {
			t.Errorf("%s: got %v, %v; want class %d", tc.name, nb, err, tc.class)
		}
	}
}

func TestDistGraphNeighbors(t *testing.T) {
	src, dst := []int{3, 1, 3}, []int{0}
	nb := DistGraphNeighbors(src, dst)
	src[0], dst[0] = 9, 9 // the neighbourhood keeps its own copy
	if !slices.Equal(nb.Sources, []int{3, 1, 3}) || !slices.Equal(nb.Destinations, []int{0}) {
		t.Errorf("DistGraphNeighbors = %v / %v", nb.Sources, nb.Destinations)
	}
	if err := nb.check("test", 4); err != nil {
		t.Errorf("check in a communicator of 4: %v", err)
	}
	if err := nb.check("test", 3); ClassOf(err) != ErrRank {
		t.Errorf("check in a communicator of 3: %v, want ErrRank", err)
	}
}
