//go:build !ompi && !mpich

package mpi

import (
	"time"

	"github.com/hympi/hympi/shm"
)

// Asynchronous progress (HYMPI_ASYNC_PROGRESS=1): one goroutine per rank
// runs the progress engine while the application computes, so collectives
// advance through this rank (a broadcast forwarded to its children, a
// reduction combined and passed up) and matching keeps up without MPI calls.
// It polls while there is traffic and otherwise sleeps on the rank's
// doorbell, which every peer rings after publishing, like a blocking wait.

type asyncProgress struct {
	stop bool          // set under e.mu by Finalize
	done chan struct{} // closed when the goroutine has returned
}

// asyncIdleSpins is how many empty progress passes the goroutine makes
// before it sleeps on the doorbell.
const asyncIdleSpins = 64

// asyncSleep bounds one doorbell sleep; a safety net, not the wake path.
const asyncSleep = 50 * time.Millisecond

// startAsync starts the progress goroutine. Called once, by Init.
func (e *engine) startAsync() {
	a := &asyncProgress{done: make(chan struct{})}
	e.async = a
	go e.asyncLoop(a)
}

func (e *engine) asyncLoop(a *asyncProgress) {
	defer close(a.done)
	idle := 0
	e.mu.Lock()
	defer e.mu.Unlock()
	for !a.stop && e.fatal == nil {
		if e.progress() {
			idle = 0
			// What moved may complete a request the application's
			// thread sleeps on: wake it (one load if nobody sleeps).
			e.bell.Ring()
		} else {
			idle++
		}
		if idle < asyncIdleSpins {
			e.mu.Unlock()
			shm.Yield()
			e.mu.Lock()
			continue
		}
		seq := e.bell.Arm()
		if a.stop || e.sweep() || e.progress() {
			e.bell.Disarm()
			idle = 0
			continue
		}
		e.mu.Unlock()
		e.bell.Wait(seq, asyncSleep)
		e.mu.Lock()
		e.bell.Disarm()
		idle = 0
	}
}

// stopAsync ends the progress goroutine and waits for it, before the region
// goes away. Called by Finalize without e.mu.
func (e *engine) stopAsync() {
	a := e.async
	if a == nil {
		return
	}
	e.mu.Lock()
	a.stop = true
	e.mu.Unlock()
	e.bell.Ring()
	<-a.done
	e.async = nil
}
