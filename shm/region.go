package shm

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// RankState is a rank's life cycle as the launcher sees it.
type RankState uint32

const (
	StateNone      RankState = iota // never attached: the program did not call Init
	StateAttached                   // Init done, Finalize not yet
	StateFinalized                  // Finalize completed
	StateAborted                    // Abort called; AbortCode holds the code
)

func (s RankState) String() string {
	switch s {
	case StateNone:
		return "none"
	case StateAttached:
		return "attached"
	case StateFinalized:
		return "finalized"
	case StateAborted:
		return "aborted"
	}
	return fmt.Sprintf("RankState(%d)", uint32(s))
}

// Region is one process's mapping of the job's shared region.
type Region struct {
	mem []byte
	L   Layout
	// f is this mapping's own descriptor of the region file, through
	// which channels and cells are reserved as they are first used
	// (arena.go); nil for an anonymous region, whose pages are reserved by
	// being touched.
	f *os.File
	// nodes[d] is the NUMA node for the pages of channels toward rank d
	// (-1: first touch decides); nil when placement is off (numa.go).
	nodes []int
	// gateReuses counts the freed gate blocks this process took (gate.go).
	gateReuses atomic.Uint64
}

// Create makes the job's region in dir (normally /dev/shm) for nranks under
// cfg. The file gets an unpredictable name, mode 0600 and O_EXCL, and is
// unlinked before Create returns: ranks inherit the returned descriptor, so
// no outcome, SIGKILL included, can leave it behind. The file is sparse: only
// the header and rank blocks are reserved now, channels when pairs first talk.
func Create(dir string, nranks int, cfg Config) (*Region, *os.File, error) {
	l, err := NewLayout(nranks, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := checkFreeSpace(dir, l.ChannelOff+l.RingBytes()); err != nil {
		return nil, nil, err
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, nil, err
	}
	name := filepath.Join(dir, fmt.Sprintf("hympi-%d-%d-%s", os.Getuid(), os.Getpid(), hex.EncodeToString(rnd[:])))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("shm: create region: %w", err)
	}
	// From here on the name is not needed: drop it before anything can fail.
	if err := os.Remove(name); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("shm: unlink region: %w", err)
	}
	if err := f.Truncate(l.Size); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("shm: size region to %d bytes: %w", l.Size, err)
	}
	if err := reserve(int(f.Fd()), dir, 0, l.ChannelOff); err != nil {
		f.Close()
		return nil, nil, err
	}
	r, err := mapRegion(f, l.Size)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	r.L = l
	r.writeHeader()
	return r, f, nil
}

// CreateAnonymous makes a private region for a job whose ranks all live in
// this process (tests, fuzzing); it is never visible in the file system.
func CreateAnonymous(nranks int, cfg Config) (*Region, error) {
	l, err := NewLayout(nranks, cfg)
	if err != nil {
		return nil, err
	}
	if l.Size != int64(int(l.Size)) {
		return nil, fmt.Errorf("%w: region of %d bytes", ErrConfig, l.Size)
	}
	// MAP_NORESERVE: the arena is mostly address space that is never
	// touched, and must not be charged as memory.
	mem, err := unix.Mmap(-1, 0, int(l.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("shm: map anonymous region: %w", err)
	}
	r := &Region{mem: mem, L: l}
	r.writeHeader()
	return r, nil
}

// checkFreeSpace refuses up front when the file system cannot hold the
// region: a tmpfs that runs out later kills ranks with SIGBUS mid-run.
func checkFreeSpace(dir string, need int64) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("shm: %s: %w", dir, err)
	}
	if int64(st.Bavail)*int64(st.Bsize) < need {
		return noSpace(dir, need)
	}
	return nil
}

// noSpace is the refusal a user can act on: how much there is, how much the
// job needs, and the two ways out.
func noSpace(dir string, need int64) error {
	var free int64
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) == nil {
		free = int64(st.Bavail) * int64(st.Bsize)
	}
	return noSpaceMsg(dir, free, need)
}

func noSpaceMsg(where string, free, need int64) error {
	return fmt.Errorf("%w: %s has %d MiB free, the job needs %d MiB more; enlarge it (e.g. docker --shm-size) or lower HYMPI_SHM_BUDGET",
		ErrNoSpace, where, free>>20, (need+1<<20-1)>>20)
}

// fallocate is unix.Fallocate; tests replace it to play a full file system.
var fallocate = unix.Fallocate

