//go:build !ompi && !mpich

package mpi

// Init and Finalize synchronise with barrierOn, a point-to-point barrier:
// it needs no collective state, so it works before the communicators exist
// and after the user's last collective. Comm.Barrier runs in the offload
// engine (coll_api.go).

// lifeBarrierTag is the tag of barrierOn's first round (later rounds count
// down from it). It runs on the collective context, whose collectives use
// tags >= 0 and never AnyTag (-1): a collective message that overtakes a
// barrier message on the collective ring (a rank that left Init's barrier
// and started a collective at once) can never be taken by the barrier.
const lifeBarrierTag = -2

// barrierOn is a dissemination barrier on context ctx: in round k every rank
// signals rank+2^k and waits for rank-2^k, so after ⌈log2 n⌉ rounds each rank
// has heard, transitively, from all. Messages are empty and travel inline.
// Rounds use distinct tags and each round a distinct peer, and channels keep
// order, so consecutive barriers cannot confuse each other's messages.
func (c *Comm) barrierOn(ctx uint32, op string) error {
	if c.size == 1 {
		return nil
	}
	e := c.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fatal != nil {
		return e.fatal
	}
	for k, round := 1, 0; k < c.size; k, round = k*2, round+1 {
		to := c.worldOf((c.rank + k) % c.size)
		from := (c.rank - k + c.size) % c.size
		s := e.newInternalReq(reqSend)
		e.startSend(s, c, ctx, to, nil, lifeBarrierTag-round, false)
		r := e.newInternalReq(reqRecv)
		c.initRecv(r, ctx, nil, from, lifeBarrierTag-round)
		e.postRecv(r)
		if err := e.waitUntil(func() bool { return r.done && s.done }); err != nil {
			e.abandonRecv(r)
			return &Error{Class: ClassOf(err), Op: op, Msg: err.Error()}
		}
		e.freeInternalReq(s)
		e.freeInternalReq(r)
	}
	return nil
}
