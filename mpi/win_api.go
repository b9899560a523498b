package mpi

// The one-sided API's constants and plain types, shared by the engine
// (win*.go) and the system-MPI backend (backend_cgo_win.go).

// WinFlavor says how a window's memory came to be (MPI_WIN_CREATE_FLAVOR).
type WinFlavor int

// The flavors.
const (
	FlavorCreate WinFlavor = iota + 1
	FlavorAllocate
	FlavorDynamic
	FlavorShared
)

// RMA error classes, numbered as the standard ABI's.
const (
	ErrAssert      ErrorClass = 22
	ErrBase        ErrorClass = 24
	ErrDisp        ErrorClass = 26
	ErrLocktype    ErrorClass = 37
	ErrRMAAttach   ErrorClass = 46
	ErrRMAConflict ErrorClass = 47
	ErrRMARange    ErrorClass = 48
	ErrRMAShared   ErrorClass = 49
	ErrRMASync     ErrorClass = 50
	ErrSize        ErrorClass = 52
	ErrWin         ErrorClass = 56
	ErrRMAFlavor   ErrorClass = 57
)

func init() {
	for c, s := range map[ErrorClass]string{
		ErrAssert: "invalid assertion", ErrBase: "invalid base", ErrDisp: "invalid displacement",
		ErrLocktype: "invalid lock type", ErrRMAAttach: "memory cannot be attached",
		ErrRMAConflict: "conflicting accesses to a window", ErrRMARange: "target memory is outside the window",
		ErrRMAShared: "memory cannot be shared", ErrRMASync: "wrong synchronisation of RMA calls",
		ErrSize: "invalid size", ErrWin: "invalid window", ErrRMAFlavor: "wrong window flavor",
	} {
		classNames[c] = s
	}
}

// Lock types and assertions.
const (
	LockExclusive = 1
	LockShared    = 2

	ModeNoCheck   = 1
	ModeNoStore   = 2
	ModeNoPut     = 4
	ModeNoPrecede = 8
	ModeNoSucceed = 16
)

// The two operators only one-sided accumulates know.
const (
	Replace Op = 1<<15 + iota // the target gets the origin's value
	NoOp                      // the target keeps its value (Get_accumulate as an atomic read)
)

// Access bits of accessMask.
const (
	accessOpen    = 1 // an access epoch toward the target is open
	accessPassive = 2 // and it is a passive-target one (Lock or LockAll)
)
