package shm

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/edsrzf/mmap-go"
	"golang.org/x/sys/unix"
)

// Segment is a shared mapping made for one RMA window: its control words
// (locks, post/complete counters, the attach table) and, for windows whose
// memory hympi allocates, the data of every rank.
//
// One rank creates it, the others open it, and no name ever outlives the
// creation: the preferred form is a memfd, which has no name at all and
// which peers open through /proc/<pid>/fd/<n> while the creator keeps the
// descriptor (the kernel frees the memory when the last mapping goes, even
// if every rank crashes). Where /proc/<pid>/fd of a peer cannot be opened
// (the same ptrace rule as process_vm_readv), a file in /dev/shm with an
// unpredictable name is the fallback; the creator unlinks it once every
// rank has opened it.
type Segment struct {
	mm   mmap.MMap
	f    *os.File // the creator's descriptor until CloseFile
	name string   // /dev/shm path of the fallback form, until Unlink
}

// NewSegment creates a zeroed memfd segment of size bytes.
func NewSegment(size int64) (*Segment, error) {
	fd, err := unix.MemfdCreate("hympi-win", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "hympi-win")
	return finishSegment(f, size, true, "")
}

// NewSegmentFile creates a zeroed segment as a file in dir with an
// unpredictable name (0600, O_EXCL), returned by Name.
func NewSegmentFile(dir string, size int64) (*Segment, error) {
	var rnd [12]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	name := dir + "/hympi-win-" + hex.EncodeToString(rnd[:])
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	s, err := finishSegment(f, size, true, name)
	if err != nil {
		os.Remove(name)
	}
	return s, err
}

// OpenSegment maps the memfd segment that process pid holds as descriptor fd.
func OpenSegment(pid, fd int, size int64) (*Segment, error) {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return finishSegment(f, size, false, "")
}

// OpenSegmentFile maps the fallback segment called name.
func OpenSegmentFile(name string, size int64) (*Segment, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return finishSegment(f, size, false, "")
}

// finishSegment sizes (creator) or checks (peer) f and maps it. Only the
// creator keeps its descriptor: peers' opens need it, nothing else does.
func finishSegment(f *os.File, size int64, create bool, name string) (*Segment, error) {
	if size <= 0 {
		f.Close()
		return nil, fmt.Errorf("segment size %d", size)
	}
	if create {
		if err := f.Truncate(size); err != nil {
			f.Close()
			return nil, err
		}
	} else if st, err := f.Stat(); err != nil || st.Size() != size {
		f.Close()
		return nil, fmt.Errorf("segment is not %d bytes", size)
	}
	mm, err := mmap.MapRegion(f, int(size), mmap.RDWR, 0, 0)
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Segment{mm: mm, name: name}
	if create {
		s.f = f
	} else {
		f.Close()
	}
	return s, nil
}

// FD is the creator's descriptor number (-1 when there is none).
func (s *Segment) FD() int {
	if s.f == nil {
		return -1
	}
	return int(s.f.Fd())
}

// Name is the fallback segment's path ("" for a memfd or once unlinked).
func (s *Segment) Name() string { return s.name }

// CloseFile drops the creator's descriptor and, for the fallback form, the
// name: called once every rank has mapped the segment.
func (s *Segment) CloseFile() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if s.name != "" {
		os.Remove(s.name)
		s.name = ""
	}
}

// Close unmaps the segment (and drops what CloseFile would).
func (s *Segment) Close() error {
	s.CloseFile()
	if s.mm == nil {
		return nil
	}
	err := s.mm.Unmap()
	s.mm = nil
	return err
}

// Bytes is the whole mapping.
func (s *Segment) Bytes() []byte { return s.mm }

// U32 is the atomic word at off; off must be 4-byte aligned and inside the
// mapping (the window's layout computes it, nothing is read from peers).
func (s *Segment) U32(off int64) *atomic.Uint32 {
	_ = s.mm[off : off+4]
	return (*atomic.Uint32)(unsafe.Pointer(&s.mm[off]))
}

// U64 is the atomic 8-byte word at off (8-byte aligned, inside).
func (s *Segment) U64(off int64) *atomic.Uint64 {
	_ = s.mm[off : off+8]
	return (*atomic.Uint64)(unsafe.Pointer(&s.mm[off]))
}
