package main

/*
#include "cabi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/hympi/hympi/internal/cabi"
)

// hympi_go_fl_comm tells fastlane.c, once per communicator, where the
// process's fast-lane state is, the communicator's context and its ranks'
// world ranks (world has room for n). It returns 0 when C must not take the
// fast lane on ci.
//
//export hympi_go_fl_comm
func hympi_go_fl_comm(ci C.int, st *C.uintptr_t, ctx *C.uint32_t, world *C.int32_t, n C.int) C.int {
	c, rc := commAt(ci)
	if rc != 0 {
		return 0
	}
	addr, cx, w, ok := cabi.FastLaneState(c)
	if !ok || int(n) != c.Size() || (w != nil && len(w) != int(n)) {
		return 0
	}
	out := unsafe.Slice((*int32)(unsafe.Pointer(world)), int(n))
	for i := range out {
		out[i] = int32(i)
		if w != nil {
			out[i] = int32(w[i])
		}
	}
	*st, *ctx = C.uintptr_t(addr), C.uint32_t(cx)
	return 1
}
