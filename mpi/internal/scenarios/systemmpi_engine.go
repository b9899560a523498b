//go:build !ompi && !mpich

package main

// systemMPI is true when the scenarios run on a system-MPI backend
// (-tags ompi or mpich); the few checks of hympi-only guarantees look at it.
const systemMPI = false

// hasFromGroups says whether mpi.IntercommFromGroups is supported.
const hasFromGroups = true
