//go:build mpich && !ompi

package main

// MPICH 4.0 has MPI 4.0's MPI_Intercomm_create_from_groups.
const hasFromGroups = true
