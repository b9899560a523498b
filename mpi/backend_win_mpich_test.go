//go:build mpich && !ompi

package mpi

const backendTag = "mpich"

// A singleton MPICH 4.0 fails the rma scenario's created-window checks and
// rmapscw (puts to itself in a PSCW epoch do not arrive); not investigated
// further, as MPICH's multi-rank runs pass rma.
var singletonRMA = []string{"rmaerrors", "rmaatomic"}
