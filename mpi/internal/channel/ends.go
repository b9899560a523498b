package channel

import (
	"github.com/hympi/hympi/mpi/internal/proto"
	"github.com/hympi/hympi/shm"
)

// Out is this rank's sending end toward one peer. Its channel is made by
// the first send (package mpi's openOut); until then Ch, Prod, Pool and
// CollProd are unset.
type Out[R any] struct {
	Peer    int
	Ch      shm.Channel
	Prod    *shm.Producer
	Pool    *shm.CellPool
	Summary shm.Summary  // the peer's
	Bell    shm.Doorbell // the peer's
	// Queued sends, oldest first; Head may be half sent. The link from one
	// to the next lives in the request.
	Head, Tail *R
	Ctl        []shm.Desc // acknowledgements and replies waiting for a slot
	Queued     bool       // on the engine's list of ends with something to push
	// The collective microchannel and the collective sends waiting for
	// one of its slots, oldest first.
	CollProd *shm.Producer
	CollQ    []*R
}

// Notify tells the peer that its channel from us has something: mark the
// summary (an atomic OR only if the bit is clear) and ring the doorbell (a
// syscall only if the peer sleeps).
func (oc *Out[R]) Notify(self int) {
	oc.Summary.Mark(self)
	oc.Bell.Ring()
}

// In is this rank's receiving end from one peer, made when its channel is
// first found.
type In[R, U any] struct {
	Peer    int
	Ch      shm.Channel
	Cons    *shm.Consumer
	Returns *shm.ReturnRing
	Lim     shm.Limits
	Bell    shm.Doorbell        // the sender's: it may wait for cells or slots
	Cur     *proto.Flight[R, U] // message whose fragments are still arriving
	Idle    int                 // consecutive empty polls
	Coll    *shm.Consumer       // the collective microchannel
}
