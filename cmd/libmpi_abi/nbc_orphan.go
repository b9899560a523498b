package main

import (
	"sync"
	"sync/atomic"

	"github.com/hympi/hympi/internal/cabi"
)

// Active nonblocking collectives whose handle MPI_Request_free released
// (erroneous, and accepted: MPI_Request_free lets an operation finish on
// its own). The engine goes on with the run, but a collective whose data
// travels packed writes into the request's scratch: its result reaches
// the caller's buffer only through the unpack a completing wait or test
// runs (collDone), which no one would run any more, and its packing state
// and datatype hold would never be released. The request's slot goes back
// to the free list at once, so what the completion needs is kept here, and
// the Go entries that progress the engine (waits, tests, the blocking
// collectives: with a collective in flight the C lanes send every call to
// Go) sweep the list on their way out, so that the result is in the
// caller's buffer by the time the call that completed the run returns.

var (
	orphanMu sync.Mutex
	orphans  []creq
	orphanN  atomic.Int32
)

// orphanColl keeps q's completion when q is an active collective with
// something to do after it (an unpack, C memory, a datatype hold); false
// when there is nothing to keep (the caller releases q as usual).
func orphanColl(q *creq) bool {
	if !q.active || q.r == nil || q.coll == nil || q.persistent ||
		(q.coll.post == nil && q.tmp == nil && q.coll.held == 0) {
		return false
	}
	orphanMu.Lock()
	orphans = append(orphans, *q)
	orphanN.Store(int32(len(orphans)))
	orphanMu.Unlock()
	return true
}

// sweepOrphans completes the kept collectives whose runs are done; one
// load when there are none.
func sweepOrphans() {
	if orphanN.Load() != 0 {
		sweepOrphansSlow()
	}
}

func sweepOrphansSlow() {
	orphanMu.Lock()
	defer orphanMu.Unlock()
	kept := orphans[:0]
	for i := range orphans {
		o := &orphans[i]
		_, done, err := cabi.Peek(o.r)
		if !done && err == nil {
			kept = append(kept, *o)
			continue
		}
		if err == nil {
			collDone(o)
		}
		o.release()
	}
	for i := len(kept); i < len(orphans); i++ {
		orphans[i] = creq{}
	}
	orphans = kept
	orphanN.Store(int32(len(orphans)))
}
