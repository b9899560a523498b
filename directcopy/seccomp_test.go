package directcopy

// A real kernel refusal for tests: a seccomp filter that makes
// process_vm_readv and process_vm_writev fail with EPERM, the way Docker's
// default profile did (open-mpi/ompi#4948). x/sys/unix has the constants and
// the SockFilter/SockFprog types but no seccomp(2) wrapper, so the call below
// is hand-written.
//
// Contract: installSeccompRefusal is irreversible for the calling process
// and all its threads (SECCOMP_FILTER_FLAG_TSYNC), so it runs only in a
// re-executed child of the test binary.

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is the AUDIT_ARCH_* value seccomp reports for this GOARCH.
var auditArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"ppc64le": unix.AUDIT_ARCH_PPC64LE,
	"s390x":   unix.AUDIT_ARCH_S390X,
}

// seccompUnavailable prefixes the child's message when it cannot install a
// filter; the parent turns it into a skip.
const seccompUnavailable = "SECCOMP-UNAVAILABLE: "

func installSeccompRefusal() error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return errors.New("no AUDIT_ARCH value known for " + runtime.GOARCH)
	}
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK  = unix.BPF_RET | unix.BPF_K
		// offsets in struct seccomp_data
		offNr   = 0
		offArch = 4
	)
	filter := []unix.SockFilter{
		{Code: ldAbs, K: offArch},
		{Code: jeqK, K: arch, Jt: 0, Jf: 4}, // another ABI: allow
		{Code: ldAbs, K: offNr},
		{Code: jeqK, K: unix.SYS_PROCESS_VM_READV, Jt: 2},
		{Code: jeqK, K: unix.SYS_PROCESS_VM_WRITEV, Jt: 1},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}

	// no_new_privs is per thread; TSYNC copies it and the filter to every
	// thread, so both calls must run on the same one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return errors.New("prctl(PR_SET_NO_NEW_PRIVS): " + err.Error())
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return errors.New("seccomp(SECCOMP_SET_MODE_FILTER): " + errno.Error())
	}
	if r != 0 {
		return errors.New("seccomp: thread " + strconv.FormatUint(uint64(r), 10) + " could not be synchronised")
	}
	return nil
}

// TestSeccompRefusal installs the filter in a child and checks the child's
// view: probes give a conclusive "no" naming seccomp, transfers fail with
// ErrNotPermitted.
func TestSeccompRefusal(t *testing.T) {
	if os.Getenv(roleEnv) == "seccomp" {
		seccompChild(t)
		return
	}
	out, err := runChildTest(t, "TestSeccompRefusal", "seccomp")
	if i := strings.Index(out, seccompUnavailable); i >= 0 {
		reason, _, _ := strings.Cut(out[i+len(seccompUnavailable):], "\n")
		t.Skip("seccomp is not available here: " + reason)
	}
	if strings.Contains(out, "--- SKIP: TestSeccompRefusal") {
		t.Skipf("child skipped:\n%s", out)
	}
	if err != nil || !strings.Contains(out, "--- PASS: TestSeccompRefusal") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
}

func seccompChild(t *testing.T) {
	// Before the filter: CMA works here (or there is nothing to test).
	skipIfNotSupported(t, SelfProbe())
	selfProbe.reset()
	available.reset()

	if err := installSeccompRefusal(); err != nil {
		t.Log(seccompUnavailable + err.Error())
		t.Skip()
	}
	pid := os.Getpid()
	buf := make([]byte, 4096)
	src := make([]byte, 4096)
	if err := ReadFrom(pid, buf, addrOf(src)); !errors.Is(err, ErrNotPermitted) {
		t.Errorf("ReadFrom: %v, want ErrNotPermitted", err)
	}
	if err := WriteTo(pid, addrOf(buf), src); !errors.Is(err, ErrNotPermitted) {
		t.Errorf("WriteTo: %v, want ErrNotPermitted", err)
	}
	for name, err := range map[string]error{
		"SelfProbe": SelfProbe(),
		"Available": Available(),
		"Probe":     Probe(pid, ProbeAddr()),
	} {
		var u *UnsupportedError
		if !errors.Is(err, ErrNotSupported) || !errors.As(err, &u) || !strings.Contains(u.Reason, "seccomp") || !errors.Is(err, ErrNotPermitted) {
			t.Errorf("%s: %v, want ErrNotSupported with a reason naming seccomp", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
