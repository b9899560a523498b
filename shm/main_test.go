package shm

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// shmDir is where regions live in production; the leak tracker watches it.
const shmDir = "/dev/shm"

// TestMain is the package's leak tracker. It fails the run (exit status 1)
// when, after the tests:
//   - a hympi-* file appeared in /dev/shm and is still there (Create must
//     unlink the name before returning, whatever happens next);
//   - this process still holds a descriptor or a mapping of a hympi-* file
//     (a Region or *os.File a test forgot to close);
//   - this process holds more shared anonymous mappings than before (a
//     CreateAnonymous region that was never closed).
//
// The stress test's child process runs through here too, so it is held to the
// same rules.
func TestMain(m *testing.M) {
	files := shmFiles()
	fds := regionFDs()
	anon := sharedAnonMappings()

	code := m.Run()

	var leaks []string
	if nw := newNames(files, shmFiles()); len(nw) > 0 {
		// Another process's Create may own a name for a few microseconds:
		// only a name that survives a pause is a leak.
		time.Sleep(200 * time.Millisecond)
		for _, n := range newNames(files, shmFiles()) {
			if slices.Contains(nw, n) {
				leaks = append(leaks, fmt.Sprintf("file %s left in %s", n, shmDir))
			}
		}
	}
	for _, fd := range newNames(fds, regionFDs()) {
		leaks = append(leaks, "descriptor still open: "+fd)
	}
	for _, mp := range regionMappings() {
		leaks = append(leaks, "region file still mapped: "+mp)
	}
	if n := sharedAnonMappings(); n > anon {
		leaks = append(leaks, fmt.Sprintf("%d shared anonymous mapping(s) not unmapped (CreateAnonymous without Close)", n-anon))
	}
	if len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "shm leak tracker (pid %d):\n\t%s\nFAIL\n", os.Getpid(), strings.Join(leaks, "\n\t"))
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// shmFiles lists the hympi-* names in /dev/shm (none if it does not exist).
func shmFiles() []string {
	ents, err := os.ReadDir(shmDir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "hympi-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// regionFDs lists "fd -> target" for this process's descriptors that refer
// to a hympi-* file (deleted or not).
func regionFDs() []string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.Contains(filepath.Base(target), "hympi-") {
			out = append(out, e.Name()+" -> "+target)
		}
	}
	return out
}

func procMaps() []string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}

// regionMappings lists mappings of hympi-* files.
func regionMappings() []string {
	var out []string
	for _, l := range procMaps() {
		if strings.Contains(l, "/hympi-") {
			out = append(out, l)
		}
	}
	return out
}

// sharedAnonMappings counts MAP_SHARED|MAP_ANONYMOUS mappings, which the
// kernel shows as a deleted /dev/zero; the Go runtime makes none of its own.
func sharedAnonMappings() int {
	n := 0
	for _, l := range procMaps() {
		if strings.Contains(l, "/dev/zero (deleted)") {
			n++
		}
	}
	return n
}

func newNames(before, after []string) []string {
	var nw []string
	for _, a := range after {
		if !slices.Contains(before, a) {
			nw = append(nw, a)
		}
	}
	return nw
}

// newAnon makes an anonymous region that is closed when the test ends.
func newAnon(tb testing.TB, nranks int, cfg Config) *Region {
	tb.Helper()
	r, err := CreateAnonymous(nranks, cfg)
	if err != nil {
		tb.Fatalf("CreateAnonymous(%d, %+v): %v", nranks, cfg, err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return r
}

// tinyConfig is the smallest legal geometry: every channel is two pages.
var tinyConfig = Config{MinCells: 1, CellSize: CacheLine, Slots: 2}
