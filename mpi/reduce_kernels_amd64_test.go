//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The vector kernel of every pair against the generic one, bit for bit:
// every length of 0..67 elements and some large ones, from element offsets
// 0..3 (the blocks then straddle 32-byte boundaries differently), over
// random bits with the special values mixed in (NaNs of several payloads,
// signalling ones too, ±0, ±Inf, denormals, and integers that wrap). The
// bytes around the range must stay as they were.
func TestVectorKernelsMatchGeneric(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{}
	for n := 0; n <= 67; n++ {
		lengths = append(lengths, n)
	}
	lengths = append(lengths, 255, 1000, 4099, 16411)
	pairs := 0
	for dt := Datatype(0); dt < datatypeCount; dt++ {
		for op := Op(0); op < opCount; op++ {
			vec := archKernel(dt, op)
			gen := genericKernel(dt, op)
			if vec == nil {
				continue
			}
			if gen == nil {
				t.Fatalf("%v %v: a vector kernel for an undefined pair", dt, op)
			}
			pairs++
			size := dt.Size()
			for _, n := range lengths {
				for off := 0; off < 4; off++ {
					const guard = 64
					total := (n+off)*size + 2*guard
					a := randomElems(rng, dt, total/size+1)[:total]
					b := randomElems(rng, dt, total/size+1)[:total]
					want := append([]byte(nil), b...)
					lo, hi := guard+off*size, guard+(off+n)*size
					gen(a[lo:hi], want[lo:hi])
					vec(a[lo:hi], b[lo:hi])
					if !bytes.Equal(b, want) {
						i := firstDiff(b, want)
						t.Fatalf("%v %v n=%d off=%d: byte %d (element %d) is %#x, want %#x",
							dt, op, n, off, i, (i-lo)/size, b[i], want[i])
					}
				}
			}
		}
	}
	// Sum, Prod, Max and Min on the sized integers and floats, and the
	// bitwise operators: the pairs the brief calls hot must not fall back.
	if pairs < 39 {
		t.Errorf("%d pairs have vector kernels, want at least 39", pairs)
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

var (
	f32Special = []uint32{0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0x7f800000, 0xff800000, 0, 0x80000000, 1, 0x80000001, 0x7f7fffff}
	f64Special = []uint64{0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000000012345, 0x7ff0000000000001, 0x7ff0000000000000,
		0xfff0000000000000, 0, 0x8000000000000000, 1, 0x8000000000000001, 0x7fefffffffffffff}
)

// randomElems is n elements of dt: a quarter zeros, a quarter specials
// (floats) or extremes (integers), the rest random bits or random floats.
func randomElems(rng *rand.Rand, dt Datatype, n int) []byte {
	size := dt.Size()
	b := make([]byte, n*size)
	for i := 0; i < n; i++ {
		e := b[i*size : (i+1)*size]
		r := rng.Uint64()
		switch {
		case r%4 == 0:
			// zero
		case r%4 == 1 && dt == Float32:
			binary.LittleEndian.PutUint32(e, f32Special[(r>>8)%uint64(len(f32Special))])
		case r%4 == 1 && dt == Float64:
			binary.LittleEndian.PutUint64(e, f64Special[(r>>8)%uint64(len(f64Special))])
		case r%4 == 1:
			for j := range e { // the type's most negative or largest value
				e[j] = 0xff
			}
			if r&256 != 0 {
				e[size-1] = 0x80
				for j := 0; j < size-1; j++ {
					e[j] = 0
				}
			}
		case dt == Float32:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(rng.NormFloat64()*1e3)))
		case dt == Float64:
			binary.LittleEndian.PutUint64(e, math.Float64bits(rng.NormFloat64()*1e6))
		default:
			for j := range e {
				e[j] = byte(r >> (8 * (j % 8)))
			}
		}
	}
	return b
}

// FuzzVectorKernels: any bytes, any pair with a vector kernel, any
// element offset, and the vector kernel's result is the generic one's.
func FuzzVectorKernels(f *testing.F) {
	f.Add([]byte{0, 0, 0xc0, 0x7f, 0, 0, 0x80, 0xff, 1, 2, 3, 4, 5, 6, 7, 8}, uint8(0), uint8(0))
	f.Add(bytes.Repeat([]byte{0x80, 0, 0, 0, 0, 0, 0, 0x80}, 40), uint8(17), uint8(1))
	type pair struct {
		dt  Datatype
		op  Op
		vec func(in, inout []byte)
	}
	var pairs []pair
	for dt := Datatype(0); dt < datatypeCount; dt++ {
		for op := Op(0); op < opCount; op++ {
			if k := avx2Kernel(dt, op); k != nil {
				pairs = append(pairs, pair{dt, op, k})
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, sel, off uint8) {
		if !haveAVX2 {
			t.Skip("no AVX2")
		}
		p := pairs[int(sel)%len(pairs)]
		size := p.dt.Size()
		start := int(off%4) * size
		if len(data) < start {
			return
		}
		data = data[start:]
		n := len(data) / 2 / size * size
		a, b := data[:n], append([]byte(nil), data[n:2*n]...)
		want := append([]byte(nil), b...)
		genericKernel(p.dt, p.op)(a, want)
		p.vec(a, b)
		if !bytes.Equal(b, want) {
			t.Fatalf("%v %v n=%d: byte %d differs", p.dt, p.op, n, firstDiff(b, want))
		}
	})
}
