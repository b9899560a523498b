package osu

import "fmt"

// Buffer policies of the benchmarks' -buffers option (-b in
// bench/c/osu_pt2pt.c).
//
// OSU sends every message from one buffer and receives every message into
// one buffer, so after the first iteration both sit in the caches and a
// benchmark measures the transport over hot memory. Applications rarely
// send the same bytes twice in a row: the seed study (MVAPICH vs
// MVAPICH-LiMIC2) measured both ways and found that buffer reuse flatters
// both protocols, the single copy more for medium messages. BuffersFresh
// reproduces the cold case: each message takes its own slot of a pool much
// larger than the caches, and a slot comes round again only after the rest
// of the pool has been used.
const (
	BuffersReuse = "reuse" // OSU's behaviour: one send and one receive buffer
	BuffersFresh = "fresh" // a pool of slots, each message in the next one
)

// ParseBuffers checks a -buffers value.
func ParseBuffers(s string) (string, error) {
	if s != BuffersReuse && s != BuffersFresh {
		return "", fmt.Errorf("-buffers %q: want %s or %s", s, BuffersReuse, BuffersFresh)
	}
	return s, nil
}

// Pool sizes for BuffersFresh, per pool (a rank has a send pool, a receive
// pool or both).
//
// The default pool is the size of the last-level cache, bounded by
// MinFreshPool and MaxFreshPool. A two-rank job then holds four such pools
// (send and receive on each rank), 4× the last-level cache, and even a
// one-way test (osu_bw: a send pool on one rank, a receive pool on the
// other) touches twice the cache between two uses of a slot: every level of
// cache has lost the slot by then, the private L1/L2 long before. The
// floor keeps small-cache machines well clear of their caches, the
// ceiling and the memory cap (all pools of the job within half of
// physical memory) keep a huge or misreported L3 from exhausting memory.
const (
	MinFreshPool = 64 << 20
	MaxFreshPool = 1 << 30
	// poolGranule is what the default pool is rounded down to.
	poolGranule = 1 << 20
)

// FreshPoolSize returns the default bytes of one pool for a job of ranks
// ranks on a machine with the given last-level cache and physical memory;
// 0 for either means unknown.
func FreshPoolSize(llc, memTotal int64, ranks int) int64 {
	p := min(max(llc, MinFreshPool), MaxFreshPool)
	if memTotal > 0 && ranks > 0 {
		// Two pools per rank, all of them within memTotal/2.
		p = min(p, memTotal/(4*int64(ranks)))
	}
	return max(p/poolGranule*poolGranule, poolGranule)
}

// CacheLine is the slot alignment of messages smaller than a page.
const CacheLine = 64

// SlotStride is the distance between consecutive slots of a pool for
// messages of size bytes. Messages of a page or more are page-aligned, as
// OSU aligns its buffers (copy routines are sensitive to alignment and
// every policy should give them the same); smaller ones are cache-line
// aligned, so that a slot never shares a line with its neighbour but a pool
// still holds many of them.
func SlotStride(size, pageSize int) int {
	if size >= pageSize {
		return roundUp(size, pageSize)
	}
	return roundUp(max(size, 1), CacheLine)
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// SlotStep is the stride, in slots, of the walk through a pool of n
// slots: slot k is followed by slot (k+step) mod n. The step is coprime
// with n, so the walk visits every slot once before any repeats (each slot
// is reused only after the whole pool), and near n/φ, so consecutive
// messages land far apart and the hardware prefetchers, which follow
// sequential and constant-stride streams within a page, cannot warm the
// next slot ahead of its message. For n = 1 the step is 0: one slot, reused.
func SlotStep(n int) int {
	if n <= 1 {
		return 0
	}
	s := max(int(float64(n)*0.6180339887), 1)
	for gcd(s, n) != 1 {
		s++
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
