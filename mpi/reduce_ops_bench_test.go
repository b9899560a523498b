//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"
)

// BenchmarkReduceKernel: the predefined kernels alone, on 64 KiB (in
// cache) and 1 MiB, no communication: go test -run '^$' -bench
// ReduceKernel ./mpi/. The rolled/ ones are the loops the kernels had
// before reduce_kernels.go, for a same-run ratio.
func BenchmarkReduceKernel(b *testing.B) {
	for _, k := range []struct {
		dt Datatype
		op Op
	}{{Float32, Sum}, {Float64, Sum}, {Int32, Sum}, {Float64, Max}, {Int64, Bxor}} {
		for _, size := range []int{64 << 10, 1 << 20} {
			b.Run(fmt.Sprintf("%v/%v/%d", k.dt, k.op, size), func(b *testing.B) {
				red, err := resolveOp("bench", k.dt, k.op)
				if err != nil {
					b.Fatal(err)
				}
				in, inout := make([]byte, size), make([]byte, size)
				b.SetBytes(int64(size))
				for range b.N {
					red.apply(in, inout)
				}
			})
		}
	}
	for _, size := range []int{64 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("rolled/Float32/Sum/%d", size), func(b *testing.B) {
			in, inout := make([]byte, size), make([]byte, size)
			b.SetBytes(int64(size))
			for range b.N {
				rolledSum(view[float32](in), view[float32](inout))
			}
		})
		b.Run(fmt.Sprintf("rolled/Float64/Max/%d", size), func(b *testing.B) {
			in, inout := make([]byte, size), make([]byte, size)
			b.SetBytes(int64(size))
			for range b.N {
				rolledMax(view[float64](in), view[float64](inout))
			}
		})
	}
}

func rolledSum(a, b []float32) {
	for i := range b {
		b[i] = a[i] + b[i]
	}
}

func rolledMax(a, b []float64) {
	for i := range b {
		if a[i] > b[i] {
			b[i] = a[i]
		}
	}
}