// reserve backs the pages of [off, off+n) of the region file before anyone
// touches them. The file is sparse, and a sparse page first touched when
// the file system is full is a SIGBUS in whichever rank touched it;
// reserved, a full file system is an error the caller can report (ENOSPC
// becomes ErrNoSpace, naming the knobs). A file system that cannot reserve
// (EOPNOTSUPP) is used sparse: the free-space check is then all there is.
func reserve(fd int, dir string, off, n int64) error {
	err := fallocate(fd, 0, off, n)
	switch {
	case err == nil, errors.Is(err, unix.EOPNOTSUPP):
		return nil
	case errors.Is(err, unix.ENOSPC):
		if dir == "" {
			// A rank knows its region only by descriptor.
			var st unix.Statfs_t
			var free int64
			if unix.Fstatfs(fd, &st) == nil {
				free = int64(st.Bavail) * int64(st.Bsize)
			}
			return noSpaceMsg("the region's file system (/dev/shm)", free, n)
		}
		return noSpace(dir, n)
	}
	return fmt.Errorf("shm: reserve %d bytes for the region: %w", n, err)
}

// Attach maps the region behind f (the descriptor a rank inherited) and
// validates its header.
func Attach(f *os.File) (*Region, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("shm: stat region: %w", err)
	}
	if st.Size() < headerSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrTooSmall, st.Size())
	}
	r, err := mapRegion(f, st.Size())
	if err != nil {
		return nil, err
	}
	l, err := decodeHeader(r.mem)
	if err != nil {
		r.Close()
		return nil, err
	}
	r.L = l
	return r, nil
}

// AttachFD attaches the region behind an inherited descriptor number (what
// HYMPI_REGION_FD names) and closes that descriptor once it has proved to be
// a region: the mapping outlives it, and a program the rank starts must not
// inherit it. Anything else — a number naming stderr, a pipe, a log file —
// is refused with the descriptor left exactly as it was, so a wrong
// environment never costs the process its stderr and the refusal can still
// be printed.
func AttachFD(fd int) (*Region, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%w: descriptor %d: %v", ErrNotRegion, fd, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%w: descriptor %d is not a regular file", ErrNotRegion, fd)
	}
	if st.Size < headerSize {
		return nil, fmt.Errorf("%w: descriptor %d: %d bytes, less than a region header", ErrNotRegion, fd, st.Size)
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_ACCMODE != unix.O_RDWR {
		return nil, fmt.Errorf("%w: descriptor %d is not open for reading and writing", ErrNotRegion, fd)
	}
	// Attach through a duplicate, so that failing half-way (and the
	// *os.File's own closing) cannot touch fd.
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: duplicate descriptor %d: %w", fd, err)
	}
	f := os.NewFile(uintptr(dup), "hympi-region")
	r, err := Attach(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	unix.Close(fd)
	return r, nil
}

// mapRegion maps f whole and keeps a descriptor of its own (close-on-exec)
// for reserving pages later, so the caller's f may be closed at once.
func mapRegion(f *os.File, size int64) (*Region, error) {
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%w: region of %d bytes", ErrConfig, size)
	}
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: duplicate region descriptor: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("shm: map region: %w", err)
	}
	return &Region{mem: mem, f: os.NewFile(uintptr(fd), "hympi-region")}, nil
}

// Close unmaps the region. Views obtained from it must not be used after.
func (r *Region) Close() error {
	if r == nil || r.mem == nil {
		return nil
	}
	err := unix.Munmap(r.mem)
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
	r.mem = nil
	return err
}

func (r *Region) writeHeader() {
	h := r.mem[:headerSize]
	le := binary.LittleEndian
	le.PutUint64(h[hdrMagic:], magic)
	le.PutUint64(h[hdrVersion:], LayoutVersion)
	le.PutUint64(h[hdrRanks:], uint64(r.L.Ranks))
	le.PutUint64(h[hdrSlots:], uint64(r.L.Slots))
	le.PutUint64(h[hdrCellSize:], uint64(r.L.CellSize))
	le.PutUint64(h[hdrCells:], uint64(r.L.CellsPerChannel))
	le.PutUint64(h[hdrSize:], uint64(r.L.Size))
	le.PutUint64(h[hdrChecksum:], headerChecksum(h))
}

func headerChecksum(h []byte) uint64 {
	f := fnv.New64a()
	f.Write(h[:hdrChecksum])
	return f.Sum64()
}

// decodeHeader validates a header and rebuilds the layout it describes. The
// bytes come from a file another process wrote, so nothing is trusted: the
// checksum catches accidents, the recomputed layout catches lies.
func decodeHeader(mem []byte) (Layout, error) {
	if int64(len(mem)) < headerSize {
		return Layout{}, ErrTooSmall
	}
	le := binary.LittleEndian
	if le.Uint64(mem[hdrMagic:]) != magic {
		return Layout{}, ErrBadMagic
	}
	if v := le.Uint64(mem[hdrVersion:]); v != LayoutVersion {
		return Layout{}, fmt.Errorf("%w: region has %d, this build %d", ErrVersion, v, LayoutVersion)
	}
	if le.Uint64(mem[hdrChecksum:]) != headerChecksum(mem) {
		return Layout{}, ErrChecksum
	}
	field := func(off int64) int {
		v := le.Uint64(mem[off:])
		if v > 1<<30 {
			return -1
		}
		return int(v)
	}
	l, err := layoutFor(field(hdrRanks), field(hdrSlots), field(hdrCellSize), field(hdrCells))
	if err != nil {
		return Layout{}, err
	}
	if size := le.Uint64(mem[hdrSize:]); size != uint64(l.Size) {
		return Layout{}, fmt.Errorf("%w: header size %d, layout %d", ErrLayout, size, l.Size)
	}
	if int64(len(mem)) < l.Size {
		return Layout{}, fmt.Errorf("%w: %d < %d", ErrTooSmall, len(mem), l.Size)
	}
	return l, nil
}

