package sysfsfixture

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFormatList(t *testing.T) {
	for _, tc := range []struct {
		cpus []int
		want string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 1, 2, 3, 8, 9, 11}, "0-3,8-9,11"},
		{[]int{0, 2, 4}, "0,2,4"},
	} {
		if got := FormatList(tc.cpus); got != tc.want {
			t.Errorf("FormatList(%v) = %q, want %q", tc.cpus, got, tc.want)
		}
	}
}

// TestWrite: the tree on disk is Files, byte for byte.
func TestWrite(t *testing.T) {
	tree := EPYC2S(false)
	dir, err := tree.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := tree.Files()
	if n := len(files); n != 2+128*(3+4*4)+8 {
		t.Errorf("%d files, want %d", n, 2+128*(3+4*4)+8)
	}
	for _, name := range []string{"devices/system/cpu/online", "devices/system/cpu/cpu77/cache/index3/shared_cpu_list", "devices/system/node/node7/cpulist"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != files[name] {
			t.Errorf("%s: %q, %v; want %q", name, b, err, files[name])
		}
	}
	if got := files["devices/system/cpu/cpu77/cache/index3/shared_cpu_list"]; got != "72-79\n" {
		t.Errorf("cpu77's L3 is shared by %q, want 72-79", got)
	}
	if got := files["devices/system/node/node7/cpulist"]; got != "112-127\n" {
		t.Errorf("node 7 holds %q, want 112-127", got)
	}
}
