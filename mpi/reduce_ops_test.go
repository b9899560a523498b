//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
)

func le16(v ...int16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
	}
	return b
}

func leF64(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func TestReduceKernels(t *testing.T) {
	tests := []struct {
		name      string
		dt        Datatype
		op        Op
		in, inout []byte
		want      []byte
	}{
		{"int8 sum wraps", Int8, Sum, []byte{100, 1}, []byte{100, 2}, []byte{200, 3}},
		{"uint8 prod", Uint8, Prod, []byte{3, 0}, []byte{5, 9}, []byte{15, 0}},
		{"int16 max signed", Int16, Max, le16(-5, 7), le16(3, -9), le16(3, 7)},
		{"int16 min signed", Int16, Min, le16(-5, 7), le16(3, -9), le16(-5, -9)},
		{"int16 land", Int16, Land, le16(0, 2, 3), le16(5, 0, -1), le16(0, 0, 1)},
		{"int16 lor", Int16, Lor, le16(0, 0, 3), le16(5, 0, -1), le16(1, 0, 1)},
		{"int16 lxor", Int16, Lxor, le16(0, 0, 3), le16(5, 0, -1), le16(1, 0, 0)},
		{"byte band", Byte, Band, []byte{0xf0}, []byte{0x3c}, []byte{0x30}},
		{"byte bor", Byte, Bor, []byte{0xf0}, []byte{0x0c}, []byte{0xfc}},
		{"byte bxor", Byte, Bxor, []byte{0xff}, []byte{0x0f}, []byte{0xf0}},
		{"float64 sum", Float64, Sum, leF64(1.5, -2), leF64(2.25, 2), leF64(3.75, 0)},
		{"float64 max", Float64, Max, leF64(1, -3), leF64(-1, -2), leF64(1, -2)},
		{"float64 min", Float64, Min, leF64(1, -3), leF64(-1, -2), leF64(-1, -3)},
		{"float64 prod", Float64, Prod, leF64(0.5), leF64(6), leF64(3)},
		{"empty", Int64, Sum, nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inout := append([]byte(nil), tc.inout...)
			if err := ReduceLocal(tc.in, inout, tc.dt, tc.op); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(inout, tc.want) {
				t.Fatalf("got %v, want %v", inout, tc.want)
			}
		})
	}
}

// TestOpDefinedOn is MPI's table of which predefined operator applies to
// which datatype, as ErrOp or not.
func TestOpDefinedOn(t *testing.T) {
	opaque, err := OpaqueType(12)
	if err != nil {
		t.Fatal(err)
	}
	for dt := Byte; dt < datatypeCount; dt++ {
		for op := Sum; op < opCount; op++ {
			var want bool
			switch {
			case dt == Byte:
				want = op == Band || op == Bor || op == Bxor
			case dt == Float32 || dt == Float64:
				want = op == Sum || op == Prod || op == Max || op == Min
			case dt == Complex64 || dt == Complex128:
				want = op == Sum || op == Prod
			default:
				want = true
			}
			_, err := resolveOp("test", dt, op)
			if (err == nil) != want {
				t.Errorf("%v on %v: err %v, want defined=%v", op, dt, err, want)
			}
			if err != nil && !errors.Is(err, ErrOp) {
				t.Errorf("%v on %v: %v is not ErrOp", op, dt, err)
			}
		}
	}
	if _, err := resolveOp("test", opaque, Sum); !errors.Is(err, ErrOp) {
		t.Errorf("Sum on an opaque type: %v", err)
	}
	if _, err := resolveOp("test", Datatype(-1), Sum); !errors.Is(err, ErrType) {
		t.Errorf("invalid datatype: %v", err)
	}
	if opaque.Size() != 12 {
		t.Errorf("opaque size %d", opaque.Size())
	}
}

func TestUserOps(t *testing.T) {
	concat := func(in, inout []byte, _ Datatype) {
		for i := range inout {
			inout[i] = in[i]*10 + inout[i]
		}
	}
	op, err := NewOp(concat, false)
	if err != nil {
		t.Fatal(err)
	}
	if op < opCount || op == Sum {
		t.Fatalf("user op %d collides with a predefined one", op)
	}
	red, err := resolveOp("test", Uint8, op)
	if err != nil || red.commutative {
		t.Fatalf("resolve: %v commutative=%v", err, red.commutative)
	}
	inout := []byte{2}
	red.apply([]byte{1}, inout) // in is the lower-ranked operand
	if inout[0] != 12 {
		t.Fatalf("inout = in op inout gave %d, want 12", inout[0])
	}
	if err := op.Free(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []error{op.Free(), Sum.Free(), Op(-4).Free()} {
		if !errors.Is(bad, ErrOp) {
			t.Errorf("bad Free: %v", bad)
		}
	}
	if _, err := resolveOp("test", Uint8, op); !errors.Is(err, ErrOp) {
		t.Errorf("freed op resolved: %v", err)
	}
	if _, err := NewOp(nil, true); !errors.Is(err, ErrOp) {
		t.Errorf("nil OpFunc: %v", err)
	}
}

func TestRingBlocks(t *testing.T) {
	for _, tc := range []struct{ length, elem, n int }{{0, 8, 3}, {24, 8, 3}, {80, 8, 3}, {7, 1, 8}, {1 << 20, 4, 5}} {
		b := ringBlocks(make([]int, tc.n+1), tc.length, tc.elem, tc.n)
		if b[0] != 0 || b[tc.n] != tc.length/tc.elem*tc.elem {
			t.Errorf("%+v: bounds %v", tc, b)
		}
		for j := 0; j < tc.n; j++ {
			if b[j] > b[j+1] || b[j]%tc.elem != 0 || b[j+1]-b[j] > (tc.length/tc.elem/tc.n+1)*tc.elem {
				t.Errorf("%+v: block %d is [%d,%d)", tc, j, b[j], b[j+1])
			}
		}
	}
}

// TestKernelsUnrolled checks every predefined kernel's unrolled loop
// (reduce_kernels.go) against the same kernel applied one element at a
// time (its tail loop), on lengths around the unrolling factor and on data
// with NaNs, infinities and signed zeros where the type has them.
func TestKernelsUnrolled(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1e300}
	for dt := Datatype(0); dt < datatypeCount; dt++ {
		for op := Op(0); op < opCount; op++ {
			k := kernels[dt][op]
			if k == nil {
				continue
			}
			size := dt.Size()
			for _, n := range []int{1, 7, 8, 9, 16, 23, 67} {
				in, inout := make([]byte, n*size), make([]byte, n*size)
				for i := range in {
					in[i], inout[i] = byte(i*37+n), byte(i*91+3*n)
				}
				if dt == Float64 {
					for i := 0; i < n; i += 3 {
						binary.LittleEndian.PutUint64(in[8*i:], math.Float64bits(specials[i%len(specials)]))
						binary.LittleEndian.PutUint64(inout[8*((i+1)%n):], math.Float64bits(specials[(i/3)%len(specials)]))
					}
				}
				want := bytes.Clone(inout)
				for i := 0; i < n; i++ {
					k(in[i*size:(i+1)*size], want[i*size:(i+1)*size])
				}
				k(in, inout)
				if !bytes.Equal(inout, want) {
					t.Errorf("%v %v on %d elements: unrolled %v, one at a time %v", dt, op, n, inout, want)
				}
			}
		}
	}
}
