package mpi

import (
	"testing"
)

// TestComplexKernels: Sum and Prod on complex numbers, both widths, through
// the same resolution the collectives use.
func TestComplexKernels(t *testing.T) {
	for _, c := range []struct {
		name      string
		op        Op
		in, inout []complex128
		want      []complex128
	}{
		{"sum", Sum, []complex128{1 + 2i, -3i}, []complex128{0.5 - 1i, 4}, []complex128{1.5 + 1i, 4 - 3i}},
		{"prod", Prod, []complex128{1 + 2i, 2}, []complex128{3 - 1i, 1i}, []complex128{5 + 5i, 2i}},
	} {
		t.Run("complex128 "+c.name, func(t *testing.T) {
			inout := append([]complex128(nil), c.inout...)
			if err := ReduceLocal(AsBytes(c.in), AsBytes(inout), TypeOf[complex128](), c.op); err != nil {
				t.Fatal(err)
			}
			for i := range inout {
				if inout[i] != c.want[i] {
					t.Errorf("element %d: %v, want %v", i, inout[i], c.want[i])
				}
			}
		})
		t.Run("complex64 "+c.name, func(t *testing.T) {
			in := make([]complex64, len(c.in))
			inout := make([]complex64, len(c.inout))
			for i := range in {
				in[i], inout[i] = complex64(c.in[i]), complex64(c.inout[i])
			}
			if err := ReduceLocal(AsBytes(in), AsBytes(inout), TypeOf[complex64](), c.op); err != nil {
				t.Fatal(err)
			}
			for i := range inout {
				if inout[i] != complex64(c.want[i]) {
					t.Errorf("element %d: %v, want %v", i, inout[i], c.want[i])
				}
			}
		})
	}
	for _, dt := range []Datatype{Complex64, Complex128} {
		if err := ReduceLocal(make([]byte, dt.Size()), make([]byte, dt.Size()), dt, Max); ClassOf(err) != ErrOp {
			t.Errorf("Max on %v: %v, want ErrOp", dt, err)
		}
	}
	if TypeOf[complex64]() != Complex64 || TypeOf[complex128]() != Complex128 || Complex64.Size() != 8 || Complex128.Size() != 16 {
		t.Errorf("TypeOf/Size: %v %v %d %d", TypeOf[complex64](), TypeOf[complex128](), Complex64.Size(), Complex128.Size())
	}
}
