//go:build !ompi && !mpich

package mpi

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hympi/hympi/shm"
)

// TestInProcessChecksumCatchesHostileWrite: a byte flipped in shared memory between
// the send and the receive is delivered as data without HYMPI_CHECKSUM and
// is an error naming the sender and the tag with it; untouched messages of
// every eager shape pass the check.
func TestInProcessChecksumCatchesHostileWrite(t *testing.T) {
	// Where the flip lands: the inline payload in the descriptor slot, or
	// the first cell of a streamed message.
	inlineByte := func(comms []*Comm) []byte {
		slot, err := comms[1].e.inFrom(0).Cons.Peek()
		if err != nil || slot == nil {
			t.Fatalf("no published slot: %v", err)
		}
		return slot[shm.DescHeaderSize+3 : shm.DescHeaderSize+4]
	}
	cellByte := func(comms []*Comm) []byte { return comms[0].e.outTo(1).Ch.Cell(0)[100:101] }
	// The envelope: the low byte of the tag (offset 16 of the slot).
	tagByte := func(comms []*Comm) []byte {
		slot, _ := comms[1].e.inFrom(0).Cons.Peek()
		return slot[16:17]
	}
	cases := []struct {
		size     int
		checksum bool
		flip     func([]*Comm) []byte // nil: no hostile write
		wantErr  bool
	}{
		{size: 10, checksum: true},
		{size: shm.InlineMax, checksum: true},
		{size: 100_000, checksum: true},
		{size: 10, checksum: true, flip: inlineByte, wantErr: true},
		{size: 100_000, checksum: true, flip: cellByte, wantErr: true},
		{size: 10, checksum: true, flip: tagByte, wantErr: true},
		// The defect the knob answers: without it the damage is delivered.
		{size: 10, checksum: false, flip: inlineByte},
		{size: 100_000, checksum: false, flip: cellByte},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("size=%d/checksum=%v/hostile=%v", tc.size, tc.checksum, tc.flip != nil)
		t.Run(name, func(t *testing.T) {
			comms := inProcessJob(t, 2)
			for _, c := range comms {
				c.e.checksum = tc.checksum
			}
			out := make([]byte, tc.size)
			fill(out, 9)
			// Eager: the send completes with the payload in the region.
			if err := comms[0].Send(out, 1, 42); err != nil {
				t.Fatal(err)
			}
			if tc.flip != nil {
				b := tc.flip(comms)
				b[0] ^= 0x5a
			}
			in := make([]byte, tc.size)
			done := make(chan error, 1)
			go func() {
				_, err := comms[1].Recv(in, 0, 42)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("receive blocked")
			}
			switch {
			case tc.wantErr:
				if !errors.Is(err, ErrOther) || !strings.Contains(err.Error(), "rank 0 (tag ") ||
					!strings.Contains(err.Error(), "corrupted") {
					t.Fatalf("error %v, want ErrOther naming rank 0, the tag and the corruption", err)
				}
			case err != nil:
				t.Fatalf("receive: %v", err)
			case tc.flip == nil && string(in) != string(out):
				t.Fatal("payload differs")
			case tc.flip != nil && tc.checksum:
				t.Fatal("a corrupted message was delivered under HYMPI_CHECKSUM")
			case tc.flip != nil && string(in) == string(out):
				t.Fatal("the hostile write did not reach the payload: the test proves nothing")
			}
		})
	}
}

// TestInProcessChecksumCollectives: collective traffic, on the collective rings
// (small) and through cells (large), passes the check; a flipped byte on
// a collective ring is caught.
func TestInProcessChecksumCollectives(t *testing.T) {
	comms := inProcessJob(t, 3)
	for _, c := range comms {
		c.e.checksum = true
	}
	for _, n := range []int{8, 100, 200_000} {
		runRanks(t, comms, func(c *Comm) error {
			buf := make([]byte, n)
			if c.Rank() == 1 {
				fill(buf, n)
			}
			if err := c.Bcast(buf, 1); err != nil {
				return err
			}
			want := make([]byte, n)
			fill(want, n)
			if string(buf) != string(want) {
				return fmt.Errorf("bcast of %d bytes differs", n)
			}
			return c.Barrier()
		})
	}
	// Rank 0 publishes a broadcast on its collective ring toward rank 1;
	// a write lands in it before rank 1 takes it.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	slot := func() []byte {
		s, _ := comms[1].e.inFrom(0).Coll.Peek()
		return s
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[0] = comms[0].Bcast(make([]byte, 16), 0)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		comms[1].e.mu.Lock()
		s := slot()
		if s != nil {
			s[len(s)-1] ^= 0xff // past the payload: must not matter
			s[30] ^= 0xff
		}
		comms[1].e.mu.Unlock()
		if s != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("rank 0's broadcast never reached the ring")
		}
		time.Sleep(time.Millisecond)
	}
	for r := 1; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = comms[r].Bcast(make([]byte, 16), 0)
		}()
	}
	wg.Wait()
	if !errors.Is(errs[1], ErrOther) || !strings.Contains(errs[1].Error(), "from rank 0") {
		t.Fatalf("rank 1: %v, want the checksum error", errs[1])
	}
}

// BenchmarkPingPongChecksum is BenchmarkPingPong with HYMPI_CHECKSUM off
// and on: the cost of the check on eager round trips.
func BenchmarkPingPongChecksum(b *testing.B) {
	for _, sz := range []int{8, 1024, 16 << 10, 256 << 10} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("size=%d/checksum=%v", sz, on), func(b *testing.B) {
				comms := inProcessJob(b, 2)
				for _, c := range comms {
					c.e.checksum = on
				}
				buf0, buf1 := make([]byte, sz), make([]byte, sz)
				b.SetBytes(int64(2 * sz))
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < b.N; i++ {
						comms[1].Recv(buf1, 0, 1)
						comms[1].Send(buf1, 0, 1)
					}
				}()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					comms[0].Send(buf0, 1, 1)
					comms[0].Recv(buf0, 1, 1)
				}
				wg.Wait()
			})
		}
	}
}
