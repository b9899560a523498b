//go:build !ompi && !mpich

package mpi

import (
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
)

// TestInProcessMprobeRace: on every rank a goroutine taking messages with
// Mprobe + Message.Recv and one taking them with Recv share the same
// envelope; every message must be received exactly once.
func TestInProcessMprobeRace(t *testing.T) {
	comms := inProcessJob(t, 3)
	const perPeer = 200
	runRanks(t, comms, func(c *Comm) error {
		n := c.Size()
		var mu sync.Mutex
		seen := map[uint32]int{}
		record := func(b []byte) {
			mu.Lock()
			seen[binary.LittleEndian.Uint32(b)]++
			mu.Unlock()
		}
		total := perPeer * n
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		var taken sync.Mutex
		left := total
		claim := func() bool {
			taken.Lock()
			defer taken.Unlock()
			if left == 0 {
				return false
			}
			left--
			return true
		}
		wg.Add(3)
		go func() { // sender
			defer wg.Done()
			for k := range perPeer {
				for p := range n {
					b := make([]byte, 4+k%64)
					binary.LittleEndian.PutUint32(b, uint32(c.Rank()<<16|k))
					if err := c.Send(b, p, 1); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
		go func() { // matched probe
			defer wg.Done()
			for claim() {
				m, st, err := c.Mprobe(AnySource, 1)
				if err != nil {
					errs <- err
					return
				}
				b := make([]byte, st.Count)
				if _, err := m.Recv(b); err != nil {
					errs <- err
					return
				}
				record(b)
			}
		}()
		go func() { // plain receive
			defer wg.Done()
			for claim() {
				b := make([]byte, 128)
				st, err := c.Recv(b, AnySource, 1)
				if err != nil {
					errs <- err
					return
				}
				record(b[:st.Count])
			}
		}()
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return err
		}
		if len(seen) != total {
			return fmt.Errorf("%d distinct messages of %d", len(seen), total)
		}
		for id, k := range seen {
			if k != 1 {
				return fmt.Errorf("message %#x received %d times", id, k)
			}
		}
		return nil
	})
}

// TestInProcessCancelSend: a synchronous send nobody receives is cancelled
// once the receiver answers; the receiver never sees it.
func TestInProcessCancelSend(t *testing.T) {
	comms := inProcessJob(t, 2)
	runRanks(t, comms, func(c *Comm) error {
		peer := 1 - c.Rank()
		r, err := c.Issend([]byte("never"), peer, 3)
		if err != nil {
			return err
		}
		if r.cancelSend() {
			return fmt.Errorf("a published synchronous send cancelled without asking the receiver")
		}
		if err := c.Barrier(); err != nil { // both ranks progress here
			return err
		}
		st, err := r.Wait()
		if err != nil || !st.Cancelled {
			return fmt.Errorf("Wait after cancelSend: %+v, %v", st, err)
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if _, ok, err := c.Iprobe(peer, 3); err != nil || ok {
			return fmt.Errorf("the cancelled message is still there (%v, %v)", ok, err)
		}
		// An eager send already delivered is not cancelled.
		r, err = c.Isend([]byte("kept"), peer, 4)
		if err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		r.cancelSend()
		st, err = r.Wait()
		if err != nil || st.Cancelled {
			return fmt.Errorf("delivered eager send: %+v, %v", st, err)
		}
		b := make([]byte, 4)
		if _, err := c.Recv(b, peer, 4); err != nil || string(b) != "kept" {
			return fmt.Errorf("delivered eager send: got %q, %v", b, err)
		}
		return nil
	})
}
