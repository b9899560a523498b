package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"n2.ompi.1.txt":    "row allreduce b 8 2.000 2.000 2.000 10 ok\n",
		"n2.hympi-C.1.txt": "row allreduce b 8 1.000 1.000 1.000 10 ok\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		summary bool
		want    string
	}{
		{false, "| allreduce | 8 B | 2.00 | 0.50 | n/a | n/a |"},
		{true, "| allreduce | 0.50 |"},
	} {
		var b strings.Builder
		if err := run(&b, dir, 2, tt.summary); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("summary=%v: output lacks %q:\n%s", tt.summary, tt.want, b.String())
		}
	}
	if err := run(&strings.Builder{}, filepath.Join(dir, "missing"), 2, false); err == nil {
		t.Error("missing directory: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "n2.ompi.2.txt"), []byte("row allreduce b 8 x 1 1 10 ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(&strings.Builder{}, dir, 2, false); err == nil || !strings.Contains(err.Error(), "n2.ompi.2.txt") {
		t.Errorf("unparsable run: err %v, want one naming the file", err)
	}
}
