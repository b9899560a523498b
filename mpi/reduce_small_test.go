//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// TestApplySmall checks the small-reduction fast path against the kernel
// table bit for bit, for every predefined pair it covers, every length up
// to one element past smallMax, and operands with negatives, fractions,
// overflow and NaN; and that it declines what it does not cover.
func TestApplySmall(t *testing.T) {
	for dt := Datatype(0); dt < datatypeCount; dt++ {
		for op := Op(0); op < opCount; op++ {
			k := smallKindOf(dt, op)
			if kernels[dt][op] == nil {
				if k != smallNone {
					t.Errorf("%v %v: a fast path for an undefined pair", dt, op)
				}
				continue
			}
			size := dt.Size()
			for n := 0; n*size <= smallMax+size; n++ {
				in, inout := make([]byte, n*size), make([]byte, n*size)
				for i := range in {
					in[i], inout[i] = byte(i*77+13), byte(i*151+200)
				}
				if n > 0 && (dt == Float32 || dt == Float64) {
					// A NaN or an infinity in the first element.
					if dt == Float32 {
						view[float32](in)[0] = float32(math.NaN())
					} else {
						view[float64](inout)[0] = math.Inf(1)
					}
				}
				want := bytes.Clone(inout)
				kernels[dt][op](in, want)
				got := bytes.Clone(inout)
				did := applySmall(k, in, got)
				name := fmt.Sprintf("%v %v n=%d", dt, op, n)
				switch {
				case did != (k != smallNone && n*size <= smallMax):
					t.Errorf("%s: applied %v", name, did)
				case did && !bytes.Equal(got, want):
					t.Errorf("%s: got %x, want %x", name, got, want)
				case !did && !bytes.Equal(got, inout):
					t.Errorf("%s: declined but changed its operand", name)
				}
			}
		}
	}
	if smallKindOf(Float64, Sum) == smallNone || smallKindOf(Int32, Sum) == smallNone {
		t.Error("no fast path for the commonest pairs")
	}
}
