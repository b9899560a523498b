//go:build !ompi && !mpich

package mpi

import (
	"os"
	"strconv"
)

// envAppNum is set by hympirun in each rank's environment: the position,
// from 0, of the rank's program on an MPMD command line
// (hympirun -n 1 ./a : -n 3 ./b gives ./a 0 and ./b 1).
const envAppNum = "HYMPI_APPNUM"

// AppNum returns which program of the job this rank runs, counting from 0
// in the order of hympirun's MPMD command line (MPI's MPI_APPNUM). A job of
// one program, and a process started without hympirun, is program 0. It
// may be called before Init.
func AppNum() int {
	n, err := strconv.Atoi(os.Getenv(envAppNum))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
