package osu

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// The floor program (bench/c/floor_pingpong.c) is a column of
// bench/compare.sh: its output must read as an OSU table of the right kind
// and sizes, with positive values, and bad arguments must fail with exit
// status 2 before anything is measured.
func TestFloorPingPong(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc)")
	}
	bin := filepath.Join(t.TempDir(), "floor_pingpong")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-Werror", "-o", bin, "../../c/floor_pingpong.c").CombinedOutput(); err != nil {
		t.Fatalf("building floor_pingpong: %v\n%s", err, out)
	}
	tests := []struct {
		name  string
		args  []string
		kind  Kind
		sizes []int
	}{
		{"latency inline and copied", []string{"latency", "-m", "0:128", "-i", "200", "-x", "10"}, Latency, []int{0, 1, 2, 4, 8, 16, 32, 64, 128}},
		{"latency one size", []string{"latency", "-m", "8:8", "-i", "100"}, Latency, []int{8}},
		{"bw", []string{"bw", "-m", "1024:4096", "-i", "2", "-x", "1"}, Bandwidth, []int{1024, 2048, 4096}},
		{"bibw", []string{"bibw", "-m", "4096", "-i", "2", "-x", "1"}, Bandwidth, []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command(bin, tt.args...).Output()
			if err != nil {
				t.Fatalf("floor_pingpong %v: %v", tt.args, err)
			}
			res, err := Parse(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, out)
			}
			if res.Kind != tt.kind {
				t.Errorf("kind %v, want %v", res.Kind, tt.kind)
			}
			var sizes []int
			for _, r := range res.Rows {
				sizes = append(sizes, r.Size)
				if !(r.Value > 0) {
					t.Errorf("size %d: value %v, want > 0", r.Size, r.Value)
				}
			}
			if !slices.Equal(sizes, tt.sizes) {
				t.Errorf("sizes %v, want %v", sizes, tt.sizes)
			}
		})
	}
	for _, args := range [][]string{
		nil,
		{"pingpong"},
		{"latency", "-m", "64:8"},
		{"latency", "-i", "ten"},
		{"bw", "-i", "-3"},
		{"bw", "-m"},
		{"bibw", "-z", "1"},
	} {
		out, err := exec.Command(bin, args...).Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("floor_pingpong %v: %v, want exit status 2", args, err)
		}
		if len(out) != 0 {
			t.Errorf("floor_pingpong %v printed %q, want nothing on stdout", args, out)
		}
	}
}
