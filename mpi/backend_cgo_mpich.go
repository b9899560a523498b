//go:build mpich && !ompi

package mpi

// #cgo pkg-config: mpich
import "C"

// MPICH 4.0 compares unsigned integers as signed in MPI_MAX and MPI_MIN;
// the backend runs those through its own operators instead.
const unsignedMinMaxBroken = true

// MPICH's compare-and-swap works on every integer width.
const casWideBroken = false
