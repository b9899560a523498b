package directcopy

import (
	"os"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Benchmarks of one process_vm_readv call against a plain copy() of the same
// size. Names are benchstat-friendly:
//
//	BenchmarkSelfRead/{hot,cold}/<size>   ReadFrom(own pid, ...)
//	BenchmarkCrossRead/hot/<size>         ReadFrom(a child's pid, ...)
//	BenchmarkCopy/{hot,cold}/<size>       copy(dst, src)
//
// hot: the same source and destination every iteration (in cache after the
// first). cold: source and destination are drawn in a scattered order from
// two coldPool-byte pools, so that between two uses of the same bytes the
// whole pool (several times the last-level cache) has been touched; small
// sizes therefore also miss the TLB.

var benchSizes = []int{1, 4 << 10, 64 << 10, 1 << 20, 4 << 20}

// coldPool is the size of each cold pool (source and destination).
const coldPool = 2 << 30

var coldPools = sync.OnceValues(func() ([]byte, []byte) {
	mk := func() []byte {
		m, err := unix.Mmap(-1, 0, coldPool, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
		if err != nil {
			panic(err)
		}
		return m
	}
	return mk(), mk()
})

// slot returns the i-th buffer of size n in pool, visiting the pool's
// n-rounded-to-64-bytes slots in a scattered order (mul is odd and larger
// than the slot count, hence coprime with it).
func slot(pool []byte, n, i int, mul uint64) []byte {
	stride := (n + 63) &^ 63
	slots := uint64(len(pool) / stride)
	k := int((uint64(i) * mul) % slots)
	return pool[k*stride : k*stride+n]
}

const (
	mulSrc = 1_000_000_007
	mulDst = 998_244_353
)

func BenchmarkSelfRead(b *testing.B) {
	skipIfNotSupported(b, SelfProbe())
	pid := os.Getpid()
	for _, n := range benchSizes {
		b.Run("hot/"+sizeName(n), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			pattern(src, 1)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if err := ReadFrom(pid, dst, addrOf(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, n := range benchSizes {
		b.Run("cold/"+sizeName(n), func(b *testing.B) {
			srcPool, dstPool := coldPools()
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				src, dst := slot(srcPool, n, i, mulSrc), slot(dstPool, n, i, mulDst)
				if err := ReadFrom(pid, dst, addrOf(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("hot/"+sizeName(n), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			pattern(src, 1)
			b.SetBytes(int64(n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
	for _, n := range benchSizes {
		b.Run("cold/"+sizeName(n), func(b *testing.B) {
			srcPool, dstPool := coldPools()
			b.SetBytes(int64(n))
			for i := 0; b.Loop(); i++ {
				copy(slot(dstPool, n, i, mulDst), slot(srcPool, n, i, mulSrc))
			}
		})
	}
}

// BenchmarkCrossRead reads from a holder child, the real use: another
// process's address space.
func BenchmarkCrossRead(b *testing.B) {
	h := startHolder(b, 4<<20)
	skipIfNotSupported(b, Probe(h.pid, h.probe))
	for _, n := range benchSizes {
		b.Run("hot/"+sizeName(n), func(b *testing.B) {
			dst := make([]byte, n)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if err := ReadFrom(h.pid, dst, h.addr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
