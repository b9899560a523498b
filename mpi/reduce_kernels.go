//go:build !ompi && !mpich

package mpi

// The loops of the predefined reduction kernels (reduce_ops.go), unrolled
// by eight by hand. Go's compiler neither vectorises nor unrolls a loop,
// and a loop of one element per iteration spends most of its time on the
// loop itself: unrolled, a float32 Sum over 64 KiB ran 2-3× faster in the
// same run (BenchmarkReduceKernel). Each kernel computes b[i] = a[i] op
// b[i] exactly as the rolled loop did (same operands, same order), so
// results are bit for bit the same.

// addable: the types Sum and Prod are defined on.
type addable interface {
	integer | float | ~complex64 | ~complex128
}

func sumKernel[T addable](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = x[0] + y[0]
		y[1] = x[1] + y[1]
		y[2] = x[2] + y[2]
		y[3] = x[3] + y[3]
		y[4] = x[4] + y[4]
		y[5] = x[5] + y[5]
		y[6] = x[6] + y[6]
		y[7] = x[7] + y[7]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] + b[i]
	}
}

func prodKernel[T addable](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = x[0] * y[0]
		y[1] = x[1] * y[1]
		y[2] = x[2] * y[2]
		y[3] = x[3] * y[3]
		y[4] = x[4] * y[4]
		y[5] = x[5] * y[5]
		y[6] = x[6] * y[6]
		y[7] = x[7] * y[7]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] * b[i]
	}
}

func maxKernel[T integer](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = max(x[0], y[0])
		y[1] = max(x[1], y[1])
		y[2] = max(x[2], y[2])
		y[3] = max(x[3], y[3])
		y[4] = max(x[4], y[4])
		y[5] = max(x[5], y[5])
		y[6] = max(x[6], y[6])
		y[7] = max(x[7], y[7])
	}
	for ; i < len(b); i++ {
		b[i] = max(a[i], b[i])
	}
}

func minKernel[T integer](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = min(x[0], y[0])
		y[1] = min(x[1], y[1])
		y[2] = min(x[2], y[2])
		y[3] = min(x[3], y[3])
		y[4] = min(x[4], y[4])
		y[5] = min(x[5], y[5])
		y[6] = min(x[6], y[6])
		y[7] = min(x[7], y[7])
	}
	for ; i < len(b); i++ {
		b[i] = min(a[i], b[i])
	}
}

func fmaxKernel[T float](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		if x[0] > y[0] {
			y[0] = x[0]
		}
		if x[1] > y[1] {
			y[1] = x[1]
		}
		if x[2] > y[2] {
			y[2] = x[2]
		}
		if x[3] > y[3] {
			y[3] = x[3]
		}
		if x[4] > y[4] {
			y[4] = x[4]
		}
		if x[5] > y[5] {
			y[5] = x[5]
		}
		if x[6] > y[6] {
			y[6] = x[6]
		}
		if x[7] > y[7] {
			y[7] = x[7]
		}
	}
	for ; i < len(b); i++ {
		if a[i] > b[i] {
			b[i] = a[i]
		}
	}
}

func fminKernel[T float](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		if x[0] < y[0] {
			y[0] = x[0]
		}
		if x[1] < y[1] {
			y[1] = x[1]
		}
		if x[2] < y[2] {
			y[2] = x[2]
		}
		if x[3] < y[3] {
			y[3] = x[3]
		}
		if x[4] < y[4] {
			y[4] = x[4]
		}
		if x[5] < y[5] {
			y[5] = x[5]
		}
		if x[6] < y[6] {
			y[6] = x[6]
		}
		if x[7] < y[7] {
			y[7] = x[7]
		}
	}
	for ; i < len(b); i++ {
		if a[i] < b[i] {
			b[i] = a[i]
		}
	}
}

func bandKernel[T integer](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = x[0] & y[0]
		y[1] = x[1] & y[1]
		y[2] = x[2] & y[2]
		y[3] = x[3] & y[3]
		y[4] = x[4] & y[4]
		y[5] = x[5] & y[5]
		y[6] = x[6] & y[6]
		y[7] = x[7] & y[7]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] & b[i]
	}
}

func borKernel[T integer](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = x[0] | y[0]
		y[1] = x[1] | y[1]
		y[2] = x[2] | y[2]
		y[3] = x[3] | y[3]
		y[4] = x[4] | y[4]
		y[5] = x[5] | y[5]
		y[6] = x[6] | y[6]
		y[7] = x[7] | y[7]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] | b[i]
	}
}

func bxorKernel[T integer](a, b []T) {
	a = a[:len(b)]
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		y[0] = x[0] ^ y[0]
		y[1] = x[1] ^ y[1]
		y[2] = x[2] ^ y[2]
		y[3] = x[3] ^ y[3]
		y[4] = x[4] ^ y[4]
		y[5] = x[5] ^ y[5]
		y[6] = x[6] ^ y[6]
		y[7] = x[7] ^ y[7]
	}
	for ; i < len(b); i++ {
		b[i] = a[i] ^ b[i]
	}
}

// The small-reduction fast path. A collective of a few elements (a
// residual norm, a flag, a counter) applies its operator to under a cache
// line, where the call through the kernel table's closure and the generic
// kernel's dictionary cost several times the arithmetic (≈120 instructions
// to add two float32s). The commonest predefined pairs are therefore also
// resolved to a code (reducer.small) that runSteps applies with a plain
// loop, with the same operands in the same order as the kernels (so the
// results are bit for bit theirs); anything else goes through the table.

// smallKind names a (datatype, operator) pair with a fast path.
type smallKind uint8

const (
	smallNone smallKind = iota
	smallSumF32
	smallSumF64
	smallSumI32
	smallSumI64
)

// smallMax bounds the operands the fast path takes.
const smallMax = 64

// smallKindOf is the fast path of dt and op, if any.
func smallKindOf(dt Datatype, op Op) smallKind {
	if op != Sum {
		return smallNone
	}
	switch dt {
	case Float32:
		return smallSumF32
	case Float64:
		return smallSumF64
	case Int32:
		return smallSumI32
	case Int64:
		return smallSumI64
	}
	return smallNone
}

// applySmall computes inout = in op inout for the pair k when inout is at
// most smallMax bytes, reporting whether it did.
func applySmall(k smallKind, in, inout []byte) bool {
	if k == smallNone || len(inout) > smallMax || len(in) < len(inout) {
		return false
	}
	switch k {
	case smallSumF32:
		addSmall(view[float32](in), view[float32](inout))
	case smallSumF64:
		addSmall(view[float64](in), view[float64](inout))
	case smallSumI32:
		addSmall(view[int32](in), view[int32](inout))
	default:
		addSmall(view[int64](in), view[int64](inout))
	}
	return true
}

// addSmall is sumKernel's rolled loop, small enough to inline.
func addSmall[T float32 | float64 | int32 | int64](a, b []T) {
	a = a[:len(b)]
	for i := range b {
		b[i] = a[i] + b[i]
	}
}
