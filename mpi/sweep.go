//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"os"
	"time"

	"github.com/hympi/hympi/mpi/internal/progress"
	"github.com/hympi/hympi/shm"
)

// The sweep: what a wait does before it goes to sleep, so that liveness
// never rests on the summary bitmap alone. progress drains only the channels
// whose summary bit is set, which is what keeps a pass O(active senders);
// but the bitmap lives in the shared region, and a bit that a stray or
// hostile write cleared after the sender set it would leave a published
// message unseen for good (the sender sets the bit only on its next publish,
// which may never come: it may be waiting for our reply). So a wait that is
// about to sleep, which happens at least once per spin-and-yield phase and
// once per futex timeout, looks at every incoming channel, puts back the
// bits it finds missing, and re-validates the region's header and rank
// blocks, whose corruption would otherwise show only as a wait that never
// ends. A lost bit thus costs a spin phase (or at worst one futex timeout),
// never liveness; a block that fails validation fails the wait. A wait
// kept busy by other traffic, which never comes to sleep, sweeps every
// progress.SweepEvery all the same.

// sweepDue reports whether progress.SweepEvery has passed since the last
// sweep.
func (e *engine) sweepDue() bool { return time.Since(e.lastSweep) >= progress.SweepEvery }

// sweep checks the region and drains every incoming channel, reporting
// whether anything moved. It records a failed check in e.fatal.
func (e *engine) sweep() bool {
	if e.region == nil || e.fatal != nil {
		return false
	}
	e.lastSweep = time.Now()
	if err := e.checkRegion(); err != nil {
		e.corrupt(err)
		return false
	}
	did := false
	for p := range e.size {
		if p == e.rank {
			continue
		}
		// A channel whose sender made it but whose bit was lost is found
		// here too: the table entry is all it takes.
		ic := e.inFrom(p)
		if ic == nil {
			if e.fatal != nil {
				return did
			}
			continue
		}
		if !e.summary.Has(p) && (ic.Cons.Ready() || ic.Coll.Ready()) {
			// Work that no bit announced: the bit was lost. Restore it
			// so the next passes keep draining this channel.
			e.lostBits++
			e.summary.Mark(p)
		}
		if e.summary.Has(p) && e.drain(ic) {
			did = true
		}
		if e.fatal != nil {
			return did
		}
	}
	return did
}

// checkRegion re-validates the header, every rank block and this rank's own
// identity fields, which only this rank writes after Init.
func (e *engine) checkRegion() error {
	r := e.region
	if err := r.CheckHeader(); err != nil {
		return err
	}
	for p := 0; p < e.size; p++ {
		if err := r.CheckRankBlock(p); err != nil {
			return err
		}
	}
	pid, st := r.RankPID(e.rank), r.RankState(e.rank)
	if !e.selfKnown {
		// Init (or a test's setup) has written them by the first wait.
		e.selfKnown, e.selfPID, e.selfState = true, pid, st
	}
	if pid != e.selfPID || st != e.selfState {
		return fmt.Errorf("%w: rank %d's block overwritten (pid %d, state %v; this rank is pid %d, %v)",
			shm.ErrCorrupt, e.rank, pid, st, os.Getpid(), e.selfState)
	}
	return nil
}
