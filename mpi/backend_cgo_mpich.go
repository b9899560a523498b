//go:build mpich && !ompi

package mpi

// #cgo pkg-config: mpich
import "C"
