package shm

import (
	"fmt"
	"math/bits"
)

// Re-validation of the parts of a region that are checked once (the header,
// at Attach) or never read as data (rank blocks), for a rank that has been
// waiting long enough to suspect that something overwrote them. A blocked
// wait calls these at a bounded interval (mpi: engine.sweep): a hostile or
// accidental write there must become an error, not an endless wait.

// CheckHeader reports whether the header still describes the layout this
// process attached with.
func (r *Region) CheckHeader() error {
	l, err := decodeHeader(r.mem)
	if err != nil {
		return fmt.Errorf("%w: header overwritten: %v", ErrCorrupt, err)
	}
	if l != r.L {
		return fmt.Errorf("%w: header now describes another layout", ErrCorrupt)
	}
	return nil
}

// CheckRankBlock validates the fields of rank's block that have a known
// range: the life state is one of the states, and no bit of the summary or
// the direct-copy bitmap names a rank the job does not have (no sender can
// set such a bit).
func (r *Region) CheckRankBlock(rank int) error {
	if s := r.RankState(rank); s > StateAborted {
		return fmt.Errorf("%w: rank %d's block holds state %d", ErrCorrupt, rank, uint32(s))
	}
	spare := r.L.SummaryWords*64 - r.L.Ranks
	if spare == 0 {
		return nil
	}
	// Bits Ranks..64·SummaryWords-1 of the last word must stay clear.
	mask := ^uint64(0) << (64 - spare)
	last := r.L.SummaryWords - 1
	for _, set := range []struct {
		name string
		s    Summary
	}{{"summary", r.Summary(rank)}, {"direct-copy bitmap", r.DirectBits(rank)}} {
		if w := set.s.Word(last) & mask; w != 0 {
			return fmt.Errorf("%w: rank %d's %s names rank %d of %d", ErrCorrupt, rank, set.name,
				last*64+bits.TrailingZeros64(w), r.L.Ranks)
		}
	}
	return nil
}
