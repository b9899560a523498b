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
		{"InterColl nil comm", func() error { return InterColl(nil, mpi.InterArgs{Kind: mpi.InterBarrier}) }, mpi.ErrComm},
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
	if NewJoin() != nil {
		t.Error("NewJoin before Init returned a request")
	}
}
