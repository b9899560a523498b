package peer

// TwoWay tells whether large messages lately flow both ways between this
// rank and one peer.
//
// Why it matters: where process_vm_readv is slower than a memory copy
// (directcopy.SlowReads), the skew feedback sends a backlog of large
// messages eagerly because the sender's copy into the cells and the
// receiver's copy out of them run on two cores at once, where a queue of
// reads runs on the receiver's core alone. That holds only while the
// sender's core has nothing else to do. When the peer sends as much back
// (osu_bibw, a halo exchange) both cores are already busy with their own
// receives, an eager message costs each of them two copies instead of one
// read, and the stream through the shared cells evicts the buffers the
// reads would have found in cache: on the 2-vCPU AMD EPYC VM of issue 17,
// osu_bibw ran at about half its pure-rendezvous rate in auto mode.
//
// Each direction keeps a credit: a large message that way adds two, one
// the other way takes one away (down to 0, up to twoWayCap). Both credits
// stay positive while the peer sends at least half as many large messages
// as we do and we send at least half as many as it does; a one-way stream
// with a reply now and then drains one credit within a few messages.
type TwoWay struct {
	in, out int32
}

// twoWayCap bounds a credit, so a long one-way stream followed by traffic
// the other way turns around within a window of messages.
const twoWayCap = 256

// Sent notes a large message to the peer.
func (t *TwoWay) Sent() {
	t.out = min(t.out+2, twoWayCap)
	t.in = max(t.in-1, 0)
}

// Received notes a large message from the peer.
func (t *TwoWay) Received() {
	t.in = min(t.in+2, twoWayCap)
	t.out = max(t.out-1, 0)
}

// Both says whether large messages lately flow both ways.
func (t *TwoWay) Both() bool { return t.in > 0 && t.out > 0 }
