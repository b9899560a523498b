//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"testing"
)

// TestFastRecvRule checks when a blocking receive may be served off the
// head of its channel (fastlane.go) and that, when it may not, the ordinary
// path still delivers what MPI ordering says. Rank 0 sends with the real
// eager path; rank 1 asks fastRecv directly, then receives normally.
func TestFastRecvRule(t *testing.T) {
	msg := func(n, seed int) []byte { b := make([]byte, n); fill(b, seed); return b }
	type step struct {
		ctx  uint32 // context the message is sent on (0: world)
		tag  int
		data []byte
		sync bool // Issend
	}
	cases := []struct {
		name    string
		sends   []step
		drain   int  // sends drained into the engine (unexpected) before the rest go out
		post    bool // an Irecv (source 0, tag 99) is posted first
		tag     int  // the fast receive's tag
		buf     int  // its buffer size
		fast    bool // the fast lane must take the head
		wantTag int  // what the ordinary receive then gets (when !fast)
		wantLen int
		wantErr ErrorClass
	}{
		{name: "head matches", sends: []step{{tag: 5, data: msg(8, 1)}}, tag: 5, buf: 8, fast: true},
		{name: "any tag", sends: []step{{tag: 7, data: msg(100, 2)}}, tag: AnyTag, buf: 128, fast: true},
		{name: "empty message", sends: []step{{tag: 3, data: nil}}, tag: 3, buf: 0, fast: true},
		{name: "largest inline", sends: []step{{tag: 1, data: msg(1024, 9)}}, tag: 1, buf: 1024, fast: true},
		{name: "other tag at head", sends: []step{{tag: 5, data: msg(8, 3)}}, tag: 6, buf: 8, wantTag: 5, wantLen: 8},
		{name: "other context", sends: []step{{ctx: 40, tag: 5, data: msg(8, 4)}, {tag: 5, data: msg(8, 5)}}, tag: 5, buf: 8, wantTag: 5, wantLen: 8},
		{name: "truncation", sends: []step{{tag: 5, data: msg(16, 6)}}, tag: 5, buf: 8, wantTag: 5, wantLen: 8, wantErr: ErrTruncate},
		{name: "posted receive", sends: []step{{tag: 5, data: msg(8, 7)}}, post: true, tag: 5, buf: 8, wantTag: 5, wantLen: 8},
		{name: "unexpected message held", sends: []step{{tag: 5, data: msg(4, 8)}, {tag: 5, data: msg(8, 10)}}, drain: 1, tag: 5, buf: 8, wantTag: 5, wantLen: 4},
		{name: "synchronous send", sends: []step{{tag: 5, data: msg(8, 11), sync: true}}, tag: 5, buf: 8, wantTag: 5, wantLen: 8},
		{name: "not inline", sends: []step{{tag: 5, data: msg(5000, 12)}}, tag: 5, buf: 5000, wantTag: 5, wantLen: 5000},
		{name: "nothing sent", tag: 5, buf: 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			c0, c1 := comms[0], comms[1]
			e1 := c1.e
			var pending []*Request
			var posted *Request
			if tc.post {
				r, err := c1.Irecv(make([]byte, 8), 0, 99)
				if err != nil {
					t.Fatal(err)
				}
				posted = r
			}
			for i, s := range tc.sends {
				if i == tc.drain && tc.drain > 0 {
					e1.mu.Lock()
					e1.sweep()
					e1.mu.Unlock()
				}
				sc := c0
				if s.ctx != 0 {
					sc = &Comm{e: c0.e, ctx: s.ctx, rank: 0, size: 2}
				}
				r, err := sc.isend(nil, "Isend", s.data, 1, s.tag, s.sync)
				if err != nil {
					t.Fatal(err)
				}
				pending = append(pending, r)
			}
			if tc.drain > 0 && e1.live[1] == 0 {
				t.Fatalf("setup: no unexpected message held")
			}
			buf := make([]byte, tc.buf)
			e1.mu.Lock()
			before := *e1.live
			st, ok := e1.fastRecv(c1, buf, 0, tc.tag)
			e1.mu.Unlock()
			if ok != tc.fast {
				t.Fatalf("fastRecv took the head: %v, want %v", ok, tc.fast)
			}
			if *e1.live != before {
				t.Errorf("matching counts moved: %v → %v", before, *e1.live)
			}
			if ok {
				want := tc.sends[0]
				if st.Source != 0 || st.Tag != want.tag || st.Count != len(want.data) || !bytes.Equal(buf[:st.Count], want.data) {
					t.Errorf("got %+v %x, want tag %d %x", st, buf[:st.Count], want.tag, want.data)
				}
				for _, r := range pending {
					if _, err := r.Wait(); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			if len(tc.sends) == 0 {
				return
			}
			// The ordinary path must now deliver what MPI ordering says:
			// the oldest matching message from rank 0 on this context.
			rtag := tc.tag
			if tc.wantTag != tc.tag {
				rtag = tc.wantTag
			}
			st, err := c1.Recv(buf, 0, rtag)
			if ClassOf(err) != tc.wantErr {
				t.Fatalf("Recv: %v, want class %v", err, tc.wantErr)
			}
			if st.Tag != tc.wantTag || st.Count != tc.wantLen {
				t.Errorf("Recv status %+v, want tag %d count %d", st, tc.wantTag, tc.wantLen)
			}
			var first []byte
			for _, s := range tc.sends {
				if s.ctx == 0 && s.tag == tc.wantTag {
					first = s.data
					break
				}
			}
			if !bytes.Equal(buf[:st.Count], first[:st.Count]) {
				t.Errorf("Recv got %x, want %x", buf[:st.Count], first[:st.Count])
			}
			if posted != nil {
				// Let the posted receive complete so nothing is left.
				if err := c0.Send(nil, 1, 99); err != nil {
					t.Fatal(err)
				}
				if _, err := posted.Wait(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestFastRecvCounts checks the matching counts the rule reads: every post,
// match, unpost, unexpected arrival and take moves them, and they return to
// zero when the engine holds nothing.
func TestFastRecvCounts(t *testing.T) {
	comms := inProcessJob(t, 2)
	c0, c1 := comms[0], comms[1]
	e1 := c1.e
	check := func(what string, posted, unexp int64) {
		t.Helper()
		e1.mu.Lock()
		got := *e1.live
		e1.mu.Unlock()
		if got != [2]int64{posted, unexp} {
			t.Fatalf("%s: counts %v, want [%d %d]", what, got, posted, unexp)
		}
	}
	check("start", 0, 0)
	r1, _ := c1.Irecv(make([]byte, 8), 0, 1)
	r2, _ := c1.Irecv(make([]byte, 8), AnySource, 2)
	check("two posted", 2, 0)
	if !r2.cancelRecv() {
		t.Fatal("cancel failed")
	}
	check("one cancelled", 1, 0)
	for _, tag := range []int{1, 3, 3} {
		if err := c0.Send([]byte("abc"), 1, tag); err != nil {
			t.Fatal(err)
		}
	}
	e1.mu.Lock()
	e1.sweep()
	e1.mu.Unlock()
	check("one matched, two unexpected", 0, 2)
	if _, err := r1.Wait(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c1.Recv(make([]byte, 8), AnySource, 3); err != nil {
			t.Fatal(err)
		}
	}
	check("all taken", 0, 0)
}
