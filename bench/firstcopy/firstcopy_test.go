package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hympi/hympi/directcopy"
)

// Each case of the child prints one "µs faults" line per copy; an unknown
// case is the plain (fresh) one.
func TestRunChild(t *testing.T) {
	if err := directcopy.SelfProbe(); err != nil {
		t.Skip("process_vm_readv unavailable:", err)
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout := os.Stdout
			os.Stdout = w
			err = runChild(c, 3, 64<<10)
			os.Stdout = stdout
			w.Close()
			out, _ := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 3 {
				t.Fatalf("%d lines, want 3:\n%s", len(lines), out)
			}
			for _, l := range lines {
				if f := strings.Fields(l); len(f) != 2 {
					t.Errorf("line %q: want two fields", l)
				}
			}
		})
	}
}

func TestMed(t *testing.T) {
	v := [][2]float64{{0, 5}, {1, 9}, {0, 1}, {0, 3}, {1, 7}}
	for _, tc := range []struct {
		i    int
		want float64
	}{{0, 3}, {1, 9}, {2, 0}} {
		if got := med(v, tc.i); got != tc.want {
			t.Errorf("med(v, %d) = %v, want %v", tc.i, got, tc.want)
		}
	}
}
