package proto

import (
	"errors"
	"testing"

	"github.com/hympi/hympi/shm"
)

// TestReadSteps checks how a read is cut into segments and when it is
// over: a message longer than the buffer reads only what fits, a lone read
// takes the larger segment, an empty one is over at once, and a refusal
// ends it with the error.
func TestReadSteps(t *testing.T) {
	refused := errors.New("refused")
	tests := []struct {
		name    string
		msg     int
		buf     int
		alone   bool
		failAt  int // call number that fails (0: none)
		calls   []int
		wantErr error
	}{
		{"empty", 0, 16, false, 0, nil, nil},
		{"one segment", 100, 100, false, 0, []int{100}, nil},
		{"segments", 2*Segment + 5, 4 * Segment, false, 0, []int{Segment, Segment, 5}, nil},
		{"alone", 2*Segment + 5, 4 * Segment, true, 0, []int{2*Segment + 5}, nil},
		{"truncated", 3 * Segment, Segment + 1, false, 0, []int{Segment, 1}, nil},
		{"refused", 3 * Segment, 3 * Segment, false, 2, []int{Segment, Segment}, refused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var owner int
			buf := make([]byte, tc.buf)
			d := &shm.Desc{Addr: 1 << 20, MsgLen: uint64(tc.msg), Tag: 7, ReqID: 9}
			rd := NewRead(&owner, buf, 3, 1234, d)
			if rd.Req != &owner || rd.Peer != 3 || rd.Total != tc.msg || rd.Tag != 7 || rd.SenderID != 9 {
				t.Fatalf("read %+v does not carry the RTS", rd)
			}
			var calls []int
			next := uintptr(1 << 20)
			readFrom := func(pid int, local []byte, remote uintptr) error {
				calls = append(calls, len(local))
				if pid != 1234 || remote != next {
					t.Fatalf("read from pid %d at %#x, want 1234 at %#x", pid, remote, next)
				}
				next += uintptr(len(local))
				if len(calls) == tc.failAt {
					return refused
				}
				return nil
			}
			var err error
			for over := false; !over; {
				if len(calls) > 10 {
					t.Fatal("read never ends")
				}
				over, err = rd.Step(tc.alone, readFrom)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if len(calls) != len(tc.calls) {
				t.Fatalf("segments %v, want %v", calls, tc.calls)
			}
			for i := range calls {
				if calls[i] != tc.calls[i] {
					t.Fatalf("segments %v, want %v", calls, tc.calls)
				}
			}
		})
	}
}
