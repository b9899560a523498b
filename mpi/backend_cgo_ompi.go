//go:build ompi && !mpich

package mpi

// #cgo pkg-config: ompi-c
import "C"

// Open MPI compares unsigned integers correctly in MPI_MAX and MPI_MIN.
const unsignedMinMaxBroken = false
