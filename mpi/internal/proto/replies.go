package proto

// Replies is the table of requests waiting for a peer's reply by id: a
// synchronous send for its ACK, a rendezvous send for its FIN or NACK, a
// send being cancelled for the answer. The id travels in a descriptor and
// comes back in one the peer wrote, so Take treats it as untrusted: the low
// 32 bits index the table (bounds-checked), the high bits are a generation,
// so a stale or forged id cannot complete a later request that reused the
// slot.
type Replies[R any] struct {
	slots []replySlot[R]
	free  []uint64
	gen   uint64
}

type replySlot[R any] struct {
	r  *R
	id uint64
}

// Register files r and returns the id its reply will carry (never 0).
func (t *Replies[R]) Register(r *R) uint64 {
	var i uint64
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		i = uint64(len(t.slots))
		t.slots = append(t.slots, replySlot[R]{})
	}
	t.gen++
	id := t.gen<<32 | (i + 1)
	t.slots[i] = replySlot[R]{r: r, id: id}
	return id
}

// Take removes and returns the request waiting for a reply with this id,
// or nil for a late, repeated or forged id.
func (t *Replies[R]) Take(id uint64) *R {
	i := id&0xffffffff - 1
	if i >= uint64(len(t.slots)) || t.slots[i].r == nil || t.slots[i].id != id {
		return nil
	}
	r := t.slots[i].r
	t.slots[i] = replySlot[R]{}
	t.free = append(t.free, i)
	return r
}
