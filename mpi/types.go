package mpi

import (
	"reflect"
	"unsafe"
)

// Datatype names the element type of a reduction buffer.
type Datatype int

// The datatypes. Go's int and uint are 64-bit here and map to Int64/Uint64.
const (
	Byte Datatype = iota
	Int8
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Int64
	Uint64
	Float32
	Float64
	Complex64  // two float32: Sum and Prod only, as MPI defines for complex types
	Complex128 // two float64: Sum and Prod only
	datatypeCount
)

var datatypeSizes = [datatypeCount]int{1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16}
var datatypeNames = [datatypeCount]string{"Byte", "Int8", "Uint8", "Int16", "Uint16", "Int32", "Uint32", "Int64", "Uint64", "Float32", "Float64", "Complex64", "Complex128"}

// Size is the size of one element in bytes (0 for an invalid datatype).
func (d Datatype) Size() int {
	if d >= opaqueTypeBase {
		return opaqueSize(d)
	}
	if d < 0 || d >= datatypeCount {
		return 0
	}
	return datatypeSizes[d]
}

func (d Datatype) String() string {
	if d >= opaqueTypeBase && opaqueSize(d) > 0 {
		return "Opaque"
	}
	if d < 0 || d >= datatypeCount {
		return "Datatype(?)"
	}
	return datatypeNames[d]
}

// Op is a reduction operator.
type Op int

// The reduction operators.
const (
	Sum Op = iota
	Prod
	Max
	Min
	Land
	Lor
	Lxor
	Band
	Bor
	Bxor
	opCount
)

// Numeric is the element types the typed helpers accept.
type Numeric interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64 | ~int | ~uint |
		~complex64 | ~complex128
}

// AsBytes views s as bytes, without copying.
func AsBytes[T Numeric](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// TypeOf is the Datatype of T.
func TypeOf[T Numeric]() Datatype {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return Int8
	case reflect.Uint8:
		return Uint8
	case reflect.Int16:
		return Int16
	case reflect.Uint16:
		return Uint16
	case reflect.Int32:
		return Int32
	case reflect.Uint32:
		return Uint32
	case reflect.Int64, reflect.Int:
		return Int64
	case reflect.Uint64, reflect.Uint:
		return Uint64
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Complex64:
		return Complex64
	case reflect.Complex128:
		return Complex128
	}
	return Byte
}

// SendSlice sends data as bytes.
func SendSlice[T Numeric](c *Comm, data []T, dest, tag int) error {
	return c.Send(AsBytes(data), dest, tag)
}

// RecvSlice receives into data; Status.Count is in bytes.
func RecvSlice[T Numeric](c *Comm, data []T, source, tag int) (Status, error) {
	return c.Recv(AsBytes(data), source, tag)
}

// BcastSlice broadcasts data from root.
func BcastSlice[T Numeric](c *Comm, data []T, root int) error {
	return c.Bcast(AsBytes(data), root)
}

// ReduceSlice reduces send into root's recv.
func ReduceSlice[T Numeric](c *Comm, send, recv []T, op Op, root int) error {
	return c.Reduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op, root)
}

// AllreduceSlice reduces send into every rank's recv.
func AllreduceSlice[T Numeric](c *Comm, send, recv []T, op Op) error {
	return c.Allreduce(AsBytes(send), AsBytes(recv), TypeOf[T](), op)
}

// view reinterprets b as elements of T. Buffers come from the user and may
// be unaligned; the platforms hympi runs on (amd64, arm64) allow that.
func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
