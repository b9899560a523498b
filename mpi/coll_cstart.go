package mpi

import _ "unsafe" // for go:linkname

// collStartsComplete makes every nonblocking collective start run as far
// as the peers' messages already there allow, as a persistent start does,
// instead of publishing its sends and deferring the rest to the wait
// (coll.go, runSendsFirst). The C ABI sets it before MPI_Init: its
// MPI_I* calls take a collective complete at its start in C
// (HC_REQ_DONE), so that the MPI_Wait does not enter Go, which costs more
// than a deferral saves. Both builds have it; only the engine reads it.
var collStartsComplete bool

// completeCollStarts sets collStartsComplete (internal/cabi, through
// go:linkname, so that it stays out of this package's API).
//
//go:linkname completeCollStarts
func completeCollStarts() { collStartsComplete = true }
