//go:build !ompi && !mpich

package mpi

// PeerCounters is what the transport did toward one peer since Init.
type PeerCounters struct {
	Peer                    int
	Relation                string // "self", or how the two ranks share the machine
	Threshold               int    // bytes; current eager→direct switch point toward this peer
	EagerMsgs, DirectMsgs   uint64 // messages sent to this peer by each protocol
	EagerBytes, DirectBytes uint64
	SkewRaises, SkewLowers  uint64 // threshold moves caused by skew feedback
}

// Counters reports the transport counters toward world rank peer. An invalid
// peer, or a call outside Init..Finalize, yields a zero value with Peer set.
func Counters(peer int) PeerCounters {
	e := theEngine
	if e == nil || peer < 0 || peer >= e.size {
		return PeerCounters{Peer: peer}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.ep(peer).Counters
	if e.fl != nil {
		m, b := e.fl.CSent(peer)
		c.EagerMsgs += m
		c.EagerBytes += b
	}
	return c
}
