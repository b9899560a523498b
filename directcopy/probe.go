package directcopy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// feature is the name probes report in an *UnsupportedError.
const feature = "process_vm_readv"

// yamaPath is the Yama sysctl; a variable so tests can point it at fixtures.
var yamaPath = "/proc/sys/kernel/yama/ptrace_scope"

// probeMagic is the value of probeByte, checked by SelfProbe.
const probeMagic = 0xA5

// probeByte is this process's known-good probe address. A package variable
// lives in the data segment for the life of the process and never moves, so
// its address can be published to peers without pinning.
var probeByte = [1]byte{probeMagic}

// ProbeAddr returns an address in this process that peers may read one byte
// from to probe direct copy (Probe's remote argument). Publish it alongside
// the pid, e.g. in the shared region's per-rank block.
func ProbeAddr() uintptr { return uintptr(unsafe.Pointer(&probeByte[0])) }

// Probe reports whether this process can read process pid's memory. remote
// must be an address the peer vouches is readable (its ProbeAddr). The result
// follows the package's probe contract: nil, an error wrapping
// ErrNotSupported with an *UnsupportedError saying why, or any other error
// for "couldn't tell" (the peer has exited: ErrPeerGone). Probe does not
// cache: the caller keeps the per-peer verdict.
func Probe(pid int, remote uintptr) error {
	if pid <= 0 || remote == 0 {
		return fmt.Errorf("directcopy: Probe(pid %d, addr %#x): need a live pid and an address readable in it", pid, remote)
	}
	env, err := readPtraceEnv()
	if err != nil {
		return err
	}
	if err := env.verdict(); err != nil {
		return err
	}
	nsNote, err := userNamespaceNote(pid)
	if err != nil {
		return err
	}
	var b [1]byte
	err = ReadFrom(pid, b[:], remote)
	if err == nil {
		return nil
	}
	var reason string
	switch {
	case errors.Is(err, ErrNotPermitted):
		reason = permissionReason(env, nsNote, selfBlocked())
	case errors.Is(err, ErrNotSupported):
		reason = reasonENOSYS
	case errors.Is(err, ErrBadAddress):
		reason = "reading an address the peer vouched for faulted (EFAULT): the kernel or a filter refuses cross-memory reads"
	default:
		return err // ESRCH and the rest: couldn't tell
	}
	return &UnsupportedError{Feature: feature, Reason: injectedNote() + reason, Err: err}
}

const reasonSeccomp = "refused even on this process itself (EPERM): a seccomp filter blocks it (e.g. a container runtime's default profile); allow process_vm_readv and process_vm_writev in the profile"

const reasonENOSYS = "the kernel has no process_vm_readv (ENOSYS): built without CONFIG_CROSS_MEMORY_ATTACH, or a filter hides the call"

// SelfProbe reports whether process_vm_readv works at all in this process by
// reading this process's own probe byte. Reading oneself is always allowed
// by ptrace rules, so a refusal means a seccomp filter (containers), or a
// kernel without CMA. Conclusive results are cached for the process's life.
func SelfProbe() error { return selfProbe.get() }

var selfProbe = cachedProbe{fn: selfProbeOnce}

func selfProbeOnce() error {
	var b [1]byte
	err := ReadFrom(os.Getpid(), b[:], ProbeAddr())
	if err == nil {
		if b[0] != probeMagic {
			return fmt.Errorf("directcopy: self-probe read %#x, want %#x", b[0], probeMagic)
		}
		return nil
	}
	var reason string
	switch {
	case errors.Is(err, ErrNotPermitted):
		reason = reasonSeccomp
	case errors.Is(err, ErrNotSupported):
		reason = reasonENOSYS
	case errors.Is(err, ErrBadAddress):
		reason = "reading this process's own probe byte faulted (EFAULT): the kernel or a filter refuses cross-memory reads"
	default:
		return err
	}
	return &UnsupportedError{Feature: feature, Reason: injectedNote() + reason, Err: err}
}

// injectedNote prefixes reasons while the fault-injection hook is active, so
// a forgotten HYMPI_DIRECTCOPY_FAIL does not pass for a real refusal.
func injectedNote() string {
	if injected.Load() == 0 {
		return ""
	}
	return "[" + FailEnv + " is set: fault injected by the test hook] "
}

// selfBlocked tells whether SelfProbe says process_vm_readv is refused in
// this process outright, which makes a seccomp filter the reason for any
// EPERM.
func selfBlocked() bool {
	return errors.Is(SelfProbe(), ErrNotPermitted)
}

// Available reports whether this process can use direct copy at all: the
// system-wide pre-checks (Yama ptrace_scope, CAP_SYS_PTRACE) and SelfProbe.
// It is what Init asks once; Probe then decides per peer. Conclusive results
// are cached.
func Available() error { return available.get() }

var available = cachedProbe{fn: func() error {
	env, err := readPtraceEnv()
	if err != nil {
		return err
	}
	if err := env.verdict(); err != nil {
		return err
	}
	return SelfProbe()
}}

