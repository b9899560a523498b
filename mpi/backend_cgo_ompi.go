//go:build ompi && !mpich

package mpi

// #cgo pkg-config: ompi-c
import "C"

// Open MPI compares unsigned integers correctly in MPI_MAX and MPI_MIN.
const unsignedMinMaxBroken = false

// Open MPI 4.1's one-sided rdma component crashes in its shared-memory
// transport on 64-bit compare-and-swap (open-mpi/ompi#7967, #11349); the
// windows it serves (all but WinAllocateShared's, which the sm component
// serves) refuse such a call instead.
const casWideBroken = true
