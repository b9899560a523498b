//go:build !ompi && !mpich

package mpi

// waitQuick is Waitall's one pass over a window that needs no wait: it
// settles, in order, the leading requests of reqs that are complete
// already or that the receive lane can take now, and collects each at
// once into sts. osu_bw's sender waits on 64 sends published in their
// Isend (the engine's doneSend), its receiver on 64 lane receives; they
// made three passes over the window before (the lane's takes, the "all
// done?" look and collectAll), each reloading every request and its
// state, ~50 instructions of each message on both sides.
//
// It stops at the first request it cannot settle that way (one still in
// progress outside the lane, a lane receive whose message is not there or
// not for it, a completed request that is not quick) and reports how many
// it settled, k: reqs[:k] are spent and sts[:k] filled, and the caller
// waits for reqs[k:] as before. stuck says it stopped at a lane receive
// the lane could not take after spinning, so that the caller goes
// straight to the general wait instead of asking the lane again. Quick
// requests have no error, so nothing settled here changes Waitall's
// error. Nothing is settled once the engine has failed (the wait then
// reports the failure with no request collected, as before). Called
// under e.mu.
func (e *engine) waitQuick(reqs []*Request, sts []Status) (k int, stuck bool) {
	if e.fatal != nil {
		return 0, false
	}
	spins := flSpins
	if e.oversub {
		spins = 0
	}
	var ic *inChan
	last, took := -1, false
	for ; k < len(reqs); k++ {
		r := reqs[k]
		if r == nil {
			continue
		}
		b := r.reqBody
		if b == &e.doneSend {
			sts[k] = Status{}
			r.reqBody = &e.spentBody
			continue
		}
		if !b.done {
			// laneWaitall's take, with its doorbell rule: the sender's
			// bell once per run of takes, and before any spin.
			if !b.lane {
				break
			}
			w := b.m.Src
			if e.laneSrc[w].head != r {
				break
			}
			if w != last {
				if took {
					ic.Bell.Ring()
					took = false
				}
				if ic, last = e.inFrom(w), w; ic == nil {
					stuck = true
					break
				}
			}
			got := e.laneTakeFrom(ic, r, 0)
			if got == 0 && spins > 0 {
				if took {
					ic.Bell.Ring()
					took = false
				}
				got = e.laneTakeFrom(ic, r, spins)
			}
			if got != 1 {
				stuck = true
				break
			}
			took = true
		}
		if !b.quick {
			break // collected by the caller's general pass
		}
		sts[k] = b.status
		e.spendQuick(r, b)
	}
	if took {
		ic.Bell.Ring()
	}
	return k, stuck
}
