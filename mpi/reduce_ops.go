//go:build !ompi && !mpich

package mpi

import (
	"sync"
	"sync/atomic"
)

// Reduction kernels, user-defined operators and opaque datatypes.
//
// A collective resolves its (Datatype, Op) pair once, at start, into a
// reducer: the kernel to run and whether the operator commutes. Later
// changes to the registries (Op.Free while a collective runs) cannot reach
// a collective in flight.

// OpFunc combines in into inout element by element (inout[i] = in[i] op
// inout[i]); both hold the same whole number of elements of dt.
type OpFunc func(in, inout []byte, dt Datatype)

// reducer is a resolved operator: apply computes inout = in op inout over
// whole elements, where in holds the lower-ranked operand. A value, not a
// closure: resolving an operator allocates nothing, so a blocking
// collective can run without touching the heap (coll_sched.go).
type reducer struct {
	kernel      func(in, inout []byte) // predefined operator, from kernels
	user        OpFunc                 // user operator (kernel is nil)
	dt          Datatype               // what user is called with
	commutative bool
	elem        int       // element size in bytes
	small       smallKind // the fast path for a few elements (reduce_kernels.go)
}

// apply runs the resolved operator: inout = in op inout.
func (r *reducer) apply(in, inout []byte) {
	if r.kernel != nil {
		r.kernel(in, inout)
		return
	}
	r.user(in, inout, r.dt)
}

// kernels holds every predefined (datatype, operator) kernel, built once:
// kernelFor builds a fresh closure per call, which cost a few allocations
// per collective when it was called at every start.
var kernels = func() (t [datatypeCount][opCount]func(in, inout []byte)) {
	for dt := Datatype(0); dt < datatypeCount; dt++ {
		for op := Op(0); op < opCount; op++ {
			t[dt][op] = kernelFor(dt, op)
		}
	}
	return t
}()

// Values of user operators and opaque datatypes start far above the
// predefined ones, so no user value can ever equal a predefined one.
const (
	userOpBase     Op       = 1 << 16
	opaqueTypeBase Datatype = 1 << 16
)

// userOp is one NewOp registration.
type userOp struct {
	fn          OpFunc
	commutative bool
	freed       bool
}

// The registries are process-wide and written rarely; readers take the
// mutex too (collectives look an op up once per call, not per element).
// Entries are never reused: a freed operator's value stays invalid, so a
// stale Op can never name a later registration.
var (
	regMu   sync.Mutex
	userOps []userOp
	// opaqueSizes is copy-on-write so Datatype.Size, called on every
	// validation, reads it with one atomic load.
	opaqueSizes atomic.Pointer[[]int]
)

// NewOp registers a user-defined reduction operator. Collectives apply a
// non-commutative operator in rank order.
func NewOp(fn OpFunc, commutative bool) (Op, error) {
	if fn == nil {
		return 0, newErr(ErrOp, "NewOp", "nil function")
	}
	regMu.Lock()
	defer regMu.Unlock()
	userOps = append(userOps, userOp{fn: fn, commutative: commutative})
	return userOpBase + Op(len(userOps)-1), nil
}

// Free releases a user-defined operator. Freeing a predefined operator, or
// one already freed, is an ErrOp error.
func (o Op) Free() error {
	regMu.Lock()
	defer regMu.Unlock()
	i := int(o - userOpBase)
	if o < userOpBase || i >= len(userOps) || userOps[i].freed {
		return newErr(ErrOp, "Op.Free", "operator %d is not a live user-defined operator", int(o))
	}
	userOps[i] = userOp{freed: true}
	return nil
}

// OpaqueType is a datatype of size-byte elements that only user-defined
// operators can combine (the C ABI maps pair and long double types to it).
func OpaqueType(size int) (Datatype, error) {
	if size <= 0 {
		return 0, newErr(ErrType, "OpaqueType", "element size %d (must be positive)", size)
	}
	regMu.Lock()
	defer regMu.Unlock()
	var next []int
	if old := opaqueSizes.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, size)
	opaqueSizes.Store(&next)
	return opaqueTypeBase + Datatype(len(next)-1), nil
}

// opaqueSize is the element size of an opaque datatype, 0 if d is none.
func opaqueSize(d Datatype) int {
	p := opaqueSizes.Load()
	if p == nil || d < opaqueTypeBase || int(d-opaqueTypeBase) >= len(*p) {
		return 0
	}
	return (*p)[d-opaqueTypeBase]
}

// ReduceLocal is inout = in op inout, without communication (MPI_Reduce_local).
func ReduceLocal(in, inout []byte, dt Datatype, op Op) error {
	// A predefined pair on well-formed buffers goes straight to its
	// kernel: a few elements cost less than resolving a whole reducer.
	if uint(dt) < uint(datatypeCount) && uint(op) < uint(opCount) && len(in) == len(inout) {
		if k := kernels[dt][op]; k != nil && len(in)%datatypeSizes[dt] == 0 {
			if len(in) > 0 && !applySmall(smallKindOf(dt, op), in, inout) {
				k(in, inout)
			}
			return nil
		}
	}
	red, err := resolveOp("ReduceLocal", dt, op)
	if err != nil {
		return err
	}
	if len(in) != len(inout) {
		return newErr(ErrCount, "ReduceLocal", "in has %d bytes, inout %d", len(in), len(inout))
	}
	if len(in)%red.elem != 0 {
		return newErr(ErrCount, "ReduceLocal", "%d bytes is not a whole number of %v elements", len(in), dt)
	}
	if len(in) > 0 {
		red.apply(in, inout)
	}
	return nil
}

