//go:build ompi || mpich

package mpi

/*
#include "backend_cgo.h"

extern void goUserOp(int slot, void *in, void *inout, int n, uintptr_t dt);

// MPI's user function carries no user data, so each user operator gets
// one of a fixed set of trampolines, which passes its slot to Go.
#define HY_TRAMP(i) static void hy_tramp##i(void *in, void *inout, int *len, MPI_Datatype *dt) { goUserOp(i, in, inout, *len, (uintptr_t)*dt); }
#define HY_T8(a) HY_TRAMP(a##0) HY_TRAMP(a##1) HY_TRAMP(a##2) HY_TRAMP(a##3) HY_TRAMP(a##4) HY_TRAMP(a##5) HY_TRAMP(a##6) HY_TRAMP(a##7)
HY_T8(0) HY_T8(1) HY_T8(2) HY_T8(3) HY_T8(4) HY_T8(5) HY_T8(6) HY_T8(7)
#define HY_R8(a) hy_tramp##a##0, hy_tramp##a##1, hy_tramp##a##2, hy_tramp##a##3, hy_tramp##a##4, hy_tramp##a##5, hy_tramp##a##6, hy_tramp##a##7
static MPI_User_function *hy_tramps[64] = {HY_R8(0), HY_R8(1), HY_R8(2), HY_R8(3), HY_R8(4), HY_R8(5), HY_R8(6), HY_R8(7)};

static inline hy_rq hy_op_create(int slot, int commute) {
	MPI_Op o = MPI_OP_NULL;
	hy_rq q = {MPI_Op_create(hy_tramps[slot], commute, &o), 0};
	q.req = (hy_h)o;
	return q;
}
static inline int hy_op_free(hy_h h) {
	MPI_Op o = HY_OP(h);
	return MPI_Op_free(&o);
}
*/
import "C"

import (
	"sync"
	"unsafe"
)

// User operators: MPI calls a trampoline, the trampoline calls goUserOp
// with its slot, and the slot names the Go function. Only user operators
// call back into Go; predefined ones run inside MPI.

const (
	userOpBase     Op       = 1 << 16
	opaqueTypeBase Datatype = 1 << 16
	userOpSlots             = 64
)

// OpFunc combines in into inout element by element (inout[i] = in[i] op
// inout[i]); both hold the same whole number of elements of dt.
type OpFunc func(in, inout []byte, dt Datatype)

type userOp struct {
	fn          OpFunc
	commutative bool
	h           C.hy_h
	slot        int
	freed       bool
}

var (
	regMu   sync.Mutex
	userOps []userOp
	// slots holds the index into userOps each trampoline serves (-1: free).
	slots [userOpSlots]int
	// opaqueTypes are the element sizes and committed handles of OpaqueType.
	opaqueSizes []int
	opaqueH     []C.hy_h
)

func init() {
	for i := range slots {
		slots[i] = -1
	}
}

//export goUserOp
func goUserOp(slot C.int, in, inout unsafe.Pointer, n C.int, dt C.uintptr_t) {
	regMu.Lock()
	var fn OpFunc
	if i := slots[slot]; i >= 0 {
		fn = userOps[i].fn
	}
	regMu.Unlock()
	d := typeOfHandle(C.hy_h(dt))
	size := d.Size()
	if fn == nil || size == 0 || n <= 0 {
		return
	}
	k := int(n) * size
	fn(unsafe.Slice((*byte)(in), k), unsafe.Slice((*byte)(inout), k), d)
}

// typeOfHandle maps an MPI datatype handle back to the Datatype.
func typeOfHandle(h C.hy_h) Datatype {
	for i, x := range dtHandles {
		if x == h {
			return Datatype(i)
		}
	}
	regMu.Lock()
	defer regMu.Unlock()
	for i, x := range opaqueH {
		if x == h {
			return opaqueTypeBase + Datatype(i)
		}
	}
	return -1
}

// NewOp registers a user-defined reduction operator. Collectives apply a
// non-commutative operator in rank order.
func NewOp(fn OpFunc, commutative bool) (Op, error) {
	if fn == nil {
		return 0, newErr(ErrOp, "NewOp", "nil function")
	}
	if !Initialized() || Finalized() {
		return 0, newErr(ErrNotInitialized, "NewOp", "call Init first")
	}
	regMu.Lock()
	defer regMu.Unlock()
	slot := -1
	for i, s := range slots {
		if s < 0 {
			slot = i
			break
		}
	}
	if slot < 0 {
		return 0, newErr(ErrOther, "NewOp", "more than %d live user operators on this backend", userOpSlots)
	}
	commute := C.int(0)
	if commutative {
		commute = 1
	}
	q := C.hy_op_create(C.int(slot), commute)
	if q.err != 0 {
		return 0, mpiErr("NewOp", q.err)
	}
	userOps = append(userOps, userOp{fn: fn, commutative: commutative, h: q.req, slot: slot})
	slots[slot] = len(userOps) - 1
	return userOpBase + Op(len(userOps)-1), nil
}

