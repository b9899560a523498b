package directcopy

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxRW is the kernel's MAX_RW_COUNT (INT_MAX rounded down to a page): the
// most bytes one call transfers. The kernel truncates longer requests itself;
// asking for no more keeps each call's count exact.
const maxRW = 0x7ffff000

// maxPerCall caps the bytes one system call is asked to move. It is maxRW in
// production; tests lower it to force many partial calls through the loop
// below.
var maxPerCall = maxRW

// op selects the direction; read and write share every loop (as UCX's
// uct_cma_ep_fn table does).
type op uint8

const (
	opRead  op = iota // process_vm_readv: remote → local
	opWrite           // process_vm_writev: local → remote
)

func (o op) String() string {
	if o == opWrite {
		return "process_vm_writev"
	}
	return "process_vm_readv"
}

// ReadFrom copies len(local) bytes from address remote in process pid into
// local. A zero-length local is a no-op that makes no system call.
func ReadFrom(pid int, local []byte, remote uintptr) error {
	return transfer(opRead, pid, local, remote)
}

// WriteTo copies local into process pid at address remote.
func WriteTo(pid int, remote uintptr, local []byte) error {
	return transfer(opWrite, pid, local, remote)
}

// rawMax is the largest transfer made as a raw system call, one the Go
// scheduler does not see (rawRW). A 256 KiB read (the engine's segment)
// takes about 10 µs; 1 MiB bounds how long a raw call can hold up a
// stop-the-world or keep its P (~50-100 µs). Larger calls tell the
// scheduler.
const rawMax = 1 << 20

// syscallRW makes one system call, unless a fault is injected (failpoint.go).
// n is the byte count the call asks for.
func syscallRW(o op, pid int, l []unix.Iovec, r []unix.RemoteIovec, n int) (int, error) {
	if f := injected.Load(); f != 0 {
		return injectedResult(f)
	}
	if n <= rawMax && len(l) > 0 && len(r) > 0 {
		return rawRW(o, pid, l, r)
	}
	if o == opRead {
		return unix.ProcessVMReadv(pid, l, r, 0)
	}
	return unix.ProcessVMWritev(pid, l, r, 0)
}

// rawRW makes the call without entersyscall/exitsyscall. The ordinary
// wrapper marks the thread as in a system call; a copy of tens of
// microseconds outlasts sysmon's tick, sysmon retakes the P, and the
// thread then finds its P gone on return and goes through the scheduler to
// get one back, while sysmon, bound to the same CPU as the rank, competes
// with the copy. Measured on the 2-core VM (osu_latency, 2 ranks bound):
// 1 MiB 73 → 61 µs, 256 KiB 14 → 13 µs, 4 MiB 412 → 373 µs. The copy does
// not block in the scheduler's sense (it holds no lock another goroutine of
// ours could need), so a raw call is what the runtime itself does for
// short non-blocking calls (sched_yield, futex wake in shm/futex_linux.go).
func rawRW(o op, pid int, l []unix.Iovec, r []unix.RemoteIovec) (int, error) {
	trap := uintptr(unix.SYS_PROCESS_VM_READV)
	if o == opWrite {
		trap = unix.SYS_PROCESS_VM_WRITEV
	}
	n, _, errno := unix.RawSyscall6(trap, uintptr(pid),
		uintptr(unsafe.Pointer(&l[0])), uintptr(len(l)),
		uintptr(unsafe.Pointer(&r[0])), uintptr(len(r)), 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// transfer is the one-buffer loop: one iovec each side, advanced by what
// every call moved.
func transfer(o op, pid int, local []byte, remote uintptr) error {
	var l [1]unix.Iovec
	var r [1]unix.RemoteIovec
	for done := 0; done < len(local); {
		n := min(len(local)-done, maxPerCall)
		l[0].Base = &local[done]
		l[0].SetLen(n)
		r[0] = unix.RemoteIovec{Base: remote + uintptr(done), Len: n}
		got, err := syscallRW(o, pid, l[:], r[:], n)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return transferError(o, pid, r[0].Base, n, done, err)
		}
		if got <= 0 {
			return transferError(o, pid, r[0].Base, n, done, ErrNoProgress)
		}
		done += got
	}
	return nil
}
