package directcopy

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// withMaxPerCall runs f with maxPerCall lowered to n (0 keeps the default).
func withMaxPerCall(t *testing.T, n int, f func()) {
	t.Helper()
	if n == 0 {
		f()
		return
	}
	old := maxPerCall
	maxPerCall = n
	defer func() { maxPerCall = old }()
	f()
}

// withInjected runs f with fault f injected into every call, and forgets
// cached probe answers before and after.
func withInjected(t *testing.T, fault uintptr, f func()) {
	t.Helper()
	old := injected.Swap(fault)
	selfProbe.reset()
	available.reset()
	defer func() {
		injected.Store(old)
		selfProbe.reset()
		available.reset()
	}()
	f()
}

// sizes straddle rawMax: 1 MiB goes through the raw call, 1 MiB + 3 through
// the scheduler-aware wrapper.
var sizes = []int{0, 1, 4095, 4096, 4097, 64 << 10, rawMax, rawMax + 3}

// TestSelfReadWrite reads and writes this process's own memory at many sizes,
// with the per-call cap at its default and lowered so that every transfer is
// stitched from many partial calls.
func TestSelfReadWrite(t *testing.T) {
	skipIfNotSupported(t, SelfProbe())
	pid := os.Getpid()
	for _, perCall := range []int{0, 1, 7, 4096, 4097} {
		for _, size := range sizes {
			if perCall != 0 && perCall < 64 && size > 64<<10 {
				continue // millions of 1-byte calls prove nothing more
			}
			name := sizeName(size)
			if perCall != 0 {
				name += "/percall=" + sizeName(perCall)
			}
			t.Run(name, func(t *testing.T) {
				src := make([]byte, size)
				pattern(src, 3)
				dst := make([]byte, size)
				var pins Pins
				defer pins.Unpin()
				srcAddr := pins.Pin(src)

				withMaxPerCall(t, perCall, func() {
					if err := ReadFrom(pid, dst, srcAddr); err != nil {
						t.Fatalf("ReadFrom: %v", err)
					}
				})
				if i := firstDiff(dst, 3); i >= 0 {
					t.Fatalf("ReadFrom: byte %d differs", i)
				}

				out := make([]byte, size)
				outAddr := pins.Pin(out)
				withMaxPerCall(t, perCall, func() {
					if err := WriteTo(pid, outAddr, src); err != nil {
						t.Fatalf("WriteTo: %v", err)
					}
				})
				if !bytes.Equal(out, src) {
					t.Fatal("WriteTo: destination differs")
				}
			})
		}
	}
}

// TestBadAddress reads ranges that run into an inaccessible page, on the
// remote side and on the local side: the kernel moves what it can (a short
// count), the loop continues at the bad page, and that call's EFAULT is
// reported with the exact address and the bytes already done.
func TestBadAddress(t *testing.T) {
	skipIfNotSupported(t, SelfProbe())
	pid := os.Getpid()
	page := os.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	pattern(mem, 9)
	if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	const start = 100
	good := page - start // bytes before the bad page

	t.Run("null", func(t *testing.T) {
		err := ReadFrom(pid, make([]byte, 8), 0)
		var e *Error
		if !errors.Is(err, ErrBadAddress) || !errors.As(err, &e) || e.Op != "process_vm_readv" || e.Pid != pid || e.Len != 8 || e.Done != 0 {
			t.Fatalf("got %#v (%v)", e, err)
		}
	})
	t.Run("remote-runs-into-bad-page", func(t *testing.T) {
		dst := make([]byte, page)
		err := ReadFrom(pid, dst, addrOf(mem)+start)
		var e *Error
		if !errors.Is(err, ErrBadAddress) || !errors.As(err, &e) {
			t.Fatalf("got %v, want ErrBadAddress", err)
		}
		if e.Done != good || e.Addr != addrOf(mem)+uintptr(page) || e.Len != start {
			t.Fatalf("error %+v: want Done=%d Addr=%#x Len=%d", e, good, addrOf(mem)+uintptr(page), start)
		}
		if !bytes.Equal(dst[:good], mem[start:page]) {
			t.Fatal("the readable part was not copied")
		}
	})
	t.Run("local-runs-into-bad-page", func(t *testing.T) {
		src := make([]byte, page)
		pattern(src, 10)
		err := ReadFrom(pid, mem[start:start+page], addrOf(src))
		var e *Error
		if !errors.Is(err, ErrBadAddress) || !errors.As(err, &e) || e.Done != good {
			t.Fatalf("got %v (%+v), want ErrBadAddress after %d bytes", err, e, good)
		}
	})
	t.Run("write", func(t *testing.T) {
		err := WriteTo(pid, addrOf(mem)+start, make([]byte, page))
		var e *Error
		if !errors.Is(err, ErrBadAddress) || !errors.As(err, &e) || e.Op != "process_vm_writev" || e.Done != good {
			t.Fatalf("got %v (%+v)", err, e)
		}
	})
}

