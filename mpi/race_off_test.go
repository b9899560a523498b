//go:build !race

package mpi

// raceOn: see race_on_test.go.
const raceOn = false
