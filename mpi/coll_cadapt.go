//go:build !ompi && !mpich

package mpi

// The C ABI's adaptive nonblocking starts (coll_cstart.go says why).

// adaptiveMode is how far a C nonblocking start on c goes. Called with
// e.mu held. C sets the plan area's nbDefer itself when the program tests
// a collective its lane completed at the start (cmd/libmpi_abi,
// hc_nbc_lane_tested): no test completes one in Go then.
func (c *Comm) adaptiveMode() launchMode {
	if c.nbDefer || (c.cp != nil && c.cp.p.nbDefer != 0) {
		return runSendsFirst
	}
	return runStart
}

// nbTested records that a test completed one of c's nonblocking
// collectives (Request.Test); nbWaited that a wait had to
// (Request.waitColl). Called with e.mu held.
func (c *Comm) nbTested() {
	if c != nil && collStartsComplete {
		c.nbDefer = true
		c.cplanSetDefer(1)
	}
}

func (c *Comm) nbWaited() {
	if c != nil && collStartsComplete {
		c.nbDefer = false
		c.cplanSetDefer(0)
	}
}

// cplanSetDefer tells C's collective lane whether c's nonblocking starts
// defer (cplanArea.nbDefer). Called with e.mu held.
func (c *Comm) cplanSetDefer(v uint64) {
	if c.cp != nil && c.cp.p.nbDefer != v {
		c.cp.p.nbDefer = v
	}
}
