package shm

import (
	"bytes"
	"testing"
)

// CopySmall must do exactly what copy does, at every length around its
// word path (overlapping words get a byte wrong, or write past n, when an
// offset is off by one).
func TestCopySmall(t *testing.T) {
	for ns := 0; ns <= 20; ns++ {
		for _, nd := range []int{0, 1, 7, 8, 9, 15, 16, 17, ns - 1, ns, ns + 1, 24} {
			if nd < 0 {
				continue
			}
			src := make([]byte, ns)
			for i := range src {
				src[i] = byte(0x40 + i)
			}
			got, want := bytes.Repeat([]byte{0xee}, nd), bytes.Repeat([]byte{0xee}, nd)
			n := CopySmall(got, src)
			m := copy(want, src)
			if n != m || !bytes.Equal(got, want) {
				t.Fatalf("src %d bytes, dst %d: CopySmall %d %x, copy %d %x", ns, nd, n, got, m, want)
			}
		}
	}
}
