package mpi

import _ "unsafe" // for go:linkname

// collStartsComplete makes the C ABI's nonblocking collective starts
// adaptive (runAdaptive, adaptiveMode below) instead of Go's publish the
// sends and defer the rest (coll.go, runSendsFirst). The C ABI sets it
// before MPI_Init. Both builds have it; only the engine reads it.
//
// Why adaptive: from C, every call into Go costs a transition (~700
// instructions at 2 ranks, callgrind). A start that runs as far as the
// peers' messages already there allow (runStart) finishes a small
// collective whose messages are in, and C answers its MPI_Wait without
// entering Go (HC_REQ_DONE): an MPI_I* waited at once then costs what
// the blocking call does. But a start that takes the peers' messages
// leaves nothing for the caller's computation to overlap: a program that
// computes and calls MPI_Test (osu_colls -forms ov -t 8) measured 0 %
// overlap from C where Go, which defers, got 20-45 %. The two patterns
// differ in how the collectives complete, so the communicator remembers
// it: a nonblocking collective completed by a test makes the next C
// starts defer their receives (runSendsFirst: the test then does them),
// one completed by a wait makes them run at once again.
var collStartsComplete bool

// completeCollStarts sets collStartsComplete (internal/cabi, through
// go:linkname, so that it stays out of this package's API).
//
//go:linkname completeCollStarts
func completeCollStarts() { collStartsComplete = true }

// collIdleOf is Request.collIdle for internal/cabi (go:linkname, as
// completeCollStarts).
//
//go:linkname collIdleOf
func collIdleOf(r *Request) bool { return r.collIdle() }
