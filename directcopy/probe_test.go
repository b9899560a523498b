package directcopy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseYamaScope(t *testing.T) {
	for _, c := range []struct {
		in    string
		scope int
		ok    bool
	}{
		{"0\n", 0, true}, {"1\n", 1, true}, {" 2 ", 2, true}, {"3", 3, true},
		{"4\n", 0, false}, {"-1", 0, false}, {"", 0, false}, {"one", 0, false},
	} {
		scope, err := parseYamaScope([]byte(c.in))
		if (err == nil) != c.ok || scope != c.scope {
			t.Errorf("parseYamaScope(%q) = %d, %v", c.in, scope, err)
		}
	}
}

// TestVerdict is the system-wide decision table.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		env    ptraceEnv
		no     bool   // conclusive "no"
		reason string // substring of the reason
	}{
		{ptraceEnv{yama: false}, false, ""},
		{ptraceEnv{yama: true, scope: 0}, false, ""},
		{ptraceEnv{yama: true, scope: 1}, false, ""}, // the peer decides (AllowPeers)
		{ptraceEnv{yama: true, scope: 2}, true, "ptrace_scope=2: only processes with CAP_SYS_PTRACE"},
		{ptraceEnv{yama: true, scope: 2, capPtrace: true}, false, ""},
		{ptraceEnv{yama: true, scope: 3}, true, "ptrace_scope=3"},
		{ptraceEnv{yama: true, scope: 3, capPtrace: true}, true, "ptrace_scope=3"},
	} {
		err := c.env.verdict()
		var u *UnsupportedError
		switch {
		case !c.no && err != nil:
			t.Errorf("%+v: %v, want nil", c.env, err)
		case c.no && (!errors.Is(err, ErrNotSupported) || !errors.As(err, &u) || !strings.Contains(u.Reason, c.reason)):
			t.Errorf("%+v: %v, want ErrNotSupported mentioning %q", c.env, err, c.reason)
		}
	}
}

// withYama points the Yama sysctl at a fixture holding content ("" means
// the file is absent, as without Yama).
func withYama(t *testing.T, content string) {
	t.Helper()
	old := yamaPath
	t.Cleanup(func() { yamaPath = old })
	yamaPath = filepath.Join(t.TempDir(), "ptrace_scope")
	if content != "" {
		if err := os.WriteFile(yamaPath, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadPtraceEnv(t *testing.T) {
	withYama(t, "")
	if env, err := readPtraceEnv(); err != nil || env.yama {
		t.Errorf("absent: %+v, %v", env, err)
	}
	withYama(t, "1\n")
	if env, err := readPtraceEnv(); err != nil || !env.yama || env.scope != 1 {
		t.Errorf("scope 1: %+v, %v", env, err)
	}
	withYama(t, "garbage\n")
	if _, err := readPtraceEnv(); err == nil || errors.Is(err, ErrNotSupported) {
		t.Errorf("garbage: %v, want a couldn't-tell error", err)
	}
	// The real machine: whatever it says must parse.
	yamaPath = "/proc/sys/kernel/yama/ptrace_scope"
	env, err := readPtraceEnv()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine: %+v", env)
}

func TestAllowPeers(t *testing.T) {
	for _, c := range []struct {
		content string
		no      bool
	}{
		{"", false}, {"0\n", false}, {"2\n", true}, {"3\n", true},
	} {
		withYama(t, c.content)
		err := AllowPeers()
		if c.no != errors.Is(err, ErrNotSupported) || (!c.no && err != nil) {
			t.Errorf("ptrace_scope %q: AllowPeers() = %v", c.content, err)
		}
	}
	// Scope 1 makes the real prctl: it succeeds under Yama, and fails with
	// EINVAL where Yama is not active (the fixture lies about it).
	withYama(t, "1\n")
	if err := AllowPeers(); err != nil && !errors.Is(err, unix.EINVAL) {
		t.Errorf("ptrace_scope 1: AllowPeers() = %v", err)
	}
}

func TestPermissionReason(t *testing.T) {
	scope1 := ptraceEnv{yama: true, scope: 1}
	for _, c := range []struct {
		env  ptraceEnv
		ns   string
		self bool
		want []string
	}{
		{ptraceEnv{}, "", true, []string{"seccomp"}},
		{scope1, "", false, []string{"ptrace_scope=1", "AllowPeers"}},
		{scope1, "the peer is in a different user namespace", false, []string{"different user namespace", "ptrace_scope=1"}},
		{ptraceEnv{}, "the peer is in a different user namespace", false, []string{"different user namespace"}},
		{ptraceEnv{}, "", false, []string{"another user", "not dumpable"}},
	} {
		got := permissionReason(c.env, c.ns, c.self)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("permissionReason(%+v, %q, %v) = %q, missing %q", c.env, c.ns, c.self, got, w)
			}
		}
	}
}

// TestSelfProbe: reading oneself is never refused by ptrace rules, so
// without a seccomp filter a refusal is a bug, not a skip.
func TestSelfProbe(t *testing.T) {
	err := SelfProbe()
	if errors.Is(err, ErrNotPermitted) && seccompMode() == "0" && injected.Load() == 0 {
		t.Fatalf("no seccomp filter, yet SelfProbe says %v", err)
	}
	skipIfNotSupported(t, err)
	if err := Available(); err != nil {
		t.Fatalf("Available: %v", err)
	}
	if err := Probe(os.Getpid(), ProbeAddr()); err != nil {
		t.Fatalf("Probe(self): %v", err)
	}
}

// seccompMode is the "Seccomp:" line of /proc/self/status ("0" = none).
func seccompMode() string {
	data, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "Seccomp:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestProbeArgs(t *testing.T) {
	for _, c := range []struct {
		pid  int
		addr uintptr
	}{{0, ProbeAddr()}, {-1, ProbeAddr()}, {os.Getpid(), 0}} {
		if err := Probe(c.pid, c.addr); err == nil || errors.Is(err, ErrNotSupported) {
			t.Errorf("Probe(%d, %#x) = %v, want a couldn't-tell error", c.pid, c.addr, err)
		}
	}
}

// TestCachedProbe: conclusive answers stick, "couldn't tell" does not.
func TestCachedProbe(t *testing.T) {
	inconclusive := errors.New("couldn't tell")
	results := []error{inconclusive, inconclusive, &UnsupportedError{Feature: "x", Reason: "y"}, nil}
	calls := 0
	c := cachedProbe{fn: func() error { calls++; return results[calls-1] }}
	for i, want := range []error{inconclusive, inconclusive, ErrNotSupported, ErrNotSupported, ErrNotSupported} {
		if got := c.get(); !errors.Is(got, want) {
			t.Fatalf("call %d: %v, want %v", i, got, want)
		}
	}
	if calls != 3 {
		t.Fatalf("fn ran %d times, want 3", calls)
	}
	c.reset()
	if got := c.get(); got != nil || calls != 4 {
		t.Fatalf("after reset: %v (calls %d)", got, calls)
	}
	if got := c.get(); got != nil || calls != 4 {
		t.Fatalf("nil not cached: calls %d", calls)
	}
}

// reset forgets a cached answer (tests that inject faults).
func (c *cachedProbe) reset() {
	c.mu.Lock()
	c.done, c.err = false, nil
	c.mu.Unlock()
}
