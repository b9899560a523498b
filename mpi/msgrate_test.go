//go:build !ompi && !mpich

package mpi

import (
	"testing"
)

// TestMessageRateWindowAllocs: osu_bw's window through the recycling entry
// points the C ABI uses (IsendIn, IrecvIn, WaitallInto) allocates nothing
// once warm, on the send side and on the receive side. Both ranks run in
// one goroutine: a window of small sends completes at once (its messages
// fit the ring), and the receives then find them.
func TestMessageRateWindowAllocs(t *testing.T) {
	const window = 64
	for _, size := range []int{1, 8, 1024} {
		comms := inProcessJob(t, 2)
		sbuf, rbuf := make([]byte, size), make([]byte, size)
		sreqs, rreqs := make([]*Request, window), make([]*Request, window)
		sts, errs := make([]Status, window), make([]error, window)
		round := func() {
			for w := range sreqs {
				var err error
				if sreqs[w], err = comms[0].isendIn(sreqs[w], sbuf, 1, 5); err != nil {
					t.Fatal(err)
				}
			}
			if err := waitallInto(sreqs, sts, errs); err != nil {
				t.Fatal(err)
			}
			for w := range rreqs {
				var err error
				if rreqs[w], err = comms[1].irecvIn(rreqs[w], rbuf, 0, 5); err != nil {
					t.Fatal(err)
				}
			}
			if err := waitallInto(rreqs, sts, errs); err != nil {
				t.Fatal(err)
			}
			for w := range sts {
				if errs[w] != nil || sts[w].Count != size || sts[w].Source != 0 {
					t.Fatalf("size %d: request %d: status %+v, error %v", size, w, sts[w], errs[w])
				}
			}
		}
		round() // the channel, the request pool and the match queues are made here
		if n := testing.AllocsPerRun(20, round); n != 0 {
			t.Errorf("size %d: a window of %d Isend/Irecv/Waitall allocates %.1f times, want 0", size, window, n)
		}
	}
}

// TestReuseReqKeepsUncollectedRequests: a request is recycled for a new
// operation only once its completion has been collected. One that is still
// pending, or complete but not yet waited for, keeps its status readable
// and a new request is made instead.
func TestReuseReqKeepsUncollectedRequests(t *testing.T) {
	tests := []struct {
		name      string
		collect   bool // Wait on the old request before passing it back
		complete  bool // let the old receive complete first
		wantReuse bool
	}{
		{"pending", false, false, false},
		{"complete, not collected", false, true, false},
		{"collected", true, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			first := make([]byte, 4)
			old, err := comms[1].irecvIn(nil, first, 0, 7)
			if err != nil {
				t.Fatal(err)
			}
			if tc.complete {
				if err := comms[0].Send([]byte{1, 2, 3}, 1, 7); err != nil {
					t.Fatal(err)
				}
				comms[1].e.mu.Lock()
				comms[1].e.progress()
				comms[1].e.mu.Unlock()
			}
			if tc.collect {
				if _, err := old.Wait(); err != nil {
					t.Fatal(err)
				}
			}
			next, err := comms[1].irecvIn(old, make([]byte, 4), 0, 8)
			if err != nil {
				t.Fatal(err)
			}
			if reused := next == old; reused != tc.wantReuse {
				t.Fatalf("reused = %v, want %v", reused, tc.wantReuse)
			}
			if !tc.collect {
				if tc.complete {
					st, err := old.Wait()
					if err != nil || st.Count != 3 || st.Tag != 7 || first[2] != 3 {
						t.Fatalf("the old receive's status changed: %+v %v %v", st, err, first)
					}
				} else if !old.cancelRecv() {
					t.Fatal("the old pending receive is no longer cancellable")
				}
			}
			// The new receive is independent of the old one.
			if err := comms[0].Send([]byte{9, 9}, 1, 8); err != nil {
				t.Fatal(err)
			}
			st, err := next.Wait()
			if err != nil || st.Count != 2 || st.Tag != 8 {
				t.Fatalf("new receive: %+v %v", st, err)
			}
		})
	}
}
