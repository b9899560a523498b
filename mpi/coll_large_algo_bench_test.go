//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"
)

// BenchmarkCollLargeAlgo runs, in one run, the algorithms a size
// threshold chooses between: Scan and Exscan as a chain or by recursive doubling (at 2 ranks they
// are always a chain), Reduce_scatter_block straight to the owners or
// round the ring. "large" is the large-message algorithm, "small" the one
// below the threshold.
func BenchmarkCollLargeAlgo(b *testing.B) {
	type variant struct {
		name string
		min  int
	}
	variants := []variant{{"large", 0}, {"small", 1 << 40}}
	byName := map[string]largeColl{}
	for _, lc := range largeColls {
		byName[lc.name] = lc
	}
	cases := []struct {
		coll      string
		ns        []int
		threshold *int
	}{
		{"Scan", []int{3, 4}, &scanChainMin},
		{"Exscan", []int{3, 4}, &scanChainMin},
		{"ReduceScatterBlock", []int{2, 4}, &reduceScatterPairMin},
	}
	for _, tc := range cases {
		for _, n := range tc.ns {
			for _, size := range []int{64 << 10, 1 << 20} {
				for _, v := range variants {
					b.Run(fmt.Sprintf("%s/n=%d/size=%d/%s", tc.coll, n, size, v.name), func(b *testing.B) {
						old := *tc.threshold
						*tc.threshold = v.min
						defer func() { *tc.threshold = old }()
						benchLarge(b, n, size, byName[tc.coll])
					})
				}
			}
		}
	}
}
