// Package enginehook carries the operations the C ABI (cmd/libmpi_abi) and
// the tuner (hympi-info --tune) need from package mpi's engine but a Go
// program should not see: request peeking and cancelling, allocation-free
// request batches, join requests, the intercommunicator collective entry
// and calibration.
//
// Package mpi (the engine, or a cgo backend under the ompi/mpich tags)
// stores its functions here from an init function; package internal/cabi
// gives them their real types. The variables are typed any because their
// signatures name package mpi's types, and this package cannot import mpi
// (mpi imports it). Nothing but those two packages should touch them.
package enginehook

import "github.com/hympi/hympi/internal/calib"

// Each variable holds a function whose signature internal/cabi states; a
// mismatch panics when internal/cabi initialises, so every test that
// imports it catches it.
var (
	Peek          any // func(*mpi.Request) (mpi.Status, bool, error)
	TakeDone      any // func(*mpi.Request) bool
	CancelRecv    any // func(*mpi.Request) bool
	CancelSend    any // func(*mpi.Request) bool
	TestallInto   any // func([]*mpi.Request, []mpi.Status) (bool, error)
	FastLaneState any // func(*mpi.Comm) (uintptr, uint32, []int, bool)
	SendNow       any // func(*mpi.Comm, []byte, int, int) (bool, error)
	IsendIn       any // func(*mpi.Comm, *mpi.Request, []byte, int, int) (*mpi.Request, error)
	IssendIn      any // same as IsendIn
	IrecvIn       any // same as IsendIn
	MrecvIn       any // func(*mpi.Message, *mpi.Request, []byte) (*mpi.Request, error)
	NewJoin       any // func() *mpi.Request
	Follow        any // func(join, child *mpi.Request)
	Release       any // func(join *mpi.Request)
	InterColl     any // func(*mpi.Comm, mpi.InterArgs) error
	IinterColl    any // func(*mpi.Comm, mpi.InterArgs) (*mpi.Request, error)
	InterCollInit any // func(*mpi.Comm, mpi.InterArgs) (*mpi.Persistent, error)

	// One-sided support: the C library keeps epochs and allocated
	// windows' memory mirrored in C arrays and does some operations there.
	WinDetachAddr        any // func(*mpi.Win, uintptr) error
	WinSharedBase        any // func(*mpi.Win, int) unsafe.Pointer
	WinAccWordAddr       any // func(*mpi.Win, int) unsafe.Pointer
	WinAccessMask        any // func(*mpi.Win, []byte)
	WinDoneRequest       any // func(*mpi.Win) *mpi.Request
	WinRing              any // func(*mpi.Win)
	WinPutSegs           any // func(*mpi.Win, []byte, int, int, []Seg) error
	WinGetSegs           any // same as WinPutSegs
	WinGetAccumulateSegs any // func(*mpi.Win, []byte, []byte, mpi.Datatype, mpi.Op, int, int, []Seg) error

	// Buffered sends attached to a session (MPI_Session_attach_buffer).
	SessionBufferIflush any // func(key int) (*mpi.Request, error)
)

// Functions whose signatures name no mpi type need no assertion.
var (
	SessionBufferAttach func(key int, buf []byte, auto bool) error
	SessionBufferDetach func(key int) ([]byte, bool, error)
	SessionBufferForget func(key int)
)

// Seg is one block of a target datatype: Len bytes at Off from the target
// displacement. Operations on a non-contiguous target take the blocks in
// type-map order; the origin bytes fill them in that order.
type Seg struct{ Off, Len int64 }

// Calibrate measures both protocols between two CPUs (hympi-info --tune).
// Its signature names no mpi type, so it needs no assertion.
var Calibrate func(cpuA, cpuB int, sizes []int) ([]calib.Point, error)
