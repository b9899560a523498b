//go:build !ompi && !mpich

package mpi

import (
	"fmt"

	"github.com/hympi/hympi/shm"
)

// End-to-end checksums (HYMPI_CHECKSUM=1), for users who suspect memory
// corruption: every descriptor and every eager payload (inline, in cells, on
// a collective ring) carries a CRC-32C computed by the sender from its own
// buffer. The receiver checks it before it acts on the descriptor, on a
// private copy of the payload that it then delivers: a write into the region
// between a check of the region's bytes and their delivery would go unseen.
// The sum covers the envelope too (shm.MessageSum), so a write that
// re-addresses a message is caught like one that changes its bytes. A
// mismatch fails the job's MPI calls with a readable error naming the sender
// and the tag. Off by default: then no sum is computed, stored or read, and
// the cost is one predictable branch per descriptor. Direct copies
// (process_vm_readv) are not covered: their data never rests in the region.

// checkSum verifies a validated descriptor from ic, envelope and payload
// (which lies in the region), against the sum its sender stored, and
// returns the payload to deliver: a private copy, taken before the check,
// so that no write into the region after the check can reach the receiver.
func (e *engine) checkSum(ic *inChan, slot []byte, d *shm.Desc, payload []byte) ([]byte, error) {
	if len(payload) > 0 {
		if cap(e.sumBuf) < len(payload) {
			e.sumBuf = make([]byte, max(len(payload), e.region.L.CellSize, shm.InlineMax))
		}
		payload = e.sumBuf[:copy(e.sumBuf[:len(payload)], payload)]
	}
	if got, want := shm.MessageSum(d, payload), shm.DescSum(slot); got != want {
		return nil, e.sumMismatch(ic.Peer, d.Tag, got, want)
	}
	return payload, nil
}

// sumMismatch records a corrupted payload as the engine's fatal error.
func (e *engine) sumMismatch(src int, tag int32, got, want uint32) error {
	err := &Error{Class: ErrOther, Op: "progress", Msg: fmt.Sprintf(
		"HYMPI_CHECKSUM: a message from rank %d (tag %d) was corrupted in shared memory, payload or envelope (CRC-32C %08x, sender's %08x)",
		src, tag, got, want)}
	if e.fatal == nil {
		e.fatal = err
	}
	return err
}
