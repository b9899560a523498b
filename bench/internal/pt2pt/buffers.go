package pt2pt

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/hympi/hympi/bench/internal/osu"
	"github.com/hympi/hympi/mpi"
	"github.com/hympi/hympi/topology"
)

// Buffers are allocated once per run, page-aligned and with every page
// already written, so neither allocation nor first-touch page faults land
// in a timed loop.
type Buffers struct {
	// Send and Recv hold the messages a rank sends and receives. A rank of
	// a one-way benchmark (Benchmark.OneWay) has only the side it uses.
	Send, Recv Pool
	// Ack is a small buffer for acknowledgements and other control
	// messages (osu_bw's 4-byte ack); it is the same under every -buffers
	// policy, since it is not what the benchmark measures.
	Ack []byte
	// Window is -W for the bandwidth kinds, 0 for latency.
	Window int
	// Reqs has two slots per message of a window (a send and a receive
	// per message for osu_bibw); kernels store requests in it instead of
	// growing a slice per iteration.
	Reqs []*mpi.Request
}

// Pool is the memory one side's messages live in: one buffer under
// -buffers reuse, a large pool of slots under -buffers fresh.
type Pool struct {
	mem   []byte
	fresh bool
}

// Slots returns the sequence of buffers for messages of size bytes: Next
// gives each message its buffer. Under -buffers reuse that is the start of
// the one buffer every time, as in OSU; under -buffers fresh, slots walk
// the pool so that each slot is used again only after all others.
func (p *Pool) Slots(size int) Slots {
	if len(p.mem) == 0 {
		// A kernel used a side its rank was not given: a bug in the
		// benchmark, and a message into nothing would hide it.
		panic("pt2pt: no buffer pool on this side (see Benchmark.OneWay)")
	}
	if !p.fresh {
		return Slots{mem: p.mem, size: size, n: 1}
	}
	stride := osu.SlotStride(size, pageSize)
	n := len(p.mem) / stride
	return Slots{mem: p.mem, size: size, stride: stride, n: n, step: osu.SlotStep(n)}
}

// Slots hands out message buffers; see Pool.Slots.
type Slots struct {
	mem                   []byte
	size, stride, n, step int
	next                  int // slot of the next message
}

// Next returns the buffer of the next message: size bytes with no spare
// capacity, so an append can never spill into the neighbouring slot.
func (s *Slots) Next() []byte {
	off := s.next * s.stride
	if s.next += s.step; s.next >= s.n {
		s.next -= s.n
	}
	return s.mem[off : off+s.size : off+s.size]
}

// bufferSpec is what a rank allocates.
type bufferSpec struct {
	send, recv bool  // which sides the rank uses
	fresh      bool  // -buffers fresh
	maxSize    int   // largest message
	poolBytes  int64 // per pool, under fresh
	window     int   // 0 for latency
}

func newBuffers(s bufferSpec) (*Buffers, error) {
	b := &Buffers{Window: s.window}
	if s.window > 0 {
		b.Reqs = make([]*mpi.Request, 2*s.window)
	}
	size := max(s.maxSize, 1)
	if s.fresh {
		size = max(int(s.poolBytes), osu.SlotStride(s.maxSize, pageSize))
	}
	var err error
	if b.Ack, err = touched(ackSize, 'c'); err != nil {
		return nil, err
	}
	if s.send {
		b.Send.fresh = s.fresh
		if b.Send.mem, err = touched(size, 'a'); err != nil {
			return nil, err
		}
	}
	if s.recv {
		b.Recv.fresh = s.fresh
		if b.Recv.mem, err = touched(size, 'b'); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// defaultPoolBytes is osu.FreshPoolSize for this machine: the largest data
// cache in the topology (the last level) and the physical memory.
func defaultPoolBytes(ranks int) int64 {
	var llc int64
	if m, err := topology.Default(); err == nil {
		for _, c := range m.CPUs {
			for _, k := range c.Caches {
				if k.HoldsData() {
					llc = max(llc, int64(k.Size))
				}
			}
		}
	}
	var mem int64
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		mem = int64(si.Totalram) * int64(si.Unit)
	}
	return osu.FreshPoolSize(llc, mem, ranks)
}

// describePool is the title's note on the buffer policy.
func describePool(b *Buffers) string {
	p := b.Send
	if len(p.mem) == 0 {
		p = b.Recv
	}
	if !p.fresh {
		return ""
	}
	return fmt.Sprintf(", fresh buffers (pool of %d MiB per side)", len(p.mem)>>20)
}

// pageSize is the alignment of benchmark buffers, as OSU's page-aligned
// posix_memalign: copy speed depends on alignment and both sides of a
// comparison should get the same.
var pageSize = os.Getpagesize()

// touched returns n bytes of fresh page-aligned memory with every byte set
// to fill, so all its pages are resident before any timing starts. The
// memory is mapped outside the Go heap and lives until the process exits:
// the garbage collector never scans or moves it, and MAP_POPULATE faults a
// pool of a gigabyte in several times faster than first touches would
// (page faults are slow in virtual machines). Every buffer, of either
// -buffers policy, comes from here, so the policies differ only in which
// bytes each message uses.
func touched(n int, fill byte) ([]byte, error) {
	m, err := unix.Mmap(-1, 0, max(n, 1), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("allocating %d bytes of buffers: %w", n, err)
	}
	b := m[:n:n]
	if n > 0 {
		// Fill by doubling copies: a gigabyte fills at memmove speed
		// instead of a byte at a time.
		b[0] = fill
		for done := 1; done < n; done *= 2 {
			copy(b[done:], b[:done])
		}
	}
	return b, nil
}
