package shm

// The Go runtime's futex is process-private (FUTEX_WAIT_PRIVATE); waiting on
// a word in a shared mapping that another process wakes needs the shared
// form, which x/sys/unix exposes only as the raw SYS_FUTEX number. These two
// calls are the only hand-written system calls in hympi.
//
// Contract: addr points at a 4-byte-aligned word inside a MAP_SHARED
// mapping that stays mapped for the duration of the call.

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	futexWaitOp = 0 // FUTEX_WAIT, without FUTEX_PRIVATE_FLAG
	futexWakeOp = 1 // FUTEX_WAKE
)

func futexWait(addr *atomic.Uint32, val uint32, timeout time.Duration) {
	ts := unix.NsecToTimespec(int64(timeout))
	// Syscall (not RawSyscall): the thread blocks, so let the Go scheduler
	// hand its P to other goroutines. EAGAIN (word changed), EINTR and
	// ETIMEDOUT all just mean "look again".
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}

func futexWake(addr *atomic.Uint32) {
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp, math.MaxInt32, 0, 0, 0)
}

// Yield gives the CPU to another runnable thread (sched_yield). It does not
// block, so it bypasses the scheduler's syscall bookkeeping.
func Yield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// futexWaitRaw is futexWait without the Go scheduler's system-call
// bookkeeping: the thread keeps its P while it sleeps, so no other
// goroutine runs on that P meanwhile (the caller makes sure there is none),
// and the runtime's monitor thread, sysmon, has no P to take back. Taking
// one back sets sysmon to poll every 20 µs again (1 ms with the timer
// slack of an oversubscribed job, hympirun's bind.go), and with a hundred
// ranks per CPU asleep in a barrier those polls were about as many context
// switches as the ranks' own wake-ups.
func futexWaitRaw(addr *atomic.Uint32, val uint32, timeout time.Duration) {
	ts := unix.NsecToTimespec(int64(timeout))
	unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp, uintptr(val),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
}
