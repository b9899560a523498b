// Package directcopy moves bytes straight between the address spaces of two
// processes on this machine with process_vm_readv and process_vm_writev
// (Linux "cross memory attach", CMA). It is hympi's single-copy mechanism: for
// a message above the threshold, the receiver reads the payload out of the
// sender's buffer into the user's buffer in one copy.
//
// # Transfers
//
// ReadFrom and WriteTo wrap the two system calls, one buffer on each side.
// They loop on partial transfers (the kernel returns short counts above about 2 GiB per
// call, and when a page in the middle of the range turns out to be unmapped),
// retry on EINTR, and stop with an error if a call makes no progress. A
// failure is an *Error that says which call failed, for which pid and remote
// range, after how many bytes, and wraps one of the sentinels
// ErrNotPermitted (EPERM), ErrPeerGone (ESRCH), ErrBadAddress (EFAULT) or
// ErrNotSupported (ENOSYS), so callers test it with errors.Is.
//
// Data-path tier: a successful transfer allocates nothing, takes no lock and
// makes one system call per ~2 GiB; only the failure path
// allocates (one *Error) and formats.
//
// # Probe contract
//
// Available, SelfProbe and Probe answer "can this process (or this peer) be
// used for direct copy?". Each returns exactly one of:
//
//   - nil: yes, direct copy works.
//   - an error wrapping ErrNotSupported, carrying an *UnsupportedError whose
//     Reason explains the refusal (Yama ptrace_scope, a different user
//     namespace, a seccomp filter, a kernel without CMA, ...). This is a
//     conclusive "no": the caller falls back to copying through shared memory
//     for that peer, says so once, and does not ask again.
//   - any other error: "couldn't tell" (the peer exited, /proc could not be
//     read, ...). It is not a verdict; the caller may retry later or fall back
//     for now.
//
// Only nil and ErrNotSupported are conclusive, and only conclusive results
// are cached (Available and SelfProbe cache; Probe does not, because its
// answer is per peer and the caller owns the per-peer state).
//
// Probe checks, cheapest first: the Yama ptrace_scope sysctl (absent or 0:
// fine; 1: the peer must have called AllowPeers; 2: only with CAP_SYS_PTRACE;
// 3: never), whether the peer is in our user namespace, and finally a real
// 1-byte read at an address the peer vouches for (its ProbeAddr). The real
// read is what decides; the pre-checks make the reason precise.
//
// AllowPeers is the Yama scope 1 escape hatch (prctl PR_SET_PTRACER_ANY). It
// widens who may read this process's memory; see its doc before calling it.
//
// # Pinning
//
// A buffer whose address is handed to a peer must stay where it is until the
// peer has finished reading it. Pins wraps runtime.Pinner for that and keeps
// a process-wide count (Pinned) that tests use to check every pin was
// released.
//
// # Fault injection (test hook)
//
// The environment variable HYMPI_DIRECTCOPY_FAIL, read once at program start,
// makes every transfer (and therefore every probe) fail as if the kernel had
// returned the named errno: "eperm", "esrch", "efault" or "enosys". It exists
// so that tests of the layers above (the mpi engine's fallback, hympi-info)
// can exercise refusal paths on a machine where CMA works. Any other non-empty
// value panics at start-up, so a typo cannot silently disable the hook.
//
// Everything here is safe for concurrent use except a Pins value, which
// belongs to one request. The package is Linux-only, like the rest of hympi.
package directcopy
