package calib

import (
	"testing"
	"time"
)

func TestCrossover(t *testing.T) {
	us := func(f float64) time.Duration { return time.Duration(f * 1000) }
	pt := func(size int, eager, direct float64) Point {
		return Point{Size: size, Eager: us(eager), Direct: us(direct)}
	}
	tests := []struct {
		name   string
		points []Point
		want   int
	}{
		{"empty", nil, 0},
		{"clean crossover", []Point{pt(1024, 1, 2), pt(4096, 2, 3), pt(16384, 5, 4), pt(65536, 12, 9)}, 4096},
		{"one noisy point above does not drag it up", []Point{
			pt(4096, 2, 3), pt(16384, 5, 4), pt(65536, 12, 9), pt(1<<20, 120, 140), pt(4<<20, 760, 560)}, 4096},
		{"direct wins everywhere", []Point{pt(1024, 2, 1), pt(4096, 3, 2)}, 512},
		{"eager wins everywhere", []Point{pt(1024, 1, 2), pt(4096, 2, 3)}, 4096},
		{"unsorted input", []Point{pt(65536, 12, 9), pt(1024, 1, 2), pt(16384, 5, 4), pt(4096, 2, 3)}, 4096},
	}
	for _, tc := range tests {
		if got := Crossover(tc.points); got != tc.want {
			t.Errorf("%s: Crossover = %d, want %d", tc.name, got, tc.want)
		}
	}
}
