//go:build !race && !ompi && !mpich

package mpi

// raceOn: see race_on_test.go.
const raceOn = false
