//go:build !ompi && !mpich

package mpi

import (
	"bytes"
	"errors"
	"testing"
)

// TestSpentStateRecycled: once an Isend or Irecv is collected, its state
// goes to the next request (spend), but the handle stays spent. Each case
// makes a request by one path, collects it by one of the completion
// calls, then runs a whole window through the recycled states, and only
// then uses the old handle again: every use must fail with ErrRequest and
// leave the window's requests (one of which now holds the old state)
// alone, and the window's messages must arrive intact.
func TestSpentStateRecycled(t *testing.T) {
	makers := []struct {
		name string
		// make returns the request to spend; comms[1] receives.
		make func(t *testing.T, comms []*Comm) *Request
	}{
		{"Isend published in the call", func(t *testing.T, comms []*Comm) *Request {
			r, err := comms[0].Isend([]byte{7}, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := comms[1].Recv(make([]byte, 1), 0, 1); err != nil {
				t.Fatal(err)
			}
			return r
		}},
		{"Irecv through the lane", func(t *testing.T, comms []*Comm) *Request {
			r, err := comms[1].Irecv(make([]byte, 1), 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := comms[0].Send([]byte{7}, 1, 1); err != nil {
				t.Fatal(err)
			}
			return r
		}},
		{"Irecv through the queues", func(t *testing.T, comms []*Comm) *Request {
			// A wildcard source is never queued in the lane.
			r, err := comms[1].Irecv(make([]byte, 1), AnySource, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := comms[0].Send([]byte{7}, 1, 1); err != nil {
				t.Fatal(err)
			}
			return r
		}},
		{"Irecv of an unexpected message", func(t *testing.T, comms []*Comm) *Request {
			if err := comms[0].Send([]byte{7}, 1, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := comms[1].Probe(0, 1); err != nil {
				t.Fatal(err)
			}
			r, err := comms[1].Irecv(make([]byte, 1), 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}},
	}
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
			sts, err := Waitall([]*Request{r, nil})
			if err != nil {
				return Status{}, err
			}
			return sts[0], nil
		}},
		{"Waitany", func(r *Request) (Status, error) {
			_, st, err := Waitany([]*Request{nil, r})
			return st, err
		}},
		{"Testall", func(r *Request) (Status, error) {
			for {
				sts, ok, err := Testall([]*Request{r})
				if ok || err != nil {
					return sts[0], err
				}
			}
		}},
		{"waitallInto", func(r *Request) (Status, error) {
			sts, errs := make([]Status, 1), make([]error, 1)
			if err := waitallInto([]*Request{r}, sts, errs); err != nil {
				return Status{}, err
			}
			return sts[0], errs[0]
		}},
	}
	// The calls that cannot block come first: a handle that aliased a
	// live request would make the waits wait for its message.
	stale := []struct {
		name string
		use  func(r *Request) error
	}{
		{"Test", func(r *Request) error { _, _, err := r.Test(); return err }},
		{"Testall", func(r *Request) error { _, _, err := Testall([]*Request{r}); return err }},
		{"peek", func(r *Request) error { _, _, err := r.peek(); return err }},
		{"Wait", func(r *Request) error { _, err := r.Wait(); return err }},
		{"Waitall", func(r *Request) error { _, err := Waitall([]*Request{r}); return err }},
		{"Waitany", func(r *Request) error { _, _, err := Waitany([]*Request{r}); return err }},
	}
	const window = 8
	for _, mk := range makers {
		for _, col := range collectors {
			t.Run(mk.name+"/"+col.name, func(t *testing.T) {
				comms := inProcessJob(t, 2)
				old := mk.make(t, comms)
				if _, err := col.run(old); err != nil {
					t.Fatal(err)
				}
				// A window whose states come from the free list: its
				// receives are posted first, so none is done yet when
				// the stale handle is used.
				recvs := make([]*Request, window)
				bufs := make([][]byte, window)
				for i := range recvs {
					bufs[i] = make([]byte, 2)
					var err error
					if recvs[i], err = comms[1].Irecv(bufs[i], 0, 2); err != nil {
						t.Fatal(err)
					}
				}
				for _, s := range stale {
					if err := s.use(old); !errors.Is(err, ErrRequest) {
						t.Fatalf("stale handle, %s: %v, want ErrRequest", s.name, err)
					}
				}
				if old.cancelRecv() || old.cancelSend() {
					t.Error("a stale handle was cancelled")
				}
				for i, r := range recvs {
					comms[1].e.mu.Lock()
					done := r.done
					comms[1].e.mu.Unlock()
					if done || r == old {
						t.Fatalf("receive %d of the new window: done %v before its message, same handle %v", i, done, r == old)
					}
				}
				sends := make([]*Request, window)
				for i := range sends {
					var err error
					if sends[i], err = comms[0].Isend([]byte{byte(i), byte(3 * i)}, 1, 2); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := Waitall(sends); err != nil {
					t.Fatal(err)
				}
				sts, err := Waitall(recvs)
				if err != nil {
					t.Fatal(err)
				}
				for i, st := range sts {
					if st.Source != 0 || st.Tag != 2 || st.Count != 2 || !bytes.Equal(bufs[i], []byte{byte(i), byte(3 * i)}) {
						t.Errorf("message %d: status %+v, data %v", i, st, bufs[i])
					}
				}
				if _, err := old.Wait(); !errors.Is(err, ErrRequest) {
					t.Errorf("stale handle after the window: %v, want ErrRequest", err)
				}
			})
		}
	}
}
