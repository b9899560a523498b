//go:build race

package shm

// raceEnabled scales long tests down under the race detector.
const raceEnabled = true