// Ranks is the job size the region was made for.
func (r *Region) Ranks() int { return r.L.Ranks }

func (r *Region) rankBlock(rank int) int64 {
	if rank < 0 || rank >= r.L.Ranks {
		panic(fmt.Sprintf("shm: rank %d out of range [0,%d)", rank, r.L.Ranks))
	}
	return r.L.RankBlockOff + int64(rank)*r.L.RankBlockSize
}

// MarkAttached records that rank has joined (its pid, StateAttached) and
// counts it. Written by the rank itself; the launcher reads it to tell "exited
// before Finalize" from "never used MPI".
func (r *Region) MarkAttached(rank, pid int) {
	b := r.rankBlock(rank)
	r.u32At(b + rbPID).Store(uint32(pid))
	r.u32At(b + rbState).Store(uint32(StateAttached))
	if int(r.u32At(hdrAttached).Add(1)) >= r.L.Ranks {
		// The last one in wakes everyone waiting in WaitAttached.
		futexWake(r.u32At(hdrAttached))
	}
}

// WaitAttached sleeps until every rank has attached or timeout passes
// (or spuriously), without polling: hundreds of ranks started on a few CPUs
// would otherwise spend the CPUs the last ranks need to start on waking up
// to look. Callers loop, checking what they wait for.
func (r *Region) WaitAttached(timeout time.Duration) {
	a := r.u32At(hdrAttached)
	if v := a.Load(); int(v) < r.L.Ranks {
		futexWait(a, v, timeout)
	}
}

// Publish records, before MarkAttached, what peers need to know about this
// rank: the CPU it runs on (-1 when unbound) and the address of a word in its
// memory that they may read to test direct copy. Written by the rank once;
// read by peers after they have seen every rank attached.
func (r *Region) Publish(rank, cpu int, probeAddr uint64) {
	b := r.rankBlock(rank)
	r.u32At(b + rbCPU).Store(uint32(int32(cpu)))
	r.u64At(b + rbProbe).Store(probeAddr)
}

// RankCPU is the CPU rank published (-1 when unbound or not yet attached).
func (r *Region) RankCPU(rank int) int {
	if r.RankState(rank) == StateNone {
		return -1
	}
	return int(int32(r.u32At(r.rankBlock(rank) + rbCPU).Load()))
}

// ProbeAddr is the address rank published for direct-copy probes.
func (r *Region) ProbeAddr(rank int) uint64 { return r.u64At(r.rankBlock(rank) + rbProbe).Load() }

// DirectBits is rank's direct-copy bitmap: bit s means "rank can read sender
// s's memory directly". Written by rank (after probing s at Init), read by s
// when it picks a protocol toward rank.
func (r *Region) DirectBits(rank int) Summary {
	return Summary{words: r.u64sAt(r.rankBlock(rank)+r.L.DirectOff, r.L.SummaryWords)}
}

// SetState records the rank's life state (written by the rank only).
func (r *Region) SetState(rank int, s RankState) {
	r.u32At(r.rankBlock(rank) + rbState).Store(uint32(s))
}

// MarkAborted stores the abort code, then the state that makes it valid
// (the launcher loads the state first).
func (r *Region) MarkAborted(rank, code int) {
	b := r.rankBlock(rank)
	r.u32At(b + rbAbortCode).Store(uint32(int32(code)))
	r.u32At(b + rbState).Store(uint32(StateAborted))
}

// RankState is the rank's life state as last published by the rank.
func (r *Region) RankState(rank int) RankState {
	return RankState(r.u32At(r.rankBlock(rank) + rbState).Load())
}

// AbortCode is meaningful once RankState returned StateAborted.
func (r *Region) AbortCode(rank int) int {
	return int(int32(r.u32At(r.rankBlock(rank) + rbAbortCode).Load()))
}

// RankPID is the pid the rank recorded at attach (0 before).
func (r *Region) RankPID(rank int) int {
	return int(r.u32At(r.rankBlock(rank) + rbPID).Load())
}

// Attached counts ranks that called MarkAttached.
func (r *Region) Attached() int { return int(r.u32At(hdrAttached).Load()) }
