package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShortSoak is the slice of make soak that make test runs: 8 ranks of
// random checked traffic in every configuration, a few seconds each.
func TestShortSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	hympirun, soak := filepath.Join(dir, "hympirun"), filepath.Join(dir, "soak")
	for out, pkg := range map[string]string{hympirun: "../../cmd/hympirun", soak: "."} {
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	before := shmFiles()
	var out bytes.Buffer
	cmd := exec.Command(soak, "-modes", "-hympirun", hympirun, "-n", "8", "-duration", "6s", "-maxsize", "300000")
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("\n%s", out.String())
	if err != nil {
		t.Fatalf("soak: %v", err)
	}
	n := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "ok ") {
			n++
		}
	}
	if n != len(configs) {
		t.Fatalf("%d runs passed, want %d", n, len(configs))
	}
	time.Sleep(100 * time.Millisecond)
	for name := range shmFiles() {
		if !before[name] && strings.HasPrefix(name, "hympi") {
			t.Errorf("left in /dev/shm: %s", name)
		}
	}
}

func shmFiles() map[string]bool {
	m := map[string]bool{}
	ents, _ := os.ReadDir("/dev/shm")
	for _, e := range ents {
		m[e.Name()] = true
	}
	return m
}
