package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// Serial references for the collective scenarios: every rank can compute
// every other rank's input (input(rank, count)) and so the exact expected
// result of any reduction, folded in rank order.

type integer interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64
}

type float interface{ ~float32 | ~float64 }

// dtCase is one datatype with the operators MPI defines on it.
type dtCase struct {
	dt  mpi.Datatype
	ops []mpi.Op
	// input is rank's contribution of count elements.
	input func(rank, count int) []byte
	// fold reduces the inputs of ranks (in that order) with op.
	fold func(op mpi.Op, ranks []int, count int) []byte
}

var allIntOps = []mpi.Op{mpi.Sum, mpi.Prod, mpi.Max, mpi.Min, mpi.Land, mpi.Lor, mpi.Lxor, mpi.Band, mpi.Bor, mpi.Bxor}
var floatOps = []mpi.Op{mpi.Sum, mpi.Prod, mpi.Max, mpi.Min}

// value is element i of rank's input: small (so float sums and products
// of up to 8 ranks are exact), sometimes zero or negative (for the logical
// operators and signed compare).
func value(rank, i int) int { return (rank*5+i*3)%4 - 1 }

func raw[T any](v []T) []byte {
	if len(v) == 0 {
		return []byte{}
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(z)))
}

func intCase[T integer](dt mpi.Datatype, ops []mpi.Op) dtCase {
	in := func(rank, count int) []T {
		v := make([]T, count)
		for i := range v {
			v[i] = T(value(rank, i))
		}
		return v
	}
	return dtCase{
		dt: dt, ops: ops,
		input: func(rank, count int) []byte { return raw(in(rank, count)) },
		fold: func(op mpi.Op, ranks []int, count int) []byte {
			acc := in(ranks[0], count)
			for _, r := range ranks[1:] {
				x := in(r, count)
				for i := range acc {
					acc[i] = intOp(op, acc[i], x[i])
				}
			}
			return raw(acc)
		},
	}
}

func b2i[T integer](b bool) T {
	if b {
		return 1
	}
	return 0
}

func intOp[T integer](op mpi.Op, a, b T) T {
	switch op {
	case mpi.Sum:
		return a + b
	case mpi.Prod:
		return a * b
	case mpi.Max:
		return max(a, b)
	case mpi.Min:
		return min(a, b)
	case mpi.Land:
		return b2i[T](a != 0 && b != 0)
	case mpi.Lor:
		return b2i[T](a != 0 || b != 0)
	case mpi.Lxor:
		return b2i[T]((a != 0) != (b != 0))
	case mpi.Band:
		return a & b
	case mpi.Bor:
		return a | b
	case mpi.Bxor:
		return a ^ b
	}
	panic("bad op")
}

func floatCase[T float](dt mpi.Datatype) dtCase {
	in := func(rank, count int) []T {
		v := make([]T, count)
		for i := range v {
			v[i] = T(value(rank, i))
		}
		return v
	}
	return dtCase{
		dt: dt, ops: floatOps,
		input: func(rank, count int) []byte { return raw(in(rank, count)) },
		fold: func(op mpi.Op, ranks []int, count int) []byte {
			acc := in(ranks[0], count)
			for _, r := range ranks[1:] {
				x := in(r, count)
				for i := range acc {
					switch op {
					case mpi.Sum:
						acc[i] += x[i]
					case mpi.Prod:
						acc[i] *= x[i]
					case mpi.Max:
						acc[i] = max(acc[i], x[i])
					case mpi.Min:
						acc[i] = min(acc[i], x[i])
					}
				}
			}
			return raw(acc)
		},
	}
}

var dtCases = []dtCase{
	intCase[uint8](mpi.Byte, []mpi.Op{mpi.Band, mpi.Bor, mpi.Bxor}),
	intCase[int8](mpi.Int8, allIntOps),
	intCase[uint8](mpi.Uint8, allIntOps),
	intCase[int16](mpi.Int16, allIntOps),
	intCase[uint16](mpi.Uint16, allIntOps),
	intCase[int32](mpi.Int32, allIntOps),
	intCase[uint32](mpi.Uint32, allIntOps),
	intCase[int64](mpi.Int64, allIntOps),
	intCase[uint64](mpi.Uint64, allIntOps),
	floatCase[float32](mpi.Float32),
	floatCase[float64](mpi.Float64),
}

// The non-commutative user operator: 2×2 matrices of uint64 (an opaque
// 32-byte element), multiplied. Matrix products mod 2^64 associate but do
// not commute, so any rank-order mistake shows.
func matMul(in, inout []byte, _ mpi.Datatype) {
	for off := 0; off+32 <= len(in); off += 32 {
		var a, b [4]uint64
		for k := range 4 {
			a[k] = binary.LittleEndian.Uint64(in[off+8*k:])
			b[k] = binary.LittleEndian.Uint64(inout[off+8*k:])
		}
		c := [4]uint64{
			a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
			a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
		}
		for k := range 4 {
			binary.LittleEndian.PutUint64(inout[off+8*k:], c[k])
		}
	}
}

// matInput is rank's count matrices.
func matInput(rank, count int) []byte {
	b := make([]byte, 32*count)
	for i := range count {
		m := [4]uint64{uint64(rank + 2), uint64(i + 1), uint64(rank*i + 3), 1}
		for k := range 4 {
			binary.LittleEndian.PutUint64(b[32*i+8*k:], m[k])
		}
	}
	return b
}

// matFold multiplies the inputs of ranks in order.
func matFold(ranks []int, count int) []byte {
	acc := matInput(ranks[0], count)
	for _, r := range ranks[1:] {
		x := matInput(r, count)
		matMul(acc, x, 0)
		acc = x
	}
	return acc
}

func span(lo, hi int) []int {
	var r []int
	for i := lo; i < hi; i++ {
		r = append(r, i)
	}
	return r
}

func expect(got, want []byte, format string, args ...any) {
	if !bytes.Equal(got, want) {
		fail("%s: got %v, want %v", fmt.Sprintf(format, args...), head(got), head(want))
	}
}

func head(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}
