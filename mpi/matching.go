//go:build !ompi && !mpich

package mpi

import "github.com/hympi/hympi/mpi/internal/match"

// The engine's side of matching (internal/match holds the queues): what an
// unexpected message carries besides its envelope, and the queue type over
// the engine's requests and messages.

// queues are one context's posted receives and unexpected messages.
type queues = match.Queues[Request, unexpected]

// The wildcards are the matching package's; a change to either side that
// made them differ would break matching, so it does not compile.
var (
	_ [AnySource - match.AnySource]struct{}
	_ [match.AnySource - AnySource]struct{}
	_ [AnyTag - match.AnyTag]struct{}
	_ [match.AnyTag - AnyTag]struct{}
)

// unexpected is a message that arrived before its receive. Its payload is
// copied out of the channel into data (so cells go back to the sender at
// once); a message still streaming in has flight set.
type unexpected struct {
	// The envelope (Src, Tag) and the links of the unexpected lists.
	match.Arrived[unexpected]

	ctx     uint32
	length  int
	data    []byte // len == length; filled up to flight progress
	flight  *inflight
	arrival uint64

	// A rendezvous message: the payload is at rtsAddr in the sender, whose
	// request rtsID waits for our FIN.
	rtsAddr uint64
	rtsID   uint64

	// Synchronous-send bookkeeping: who to tell when this is matched.
	syncID     uint64   // remote sender's request id (0: none)
	selfSender *Request // local sender (self-send), completed on match
}
