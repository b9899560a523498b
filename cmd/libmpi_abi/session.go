package main

/*
#include "cabi.h"
*/
import "C"

import (
	"sync"

	"github.com/hympi/hympi/mpi"
)

// The engine is shared by MPI_Init and every MPI session: started by the
// first of them, finalized when the last one ends (MPI_Finalize or
// MPI_Session_finalize), as MPI 4 lets the world model and sessions
// coexist in one process.
var (
	engineMu    sync.Mutex
	engineUsers int
)

func acquireEngine() error {
	engineMu.Lock()
	defer engineMu.Unlock()
	if engineUsers == 0 {
		if err := mpi.Init(); err != nil {
			return err
		}
		comms[0].Store(mpi.World())
		comms[1].Store(mpi.Self())
	}
	engineUsers++
	return nil
}

func releaseEngine() error {
	engineMu.Lock()
	defer engineMu.Unlock()
	if engineUsers == 0 {
		return mpi.Finalize() // reports the engine's own error
	}
	engineUsers--
	if engineUsers > 0 {
		return nil
	}
	return mpi.Finalize()
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
	return errCode(releaseEngine())
}
