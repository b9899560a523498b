//go:build race && !ompi && !mpich

package mpi

// raceOn: the race detector slows every step of the engine several times,
// which tests of timing heuristics must allow for.
const raceOn = true
