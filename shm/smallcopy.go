package shm

import "encoding/binary"

// CopySmall is copy(dst, src) for a small message's payload: 8 to 16
// bytes move as two overlapping words, with neither runtime.memmove's
// call nor its size dispatch (~20 instructions of an 8-byte message, at
// each end); other lengths go to copy. Small enough to inline.
func CopySmall(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n < 8 || n > 16 {
		return copy(dst, src)
	}
	le := binary.LittleEndian
	a, b := le.Uint64(src), le.Uint64(src[n-8:n])
	le.PutUint64(dst, a)
	le.PutUint64(dst[n-8:n], b)
	return n
}
