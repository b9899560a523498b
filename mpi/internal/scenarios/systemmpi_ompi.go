//go:build ompi && !mpich

package main

// Open MPI 4.1 predates MPI 4.0's MPI_Intercomm_create_from_groups: the
// backend answers mpi.IntercommFromGroups with ErrOther.
const hasFromGroups = false
