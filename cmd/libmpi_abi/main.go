// Command libmpi_abi is hympi's C ABI: built with -buildmode=c-shared it is
// libmpi_abi.so.1, the MPI 5.0 standard-ABI library that C programs compiled
// with hympicc link against. It exports every MPI_* function of the standard
// ABI (and its PMPI_* twin) over the same engine the Go API uses.
//
// Layout. The C files carry the entry points (PMPI_X, with MPI_X a weak
// alias: the profiling interface): core.c (init, errors and error handlers,
// attributes), p2p.c (point-to-point, requests), coll.c (collectives,
// communicators, groups), types.c (datatypes, reduction kernels), info.c,
// topo.c (Cartesian topologies). The Go files hold the engine objects C
// refers to by index (communicators, requests, groups, operators) and are
// entered through the hympi_go_* exports. gen/ generates include/mpi.h, the
// alias lists and stubs_gen.c (every function hympi does not implement:
// MPI_ERR_UNSUPPORTED_OPERATION through the error handler).
//
// Handles. Predefined handles are the standard ABI's values (< 0x1000);
// created ones are (kind << 24) | index, never Go pointers. A communicator
// has a C half (rank, size, error handler, attributes, name, topology) and a
// Go half (*mpi.Comm) at the same index, so MPI_Comm_rank/size, attribute
// and error-handler calls never leave C.
//
// Hot paths. MPI_Wtime, MPI_Comm_rank/size, MPI_Get_count, status fills,
// handle decoding and byte counts are C; each MPI operation enters Go once
// (a C->Go call costs about 50 ns here: see bench/c/cabi_callcost.c; part
// of it is the runtime's receive from the closed main_init_done channel,
// which takes a lock on every call: golang/go#77522).
// Non-contiguous datatypes are packed in C around the call. Go never calls
// back into C on these paths (a Go->C call costs tens of ns too): statuses
// written from Go are filled in Go, and hc_red carries what C knows of a
// reduction. In the steady state no operation allocates Go memory
// (ctests/testdata/allocs.c): request slots sit in fixed chunks of a table
// and are recycled with the engine request of their last operation
// (mpi.Comm.IsendIn); each thread keeps a cache of free slots (hc_reqcache,
// C thread-local), so creating and completing a request takes no lock or
// atomic instruction; MPI_Waitall waits for up to 64 requests under one
// engine lock (cabi.WaitallInto).
//
// Fork. The library records at MPI_Init (pthread_atfork) that a child was
// forked; every entry point that could reach Go checks that flag first and
// fails in C (MPI_ERR_OTHER through the error handler; a fatal handler
// prints one line and _exits the child), since Go cannot run in a forked
// child. The library registers no exit-time cleanup of its own: the shared
// region belongs to hympirun and is already unlinked.
//
// Environment: HYMPI_CABI_DEBUG=1 makes the library report every error and
// unsupported call on stderr; by default it prints nothing but the one line
// of a fatal error.
package main

//go:generate go run ./gen

/*
#cgo CFLAGS: -I${SRCDIR}/include -O2 -Wall -Wno-unused-function
#include "cabi.h"
*/
import "C"

func main() {}
