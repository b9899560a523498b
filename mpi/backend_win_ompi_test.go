//go:build ompi && !mpich

package mpi

const backendTag = "ompi"

// A singleton Open MPI has no transport for its rdma window component, so
// only windows it allocates itself (the sm component) work there.
var singletonRMA = []string{"rmaerrors"}
