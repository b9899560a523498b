package shm

import (
	"os"
	"path/filepath"
	"testing"
)

// A window segment is shared by whoever opens it, whichever form it has,
// and leaves no name behind once the creator closed its file.
func TestSegmentForms(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		create func() (*Segment, error)
		open   func(s *Segment) (*Segment, error)
	}{
		{"memfd", func() (*Segment, error) { return NewSegment(8192) },
			func(s *Segment) (*Segment, error) { return OpenSegment(os.Getpid(), s.FD(), 8192) }},
		{"file", func() (*Segment, error) { return NewSegmentFile(dir, 8192) },
			func(s *Segment) (*Segment, error) { return OpenSegmentFile(s.Name(), 8192) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := tc.create()
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			b, err := tc.open(a)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			a.U64(4096).Store(42)
			a.Bytes()[100] = 7
			if got := b.U64(4096).Load(); got != 42 || b.Bytes()[100] != 7 {
				t.Fatalf("second mapping reads %d, %d", got, b.Bytes()[100])
			}
			name := a.Name()
			a.CloseFile()
			if a.FD() != -1 || a.Name() != "" {
				t.Fatalf("after CloseFile: fd %d, name %q", a.FD(), a.Name())
			}
			if name != "" {
				if _, err := os.Stat(name); !os.IsNotExist(err) {
					t.Fatalf("%s still exists: %v", name, err)
				}
			}
			// The mapping outlives the name and the descriptor.
			b.U32(0).Store(9)
			if a.U32(0).Load() != 9 {
				t.Fatal("mappings no longer shared after CloseFile")
			}
		})
	}
}

func TestSegmentBadOpen(t *testing.T) {
	s, err := NewSegment(4096)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		name string
		open func() (*Segment, error)
	}{
		{"wrong size", func() (*Segment, error) { return OpenSegment(os.Getpid(), s.FD(), 8192) }},
		{"no such fd", func() (*Segment, error) { return OpenSegment(os.Getpid(), 99999, 4096) }},
		{"no such file", func() (*Segment, error) { return OpenSegmentFile(filepath.Join(t.TempDir(), "x"), 4096) }},
		{"zero size", func() (*Segment, error) { return NewSegment(0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if seg, err := tc.open(); err == nil {
				seg.Close()
				t.Fatal("opened")
			}
		})
	}
}
