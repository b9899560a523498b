package main

/*
#include "cabi.h"
*/
import "C"

import "github.com/hympi/hympi/mpi"

//export hympi_go_init
func hympi_go_init(rank, size *C.int) C.int {
	if err := mpi.Init(); err != nil {
		return errCode(err)
	}
	comms[0].Store(mpi.World())
	comms[1].Store(mpi.Self())
	*rank = C.int(mpi.World().Rank())
	*size = C.int(mpi.World().Size())
	return 0
}

//export hympi_go_finalize
func hympi_go_finalize() C.int {
	return errCode(mpi.Finalize())
}

//export hympi_go_abort
func hympi_go_abort(code C.int) {
	mpi.Abort(mpi.World(), int(code))
}

// hympi_go_noop is an empty call into Go: the C→Go cost benchmark.
//
//export hympi_go_noop
func hympi_go_noop() C.int { return 0 }
