package main

// Most tests call run in-process against the fixture trees of
// topology/testdata (HYMPI_SYSFS). What cannot be changed in-process — the
// directcopy fault-injection hook, read once at start — and what must not
// leave traces in the test process — --tune pins threads to CPUs — runs the
// test binary itself as hympi-info (runMain).

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hympi/hympi/topology"
)

// asMainEnv makes the test binary behave as hympi-info: TestMain runs run
// with the command-line arguments and exits.
const asMainEnv = "HYMPI_INFO_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// fixture returns the absolute root of a topology fixture tree.
func fixture(t *testing.T, name string) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "topology", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal(err)
	}
	return root
}

// hermetic clears every variable hympi-info reads, points the profile into
// a fresh temporary directory and the sysfs root at root ("" = live), and
// returns the profile path.
func hermetic(t *testing.T, root string) string {
	t.Helper()
	for _, v := range []string{topology.EnvThreshold, envDirect, "HYMPI_SHM_BUDGET", "HYMPI_CELL_SIZE", "HYMPI_SKEW", "HYMPI_ASYNC_PROGRESS"} {
		t.Setenv(v, "")
	}
	t.Setenv(topology.EnvSysfs, root)
	profile := filepath.Join(t.TempDir(), "hympi", "profile.json")
	t.Setenv(topology.EnvProfile, profile)
	return profile
}

// runIn runs hympi-info in-process.
func runIn(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runJSON runs hympi-info --json in-process and decodes the report.
func runJSON(t *testing.T, args ...string) *report {
	t.Helper()
	code, out, errs := runIn(t, append([]string{"--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("hympi-info --json %q: exit %d, stderr %q", args, code, errs)
	}
	return decode(t, out)
}

func decode(t *testing.T, out string) *report {
	t.Helper()
	var rep report
	dec := json.NewDecoder(bytes.NewReader([]byte(out)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("decoding %q: %v", out, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %q", out)
	}
	return &rep
}

// runMain runs the test binary as hympi-info in a child process, with env
// added to the current environment.
func runMain(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), asMainEnv+"=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}
