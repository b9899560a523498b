//go:build ompi && !mpich

package mpi

// #cgo pkg-config: ompi-c
import "C"
