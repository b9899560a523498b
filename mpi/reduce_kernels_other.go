//go:build !ompi && !mpich && !amd64

package mpi

// archKernel: no vector kernels outside amd64 (reduce_kernels_amd64.go).
func archKernel(dt Datatype, op Op) func(in, inout []byte) { return nil }
