//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/mpi/internal/peer"
	"github.com/hympi/hympi/shm"
	"golang.org/x/sys/unix"
)

var (
	lifeMu    sync.Mutex
	theEngine *engine
	world     *Comm
	self      *Comm
	started   bool // Init succeeded
	ended     bool // Finalize succeeded
	// active is started && !ended, readable without lifeMu on every call.
	active atomic.Bool
	epoch  = time.Now()
	// knobs is the tuning environment, read once by Init. In-process tests,
	// which never call Init, run with the defaults.
	knobs = config.Defaults()
)

// Context ids of the predefined communicators. Each communicator owns an
// even id for point-to-point and the next odd one for its collectives, so
// collective traffic can never match a user receive.
const (
	ctxWorld = 0
	ctxSelf  = 2
)

// isCollCtx reports whether ctx is a collective context (odd, see above).
func isCollCtx(ctx uint32) bool { return ctx&1 != 0 }

// Init joins the job hympirun started, or makes this process a singleton of
// size 1 when it was started directly.
func Init() error {
	lifeMu.Lock()
	defer lifeMu.Unlock()
	if started {
		return newErr(ErrOther, "Init", "already initialized")
	}
	k, err := config.FromEnv()
	if err != nil {
		return newErr(ErrArg, "Init", "%v", err)
	}
	knobs = k
	mode := directModeOf(k.Direct)
	th := peer.NewThresholds(k)
	e, err := joinJob(mode)
	if err != nil {
		return err
	}
	e.mode = mode
	e.checksum = k.Checksum
	w := &Comm{e: e, ctx: ctxWorld, rank: e.rank, size: e.size}
	if e.region != nil {
		if err := e.meetPeers(w, &th); err != nil {
			return err
		}
	}
	theEngine = e
	world = w
	self = &Comm{e: e, ctx: ctxSelf, rank: 0, size: 1, world: []int{e.rank}}
	if e.region != nil && knobs.AsyncProgress {
		e.startAsync()
	}
	started = true
	active.Store(true)
	return nil
}

func joinJob(mode directMode) (*engine, error) {
	rankStr, ok := os.LookupEnv(shm.EnvRank)
	if !ok {
		return newEngine(0, 1, nil, onlineCPUs()), nil
	}
	rank, err1 := strconv.Atoi(rankStr)
	size, err2 := strconv.Atoi(os.Getenv(shm.EnvSize))
	fd, err3 := strconv.Atoi(os.Getenv(shm.EnvRegionFD))
	if err1 != nil || err2 != nil || err3 != nil || size < 1 || rank < 0 || rank >= size || fd < 0 {
		return nil, newErr(ErrIntern, "Init", "bad launcher environment %s=%q %s=%q %s=%q",
			shm.EnvRank, rankStr, shm.EnvSize, os.Getenv(shm.EnvSize), shm.EnvRegionFD, os.Getenv(shm.EnvRegionFD))
	}
	region, err := shm.AttachFD(fd)
	if err != nil {
		return nil, newErr(ErrIntern, "Init", "%s=%d: attach shared region: %v", shm.EnvRegionFD, fd, err)
	}
	if region.Ranks() != size {
		region.Close()
		return nil, newErr(ErrIntern, "Init", "region made for %d ranks, job has %d", region.Ranks(), size)
	}
	cpu, err := strconv.Atoi(os.Getenv(shm.EnvCPU))
	if err != nil {
		cpu = -1
	}
	if mode != directOff {
		// Under Yama ptrace_scope 1 sibling ranks may not read each other
		// unless each allows it; elsewhere this does nothing.
		_ = directcopy.AllowPeers()
	}
	region.Publish(rank, cpu, uint64(directcopy.ProbeAddr()))
	region.MarkAttached(rank, os.Getpid())
	return newEngine(rank, size, region, onlineCPUs()), nil
}

// attachTimeout bounds how long Init waits for the other ranks to start.
const attachTimeout = 5 * time.Minute

