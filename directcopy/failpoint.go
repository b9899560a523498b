package directcopy

import (
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// FailEnv names the fault-injection test hook (see the package doc).
const FailEnv = "HYMPI_DIRECTCOPY_FAIL"

// injectNoProgress is an injected result the environment cannot ask for: the
// call "succeeds" with 0 bytes, which the loops must turn into ErrNoProgress.
// Only this package's tests use it.
const injectNoProgress = ^uintptr(0)

// injected is the fault every transfer reports instead of making its system
// call: 0 for none, a unix.Errno, or injectNoProgress. Set once from FailEnv
// at start-up (tests may swap it); read with one atomic load per call.
var injected atomic.Uintptr

var failNames = map[string]unix.Errno{
	"eperm":  unix.EPERM,
	"esrch":  unix.ESRCH,
	"efault": unix.EFAULT,
	"enosys": unix.ENOSYS,
}

func init() {
	v := os.Getenv(FailEnv)
	if v == "" {
		return
	}
	errno, ok := failNames[strings.ToLower(v)]
	if !ok {
		panic("directcopy: " + FailEnv + "=" + v + " is not one of eperm, esrch, efault, enosys")
	}
	injected.Store(uintptr(errno))
}

// injectedResult is what a call returns while a fault is injected.
//
//go:noinline
func injectedResult(f uintptr) (int, error) {
	if f == injectNoProgress {
		return 0, nil
	}
	return -1, unix.Errno(f)
}