// resolveOp checks that op is defined on dt and returns its kernel.
func resolveOp(what string, dt Datatype, op Op) (reducer, error) {
	size := dt.Size()
	if size == 0 {
		return reducer{}, newErr(ErrType, what, "invalid datatype %d", int(dt))
	}
	if op >= userOpBase {
		regMu.Lock()
		i := int(op - userOpBase)
		var u userOp
		if i < len(userOps) {
			u = userOps[i]
		}
		regMu.Unlock()
		if u.fn == nil {
			return reducer{}, newErr(ErrOp, what, "operator %d is not defined (or was freed)", int(op))
		}
		return reducer{user: u.fn, dt: dt, commutative: u.commutative, elem: size}, nil
	}
	if op < 0 || op >= opCount {
		return reducer{}, newErr(ErrOp, what, "invalid operator %d", int(op))
	}
	var k func(in, inout []byte)
	if dt >= 0 && dt < datatypeCount {
		k = kernels[dt][op]
	}
	if k == nil {
		return reducer{}, newErr(ErrOp, what, "operator %v is not defined on %v", op, dt)
	}
	return reducer{kernel: k, commutative: true, elem: size, small: smallKindOf(dt, op)}, nil
}

var opNames = [opCount]string{"Sum", "Prod", "Max", "Min", "Land", "Lor", "Lxor", "Band", "Bor", "Bxor"}

func (o Op) String() string {
	if o >= 0 && o < opCount {
		return opNames[o]
	}
	return "Op(user)"
}

// kernelFor returns the predefined kernel of (dt, op), or nil where MPI
// leaves the pair undefined: bitwise and logical operators on floats,
// arithmetic and logical operators on Byte, anything on an opaque type.
// The vector kernel where the processor has one, else the generic one.
func kernelFor(dt Datatype, op Op) func(in, inout []byte) {
	if k := archKernel(dt, op); k != nil {
		return k
	}
	return genericKernel(dt, op)
}

// genericKernel is kernelFor in plain Go, for every architecture.
func genericKernel(dt Datatype, op Op) func(in, inout []byte) {
	switch dt {
	case Byte:
		if op == Band || op == Bor || op == Bxor {
			return intKernel[uint8](op)
		}
		return nil
	case Int8:
		return intKernel[int8](op)
	case Uint8:
		return intKernel[uint8](op)
	case Int16:
		return intKernel[int16](op)
	case Uint16:
		return intKernel[uint16](op)
	case Int32:
		return intKernel[int32](op)
	case Uint32:
		return intKernel[uint32](op)
	case Int64:
		return intKernel[int64](op)
	case Uint64:
		return intKernel[uint64](op)
	case Float32:
		return floatKernel[float32](op)
	case Float64:
		return floatKernel[float64](op)
	case Complex64:
		return complexKernel[complex64](op)
	case Complex128:
		return complexKernel[complex128](op)
	}
	return nil
}

// complexKernel: complex numbers have no order, so MPI defines only the
// arithmetic operators on them.
func complexKernel[T ~complex64 | ~complex128](op Op) func(in, inout []byte) {
	var f func(a, b []T)
	switch op {
	case Sum:
		f = sumKernel[T]
	case Prod:
		f = prodKernel[T]
	default:
		return nil
	}
	return func(in, inout []byte) { f(view[T](in), view[T](inout)) }
}

type integer interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64
}

type float interface{ ~float32 | ~float64 }

func boolOf[T integer](x T) bool { return x != 0 }

func fromBool[T integer](b bool) T {
	if b {
		return 1
	}
	return 0
}

func intKernel[T integer](op Op) func(in, inout []byte) {
	var f func(a, b []T)
	switch op {
	case Sum:
		f = sumKernel[T]
	case Prod:
		f = prodKernel[T]
	case Max:
		f = maxKernel[T]
	case Min:
		f = minKernel[T]
	case Land:
		f = func(a, b []T) {
			for i := range b {
				b[i] = fromBool[T](boolOf(a[i]) && boolOf(b[i]))
			}
		}
	case Lor:
		f = func(a, b []T) {
			for i := range b {
				b[i] = fromBool[T](boolOf(a[i]) || boolOf(b[i]))
			}
		}
	case Lxor:
		f = func(a, b []T) {
			for i := range b {
				b[i] = fromBool[T](boolOf(a[i]) != boolOf(b[i]))
			}
		}
	case Band:
		f = bandKernel[T]
	case Bor:
		f = borKernel[T]
	case Bxor:
		f = bxorKernel[T]
	default:
		return nil
	}
	return func(in, inout []byte) { f(view[T](in), view[T](inout)) }
}

// floatKernel: Max and Min compare with > and <, so a NaN operand yields
// the other operand (or NaN if both are); the result is the same on every
// rank because every rank computes it from the same operands in the same
// order.
func floatKernel[T float](op Op) func(in, inout []byte) {
	var f func(a, b []T)
	switch op {
	case Sum:
		f = sumKernel[T]
	case Prod:
		f = prodKernel[T]
	case Max:
		f = fmaxKernel[T]
	case Min:
		f = fminKernel[T]
	default:
		return nil
	}
	return func(in, inout []byte) { f(view[T](in), view[T](inout)) }
}
