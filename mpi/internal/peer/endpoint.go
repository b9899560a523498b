package peer

import "github.com/hympi/hympi/mpi/internal/channel"

// Endpoint is everything a rank keeps about one peer: the channels to and
// from it, whether the peer can read our memory, the skew feedback toward
// it and its counters (C, package mpi's public PeerCounters). It is made
// the first time the engine deals with the peer (a send, a message from
// it, a question about it), so a rank that talks to a few peers of a large
// job holds a few endpoints; its channels are made later still, by the
// first message each way.
type Endpoint[R, U, C any] struct {
	Peer     int
	Out      *channel.Out[R]   // nil for this rank itself; its channel opens on the first send
	In       *channel.In[R, U] // nil until the peer's channel to us is found
	Counters C
	DirectOK bool // the peer can read our memory
	Sk       Skew
}

// Table is a rank's endpoints by world rank, nil until first use.
type Table[R, U, C any] []*Endpoint[R, U, C]

// Add makes the endpoint of world rank p with its first counters and, for
// another rank of a job with a region, its sending end toward the peer's
// summary and doorbell (out); the caller fills in what it learns about the
// peer.
func (t Table[R, U, C]) Add(p int, counters C, out *channel.Out[R]) *Endpoint[R, U, C] {
	x := &Endpoint[R, U, C]{Peer: p, Out: out, Counters: counters}
	t[p] = x
	return x
}
