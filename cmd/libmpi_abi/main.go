// Command libmpi_abi is hympi's C ABI: built with -buildmode=c-shared it is
// libmpi_abi.so.1, the MPI 5.0 standard-ABI library that C programs compiled
// with hympicc link against. It exports every MPI_* function of the standard
// ABI (and its PMPI_* twin) over the same engine the Go API uses.
//
// The C files carry the entry points. Hot trivial calls (MPI_Wtime,
// MPI_Comm_rank/size, status queries, handle decoding) never leave C; every
// MPI operation enters Go once, through one of the hympi_go_* functions
// exported here. Functions hympi does not implement are generated stubs
// (stubs_gen.c) that fail with MPI_ERR_UNSUPPORTED_OPERATION.
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
