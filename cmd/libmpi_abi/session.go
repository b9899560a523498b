package main

/*
#include "cabi.h"
void hc_session_exit_hook(void);
*/
import "C"

import (
	"sync"

	"github.com/hympi/hympi/mpi"
)

// The engine is shared by MPI_Init and every MPI session: started by the
// first of them, as MPI 4 lets the world model and sessions coexist in one
// process. MPI_Finalize ends it once no session holds it (or when the last
// one ends after it). When the last session ends without the world model
// having finished, the engine stays, idle, so that a new session can start
// again (the engine joins its job once per process); it is finalized when
// the process exits (hc_session_exit_hook, an atexit handler that does
// nothing in a forked child).
var (
	engineMu      sync.Mutex
	engineUsers   int
	engineStarted bool
	worldDone     bool // MPI_Finalize was called
)

func acquireEngine() error {
	engineMu.Lock()
	defer engineMu.Unlock()
	if !engineStarted {
		if err := mpi.Init(); err != nil {
			return err
		}
		comms.at(0).Store(mpi.World())
		comms.at(1).Store(mpi.Self())
		engineStarted = true
	}
	engineUsers++
	return nil
}

// releaseEngine drops one user; world says it is MPI_Finalize.
func releaseEngine(world bool) error {
	engineMu.Lock()
	defer engineMu.Unlock()
	if engineUsers == 0 || mpi.Finalized() {
		return mpi.Finalize() // reports the engine's own error
	}
	engineUsers--
	worldDone = worldDone || world
	if engineUsers > 0 {
		if world {
			// Sessions left open past MPI_Finalize still end
			// with the process.
			C.hc_session_exit_hook()
		}
		return nil
	}
	if worldDone {
		return mpi.Finalize()
	}
	C.hc_session_exit_hook()
	return nil
}

// hympi_go_session_exit finalizes, at process exit, an engine that only
// sessions used or that sessions still held after MPI_Finalize.
//
//export hympi_go_session_exit
func hympi_go_session_exit() {
	engineMu.Lock()
	defer engineMu.Unlock()
	if engineStarted && (engineUsers == 0 || worldDone) && !mpi.Finalized() {
		mpi.Finalize()
	}
}

//export hympi_go_session_init
func hympi_go_session_init(rank, size *C.int) C.int {
	if err := acquireEngine(); err != nil {
		return errCode(err)
	}
	*rank = C.int(mpi.World().Rank())
	*size = C.int(mpi.World().Size())
	return 0
}

//export hympi_go_session_finalize
func hympi_go_session_finalize() C.int {
	return errCode(releaseEngine(false))
}
