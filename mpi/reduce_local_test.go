//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"errors"
	"testing"
)

// ReduceLocal's bad arguments, through the predefined pairs' direct entry
// and the general one: the right error class and inout untouched.
func TestReduceLocalBadArgs(t *testing.T) {
	tests := []struct {
		name      string
		in, inout int // lengths
		dt        Datatype
		op        Op
		want      error
	}{
		{"lengths differ", 16, 8, Float64, Sum, ErrCount},
		{"lengths differ, in shorter", 8, 16, Int32, Max, ErrCount},
		{"part of an element", 12, 12, Float64, Sum, ErrCount},
		{"bitwise on floats", 16, 16, Float32, Band, ErrOp},
		{"sum on Byte", 16, 16, Byte, Sum, ErrOp},
		{"operator out of range", 16, 16, Int32, opCount, ErrOp},
		{"negative operator", 16, 16, Int32, Op(-1), ErrOp},
		{"datatype out of range", 16, 16, datatypeCount, Sum, ErrType},
		{"negative datatype", 16, 16, Datatype(-1), Sum, ErrType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, inout := make([]byte, tc.in), make([]byte, tc.inout)
			for i := range in {
				in[i] = byte(i + 1)
			}
			for i := range inout {
				inout[i] = byte(3 * i)
			}
			before := append([]byte(nil), inout...)
			err := ReduceLocal(in, inout, tc.dt, tc.op)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if !bytes.Equal(inout, before) {
				t.Fatalf("inout changed: %v", inout)
			}
		})
	}
}

// ReduceLocal gives every predefined pair the kernel table's result, at
// every length around the small fast path's bound and the vector block.
func TestReduceLocalMatchesKernels(t *testing.T) {
	for dt := Datatype(0); dt < datatypeCount; dt++ {
		for op := Op(0); op < opCount; op++ {
			k := kernels[dt][op]
			if k == nil {
				continue
			}
			size := dt.Size()
			for n := 0; n*size <= 2*smallMax+32; n++ {
				in, inout := make([]byte, n*size), make([]byte, n*size)
				for i := range in {
					in[i], inout[i] = byte(i*37+5), byte(i*101+77)
				}
				want := append([]byte(nil), inout...)
				k(in, want)
				if err := ReduceLocal(in, inout, dt, op); err != nil {
					t.Fatalf("%v %v n=%d: %v", dt, op, n, err)
				}
				if !bytes.Equal(inout, want) {
					t.Fatalf("%v %v n=%d: got %v, want %v", dt, op, n, inout, want)
				}
			}
		}
	}
}
