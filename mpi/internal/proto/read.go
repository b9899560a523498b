// Package proto owns the state machines of hympi's message protocols that
// need nothing of the engine's own types:
//
//   - the eager protocol's framing (eager.go): what the descriptor of each
//     kind carries, how a message is cut into an inline descriptor or a
//     stream of cell fragments, and the receiver's check and reassembly of
//     that stream (Flight);
//   - Read: the receiving side of the direct (rendezvous) protocol, a
//     matched RTS whose payload this rank reads out of the sender's memory
//     with process_vm_readv, one segment per progress pass, before it
//     answers FIN (or NACK, when the kernel refuses and the sender must
//     stream the payload through cells instead);
//   - Replies: the sending side's table of requests waiting for a peer's
//     reply (ACK, FIN, NACK, cancel answer) by generation-stamped id.
//
// Package mpi matches envelopes, owns the requests and sends the replies;
// these types carry the protocol state between those points.
package proto

import "github.com/hympi/hympi/shm"

// Segment is the most one process_vm_readv moves. It bounds how long a
// progress pass spends on one transfer, and it is also much faster than one
// big call: on the development machine (2-core Xeon VM, 2 MiB L2 per core)
// 1–4 MiB messages read in 256 KiB segments ran at 22–23 GB/s against
// 10 GB/s in 1 MiB calls; 128 KiB was as good, 512 KiB slightly worse.
const Segment = 256 << 10

// SegmentAlone is the segment of a read that is the only one pending
// (ping-pong, a broadcast's single transfer): four times fewer calls and
// progress passes. osu_latency 2 MiB: 199 → 182 µs, 4 MiB 438 → 410 µs
// (Open MPI, one call per message: 183 and 387). With several reads
// pending (osu_bw's window) 1 MiB calls lost a quarter of the bandwidth,
// as above, so they keep Segment. It is at most directcopy's raw-call
// limit, so the call stays invisible to the scheduler.
const SegmentAlone = 1 << 20

// Read is a matched RTS whose payload is being read into the receive Req.
type Read[R any] struct {
	Req      *R
	Peer     int // the sender's world rank
	Total    int // message length
	Tag      int32
	SenderID uint64 // the sender's request, named in the FIN or NACK

	buf  []byte // the receive's buffer
	pid  int
	addr uint64
	want int // bytes to read: min(Total, len(buf))
	off  int
}

// NewRead starts reading the message whose RTS is d, from world rank peer
// running as process pid, into buf, the buffer of receive req.
func NewRead[R any](req *R, buf []byte, peer, pid int, d *shm.Desc) *Read[R] {
	return &Read[R]{
		Req: req, Peer: peer, Total: int(d.MsgLen), Tag: d.Tag, SenderID: d.ReqID,
		buf: buf, pid: pid, addr: d.Addr, want: min(int(d.MsgLen), len(buf)),
	}
}

// Step reads the next segment with readFrom (directcopy.ReadFrom, or a
// test's stand-in), the larger one when the read is alone, and reports
// whether the transfer is over: every byte it wants read, or a refusal
// (err), after which the caller falls back to a resend.
func (rd *Read[R]) Step(alone bool, readFrom func(pid int, local []byte, remote uintptr) error) (over bool, err error) {
	if rd.off >= rd.want {
		return true, nil
	}
	seg := Segment
	if alone {
		seg = SegmentAlone
	}
	n := min(seg, rd.want-rd.off)
	if err := readFrom(rd.pid, rd.buf[rd.off:rd.off+n], uintptr(rd.addr)+uintptr(rd.off)); err != nil {
		return true, err
	}
	rd.off += n
	return rd.off >= rd.want, nil
}
