// Package calib turns the latencies hympi-info --tune measures into a
// threshold. It is apart from package mpi because only the tuner needs it.
package calib

import (
	"slices"
	"time"
)

// Point is the one-way latency of each protocol for one message
// size between two CPUs.
type Point struct {
	Size   int
	Eager  time.Duration // through shared memory (two copies)
	Direct time.Duration // read from the sender's memory (one copy)
}

// Crossover turns measurements into a threshold: eager up to it, direct
// above. Of every possible cut it takes the one that loses least against the
// better protocol at each measured size (relative loss, summed), so one
// noisy point cannot drag the threshold to the far end. A cut below the
// smallest size is half that size; above the largest, the largest size.
func Crossover(points []Point) int {
	if len(points) == 0 {
		return 0
	}
	p := slices.Clone(points)
	slices.SortFunc(p, func(a, b Point) int { return a.Size - b.Size })
	loss := func(got, other time.Duration) float64 {
		best := min(got, other)
		if best <= 0 {
			return 0
		}
		return float64(got-best) / float64(best)
	}
	// cut k: sizes p[:k] eager, p[k:] direct.
	bestCut, bestLoss := 0, -1.0
	for k := 0; k <= len(p); k++ {
		l := 0.0
		for j, pt := range p {
			if j < k {
				l += loss(pt.Eager, pt.Direct)
			} else {
				l += loss(pt.Direct, pt.Eager)
			}
		}
		if bestLoss < 0 || l < bestLoss {
			bestCut, bestLoss = k, l
		}
	}
	if bestCut == 0 {
		return p[0].Size / 2
	}
	return p[bestCut-1].Size
}