// TestInjectedFaults drives every sentinel through every entry point, and the
// probes' verdicts for each.
func TestInjectedFaults(t *testing.T) {
	pid := os.Getpid()
	buf := make([]byte, 64)
	remote := addrOf(buf)
	cases := []struct {
		name       string
		fault      uintptr
		want       error
		conclusive bool // probes say "no" (ErrNotSupported)
	}{
		{"eperm", uintptr(unix.EPERM), ErrNotPermitted, true},
		{"esrch", uintptr(unix.ESRCH), ErrPeerGone, false},
		{"efault", uintptr(unix.EFAULT), ErrBadAddress, true},
		{"enosys", uintptr(unix.ENOSYS), ErrNotSupported, true},
		{"einval", uintptr(unix.EINVAL), unix.EINVAL, false},
		{"no-progress", injectNoProgress, ErrNoProgress, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			withInjected(t, c.fault, func() {
				ops := map[string]error{
					"ReadFrom": ReadFrom(pid, buf, remote),
					"WriteTo":  WriteTo(pid, remote, buf),
				}
				for name, err := range ops {
					var e *Error
					if !errors.Is(err, c.want) || !errors.As(err, &e) || e.Pid != pid || e.Len != len(buf) {
						t.Errorf("%s: got %v, want *Error wrapping %v", name, err, c.want)
					}
				}
				if err := ReadFrom(pid, nil, remote); err != nil {
					t.Errorf("empty ReadFrom made a call: %v", err)
				}
				for name, err := range map[string]error{
					"Probe":     Probe(pid, ProbeAddr()),
					"SelfProbe": SelfProbe(),
					"Available": Available(),
				} {
					checkVerdict(t, name, err, c.conclusive)
					if c.conclusive {
						var u *UnsupportedError
						if !errors.As(err, &u) || u.Feature == "" || u.Reason == "" || !errors.Is(err, c.want) {
							t.Errorf("%s: %v: want an *UnsupportedError with a reason, wrapping %v", name, err, c.want)
						}
					}
				}
			})
		})
	}
}

// checkVerdict checks a probe result follows the contract for an expected
// conclusive "no" (conclusive) or a "couldn't tell".
func checkVerdict(t *testing.T, name string, err error, conclusive bool) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: nil, want an error", name)
	case conclusive && !errors.Is(err, ErrNotSupported):
		t.Errorf("%s: %v, want ErrNotSupported", name, err)
	case !conclusive && errors.Is(err, ErrNotSupported):
		t.Errorf("%s: %v, want a \"couldn't tell\" error, not ErrNotSupported", name, err)
	}
}

// TestInjectedEnv checks the HYMPI_DIRECTCOPY_FAIL hook itself, in children
// that start with it set (it is read once at start-up).
func TestInjectedEnv(t *testing.T) {
	if os.Getenv(roleEnv) == "failenv" {
		failEnvChild(t)
		return
	}
	for _, v := range []string{"eperm", "esrch", "efault", "ENOSYS"} {
		t.Run(v, func(t *testing.T) {
			out, err := runChildTest(t, "TestInjectedEnv", "failenv", FailEnv+"="+v)
			if err != nil || !strings.Contains(out, "--- PASS: TestInjectedEnv") || !strings.Contains(out, "injected "+strings.ToLower(v)) {
				t.Fatalf("child with %s=%s: %v\n%s", FailEnv, v, err, out)
			}
		})
	}
	t.Run("invalid", func(t *testing.T) {
		out, err := runChildTest(t, "TestInjectedEnv", "failenv", FailEnv+"=nope")
		if err == nil || !strings.Contains(out, FailEnv+"=nope is not one of") {
			t.Fatalf("child with an invalid value: want a start-up panic naming the variable, got %v\n%s", err, out)
		}
	})
}

func failEnvChild(t *testing.T) {
	v := strings.ToLower(os.Getenv(FailEnv))
	want := map[string]error{"eperm": ErrNotPermitted, "esrch": ErrPeerGone, "efault": ErrBadAddress, "enosys": ErrNotSupported}[v]
	if want == nil {
		t.Fatalf("%s=%q", FailEnv, v)
	}
	buf := make([]byte, 16)
	if err := ReadFrom(os.Getpid(), buf, addrOf(buf)); !errors.Is(err, want) {
		t.Fatalf("ReadFrom: %v, want %v", err, want)
	}
	err := SelfProbe()
	checkVerdict(t, "SelfProbe", err, v != "esrch")
	t.Logf("injected %s: SelfProbe: %v", v, err)
}

// TestZeroAllocs enforces the data-path tier: a successful transfer
// allocates nothing.
func TestZeroAllocs(t *testing.T) {
	skipIfNotSupported(t, SelfProbe())
	pid := os.Getpid()
	src := make([]byte, 64<<10)
	dst := make([]byte, 64<<10)
	for name, f := range map[string]func() error{
		"ReadFrom": func() error { return ReadFrom(pid, dst, addrOf(src)) },
		"WriteTo":  func() error { return WriteTo(pid, addrOf(dst), src) },
	} {
		var err error
		if n := testing.AllocsPerRun(100, func() { err = f() }); n != 0 || err != nil {
			t.Errorf("%s: %v allocs/op, err %v", name, n, err)
		}
	}
}

// BenchmarkReadFrom64KiB is the allocation guard benchmark: a 64 KiB
// self-read must report 0 allocs/op.
func BenchmarkReadFrom64KiB(b *testing.B) {
	skipIfNotSupported(b, SelfProbe())
	pid := os.Getpid()
	src := make([]byte, 64<<10)
	dst := make([]byte, 64<<10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ReadFrom(pid, dst, addrOf(src)); err != nil {
			b.Fatal(err)
		}
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

func TestErrorText(t *testing.T) {
	e := &Error{Op: "process_vm_readv", Pid: 42, Addr: 0x1000, Len: 8, Done: 4, Err: ErrPeerGone}
	if s := e.Error(); !strings.Contains(s, "process_vm_readv pid=42 addr=0x1000 len=8 done=4") || !strings.Contains(s, "ESRCH") {
		t.Errorf("Error() = %q", s)
	}
	u := &UnsupportedError{Feature: "process_vm_readv", Reason: "because", Err: e}
	if !errors.Is(u, ErrNotSupported) || !errors.Is(u, ErrPeerGone) || u.Error() != "directcopy: process_vm_readv not supported: because" {
		t.Errorf("UnsupportedError: %q", u.Error())
	}
}
