package main

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/hympi/hympi/mpi"
	"github.com/hympi/hympi/shm"
)

// sizes crosses every protocol boundary: empty, inline, the inline limit,
// one cell, several cells, and 16 MiB (more than one channel's pool for
// larger jobs, so flow control must kick in).
var sizes = []int{0, 1, 7, shm.InlineMax - 1, shm.InlineMax, shm.InlineMax + 1, 4096,
	32<<10 - 1, 32 << 10, 32<<10 + 1, 100_000, 1 << 20, 16 << 20}

func init() {
	// Rank 0 sends every size to every other rank (blocking), then every
	// rank sends every size back (nonblocking, received with AnySource).
	register("sizes", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		for _, sz := range sizes {
			buf := make([]byte, sz)
			if r == 0 {
				pattern(buf, sz)
				for p := 1; p < n; p++ {
					must(c.Send(buf, p, 1), "Send %d bytes to %d", sz, p)
				}
			} else {
				st, err := c.Recv(buf, 0, 1)
				must(err, "Recv %d bytes", sz)
				if st.Count != sz || st.Source != 0 || st.Tag != 1 {
					fail("Recv %d bytes: status %+v", sz, st)
				}
				checkPattern(buf, sz, "rank 0 → me")
			}
		}
		for k, sz := range sizes {
			if r != 0 {
				buf := make([]byte, sz)
				pattern(buf, sz+r)
				req, err := c.Isend(buf, 0, 100+k)
				must(err, "Isend")
				_, err = req.Wait()
				must(err, "Isend %d bytes Wait", sz)
				continue
			}
			seen := map[int]bool{}
			for i := 1; i < n; i++ {
				buf := make([]byte, sz)
				req, err := c.Irecv(buf, mpi.AnySource, 100+k)
				must(err, "Irecv")
				st, err := req.Wait()
				must(err, "Irecv %d bytes Wait", sz)
				if st.Count != sz || st.Tag != 100+k || seen[st.Source] || st.Source < 1 || st.Source >= n {
					fail("Irecv %d bytes: status %+v", sz, st)
				}
				seen[st.Source] = true
				checkPattern(buf, sz+st.Source, "peer → rank 0")
			}
		}
	})

	// Non-overtaking: rank 0 sends rank 1 a stream mixing inline and
	// multi-cell messages on three tags. Rank 1 first receives everything on
	// tag 2 (so tags 0 and 1 pile up as unexpected), then the rest with
	// AnyTag; within each tag, and for AnyTag across tags, the send order must
	// hold.
	register("order", func(c *mpi.Comm) {
		const msgs = 300
		sizeOf := func(i int) int { return []int{8, 300, 40_000, 0, 70_000, 16}[i%6] + 8 }
		tagOf := func(i int) int { return i % 3 }
		switch c.Rank() {
		case 0:
			// Nonblocking: the receiver takes tag 2 first, and a standard
			// send above the eager threshold may wait for its receive.
			var reqs []*mpi.Request
			for i := 0; i < msgs; i++ {
				buf := make([]byte, sizeOf(i))
				binary.LittleEndian.PutUint64(buf, uint64(i))
				send := c.Isend
				if i%2 == 0 {
					send = c.Issend
				}
				req, err := send(buf, 1, tagOf(i))
				must(err, "Isend %d", i)
				reqs = append(reqs, req)
			}
			_, err := mpi.Waitall(reqs)
			must(err, "Waitall")
		case 1:
			got := map[int]bool{}
			for i := 0; i < msgs; i++ {
				if tagOf(i) != 2 {
					continue
				}
				buf := make([]byte, 80_000)
				st, err := c.Recv(buf, 0, 2)
				must(err, "Recv tag 2")
				if seq := int(binary.LittleEndian.Uint64(buf)); seq != i || st.Count != sizeOf(i) {
					fail("tag 2: got message %d (%d bytes), want %d (%d bytes)", seq, st.Count, i, sizeOf(i))
				}
				got[i] = true
			}
			for i := 0; i < msgs; i++ {
				if got[i] {
					continue
				}
				buf := make([]byte, 80_000)
				st, err := c.Recv(buf, 0, mpi.AnyTag)
				must(err, "Recv AnyTag")
				if seq := int(binary.LittleEndian.Uint64(buf)); seq != i || st.Tag != tagOf(i) || st.Count != sizeOf(i) {
					fail("AnyTag: got message %d tag %d (%d bytes), want %d tag %d", seq, st.Tag, st.Count, i, tagOf(i))
				}
			}
		}
	})

	// AnySource/AnyTag: every rank sends rank 0 a numbered stream on
	// varying tags; rank 0 receives with wildcards and checks that each
	// status names the true sender and tag and that each sender's messages
	// arrive in order.
	register("anysource", func(c *mpi.Comm) {
		const per = 50
		r, n := c.Rank(), c.Size()
		if r != 0 {
			for i := 0; i < per; i++ {
				buf := make([]byte, 16+(i%4)*20_000)
				binary.LittleEndian.PutUint64(buf, uint64(r))
				binary.LittleEndian.PutUint64(buf[8:], uint64(i))
				must(c.Send(buf, 0, 100+i%5), "Send")
			}
			return
		}
		next := make([]int, n)
		for k := 0; k < per*(n-1); k++ {
			buf := make([]byte, 80_000)
			st, err := c.Recv(buf, mpi.AnySource, mpi.AnyTag)
			must(err, "Recv")
			src, i := int(binary.LittleEndian.Uint64(buf)), int(binary.LittleEndian.Uint64(buf[8:]))
			if st.Source != src || st.Tag != 100+i%5 || st.Count != 16+(i%4)*20_000 {
				fail("status %+v for message %d from %d", st, i, src)
			}
			if i != next[src] {
				fail("from rank %d: message %d arrived when %d was due", src, i, next[src])
			}
			next[src]++
		}
		// A specific-source receive among wildcard ones: post AnySource on
		// tag 7 and rank-1-only on tag 7; rank 1 sends two.
	})

	// Probe reports the pending message's true size, for inline and
	// multi-cell messages alike, and leaves it to be received.
	register("probe", func(c *mpi.Comm) {
		switch c.Rank() {
		case 0:
			for _, sz := range sizes {
				buf := make([]byte, sz)
				pattern(buf, sz)
				must(c.Send(buf, 1, 9), "Send")
			}
			must(c.Barrier(), "Barrier")
		case 1:
			if _, found, err := c.Iprobe(0, 10); err != nil || found {
				fail("Iprobe with nothing sent on tag 10: found=%v err=%v", found, err)
			}
			for _, sz := range sizes {
				st, err := c.Probe(0, 9)
				must(err, "Probe")
				if st.Count != sz || st.Source != 0 || st.Tag != 9 {
					fail("Probe: %+v, want %d bytes from 0 tag 9", st, sz)
				}
				st2, found, err := c.Iprobe(mpi.AnySource, mpi.AnyTag)
				if err != nil || !found || st2 != st {
					fail("Iprobe after Probe: %+v found=%v err=%v, want %+v", st2, found, err, st)
				}
				buf := make([]byte, st.Count)
				_, err = c.Recv(buf, st.Source, st.Tag)
				must(err, "Recv after Probe")
				checkPattern(buf, sz, "probed message")
			}
			must(c.Barrier(), "Barrier")
		default:
			must(c.Barrier(), "Barrier")
		}
	})

	// Truncation: a receive buffer shorter than the message gets its first
	// bytes and ErrTruncate, and the job goes on.
	register("truncate", func(c *mpi.Comm) {
		for _, sz := range []int{100, 100_000} {
			switch c.Rank() {
			case 0:
				buf := make([]byte, sz)
				pattern(buf, sz)
				must(c.Send(buf, 1, 3), "Send")
				must(c.Send(buf, 1, 4), "Send")
			case 1:
				small := make([]byte, 10)
				st, err := c.Recv(small, 0, 3)
				if !errors.Is(err, mpi.ErrTruncate) {
					fail("Recv of %d bytes into 10: err %v, want ErrTruncate", sz, err)
				}
				if st.Count != 10 {
					fail("truncated status count %d, want 10", st.Count)
				}
				full := make([]byte, sz)
				pattern(full, sz)
				if !systemMPI { // MPI leaves a truncated buffer's contents open (MPICH writes nothing)
					checkPattern(small, sz, "truncated prefix") // the first 10 bytes of the pattern
				}
				_ = full
				// Nonblocking form: the error comes from Wait.
				req, err := c.Irecv(make([]byte, 5), 0, 4)
				must(err, "Irecv")
				if _, err := req.Wait(); mpi.ClassOf(err) != mpi.ErrTruncate {
					fail("Irecv Wait: %v, want ErrTruncate", err)
				}
			}
		}
		// The job continues normally.
		pingRing(c)
	})

	// ProcNull, self-sends and zero-byte messages.
	register("special", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		must(c.Send([]byte("x"), mpi.ProcNull, 1), "Send to ProcNull")
		st, err := c.Recv(make([]byte, 4), mpi.ProcNull, 1)
		if err != nil || st.Source != mpi.ProcNull || st.Tag != mpi.AnyTag || st.Count != 0 {
			fail("Recv from ProcNull: %+v %v", st, err)
		}
		req, err := c.Isend(nil, mpi.ProcNull, 0)
		must(err, "Isend ProcNull")
		_, err = req.Wait()
		must(err, "Wait ProcNull")
		// Self: unexpected first (send then receive), then expected.
		for _, sz := range []int{0, 5, 300, 50_000, 3 << 20} {
			if systemMPI && sz > 1<<10 {
				// A standard send to self above the MPI's eager limit
				// waits for its receive (MPI allows that); hympi buffers.
				continue
			}
			buf := make([]byte, sz)
			pattern(buf, sz)
			must(c.Send(buf, r, 6), "self Send %d", sz)
			got := make([]byte, sz)
			st, err := c.Recv(got, r, 6)
			must(err, "self Recv %d", sz)
			if st.Source != r || st.Count != sz {
				fail("self Recv status %+v", st)
			}
			checkPattern(got, sz, "self message")
			rq, err := c.Irecv(got, mpi.AnySource, 7)
			must(err, "self Irecv")
			must(c.Ssend(buf, r, 7), "self Ssend with posted receive")
			_, err = rq.Wait()
			must(err, "self Irecv Wait")
		}
		// Self Issend completes only when received.
		sreq, err := c.Issend([]byte("hi"), r, 8)
		must(err, "self Issend")
		if _, done, _ := sreq.Test(); done {
			fail("self Issend completed before its receive was posted")
		}
		_, err = c.Recv(make([]byte, 2), r, 8)
		must(err, "Recv self Issend")
		_, err = sreq.Wait()
		must(err, "self Issend Wait")
		// Zero-byte messages with nil buffers between neighbours.
		next, prev := (r+1)%n, (r-1+n)%n
		for i := 0; i < 10; i++ {
			st, err := c.Sendrecv(nil, next, 11, nil, prev, 11)
			must(err, "zero-byte Sendrecv")
			if st.Count != 0 || st.Source != prev {
				fail("zero-byte Sendrecv status %+v", st)
			}
		}
	})

	// Ssend and Issend do not complete before the receiver matches them,
	// whichever way the message travels.
	register("ssend", func(c *mpi.Comm) {
		const delay = 300 * time.Millisecond
		for _, sz := range []int{1, 100_000} {
			switch c.Rank() {
			case 0:
				buf := make([]byte, sz)
				req, err := c.Issend(buf, 1, 5)
				must(err, "Issend")
				deadline := time.Now().Add(delay / 2)
				for time.Now().Before(deadline) {
					if _, done, err := req.Test(); err != nil || done {
						fail("Issend of %d bytes completed (err %v) while the receiver was still sleeping", sz, err)
					}
					time.Sleep(time.Millisecond)
				}
				_, err = req.Wait()
				must(err, "Issend Wait")
				t0 := time.Now()
				must(c.Ssend(buf, 1, 6), "Ssend")
				if el := time.Since(t0); el < delay/2 {
					fail("Ssend of %d bytes returned after %v, before the receiver (sleeping %v) posted", sz, el, delay)
				}
			case 1:
				time.Sleep(delay)
				_, err := c.Recv(make([]byte, sz), 0, 5)
				must(err, "Recv")
				time.Sleep(delay)
				_, err = c.Recv(make([]byte, sz), 0, 6)
				must(err, "Recv")
			}
		}
	})

	// Every pair of ranks exchanges small and large messages at once.
	register("allpairs", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		for _, sz := range []int{64, 64 << 10} {
			for rep := 0; rep < 5; rep++ {
				var reqs []*mpi.Request
				bufs := make([][]byte, n)
				for p := 0; p < n; p++ {
					if p == r {
						continue
					}
					bufs[p] = make([]byte, sz)
					rq, err := c.Irecv(bufs[p], p, rep)
					must(err, "Irecv")
					reqs = append(reqs, rq)
				}
				out := make([]byte, sz)
				pattern(out, r*1000+sz+rep)
				for p := 0; p < n; p++ {
					if p == r {
						continue
					}
					rq, err := c.Isend(out, p, rep)
					must(err, "Isend")
					reqs = append(reqs, rq)
				}
				_, err := mpi.Waitall(reqs)
				must(err, "Waitall")
				for p := 0; p < n; p++ {
					if p != r {
						checkPattern(bufs[p], p*1000+sz+rep, "all-pairs message")
					}
				}
			}
		}
	})

	// Bsend copies into the attached buffer and returns; Detach waits.
	register("bsend", func(c *mpi.Comm) {
		r := c.Rank()
		if err := c.Bsend([]byte("x"), 0, 1); mpi.ClassOf(err) != mpi.ErrBuffer {
			fail("Bsend without a buffer: %v, want ErrBuffer", err)
		}
		if _, err := mpi.BufferDetach(); mpi.ClassOf(err) != mpi.ErrBuffer {
			fail("BufferDetach without a buffer: %v, want ErrBuffer", err)
		}
		space := make([]byte, 4*(50_000+mpi.BsendOverhead))
		must(mpi.BufferAttach(space), "BufferAttach")
		if err := mpi.BufferAttach(space); mpi.ClassOf(err) != mpi.ErrBuffer {
			fail("second BufferAttach: %v, want ErrBuffer", err)
		}
		if err := c.Bsend(make([]byte, len(space)), 0, 1); mpi.ClassOf(err) != mpi.ErrBuffer {
			fail("Bsend larger than the attached buffer: %v, want ErrBuffer", err)
		}
		switch r {
		case 0:
			for i := 0; i < 4; i++ {
				buf := make([]byte, 50_000)
				pattern(buf, i)
				must(c.Bsend(buf, 1, i), "Bsend %d", i)
				pattern(buf, 99) // the copy already left: overwriting is harmless
			}
			// The buffer is full until the receiver has the first four
			// (eagerly sent ones free their space at once; ones read
			// directly only when read), so a fifth may not fit: then send
			// it nonblocking instead. Either way the receiver gets five.
			var fifth *mpi.Request
			if err := c.Bsend(make([]byte, 50_000), 1, 9); mpi.ClassOf(err) == mpi.ErrBuffer {
				fifth, err = c.Isend(make([]byte, 50_000), 1, 9)
				must(err, "Isend instead")
			} else {
				must(err, "fifth Bsend")
			}
			must(c.Barrier(), "Barrier")
			if fifth != nil {
				_, err := fifth.Wait()
				must(err, "fifth Wait")
			}
		case 1:
			must(c.Barrier(), "Barrier") // the sender finished without us
			for i := 0; i < 4; i++ {
				buf := make([]byte, 50_000)
				_, err := c.Recv(buf, 0, i)
				must(err, "Recv %d", i)
				checkPattern(buf, i, "bsend message")
			}
			_, err := c.Recv(make([]byte, 50_000), 0, 9)
			must(err, "Recv 9")
		default:
			must(c.Barrier(), "Barrier")
		}
		b, err := mpi.BufferDetach()
		must(err, "BufferDetach")
		if len(b) != len(space) {
			fail("BufferDetach returned %d bytes, attached %d", len(b), len(space))
		}
	})

	// MPI 4.1 buffers: a communicator's own, automatic ones, and flushes
	// that complete only once what was buffered has been received.
	register("bsend_buffers", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		right, left := (r+1)%n, (r-1+n)%n
		d, err := c.Dup()
		must(err, "Dup")
		const big = 1 << 16
		space := make([]byte, 2*(big+mpi.BsendOverhead))
		must(d.AttachBuffer(space, false), "AttachBuffer")
		if err := c.Bsend([]byte("x"), right, 1); mpi.ClassOf(err) != mpi.ErrBuffer {
			fail("Bsend on a communicator without a buffer: %v, want ErrBuffer", err)
		}
		out := make([]byte, big)
		pattern(out, r)
		must(d.Bsend(out, right, 2), "Bsend")
		fl, err := d.IflushBuffer()
		must(err, "IflushBuffer")
		in := make([]byte, big)
		_, err = d.Recv(in, left, 2)
		must(err, "Recv")
		checkPattern(in, left, "communicator-buffered message")
		_, err = fl.Wait()
		must(err, "flush Wait")
		b, automatic, err := d.DetachBuffer()
		must(err, "DetachBuffer")
		if len(b) != len(space) || automatic {
			fail("DetachBuffer: %d bytes, automatic %v; attached %d", len(b), automatic, len(space))
		}

		must(mpi.BufferAttachAutomatic(), "BufferAttachAutomatic")
		for i := 0; i < 6; i++ {
			pattern(out, r+i)
			must(c.Bsend(out, right, 10+i), "automatic Bsend %d", i)
		}
		fl, err = mpi.BufferIflush()
		must(err, "BufferIflush")
		for i := 0; i < 6; i++ {
			_, err = c.Recv(in, left, 10+i)
			must(err, "Recv %d", i)
			checkPattern(in, left+i, "automatically buffered message")
		}
		_, err = fl.Wait()
		must(err, "flush Wait")
		if _, automatic, err = mpi.BufferDetachAuto(); err != nil || !automatic {
			fail("BufferDetachAuto: automatic %v, %v", automatic, err)
		}
		must(d.Free(), "Free")
	})

	// Waitany, Testall and spent requests.
	register("requests", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		next, prev := (r+1)%n, (r-1+n)%n
		bufs := [][]byte{make([]byte, 8), make([]byte, 8), make([]byte, 8)}
		var reqs []*mpi.Request
		for i, b := range bufs {
			rq, err := c.Irecv(b, prev, i)
			must(err, "Irecv")
			reqs = append(reqs, rq)
		}
		if _, done, err := mpi.Testall(reqs); err != nil || done {
			fail("Testall before any send: done=%v err=%v", done, err)
		}
		must(c.Barrier(), "Barrier") // nobody sends before everyone tested
		for i := 2; i >= 0; i-- {
			must(c.Send([]byte{byte(i), 0, 0, 0, 0, 0, 0, 0}, next, i), "Send")
		}
		seen := 0
		for k := 0; k < 3; k++ {
			idx, st, err := mpi.Waitany(reqs)
			must(err, "Waitany")
			if idx < 0 || st.Tag != idx || bufs[idx][0] != byte(idx) {
				fail("Waitany: index %d status %+v", idx, st)
			}
			seen |= 1 << idx
			reqs[idx] = nil
		}
		if seen != 7 {
			fail("Waitany saw %b", seen)
		}
		if idx, _, err := mpi.Waitany(reqs); err != nil || idx != mpi.Undefined {
			fail("Waitany with no active request: %d %v", idx, err)
		}
		rq, err := c.Isend(nil, next, 50)
		must(err, "Isend")
		_, err = rq.Wait()
		must(err, "Wait")
		if _, err := rq.Wait(); mpi.ClassOf(err) != mpi.ErrRequest {
			fail("second Wait: %v, want ErrRequest", err)
		}
		if _, _, err := rq.Test(); mpi.ClassOf(err) != mpi.ErrRequest {
			fail("Test after Wait: %v, want ErrRequest", err)
		}
		var nilReq *mpi.Request
		if _, err := nilReq.Wait(); mpi.ClassOf(err) != mpi.ErrRequest {
			fail("nil Wait: %v, want ErrRequest", err)
		}
		_, err = c.Recv(nil, prev, 50)
		must(err, "Recv")
	})

	// Barrier: a message sent before a barrier is there after it.
	register("barrier", func(c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		for round := 0; round < 20; round++ {
			if r == round%n {
				time.Sleep(20 * time.Millisecond) // be late
			}
			for p := 0; p < n; p++ {
				if p != r {
					must(c.Send([]byte{byte(round)}, p, 1000+round), "Send")
				}
			}
			must(c.Barrier(), "Barrier")
			for p := 0; p < n; p++ {
				if p == r {
					continue
				}
				if _, found, err := c.Iprobe(p, 1000+round); err != nil || !found {
					fail("round %d: message rank %d sent before the barrier is not here after it", round, p)
				}
				_, err := c.Recv(make([]byte, 1), p, 1000+round)
				must(err, "Recv")
			}
		}
	})
}

// pingRing passes a token around the ring of ranks, checking it is intact.
func pingRing(c *mpi.Comm) {
	r, n := c.Rank(), c.Size()
	if n == 1 {
		return
	}
	tok := make([]byte, 8)
	if r == 0 {
		binary.LittleEndian.PutUint64(tok, 1)
		must(c.Send(tok, 1, 77), "ring Send")
		_, err := c.Recv(tok, n-1, 77)
		must(err, "ring Recv")
		if v := binary.LittleEndian.Uint64(tok); v != uint64(n) {
			fail("ring token %d, want %d", v, n)
		}
		return
	}
	_, err := c.Recv(tok, r-1, 77)
	must(err, "ring Recv")
	binary.LittleEndian.PutUint64(tok, binary.LittleEndian.Uint64(tok)+1)
	must(c.Send(tok, (r+1)%n, 77), "ring Send")
}
