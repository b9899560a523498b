package peer

import (
	"time"

	"github.com/hympi/hympi/shm"
	"github.com/hympi/hympi/skew"
)

// Skew is the skew feedback state toward one peer. Package mpi's skew code
// reads and moves it; it lives here so an endpoint is a table of plain
// per-peer records.
type Skew struct {
	Ready     bool            // set up (setupSkew): thresholds are known
	Ctrl      skew.Controller // our threshold toward the peer, as sender
	FbIn      shm.Feedback    // channel us→peer: written by the peer, read by us
	FbOut     shm.Feedback    // channel peer→us: written by us
	Base      int             // topology threshold
	SeenU     uint32          // peer's count of our messages that waited, at our last look
	SeenX     uint32          // peer's count of our messages that found their receive, at our last look
	Streak    int             // consecutive large messages from the peer that waited for us
	LastDone  time.Duration   // when its last large message completed here (since epoch)
	BlockDone time.Duration   // engine.blocked at LastDone
	LastPost  time.Duration   // when the application last posted a receive for a large message from it
	BurstAway bool            // the verdict of the first post since LastDone, shared by the posts after it
	Unread    int             // our rendezvous sends to the peer not yet finished (backlogEager)
	Dir       TwoWay          // whether large messages flow both ways (backlogEager, postVerdict)
	BothEager int             // bytes the backlog sent eager both ways since Unread was last 0
}
