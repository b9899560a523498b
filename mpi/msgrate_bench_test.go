//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkMessageRate is osu_bw's loop at small sizes, where the cost is
// per message rather than per byte: a window of 64 Isends answered by 64
// posted Irecvs, then a 4-byte ack. It drives the allocation-free entry
// points the C ABI uses (IsendIn, IrecvIn, WaitallInto), so the steady
// state must report 0 allocs/op; ns/op is per window of 64 messages. As
// with BenchmarkPingPong, both ranks are goroutines of one process: the
// figure is for comparing builds (make bench-compare), not hardware.
func BenchmarkMessageRate(b *testing.B) {
	const window = 64
	for _, sz := range []int{8, 1024} {
		b.Run(fmt.Sprintf("size=%d", sz), func(b *testing.B) {
			comms := inProcessJob(b, 2)
			sbuf, rbuf, ack := make([]byte, sz), make([]byte, sz), make([]byte, 4)
			b.SetBytes(int64(window * sz))
			b.ReportAllocs()
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				reqs := make([]*Request, window)
				sts, errs := make([]Status, window), make([]error, window)
				for i := 0; i < b.N; i++ {
					for w := range reqs {
						reqs[w], _ = comms[1].irecvIn(reqs[w], rbuf, 0, 1)
					}
					waitallInto(reqs, sts, errs)
					comms[1].Send(ack, 0, 2)
				}
			}()
			reqs := make([]*Request, window)
			sts, errs := make([]Status, window), make([]error, window)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for w := range reqs {
					reqs[w], _ = comms[0].isendIn(reqs[w], sbuf, 1, 1)
				}
				waitallInto(reqs, sts, errs)
				comms[0].Recv(ack, 1, 2)
			}
			wg.Wait()
		})
	}
}

// BenchmarkMessageRatePlain is BenchmarkMessageRate through the plain
// Isend, Irecv and Waitall a Go program calls: a fresh request per
// message (cut from a slab, so allocs/op is a few per window, not 64) and
// Waitall's status slice.
func BenchmarkMessageRatePlain(b *testing.B) {
	const window = 64
	for _, sz := range []int{8, 1024} {
		b.Run(fmt.Sprintf("size=%d", sz), func(b *testing.B) {
			comms := inProcessJob(b, 2)
			sbuf, rbuf, ack := make([]byte, sz), make([]byte, sz), make([]byte, 4)
			b.SetBytes(int64(window * sz))
			b.ReportAllocs()
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				reqs := make([]*Request, window)
				for i := 0; i < b.N; i++ {
					for w := range reqs {
						reqs[w], _ = comms[1].Irecv(rbuf, 0, 1)
					}
					Waitall(reqs)
					comms[1].Send(ack, 0, 2)
				}
			}()
			reqs := make([]*Request, window)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for w := range reqs {
					reqs[w], _ = comms[0].Isend(sbuf, 1, 1)
				}
				Waitall(reqs)
				comms[0].Recv(ack, 1, 2)
			}
			wg.Wait()
		})
	}
}