// meetPeers completes Init for a job: wait until every rank has attached,
// probe whether we can read each peer's memory, publish that, and after a
// barrier (so every verdict is out) learn which peers can read ours and the
// threshold toward each.
func (e *engine) meetPeers(w *Comm, th *peer.Thresholds) error {
	deadline := time.Now().Add(attachTimeout)
	for !e.allAttached() {
		if time.Now().After(deadline) {
			return newErr(ErrIntern, "Init", "only %d of %d ranks started within %v", e.region.Attached(), e.size, attachTimeout)
		}
		e.region.WaitAttached(100 * time.Millisecond)
	}
	e.placeChannels(th)
	e.probePeers()
	if err := w.barrierOn(ctxWorld+1, "Init"); err != nil {
		return err
	}
	e.mu.Lock()
	e.learnPeers(th)
	e.thresholdSource = th.Source
	e.setCPUs(e.jobCPUs())
	e.mu.Unlock()
	return nil
}

// allAttached reports whether every rank has attached: the header's count
// says so, or, should a stray write have changed that count, every rank's
// own state does.
func (e *engine) allAttached() bool {
	if e.region.Attached() >= e.size {
		return true
	}
	for p := 0; p < e.size; p++ {
		if e.region.RankState(p) == shm.StateNone {
			return false
		}
	}
	return true
}

// jobCPUs is how many CPUs the job's ranks share, known once every rank has
// published its CPU: whether ranks outnumber it decides how a wait spins.
// Bound ranks have exactly the CPUs they are bound to between them, so two
// ranks on one CPU are oversubscribed however large the machine is. Unbound
// ranks run wherever the launcher could, which is our own affinity mask,
// inherited from it.
func (e *engine) jobCPUs() int {
	bound := make(map[int]bool, e.size)
	for p := 0; p < e.size; p++ {
		cpu := e.region.RankCPU(p)
		if cpu < 0 {
			var set unix.CPUSet
			if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
				return onlineCPUs()
			}
			return min(set.Count(), onlineCPUs())
		}
		bound[cpu] = true
	}
	return len(bound)
}

// onlineCPUs counts the machine's online CPUs (not this process's affinity
// mask: the launcher binds each rank to one CPU, and oversubscription is
// about the job, not the rank). It is the first guess, before Init has met
// the peers; jobCPUs refines it.
func onlineCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return 1
	}
	n := 0
	for _, part := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, found := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		z := a
		if found {
			if z, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		n += z - a + 1
	}
	return max(n, 1)
}

// Finalize completes this rank's outgoing traffic, synchronises with the
// other ranks and leaves the job. No MPI call is valid afterwards.
func Finalize() error {
	lifeMu.Lock()
	defer lifeMu.Unlock()
	if !started || ended {
		return newErr(ErrNotInitialized, "Finalize", "not initialized, or already finalized")
	}
	e := theEngine
	// Push every queued send into its channel before the barrier (a peer
	// stays in MPI, draining, until everyone has arrived), and again after
	// it, for our last barrier messages.
	err := e.flush()
	if berr := world.barrierOn(ctxWorld+1, "Finalize"); err == nil {
		err = berr
	}
	if ferr := e.flush(); err == nil {
		err = ferr
	}
	e.stopAsync()
	e.mu.Lock()
	e.flStop()
	e.mu.Unlock()
	ended = true
	active.Store(false)
	if e.region != nil {
		e.region.SetState(e.rank, shm.StateFinalized)
		e.region.Close()
		e.region = nil
	}
	return err
}

// Initialized reports whether Init has succeeded.
func Initialized() bool {
	lifeMu.Lock()
	defer lifeMu.Unlock()
	return started
}

// Finalized reports whether Finalize has completed.
func Finalized() bool {
	lifeMu.Lock()
	defer lifeMu.Unlock()
	return ended
}

// Abort terminates the whole job: this process exits with code at once, and
// hympirun, seeing the abort, stops every other rank.
func Abort(c *Comm, code int) {
	if e := theEngine; e != nil && e.region != nil {
		e.region.MarkAborted(e.rank, code)
	} else {
		fmt.Fprintf(os.Stderr, "mpi: Abort called with code %d\n", code)
	}
	os.Exit(code)
}

// Wtime is the wall-clock time in seconds since an arbitrary point fixed for
// the life of the process.
func Wtime() float64 { return time.Since(epoch).Seconds() }

// Wtick is the resolution of Wtime in seconds.
func Wtick() float64 { return 1e-9 }

// World is the communicator of every rank in the job (nil before Init).
func World() *Comm { return world }

// Self is the communicator holding only this rank (nil before Init).
func Self() *Comm { return self }
