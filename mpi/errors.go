package mpi

import "fmt"

// ErrorClass is an MPI error class. Each class is itself an error, so
// errors.Is(err, mpi.ErrTruncate) is the way to ask what went wrong.
type ErrorClass int

// The classes, numbered as the MPI standard's MPI_ERR_* constants where the
// standard has one.
const (
	Success           ErrorClass = 0
	ErrBuffer         ErrorClass = 1
	ErrCount          ErrorClass = 2
	ErrType           ErrorClass = 3
	ErrTag            ErrorClass = 4
	ErrComm           ErrorClass = 5
	ErrRank           ErrorClass = 6
	ErrRequest        ErrorClass = 7
	ErrRoot           ErrorClass = 8
	ErrGroup          ErrorClass = 9
	ErrOp             ErrorClass = 10
	ErrArg            ErrorClass = 12
	ErrUnknown        ErrorClass = 13
	ErrTruncate       ErrorClass = 14
	ErrOther          ErrorClass = 15
	ErrIntern         ErrorClass = 16
	ErrInStatus       ErrorClass = 17
	ErrPending        ErrorClass = 18
	ErrNotInitialized ErrorClass = 60
	ErrProcFailed     ErrorClass = 75
)

var classNames = map[ErrorClass]string{
	Success:           "success",
	ErrBuffer:         "invalid buffer",
	ErrCount:          "invalid count",
	ErrType:           "invalid datatype",
	ErrTag:            "invalid tag",
	ErrComm:           "invalid communicator",
	ErrRank:           "invalid rank",
	ErrRequest:        "invalid request",
	ErrRoot:           "invalid root",
	ErrGroup:          "invalid group",
	ErrOp:             "invalid reduction operator",
	ErrArg:            "invalid argument",
	ErrUnknown:        "unknown error",
	ErrTruncate:       "message truncated",
	ErrOther:          "other error",
	ErrIntern:         "internal error",
	ErrInStatus:       "error in status",
	ErrPending:        "pending request",
	ErrNotInitialized: "MPI not initialized",
	ErrProcFailed:     "process failed",
}

func (c ErrorClass) Error() string {
	if s, ok := classNames[c]; ok {
		return "mpi: " + s
	}
	return fmt.Sprintf("mpi: error class %d", int(c))
}

// Error is every failure the package returns: the class, the operation that
// failed and what was wrong.
type Error struct {
	Class ErrorClass
	Op    string
	Msg   string
}

func (e *Error) Error() string {
	s := "mpi: " + e.Op + ": "
	if n, ok := classNames[e.Class]; ok {
		s += n
	} else {
		s += fmt.Sprintf("error class %d", int(e.Class))
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Is makes errors.Is(err, ErrTruncate) (a class) and errors.Is(err, other
// *Error of the same class) true.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case ErrorClass:
		return e.Class == t
	case *Error:
		return e.Class == t.Class
	}
	return false
}

// Unwrap exposes the class, so errors.As(err, &class) works too.
func (e *Error) Unwrap() error { return e.Class }

func newErr(class ErrorClass, op, format string, args ...any) *Error {
	return &Error{Class: class, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// ClassOf returns the class of err: Success for nil, ErrOther for errors
// that did not come from this package.
func ClassOf(err error) ErrorClass {
	switch e := err.(type) {
	case nil:
		return Success
	case *Error:
		return e.Class
	case ErrorClass:
		return e
	}
	return ErrOther
}
