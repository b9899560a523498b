//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"testing"
)

// BenchmarkReduceKernel: the predefined kernels alone, from 8 B to 1 MiB,
// no communication: go test -run '^$' -bench ReduceKernel ./mpi/. The
// generic/ ones are the plain-Go kernels the vector ones replace on amd64
// (reduce_kernels_amd64.go), the rolled/ ones the loops the kernels had
// before reduce_kernels.go, each for a same-run ratio.
func BenchmarkReduceKernel(b *testing.B) {
	sizes := []int{8, 1 << 10, 64 << 10, 1 << 20}
	for _, k := range []struct {
		dt Datatype
		op Op
	}{{Float32, Sum}, {Float64, Sum}, {Int32, Sum}, {Float64, Max}, {Int64, Bxor}} {
		for _, size := range sizes {
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
			b.Run(fmt.Sprintf("generic/%v/%v/%d", k.dt, k.op, size), func(b *testing.B) {
				red := reducer{kernel: genericKernel(k.dt, k.op)}
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

// BenchmarkReduceLocal: the whole Go entry, 8 B and 1 KiB of float64 Sum.
func BenchmarkReduceLocal(b *testing.B) {
	for _, size := range []int{8, 1 << 10} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			in, inout := make([]byte, size), make([]byte, size)
			for range b.N {
				if err := ReduceLocal(in, inout, Float64, Sum); err != nil {
					b.Fatal(err)
				}
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
