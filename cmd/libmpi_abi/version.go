package main

/*
#include "cabi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/hympi/hympi/internal/version"
)

// libraryVersion is what MPI_Get_library_version reports: the release and
// commit from internal/version, the one place every command's --version
// reads too.
func libraryVersion() string {
	return version.String() + ", MPI 5.0, standard ABI 1.0, single-node shared memory"
}

// hympi_go_library_version copies the version, NUL-terminated and cut to
// fit, into buf of size n, and returns its length without the NUL.
//
//export hympi_go_library_version
func hympi_go_library_version(buf *C.char, n C.int) C.int {
	if buf == nil || n <= 0 {
		return 0
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	k := copy(dst[:len(dst)-1], libraryVersion())
	dst[k] = 0
	return C.int(k)
}
