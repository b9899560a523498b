package main

/*
#include "cabi.h"
*/
import "C"

import (
	"runtime"
	"sync"

	"github.com/hympi/hympi/mpi"
)

//export hympi_go_init
func hympi_go_init(rank, size *C.int) C.int {
	if err := acquireEngine(); err != nil {
		return errCode(err)
	}
	*rank = C.int(mpi.World().Rank())
	*size = C.int(mpi.World().Size())
	return 0
}

//export hympi_go_finalize
func hympi_go_finalize() C.int {
	return errCode(releaseEngine(true))
}

//export hympi_go_abort
func hympi_go_abort(code C.int) {
	mpi.Abort(mpi.World(), int(code))
}

// hympi_go_noop is an empty call into Go: the C→Go cost benchmark.
//
//export hympi_go_noop
func hympi_go_noop() C.int { return 0 }

// allocStats is hympi_go_allocs's buffer: a package variable, so that the
// hook itself allocates nothing.
var (
	allocMu    sync.Mutex
	allocStats runtime.MemStats
)

// hympi_go_allocs is the number of Go heap objects the process has
// allocated so far: the hook ctests/testdata/allocs.c uses to check that
// the C ABI's hot paths allocate nothing of their own. It stops the world:
// tests only.
//
//export hympi_go_allocs
func hympi_go_allocs() C.uint64_t {
	allocMu.Lock()
	defer allocMu.Unlock()
	runtime.ReadMemStats(&allocStats)
	return C.uint64_t(allocStats.Mallocs)
}
