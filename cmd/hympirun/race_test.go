//go:build race

package main

// Under `go test -race` the hympirun binary the tests run is built with the
// race detector as well: the concurrency worth checking is in that process.
func init() { raceBuild = true }
