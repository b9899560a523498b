//go:build !ompi && !mpich

package mpi

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/hympi/hympi/shm"
)

// spanMsg is message k of n bytes: its first 8 bytes say k, the rest
// depend on it.
func spanMsg(k, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(k*29 + i + 3)
	}
	binary.LittleEndian.PutUint64(b, uint64(k))
	return b
}

// TestSpanKeepsOrder: a 1-4 KiB send that could go as a span (the peer
// has just answered, and the ring has free slots again) while earlier
// sends wait in the queue toward that peer must queue behind them; a span
// published past them would reach the receiver first. Each size around
// the span's limits is tried: InlineMax (inline), InlineMax+1, 2 KiB and
// SpanMax (spans), SpanMax+1 (cells). An in-process job: rank 0 fills its
// ring with inline messages until one queues, rank 1 takes a few and
// answers, rank 0 reads the answer and sends the message of that size,
// then every message must arrive in order.
func TestSpanKeepsOrder(t *testing.T) {
	for _, size := range []int{shm.InlineMax, shm.InlineMax + 1, 2048, shm.SpanMax, shm.SpanMax + 1} {
		t.Run(sizeName(size), func(t *testing.T) {
			comms := inProcessJob(t, 2)
			s, r := comms[0], comms[1]
			r.e.skew.small = math.MaxInt // as setupSkew leaves it with no peers (see TestRecvLane)
			if s.e.outTo(1) == nil || size > shm.InlineMax && size <= shm.SpanMax && !s.e.spanOK(1, size) {
				t.Fatal("the in-process sender would not send spans")
			}
			var sends []*Request
			var sizes []int
			isend := func(n int) {
				k := len(sizes)
				rq, err := s.Isend(spanMsg(k, n), 1, 1)
				if err != nil {
					t.Fatalf("Isend %d: %v", k, err)
				}
				sends, sizes = append(sends, rq), append(sizes, n)
			}
			for s.e.outTo(1).Head == nil {
				if len(sizes) > 1<<16 {
					t.Fatal("the ring never filled")
				}
				isend(16)
			}
			// Rank 1 frees a few slots and answers; rank 0 takes the
			// answer off its channel without a progress pass (which
			// would push its queue and hide the case).
			buf := make([]byte, 8192)
			for k := range 4 {
				st, err := r.Recv(buf, 0, 1)
				if err != nil || st.Count != sizes[k] || binary.LittleEndian.Uint64(buf) != uint64(k) {
					t.Fatalf("Recv %d: %+v %v, first word %d", k, st, err, binary.LittleEndian.Uint64(buf))
				}
			}
			if err := r.Send([]byte("ok"), 0, 2); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Recv(make([]byte, 2), 1, 2); err != nil {
				t.Fatal(err)
			}
			if s.e.outTo(1).Head == nil {
				t.Fatal("the answer's receive pushed the queue: the case is gone")
			}
			isend(size)
			isend(16)
			done := make(chan error, 1)
			go func() { _, err := Waitall(sends); done <- err }()
			for k := 4; k < len(sizes); k++ {
				st, err := r.Recv(buf, 0, 1)
				if err != nil {
					t.Fatalf("Recv %d: %v", k, err)
				}
				if got := binary.LittleEndian.Uint64(buf); st.Count != sizes[k] || got != uint64(k) {
					t.Fatalf("receive %d got message %d of %d bytes, want %d of %d: a send overtook the queue", k, got, st.Count, k, sizes[k])
				}
				if string(buf[:st.Count]) != string(spanMsg(k, sizes[k])) {
					t.Fatalf("message %d: payload differs", k)
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func sizeName(n int) string {
	switch n {
	case shm.InlineMax:
		return "InlineMax"
	case shm.InlineMax + 1:
		return "InlineMax+1"
	case shm.SpanMax:
		return "SpanMax"
	case shm.SpanMax + 1:
		return "SpanMax+1"
	}
	return "2KiB"
}
