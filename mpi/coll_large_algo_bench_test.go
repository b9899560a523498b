//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"
)

// BenchmarkCollLargeAlgo: Scan and Exscan as a chain against recursive
// doubling, Reduce_scatter_block straight to the owners against the ring,
// in one run.
func BenchmarkCollLargeAlgo(b *testing.B) {
	type variant struct {
		name   string
		chain  int
		rsPair int
	}
	variants := []variant{{"large", 0, 0}, {"small", 1 << 40, 1 << 40}}
	for _, lc := range largeColls[2:] {
		for _, n := range []int{3, 4} {
			for _, size := range []int{64 << 10, 1 << 20} {
				for _, v := range variants {
					b.Run(fmt.Sprintf("%s/n=%d/size=%d/%s", lc.name, n, size, v.name), func(b *testing.B) {
						oldChain, oldPair := scanChainMin, reduceScatterPairMin
						scanChainMin, reduceScatterPairMin = v.chain, v.rsPair
						defer func() { scanChainMin, reduceScatterPairMin = oldChain, oldPair }()
						benchLarge(b, n, size, lc)
					})
				}
			}
		}
	}
}
