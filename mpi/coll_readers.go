//go:build !ompi && !mpich

package mpi

// Sends their receivers read. When ranks outnumber CPUs a collective's
// messages up to oversubCollEagerMax go eager (direct.go): the sender
// copies the payload into the pair's cells and is done with it, which
// suits a round whose sender has more rounds to run. A collective of one
// round whose large blocks all go out at once (a flat broadcast, gather
// and scatter, the all-to-alls, the one-round allgather, the
// neighbourhood exchanges) has
// nothing left to run meanwhile: eager, every block is copied twice, once
// into the cells by its sender, one after the other on the sender's CPU,
// and once out by its receiver; read by direct copy, the sender only
// publishes where the block is and the receiver reads it, one copy, on
// whichever CPU the scheduler gives it. At 8 ranks on 2 cores (osu_colls
// from Go, alternating runs on a loaded machine) a 1 MiB Bcast read this
// way took about 150-170 µs against 250 eager down the binary tree, and a
// 256 KiB one flat 70 µs against 230 eager.

// oversubReadMin: from this size an oversubscribed job's blocks of the
// one-round collectives above are read by their receivers (markReads).
// rootReadMin is the same for a root sending to every rank (flat Bcast,
// Scatter), whose eager copies all queue on its one CPU: at 4 ranks on 2
// cores a 64 KiB Bcast took 14-22 µs read against 41-53 eager, a Scatter
// 13-19 against 40-43; at 8 ranks the medians were 19 against 54 and 17
// against 54 (osu_colls from Go; from C, 11 alternating runs later, the
// two tied at 64 and 128 KiB). Below 256 KiB the collectives where every
// rank sends measured either way run to run. Variables so tests and
// benchmarks can move them.
var (
	oversubReadMin = 256 << 10
	rootReadMin    = 64 << 10
)

// markReads marks every send of s of at least min bytes for its receiver
// to read, when ranks outnumber CPUs (with a CPU per rank every message
// above the pair's threshold is read anyway). Builders call it last, on
// schedules of one round of large blocks.
func (s *schedule) markReads(oversub bool, min int) {
	if !oversub {
		return
	}
	for i := range s.xfers {
		if x := &s.xfers[i]; x.send && len(x.buf) >= min {
			x.read = true
		}
	}
}

// startReadSend queues r, a collective send of buf to world rank w that
// goes by direct copy whenever the pair allows it and the message is above
// the pair's eager threshold, oversubscribed or not; otherwise as any
// other send.
func (e *engine) startReadSend(r *Request, c *Comm, w int, buf []byte, tag int) {
	r.comm, r.peer, r.sbuf, r.ctx, r.m.Tag, r.sync = c, w, buf, c.ctx+1, tag, false
	oc := e.outTo(w)
	if x := e.ep(w); e.mode == directAuto && x.DirectOK && len(buf) > x.Sk.Base {
		e.startDirectSend(r)
		e.enqueue(oc, r)
		return
	}
	e.enqueueSend(oc, r)
}
