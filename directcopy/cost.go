package directcopy

import (
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ReadCost compares, once per process, what process_vm_readv costs per byte
// against a plain memory copy of the same size, and returns read/copy (1 if
// the kernel refuses the read or the clock says nothing).
//
// Why it matters: a rendezvous moves each byte once, by this call, on the
// receiver's core; the eager protocol moves it twice, but the sender's copy
// into the cells and the receiver's copy out of them run on two cores at
// once, so a stream of eager messages advances at memory-copy speed. Where
// the call is much slower than a copy (pinning every page costs more than
// moving it: 11 GB/s against 26 GB/s on a 2-vCPU AMD EPYC VM), a sender that
// is ahead of a busy receiver gets its data across sooner eagerly.
//
// The figure is the best of 9 alternating rounds on 1 MiB, each side on warm
// buffers: bigger than a core's L2, so the copy is not flattered by it (on
// 256 KiB the same VM gives 4.0 instead of 2.1–2.4). About 1.5 ms, once per
// process, and only in a process that asks (mpi: Init, with skew feedback
// on and a peer to read).
func ReadCost() float64 {
	costOnce.Do(func() {
		var read time.Duration
		costRatio, read = measureCost(costBytes, costRounds)
		costRead = float64(read) / costBytes
		costKnown.Store(true)
	})
	return costRatio
}

// SlowReadsKnown is SlowReads if ReadCost has run, without running it: ok
// is false in a process that never asked.
func SlowReadsKnown() (slow, ok bool) {
	if !costKnown.Load() {
		return false, false
	}
	return costRatio > SlowReadRatio, true
}

// SlowReadRatio is the ReadCost above which SlowReads says a stream of
// eager messages beats a stream of reads. The eager protocol's two copies
// overlap on two cores, so it streams at about one copy's cost; 1.5 leaves
// room for the copy measured on warm buffers being cheaper than the copies
// of real traffic. The AMD EPYC VM of issue 17 measures 2.1–2.4; the 2-core
// Xeon of the first measurements read 256 KiB segments at 22 GB/s, at most
// ~1.3 copies there.
const SlowReadRatio = 1.5

// SlowReads reports whether ReadCost is above SlowReadRatio.
func SlowReads() bool { return ReadCost() > SlowReadRatio }

const (
	costBytes  = 1 << 20
	costRounds = 9
)

var (
	costOnce  sync.Once
	costRatio float64
	costRead  float64     // the least read's nanoseconds per byte, with costRatio
	costKnown atomic.Bool // costRatio and costRead are set
)

// ReadTimeKnown is how long a read of n bytes takes at the rate ReadCost
// measured (its least read, warm buffers), if it has run: a yardstick for
// a transfer done another way.
func ReadTimeKnown(n int) (time.Duration, bool) {
	if !costKnown.Load() || costRead <= 0 {
		return 0, false
	}
	return time.Duration(costRead * float64(n)), true
}

// measureCost returns the ratio of a read's time to a copy's and the
// least read time (0 when it could not read).
func measureCost(n, rounds int) (float64, time.Duration) {
	if SelfProbe() != nil {
		return 1, 0
	}
	// Off the Go heap: on it, the 2 MiB left as garbage at Init showed up
	// as ~150 page faults in the job's first broadcast.
	mem, err := unix.Mmap(-1, 0, 2*n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 1, 0
	}
	defer unix.Munmap(mem)
	src, dst := mem[:n:n], mem[n:]
	for i := range src {
		src[i] = byte(i)
	}
	copy(dst, src) // fault both in
	pid, addr := os.Getpid(), uintptr(unsafe.Pointer(&src[0]))
	timed := func(f func() error) func() (time.Duration, bool) {
		return func() (time.Duration, bool) {
			t := time.Now()
			err := f()
			return time.Since(t), err == nil
		}
	}
	read, cp, ok := leastOfAlternating(rounds,
		timed(func() error { return ReadFrom(pid, dst, addr) }),
		timed(func() error { copy(dst, src); return nil }))
	if !ok || read <= 0 || cp <= 0 {
		return 1, 0
	}
	return float64(read) / float64(cp), read
}

// leastOfAlternating runs a and b in turn, rounds times each after one
// warm-up of each, and returns the least time of each; ok is false if
// either failed. In turn, not all of a then all of b: on a loaded machine
// a burst of interference (another process on the core, a neighbour
// flushing the shared cache) lasts several rounds; falling on the copies
// alone it makes reads look cheap, and the whole job's skew feedback runs
// in the wrong mode (one run in nine of the skew benchmark on the loaded
// 2-vCPU VM behaved so). Alternating, such a burst costs both sides the
// same rounds and the clean ones still decide.
func leastOfAlternating(rounds int, a, b func() (time.Duration, bool)) (ta, tb time.Duration, ok bool) {
	for i := 0; i <= rounds; i++ { // round 0 warms up
		da, okA := a()
		db, okB := b()
		if !okA || !okB {
			return 0, 0, false
		}
		if i == 0 {
			continue
		}
		if ta == 0 || da < ta {
			ta = da
		}
		if tb == 0 || db < tb {
			tb = db
		}
	}
	return ta, tb, true
}
