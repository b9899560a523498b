//go:build !ompi && !mpich

package mpi

import (
	"testing"
	"time"
)

func TestCrossover(t *testing.T) {
	us := func(f float64) time.Duration { return time.Duration(f * 1000) }
	pt := func(size int, eager, direct float64) CalibrationPoint {
		return CalibrationPoint{Size: size, Eager: us(eager), Direct: us(direct)}
	}
	tests := []struct {
		name   string
		points []CalibrationPoint
		want   int
	}{
		{"empty", nil, 0},
		{"clean crossover", []CalibrationPoint{pt(1024, 1, 2), pt(4096, 2, 3), pt(16384, 5, 4), pt(65536, 12, 9)}, 4096},
		{"one noisy point above does not drag it up", []CalibrationPoint{
			pt(4096, 2, 3), pt(16384, 5, 4), pt(65536, 12, 9), pt(1<<20, 120, 140), pt(4<<20, 760, 560)}, 4096},
		{"direct wins everywhere", []CalibrationPoint{pt(1024, 2, 1), pt(4096, 3, 2)}, 512},
		{"eager wins everywhere", []CalibrationPoint{pt(1024, 1, 2), pt(4096, 2, 3)}, 4096},
		{"unsorted input", []CalibrationPoint{pt(65536, 12, 9), pt(1024, 1, 2), pt(16384, 5, 4), pt(4096, 2, 3)}, 4096},
	}
	for _, tc := range tests {
		if got := Crossover(tc.points); got != tc.want {
			t.Errorf("%s: Crossover = %d, want %d", tc.name, got, tc.want)
		}
	}
}