// Free releases a user-defined operator. Freeing a predefined operator,
// or one already freed, is an ErrOp error.
func (o Op) Free() error {
	regMu.Lock()
	defer regMu.Unlock()
	i := int(o - userOpBase)
	if o < userOpBase || i >= len(userOps) || userOps[i].freed {
		return newErr(ErrOp, "Op.Free", "operator %d is not a live user-defined operator", int(o))
	}
	u := &userOps[i]
	if Initialized() && !Finalized() {
		C.hy_op_free(u.h)
	}
	slots[u.slot] = -1
	*u = userOp{freed: true}
	return nil
}

// OpaqueType is a datatype of size-byte elements that only user-defined
// operators can combine (the C ABI maps pair and long double types to it).
func OpaqueType(size int) (Datatype, error) {
	if size <= 0 {
		return 0, newErr(ErrType, "OpaqueType", "element size %d (must be positive)", size)
	}
	if !Initialized() || Finalized() {
		return 0, newErr(ErrNotInitialized, "OpaqueType", "call Init first")
	}
	q := C.hy_type_opaque(C.int(size))
	if q.err != 0 {
		return 0, mpiErr("OpaqueType", q.err)
	}
	regMu.Lock()
	defer regMu.Unlock()
	opaqueSizes = append(opaqueSizes, size)
	opaqueH = append(opaqueH, q.req)
	return opaqueTypeBase + Datatype(len(opaqueSizes)-1), nil
}

func opaqueSize(d Datatype) int {
	regMu.Lock()
	defer regMu.Unlock()
	if d < opaqueTypeBase || int(d-opaqueTypeBase) >= len(opaqueSizes) {
		return 0
	}
	return opaqueSizes[d-opaqueTypeBase]
}

var opNames = [...]string{"Sum", "Prod", "Max", "Min", "Land", "Lor", "Lxor", "Band", "Bor", "Bxor"}

func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op(user)"
}

// resolve checks that op is defined on dt, as the engine does, and returns
// the MPI handles of both.
func resolve(what string, dt Datatype, op Op) (dth, oph C.hy_h, elem int, err error) {
	elem = dt.Size()
	if elem == 0 {
		return 0, 0, 0, newErr(ErrType, what, "invalid datatype %d", int(dt))
	}
	if dt >= opaqueTypeBase {
		regMu.Lock()
		dth = opaqueH[dt-opaqueTypeBase]
		regMu.Unlock()
	} else {
		dth = dtHandles[dt]
	}
	if op >= userOpBase {
		regMu.Lock()
		i := int(op - userOpBase)
		if i < len(userOps) && !userOps[i].freed {
			oph = userOps[i].h
		}
		regMu.Unlock()
		if oph == 0 {
			return 0, 0, 0, newErr(ErrOp, what, "operator %d is not defined (or was freed)", int(op))
		}
		return dth, oph, elem, nil
	}
	if op < 0 || int(op) >= len(opNames) {
		return 0, 0, 0, newErr(ErrOp, what, "invalid operator %d", int(op))
	}
	ok := false
	switch {
	case dt >= opaqueTypeBase:
	case dt == Byte:
		ok = op == Band || op == Bor || op == Bxor
	case dt == Float32 || dt == Float64:
		ok = op == Sum || op == Prod || op == Max || op == Min
	default:
		ok = true
	}
	if !ok {
		return 0, 0, 0, newErr(ErrOp, what, "operator %v is not defined on %v", op, dt)
	}
	if unsignedMinMaxBroken && (op == Max || op == Min) && (dt == Uint8 || dt == Uint16 || dt == Uint32 || dt == Uint64) {
		if oph, err = unsignedOp(what, op); err != nil {
			return 0, 0, 0, err
		}
		return dth, oph, elem, nil
	}
	return dth, opHandles[op], elem, nil
}

// unsignedOps are the backend's own Max and Min on unsigned integers,
// created on first use (see unsignedMinMaxBroken).
var unsignedOps [2]Op

func unsignedOp(what string, op Op) (C.hy_h, error) {
	i := 0
	if op == Min {
		i = 1
	}
	initMu.Lock()
	if unsignedOps[i] == 0 {
		o, err := NewOp(func(in, inout []byte, dt Datatype) { unsignedMinMax(in, inout, dt, op == Max) }, true)
		if err != nil {
			initMu.Unlock()
			return 0, err
		}
		unsignedOps[i] = o
	}
	o := unsignedOps[i]
	initMu.Unlock()
	regMu.Lock()
	defer regMu.Unlock()
	return userOps[o-userOpBase].h, nil
}

func unsignedMinMax(in, inout []byte, dt Datatype, max bool) {
	switch dt {
	case Uint8:
		minMax(in, inout, max)
	case Uint16:
		minMax(unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/2), unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(inout))), len(inout)/2), max)
	case Uint32:
		minMax(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/4), unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(inout))), len(inout)/4), max)
	case Uint64:
		minMax(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(in))), len(in)/8), unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(inout))), len(inout)/8), max)
	}
}

func minMax[T uint8 | uint16 | uint32 | uint64](in, inout []T, max bool) {
	for i := range inout {
		if (in[i] > inout[i]) == max && in[i] != inout[i] {
			inout[i] = in[i]
		}
	}
}
