package main

/*
#include "cabi.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/hympi/hympi/mpi"
)

// Predefined operators of the standard ABI.
const (
	opSum    = 0x21
	opMin    = 0x22
	opMax    = 0x23
	opProd   = 0x24
	opBand   = 0x28
	opBor    = 0x29
	opBxor   = 0x2a
	opLand   = 0x30
	opLor    = 0x31
	opLxor   = 0x32
	opMinloc = 0x38
	opMaxloc = 0x39
)

// nativeOp maps the predefined operators the engine has (a switch, not a
// map: this is on every reduction's path).
func nativeOp(op uintptr) (mpi.Op, bool) {
	switch op {
	case opSum:
		return mpi.Sum, true
	case opProd:
		return mpi.Prod, true
	case opMax:
		return mpi.Max, true
	case opMin:
		return mpi.Min, true
	case opLand:
		return mpi.Land, true
	case opLor:
		return mpi.Lor, true
	case opLxor:
		return mpi.Lxor, true
	case opBand:
		return mpi.Band, true
	case opBor:
		return mpi.Bor, true
	case opBxor:
		return mpi.Bxor, true
	}
	return 0, false
}

// nativeType maps the predefined C types the engine reduces natively.
func nativeType(base uintptr) (mpi.Datatype, bool) {
	switch base {
	case 0x240, 0x243, 0x244, 0x2c1: // int8_t, char, signed char, INTEGER1
		return mpi.Int8, true
	case 0x241, 0x245, 0x247, 0x238, 0x239, 0x2c0: // uint8_t, unsigned char, byte, bools, LOGICAL1
		return mpi.Uint8, true
	case 0x208, 0x248, 0x2c9: // short, int16_t, INTEGER2
		return mpi.Int16, true
	case 0x20c, 0x249: // unsigned short, uint16_t
		return mpi.Uint16, true
	case 0x209, 0x250, 0x219, 0x2d1, 0x23c: // int, int32_t, INTEGER, INTEGER4, wchar_t
		return mpi.Int32, true
	case 0x20d, 0x251, 0x218, 0x2d0: // unsigned, uint32_t, LOGICAL, LOGICAL4
		return mpi.Uint32, true
	case 0x20a, 0x20b, 0x258, 0x201, 0x202, 0x203, 0x2d9: // long, long long, int64_t, Aint, Count, Offset, INTEGER8
		return mpi.Int64, true
	case 0x20e, 0x20f, 0x259, 0x2d8: // unsigned long(s), uint64_t, LOGICAL8
		return mpi.Uint64, true
	case 0x210, 0x21a, 0x2d2: // float, REAL, REAL4
		return mpi.Float32, true
	case 0x214, 0x21c, 0x2da: // double, DOUBLE PRECISION, REAL8
		return mpi.Float64, true
	}
	return 0, false
}

// cop is a user-defined operator (MPI_Op_create).
type cop struct {
	fn      uintptr // MPI_User_function* (or _c)
	commute bool
	big     bool
}

var ops table[cop]

// redKey names one engine operator: the closure behind it captures the
// element size and base type, so those are part of the key, and the
// operator is dropped when either its op or its datatype handle is freed
// (a freed handle comes back for an unrelated type).
type redKey struct {
	op, dt, base uintptr
	esize, nbase int64
}

var (
	redMu   sync.Mutex
	redOps  = map[redKey]mpi.Op{}
	opaque  = map[int64]mpi.Datatype{}
	redByOp = map[uintptr][]redKey{}
	redByDt = map[uintptr][]redKey{}
)

// reduction is the engine datatype and operator for reducing elements of
// the C datatype dt (esize bytes, made of nbase elements of the predefined
// type base) with the C operator op.
//
// builtinOK is hc_builtin_ok(op, base) for a predefined op (hc_red_init).
// The common case, a predefined op on a type the engine reduces natively,
// takes no lock, no map lookup and no call into C.
func reduction(op, dt uintptr, esize int64, base uintptr, nbase int64, builtinOK bool) (mpi.Datatype, mpi.Op, C.int) {
	if op < 0x1000 {
		if !builtinOK {
			return 0, 0, C.MPI_ERR_OP
		}
		if t, ok := nativeType(base); ok {
			if o, ok := nativeOp(op); ok {
				return t, o, 0
			}
		}
	}
	redMu.Lock()
	defer redMu.Unlock()
	k := redKey{op: op, dt: dt, base: base, esize: esize, nbase: nbase}
	t, ok := opaque[esize]
	if !ok {
		var err error
		if t, err = mpi.OpaqueType(int(esize)); err != nil {
			return 0, 0, errCode(err)
		}
		opaque[esize] = t
	}
	if o, ok := redOps[k]; ok {
		return t, o, 0
	}
	var fn mpi.OpFunc
	commute := true
	if op < 0x1000 {
		fn = func(in, inout []byte, _ mpi.Datatype) {
			if len(in) == 0 {
				return
			}
			n := int64(len(in)) / esize
			C.hc_red_apply(0, 0, C.intptr_t(op), C.intptr_t(dt), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.int64_t(n))
		}
	} else {
		u := ops.get(handleIndex(op, kindOp))
		if u == nil {
			return 0, 0, C.MPI_ERR_OP
		}
		commute = u.commute
		big := C.int(0)
		if u.big {
			big = 1
		}
		ufn := u.fn
		fn = func(in, inout []byte, _ mpi.Datatype) {
			if len(in) == 0 {
				return
			}
			n := int64(len(in)) / esize
			C.hc_red_apply(C.uintptr_t(ufn), big, 0, C.intptr_t(dt), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.int64_t(n))
		}
	}
	o, err := mpi.NewOp(fn, commute)
	if err != nil {
		return 0, 0, errCode(err)
	}
	redOps[k] = o
	if op >= 0x1000 {
		redByOp[op] = append(redByOp[op], k)
	}
	if dt >= 0x1000 {
		redByDt[dt] = append(redByDt[dt], k)
	}
	return t, o, 0
}

// dropReductions forgets the engine operators built for keys, except the
// ones already gone. Called with redMu held.
func dropReductions(keys []redKey) {
	for _, k := range keys {
		if o, ok := redOps[k]; ok {
			o.Free()
			delete(redOps, k)
		}
	}
}

// hympi_go_type_freed is called by MPI_Type_free before the handle can be
// reused.
//
//export hympi_go_type_freed
func hympi_go_type_freed(dt C.intptr_t) {
	h := uintptr(dt)
	redMu.Lock()
	dropReductions(redByDt[h])
	delete(redByDt, h)
	redMu.Unlock()
}

//export hympi_go_op_create
func hympi_go_op_create(fn C.uintptr_t, commute, big C.int, op *C.intptr_t) C.int {
	i := ops.put(&cop{fn: uintptr(fn), commute: commute != 0, big: big != 0})
	*op = C.intptr_t(makeHandle(kindOp, i))
	return 0
}

//export hympi_go_op_free
func hympi_go_op_free(op C.intptr_t) C.int {
	h := uintptr(op)
	i := handleIndex(h, kindOp)
	if ops.get(i) == nil {
		return C.MPI_ERR_OP
	}
	redMu.Lock()
	dropReductions(redByOp[h])
	delete(redByOp, h)
	redMu.Unlock()
	ops.del(i)
	return 0
}

//export hympi_go_op_commutative
func hympi_go_op_commutative(op C.intptr_t, commute *C.int) C.int {
	h := uintptr(op)
	*commute = 1
	if h < 0x1000 {
		return 0
	}
	u := ops.get(handleIndex(h, kindOp))
	if u == nil {
		return C.MPI_ERR_OP
	}
	if !u.commute {
		*commute = 0
	}
	return 0
}

//export hympi_go_reduce_local
func hympi_go_reduce_local(in, inout unsafe.Pointer, n C.int64_t, red *C.hc_red) C.int {
	t, o, rc := redOf(red)
	if rc != 0 {
		return rc
	}
	return errCode(mpi.ReduceLocal(bytesAt(in, n), bytesAt(inout, n), t, o))
}