// AllowPeers lets every process of the same user read and write this
// process's memory when Yama's ptrace_scope is 1, by calling
// prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY). Under scope 1 a process may only
// be ptraced (and read with process_vm_readv) by its ancestors or by a
// process it named, and hympi's ranks are siblings, so without this a peer
// cannot read this rank at all.
//
// Security trade-off: for the rest of this process's life, any process
// running as the same user, not only the ranks of this job, may attach to it
// with ptrace and read or modify its memory. That is exactly what scope 1 was
// set to prevent (a compromised process of the user reading secrets from
// another one). Call it only when ptrace_scope is 1 and the job is willing to
// accept that; Open MPI and UCX do it by default, MPICH refuses and falls
// back. AllowPeers itself does nothing and returns nil when Yama is absent or
// ptrace_scope is 0 (nothing to allow), and returns an *UnsupportedError for
// scope 2 and 3, where PR_SET_PTRACER does not help.
func AllowPeers() error {
	env, err := readPtraceEnv()
	if err != nil {
		return err
	}
	if !env.yama || env.scope == 0 {
		return nil
	}
	if env.scope >= 2 {
		return &UnsupportedError{Feature: feature, Reason: fmt.Sprintf("kernel.yama.ptrace_scope=%d: PR_SET_PTRACER does not relax it", env.scope)}
	}
	// PR_SET_PTRACER_ANY is ((unsigned long)-1).
	if err := unix.Prctl(unix.PR_SET_PTRACER, ^uintptr(0), 0, 0, 0); err != nil {
		return fmt.Errorf("directcopy: prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY): %w", err)
	}
	return nil
}

// ptraceEnv is what the kernel's ptrace policy looks like from here.
type ptraceEnv struct {
	yama      bool // the Yama LSM is active (its sysctl exists)
	scope     int  // kernel.yama.ptrace_scope, when yama
	capPtrace bool // this process has CAP_SYS_PTRACE (effective)
}

func readPtraceEnv() (ptraceEnv, error) {
	var env ptraceEnv
	data, err := os.ReadFile(yamaPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// No Yama: only the classic ptrace rules apply.
	case err != nil:
		return env, fmt.Errorf("directcopy: reading ptrace scope: %w", err)
	default:
		scope, err := parseYamaScope(data)
		if err != nil {
			return env, err
		}
		env.yama, env.scope = true, scope
	}
	env.capPtrace = hasCapSysPtrace()
	return env, nil
}

// parseYamaScope parses the content of the ptrace_scope sysctl (0..3).
func parseYamaScope(data []byte) (int, error) {
	s := strings.TrimSpace(string(data))
	scope, err := strconv.Atoi(s)
	if err != nil || scope < 0 || scope > 3 {
		return 0, fmt.Errorf("directcopy: unexpected kernel.yama.ptrace_scope %q", s)
	}
	return scope, nil
}

// hasCapSysPtrace reports whether CAP_SYS_PTRACE is in this process's
// effective set. (The kernel checks it against the peer's user namespace;
// ours is the common case and a real read settles the rest.)
func hasCapSysPtrace() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_SYS_PTRACE/32].Effective&(1<<(unix.CAP_SYS_PTRACE%32)) != 0
}

// verdict is the system-wide part of the decision: a conclusive "no" for
// Yama scopes that forbid attaching to peers, nil otherwise.
func (env ptraceEnv) verdict() error {
	if !env.yama {
		return nil
	}
	switch {
	case env.scope == 3:
		return &UnsupportedError{Feature: feature, Reason: "kernel.yama.ptrace_scope=3: ptrace attach is disabled for every process until reboot"}
	case env.scope == 2 && !env.capPtrace:
		return &UnsupportedError{Feature: feature, Reason: "kernel.yama.ptrace_scope=2: only processes with CAP_SYS_PTRACE may read another process's memory (set the sysctl to 0 or 1, or grant the capability)"}
	}
	return nil
}

// permissionReason explains an EPERM from a peer read, most specific first.
func permissionReason(env ptraceEnv, nsNote string, selfBlocked bool) string {
	if selfBlocked {
		return reasonSeccomp
	}
	var why []string
	if nsNote != "" {
		why = append(why, nsNote)
	}
	if env.yama && env.scope == 1 {
		why = append(why, "kernel.yama.ptrace_scope=1 lets a process be read only by its ancestors or by a process it named with PR_SET_PTRACER: the peer must call directcopy.AllowPeers (or set the sysctl to 0)")
	}
	if len(why) == 0 {
		why = append(why, "the kernel's ptrace access check refused: the peer runs as another user, is not dumpable, or a security module forbids ptrace")
	}
	return "EPERM reading the peer: " + strings.Join(why, "; ")
}

// userNamespaceNote compares our user namespace with pid's. It returns a
// non-empty note when they differ (ptrace across user namespaces needs
// CAP_SYS_PTRACE over the peer's namespace, and mapped ids do not count as
// the same user: Open MPI's Podman lesson), and ErrPeerGone when pid does not
// exist.
func userNamespaceNote(pid int) (string, error) {
	var self, peer unix.Stat_t
	if err := unix.Stat("/proc/self/ns/user", &self); err != nil {
		return "", nil // no namespaces to compare: let the read decide
	}
	path := "/proc/" + strconv.Itoa(pid) + "/ns/user"
	switch err := unix.Stat(path, &peer); err {
	case nil:
	case unix.ENOENT, unix.ESRCH:
		return "", fmt.Errorf("directcopy: probing pid %d: %w", pid, ErrPeerGone)
	case unix.EACCES, unix.EPERM:
		return "cannot inspect the peer's user namespace (" + path + ": permission denied), so ptrace access to it is refused", nil
	default:
		return "", nil
	}
	if self.Dev == peer.Dev && self.Ino == peer.Ino {
		return "", nil
	}
	return fmt.Sprintf("the peer is in a different user namespace (user:[%d], ours user:[%d]); the kernel does not treat mapped ids as the same user across namespaces", peer.Ino, self.Ino), nil
}

// cachedProbe runs a probe until it gives a conclusive answer (nil or
// ErrNotSupported) and then returns that answer forever. sync.OnceValue would
// cache "couldn't tell" too, which the probe contract forbids.
type cachedProbe struct {
	fn   func() error
	mu   sync.Mutex
	done bool
	err  error
}

func (c *cachedProbe) get() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return c.err
	}
	err := c.fn()
	if err == nil || errors.Is(err, ErrNotSupported) {
		c.done, c.err = true, err
	}
	return err
}
