package directcopy

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// iovMax is the kernel's IOV_MAX (UIO_MAXIOV): the most iovecs one
// process_vm_readv/writev call accepts on each side; more fail with EINVAL.
const iovMax = 1024

// maxRW is the kernel's MAX_RW_COUNT (INT_MAX rounded down to a page): the
// most bytes one call transfers. The kernel truncates longer requests itself;
// asking for no more keeps each call's count exact.
const maxRW = 0x7ffff000

// maxPerCall caps the bytes one system call is asked to move. It is maxRW in
// production; tests lower it to force many partial calls through the cursor
// logic of the loops below.
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

// ReadvFrom fills the local buffers, in order, from the remote ranges of
// process pid, in order. The two sides may be cut differently but must have
// the same total length. Any number of pieces is fine: they are passed to the
// kernel IOV_MAX at a time.
func ReadvFrom(pid int, locals [][]byte, remotes []unix.RemoteIovec) error {
	return transferv(opRead, pid, locals, remotes)
}

// WritevTo copies the local buffers, in order, into the remote ranges of
// process pid, in order; the rules are those of ReadvFrom.
func WritevTo(pid int, remotes []unix.RemoteIovec, locals [][]byte) error {
	return transferv(opWrite, pid, locals, remotes)
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

// smallIov is the iovec array size for vectored transfers with few pieces.
// The arrays live on the stack and Go zeroes them on every call: 2×16 KiB
// for iovMax entries costs about 180 ns, half a small call's syscall, so
// transfers of up to smallIov pieces per side use small arrays instead.
const smallIov = 8

// transferv picks the array size for transfervLoop.
func transferv(o op, pid int, locals [][]byte, remotes []unix.RemoteIovec) error {
	if len(locals) <= smallIov && len(remotes) <= smallIov {
		return transfervLoop[[smallIov]unix.Iovec, [smallIov]unix.RemoteIovec](o, pid, locals, remotes)
	}
	return transfervLoop[[iovMax]unix.Iovec, [iovMax]unix.RemoteIovec](o, pid, locals, remotes)
}

// transfervLoop is the vectored loop. Each side is walked by a cursor (piece
// index, offset into it); every call takes up to len(L) pieces per side from
// the cursors, covering at most maxPerCall bytes, and both cursors then
// advance by what the kernel moved, wherever inside a piece that lands. The
// iovec arrays are stack variables of this function (type parameters rather
// than slices passed in: storing the caller's buffer pointers into a slice
// parameter would make escape analysis move every caller's buffers to the
// heap).
func transfervLoop[L [smallIov]unix.Iovec | [iovMax]unix.Iovec, R [smallIov]unix.RemoteIovec | [iovMax]unix.RemoteIovec](o op, pid int, locals [][]byte, remotes []unix.RemoteIovec) error {
	total := 0
	for _, b := range locals {
		total += len(b)
	}
	rtotal := 0
	for _, r := range remotes {
		if r.Len < 0 {
			return transferError(o, pid, r.Base, r.Len, 0, ErrLengthMismatch)
		}
		rtotal += r.Len
	}
	if total != rtotal {
		return transferError(o, pid, 0, total, 0, ErrLengthMismatch)
	}

	var l L
	var r R
	li, loff := 0, 0
	ri, roff := 0, 0
	for done := 0; done < total; {
		limit := min(total-done, maxPerCall)
		// Gather from each cursor, skipping empty pieces, until the array
		// is full or limit bytes are covered.
		nl, lbytes := 0, 0
		for i, off := li, loff; i < len(locals) && nl < len(l) && lbytes < limit; i, off = i+1, 0 {
			b := locals[i][off:]
			if len(b) == 0 {
				continue
			}
			b = b[:min(len(b), limit-lbytes)]
			l[nl].Base = &b[0]
			l[nl].SetLen(len(b))
			nl++
			lbytes += len(b)
		}
		nr, rbytes := 0, 0
		for i, off := ri, roff; i < len(remotes) && nr < len(r) && rbytes < limit; i, off = i+1, 0 {
			k := min(remotes[i].Len-off, limit-rbytes)
			if k == 0 {
				continue
			}
			r[nr] = unix.RemoteIovec{Base: remotes[i].Base + uintptr(off), Len: k}
			nr++
			rbytes += k
		}
		want := min(lbytes, rbytes)
		got, err := syscallRW(o, pid, unsafe.Slice(&l[0], nl), unsafe.Slice(&r[0], nr), max(lbytes, rbytes))
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return transferError(o, pid, r[0].Base, want, done, err)
		}
		if got <= 0 {
			return transferError(o, pid, r[0].Base, want, done, ErrNoProgress)
		}
		done += got
		li, loff = advanceLocal(locals, li, loff, got)
		ri, roff = advanceRemote(remotes, ri, roff, got)
	}
	return nil
}

// advanceLocal moves cursor (i, off) forward by n bytes.
func advanceLocal(locals [][]byte, i, off, n int) (int, int) {
	for n > 0 {
		rest := len(locals[i]) - off
		if n < rest {
			return i, off + n
		}
		n -= rest
		i, off = i+1, 0
	}
	return i, off
}

// advanceRemote is advanceLocal for the remote side.
func advanceRemote(remotes []unix.RemoteIovec, i, off, n int) (int, int) {
	for n > 0 {
		rest := remotes[i].Len - off
		if n < rest {
			return i, off + n
		}
		n -= rest
		i, off = i+1, 0
	}
	return i, off
}
