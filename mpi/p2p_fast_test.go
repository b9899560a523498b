//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hympi/hympi/shm"
)

// TestP2PArgsFastCheck: Send, Recv, Isend and Irecv take their arguments'
// common case through one inlined test (p2pArgsOK) and everything else
// through the full checks. Each bad argument still gets its class and
// changes nothing (the next good message arrives intact), and ProcNull,
// AnySource and AnyTag keep their meanings.
func TestP2PArgsFastCheck(t *testing.T) {
	comms := inProcessJob(t, 2)
	freed := *comms[0]
	freed.freed = true
	big := TagUB
	tests := []struct {
		name string
		c    *Comm
		peer int
		tag  int
		want error // nil: the call succeeds
	}{
		{"rank -3", comms[0], -3, 1, ErrRank},
		{"rank = size", comms[0], 2, 1, ErrRank},
		{"rank far out", comms[0], 1 << 40, 1, ErrRank},
		{"tag -5", comms[0], 1, -5, ErrTag},
		{"tag TagUB+1", comms[0], 1, big + 1, ErrTag},
		{"freed communicator", &freed, 1, 1, ErrComm},
		{"nil communicator", nil, 1, 1, ErrComm},
		{"ProcNull", comms[0], ProcNull, 1, nil},
	}
	ops := []struct {
		name string
		run  func(c *Comm, peer, tag int) error
	}{
		{"Send", func(c *Comm, peer, tag int) error { return c.Send([]byte{9}, peer, tag) }},
		{"Recv", func(c *Comm, peer, tag int) error {
			st, err := c.Recv(make([]byte, 1), peer, tag)
			if err == nil && (st.Source != ProcNull || st.Count != 0) {
				t.Errorf("Recv from ProcNull: status %+v", st)
			}
			return err
		}},
		{"Isend", func(c *Comm, peer, tag int) error {
			r, err := c.Isend([]byte{9}, peer, tag)
			if err == nil {
				_, err = r.Wait()
			}
			return err
		}},
		{"Irecv", func(c *Comm, peer, tag int) error {
			r, err := c.Irecv(make([]byte, 1), peer, tag)
			if err == nil {
				_, err = r.Wait()
			}
			return err
		}},
	}
	for _, op := range ops {
		for _, tc := range tests {
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				err := op.run(tc.c, tc.peer, tc.tag)
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("error %v, want %v", err, tc.want)
				}
				// Nothing was sent or posted: the next message is the
				// one that arrives, with its own tag.
				if err := comms[0].Send([]byte{42}, 1, 3); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 1)
				st, err := comms[1].Recv(buf, AnySource, AnyTag)
				if err != nil || st.Tag != 3 || st.Source != 0 || buf[0] != 42 {
					t.Fatalf("next message: status %+v, byte %d, error %v", st, buf[0], err)
				}
			})
		}
	}
	// AnyTag on the fast side of the check, AnySource on the slow one.
	for _, src := range []int{0, AnySource} {
		if err := comms[0].Send([]byte{7}, 1, 11); err != nil {
			t.Fatal(err)
		}
		st, err := comms[1].Recv(make([]byte, 1), src, AnyTag)
		if err != nil || st.Tag != 11 || st.Source != 0 || st.Count != 1 {
			t.Fatalf("Recv(%d, AnyTag): status %+v, error %v", src, st, err)
		}
	}
}

