package cabi

import (
	"testing"

	"github.com/hympi/hympi/mpi"
)

// Each entry reaches the engine through its hook and gets the engine's own
// answer to a call that needs no job: a hook left unset or mistyped panics
// when this package initialises, one wired to the wrong function answers
// differently.
func TestHooksReachTheEngine(t *testing.T) {
	tests := []struct {
		name string
		call func() error
		want mpi.ErrorClass // 0: no error expected
	}{
		{"Peek nil", func() error { _, _, err := Peek(nil); return err }, mpi.ErrRequest},
		{"WaitallInto empty", func() error { return WaitallInto(nil, nil, nil) }, 0},
		{"TestallInto empty", func() error {
			done, err := TestallInto(nil, nil)
			if err == nil && !done {
				t.Error("TestallInto of nothing is not done")
			}
			return err
		}, 0},
		{"IsendIn nil comm", func() error { _, err := IsendIn(nil, nil, nil, 0, 0); return err }, mpi.ErrComm},
		{"IssendIn nil comm", func() error { _, err := IssendIn(nil, nil, nil, 0, 0); return err }, mpi.ErrComm},
		{"IrecvIn nil comm", func() error { _, err := IrecvIn(nil, nil, nil, 0, 0); return err }, mpi.ErrComm},
		{"InterColl nil comm", func() error { return InterColl(nil, InterArgs{Kind: InterBarrier}) }, mpi.ErrComm},
	}
	for _, tc := range tests {
		err := tc.call()
		switch {
		case tc.want == 0 && err != nil:
			t.Errorf("%s: %v, want no error", tc.name, err)
		case tc.want > 0 && mpi.ClassOf(err) != tc.want:
			t.Errorf("%s: %v (class %v), want class %v", tc.name, err, mpi.ClassOf(err), tc.want)
		}
	}
	if CancelRecv(nil) || CancelSend(nil) {
		t.Error("cancelling a nil request reports success")
	}
	if TakeDone(nil) {
		t.Error("TakeDone of a nil request reports it complete")
	}
	if NewJoin() != nil {
		t.Error("NewJoin before Init returned a request")
	}
}

// TestHooksOnASingleton: each entry does its own job, not a neighbour's,
// on a singleton (Init without hympirun): a receive posted with IrecvIn is
// pending to Peek, matched by a send from IsendIn, collected by
// WaitallInto; a join follows a receive and completes with it; a receive
// nobody sends to is cancelled by CancelRecv, and CancelSend refuses it;
// TakeDone spends a complete collective and leaves a pending receive.
func TestHooksOnASingleton(t *testing.T) {
	if err := mpi.Init(); err != nil {
		t.Fatal(err)
	}
	defer mpi.Finalize()
	w := mpi.World()
	buf := make([]byte, 5)
	rr, err := IrecvIn(w, nil, buf, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, done, err := Peek(rr); done || err != nil {
		t.Fatalf("Peek of an unmatched receive: done %v, %v", done, err)
	}
	sr, err := IsendIn(w, nil, []byte("hello"), 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	sts, errs := make([]mpi.Status, 2), make([]error, 2)
	if err := WaitallInto([]*mpi.Request{rr, sr}, sts, errs); err != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("WaitallInto: %v %v", err, errs)
	}
	if string(buf) != "hello" || sts[0].Tag != 7 || sts[0].Count != 5 {
		t.Fatalf("received %q, status %+v", buf, sts[0])
	}

	j := NewJoin()
	jr, err := IrecvIn(w, nil, buf, 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	Follow(j, jr)
	Release(j)
	if _, done, _ := Peek(j); done {
		t.Fatal("join done before what it follows")
	}
	if _, err := IssendIn(w, nil, []byte("again"), 0, 8); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(); err != nil || string(buf) != "again" {
		t.Fatalf("join: %v, buf %q", err, buf)
	}

	cr, err := IrecvIn(w, nil, buf, 0, 9)
	if err != nil {
		t.Fatal(err)
	}
	if CancelSend(cr) {
		t.Fatal("CancelSend cancelled a receive")
	}
	if !CancelRecv(cr) {
		t.Fatal("CancelRecv did not cancel a pending receive")
	}
	if st, err := cr.Wait(); err != nil || !st.Cancelled {
		t.Fatalf("cancelled receive: %+v, %v", st, err)
	}

	// TakeDone spends a complete request (a singleton's collective is
	// complete in its start), and leaves a pending one alone: Wait still
	// completes it.
	b, err := w.Ibarrier()
	if err != nil {
		t.Fatal(err)
	}
	if !TakeDone(b) {
		t.Fatal("TakeDone of a singleton's Ibarrier: not complete")
	}
	if TakeDone(b) {
		t.Fatal("TakeDone took a spent request again")
	}
	if _, err := b.Wait(); mpi.ClassOf(err) != mpi.ErrRequest {
		t.Fatalf("Wait after TakeDone: %v, want a spent-request error", err)
	}
	pr, err := IrecvIn(w, nil, buf, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if TakeDone(pr) {
		t.Fatal("TakeDone took a receive nobody has sent to")
	}
	if _, err := IsendIn(w, nil, []byte("third"), 0, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := pr.Wait(); err != nil || string(buf) != "third" {
		t.Fatalf("receive after TakeDone refused it: %v, buf %q", err, buf)
	}
}
