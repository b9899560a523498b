//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/hympi/hympi/directcopy"
	"github.com/hympi/hympi/internal/calib"
	"github.com/hympi/hympi/internal/config"
	"github.com/hympi/hympi/shm"
	"golang.org/x/sys/unix"
)

// calibrate measures, for each size, the median one-way ping-pong latency of
// the eager and the direct protocol between two ranks pinned to cpuA and
// cpuB. The ranks are two engines in this process over a private region:
// the same code paths a job runs, minus the launcher. It is what
// hympi-info --tune runs; it needs no Init and leaves nothing behind.
func calibrate(cpuA, cpuB int, sizes []int) ([]calib.Point, error) {
	if err := directcopy.Available(); err != nil {
		return nil, fmt.Errorf("calibrate: direct copy is unavailable here: %w", err)
	}
	// The cells the jobs will use (HYMPI_CELL_SIZE), so that the crossover
	// measured is theirs.
	k, err := config.FromEnv()
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	region, err := shm.CreateAnonymous(2, shm.ConfigFrom(k))
	if err != nil {
		return nil, err
	}
	defer region.Close()
	comms := make([]*Comm, 2)
	for r := range comms {
		e := newEngine(r, 2, region, onlineCPUs())
		region.Publish(r, -1, uint64(directcopy.ProbeAddr()))
		region.MarkAttached(r, os.Getpid())
		comms[r] = &Comm{e: e, ctx: ctxWorld, rank: r, size: 2, private: true}
	}
	for _, c := range comms {
		c.e.ep(1 - c.rank).DirectOK = true
	}
	points := make([]calib.Point, len(sizes))
	for i, sz := range sizes {
		points[i].Size = sz
		for _, mode := range []directMode{directOff, directAlways} {
			for _, c := range comms {
				c.e.mode = mode
			}
			d, err := pingPong(comms, [2]int{cpuA, cpuB}, sz)
			if err != nil {
				return nil, err
			}
			if mode == directOff {
				points[i].Eager = d
			} else {
				points[i].Direct = d
			}
		}
	}
	return points, nil
}

// pingPong returns the median one-way latency over several timed batches.
func pingPong(comms []*Comm, cpus [2]int, size int) (time.Duration, error) {
	const batches = 7
	iters := max(20, min(2000, (64<<20)/max(size, 1)))
	bufs := [2][]byte{make([]byte, size), make([]byte, size)}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	var times []time.Duration
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var orig, set unix.CPUSet
			if err := unix.SchedGetaffinity(0, &orig); err != nil {
				errs[r] = fmt.Errorf("calibrate: read CPU affinity: %w", err)
				return
			}
			// Give the thread its mask back before it returns to the
			// scheduler's pool, or the caller's later work stays pinned.
			defer unix.SchedSetaffinity(0, &orig)
			set.Set(cpus[r])
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				errs[r] = fmt.Errorf("calibrate: bind to CPU %d: %w", cpus[r], err)
				return
			}
			c, buf := comms[r], bufs[r]
			for b := -1; b < batches; b++ { // batch -1 warms up
				start := time.Now()
				for range iters {
					if r == 0 {
						errs[r] = c.Send(buf, 1, 1)
						if errs[r] == nil {
							_, errs[r] = c.Recv(buf, 1, 1)
						}
					} else {
						_, errs[r] = c.Recv(buf, 0, 1)
						if errs[r] == nil {
							errs[r] = c.Send(buf, 0, 1)
						}
					}
					if errs[r] != nil {
						return
					}
				}
				if r == 0 && b >= 0 {
					times = append(times, time.Since(start)/time.Duration(2*iters))
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