// TestIsendCompletedAtOnce: an Isend whose message is published in the call
// is born complete; its request behaves like any completed one under every
// way of collecting it, and is spent afterwards (ErrRequest). A send too
// large for one descriptor goes the queued way and must behave the same.
func TestIsendCompletedAtOnce(t *testing.T) {
	collectors := []struct {
		name string
		run  func(r *Request) (Status, error)
	}{
		{"Wait", func(r *Request) (Status, error) { return r.Wait() }},
		{"Test", func(r *Request) (Status, error) {
			for {
				st, ok, err := r.Test()
				if ok || err != nil {
					return st, err
				}
			}
		}},
		{"Waitall", func(r *Request) (Status, error) {
			sts, err := Waitall([]*Request{nil, r})
			if err != nil {
				return Status{}, err
			}
			return sts[1], nil
		}},
		{"Waitany", func(r *Request) (Status, error) {
			i, st, err := Waitany([]*Request{nil, r})
			if err == nil && i != 1 {
				t.Errorf("Waitany index %d, want 1", i)
			}
			return st, err
		}},
	}
	sizes := []struct {
		n        int
		bornDone bool
	}{
		{0, true},
		{8, true},
		{shm.InlineMax, true},
		{shm.InlineMax + 1, false},
	}
	for _, sz := range sizes {
		for _, col := range collectors {
			t.Run(col.name, func(t *testing.T) {
				comms := inProcessJob(t, 2)
				msg := make([]byte, sz.n)
				fill(msg, sz.n)
				r, err := comms[0].Isend(msg, 1, 4)
				if err != nil {
					t.Fatal(err)
				}
				comms[0].e.mu.Lock()
				done := r.done
				comms[0].e.mu.Unlock()
				if sz.bornDone && !done {
					t.Fatalf("%d B: Isend not complete on return", sz.n)
				}
				if r.cancelSend() && sz.bornDone {
					t.Fatalf("%d B: a completed send was cancelled", sz.n)
				}
				if st, ok, err := r.peek(); err != nil || (sz.bornDone && !ok) || st.Cancelled {
					t.Fatalf("%d B: status before collection %+v, done %v, error %v", sz.n, st, ok, err)
				}
				if _, err := col.run(r); err != nil {
					t.Fatalf("%d B: %s: %v", sz.n, col.name, err)
				}
				if _, err := r.Wait(); !errors.Is(err, ErrRequest) {
					t.Errorf("%d B: second Wait: %v, want ErrRequest", sz.n, err)
				}
				if _, _, err := r.Test(); !errors.Is(err, ErrRequest) {
					t.Errorf("%d B: Test after collection: %v, want ErrRequest", sz.n, err)
				}
				if r.cancelSend() {
					t.Errorf("%d B: a spent request was cancelled", sz.n)
				}
				got := make([]byte, sz.n)
				st, err := comms[1].Recv(got, 0, 4)
				if err != nil || st.Count != sz.n || !bytes.Equal(got, msg) {
					t.Fatalf("%d B: received %d bytes (error %v), content equal %v", sz.n, st.Count, err, bytes.Equal(got, msg))
				}
			})
		}
	}
}

// TestUserRequestsStayDistinct: Isend and Irecv cut their requests from
// slabs; each is still its own object, and one spent long ago stays spent
// however many requests are made after it (a recycled request would
// answer for another operation).
func TestUserRequestsStayDistinct(t *testing.T) {
	comms := inProcessJob(t, 2)
	first, err := comms[0].Isend([]byte{1}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	seen := map[*Request]bool{first: true}
	for i := 0; i < 3*reqSlabLen; i++ {
		s, err := comms[0].Isend([]byte{byte(i)}, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		r, err := comms[1].Irecv(make([]byte, 1), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []*Request{s, r} {
			if seen[x] {
				t.Fatalf("request %p handed out twice", x)
			}
			seen[x] = true
			if _, err := x.Wait(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := first.Wait(); !errors.Is(err, ErrRequest) {
		t.Fatalf("the first request, waited for again: %v, want ErrRequest", err)
	}
}

// TestPlainWindowAllocs: osu_bw's window through the plain Isend, Irecv
// and Waitall allocates one slab of handles per reqSlabLen requests and
// Waitall's status slice: no request state (spend recycles them), and no
// request per message.
func TestPlainWindowAllocs(t *testing.T) {
	const window = 64
	comms := inProcessJob(t, 2)
	sbuf, rbuf := make([]byte, 8), make([]byte, 8)
	sreqs, rreqs := make([]*Request, window), make([]*Request, window)
	round := func() {
		for w := range sreqs {
			var err error
			if sreqs[w], err = comms[0].Isend(sbuf, 1, 5); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Waitall(sreqs); err != nil {
			t.Fatal(err)
		}
		for w := range rreqs {
			var err error
			if rreqs[w], err = comms[1].Irecv(rbuf, 0, 5); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Waitall(rreqs); err != nil {
			t.Fatal(err)
		}
	}
	round()
	want := float64(2*window/reqSlabLen + 2)
	if n := testing.AllocsPerRun(20, round); n > want {
		t.Errorf("a window of %d plain Isend/Irecv/Waitall allocates %.1f times, want at most %.0f", window, n, want)
	}
}

// TestIssendNotBornDone: the born-complete shortcut is for standard sends
// only; a synchronous send of the same small size stays pending until the
// receiver matches it.
func TestIssendNotBornDone(t *testing.T) {
	comms := inProcessJob(t, 2)
	r, err := comms[0].Issend([]byte{1, 2, 3}, 1, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, done, err := r.Test(); done || err != nil {
			t.Fatalf("Issend complete (error %v) before the receive was posted", err)
		}
	}
	if _, err := comms[1].Recv(make([]byte, 3), 0, 8); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
}
