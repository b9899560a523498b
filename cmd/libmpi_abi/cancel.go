package main

import "github.com/hympi/hympi/internal/cabi"

// cancelOp asks the engine to cancel q's operation: a receive not matched
// yet, or a send the receiver has not matched yet (mpi.Request.CancelSend).
// It reports whether the request is known to be cancelled now; a send whose
// cancellation the receiver still has to confirm reports it in its status.
func cancelOp(q *creq) bool {
	if q.part != nil || q.r == nil {
		return false
	}
	if q.recv {
		return cabi.CancelRecv(q.r)
	}
	return cabi.CancelSend(q.r)
}
