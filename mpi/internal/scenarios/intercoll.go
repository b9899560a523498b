package main

import (
	"encoding/binary"

	"github.com/hympi/hympi/internal/cabi"
	"github.com/hympi/hympi/mpi"
)

func init() {
	// Collectives on an intercommunicator between world ranks [0, k) and
	// the rest (k is 1, or 2 from 5 ranks on): every kind, blocking,
	// nonblocking and persistent, against a serial reference built from
	// world ranks; and each again through the ordinary methods (Barrier,
	// Ibcast, GatherInit, ...), which on an intercommunicator run the same
	// collective.
	register("intercoll", func(w *mpi.Comm) {
		r, n := w.Rank(), w.Size()
		if n < 2 {
			return
		}
		k := 1
		if n >= 5 {
			k = 2
		}
		color := 0
		if r >= k {
			color = 1
		}
		local, err := w.Split(color, r)
		must(err, "Split")
		leader := k
		if color == 1 {
			leader = 0
		}
		ic, err := local.IntercommCreate(0, w, leader, 9)
		must(err, "IntercommCreate")
		nl, nr, me := ic.Size(), ic.RemoteSize(), ic.Rank()
		remote := func(j int) int { // world rank of remote rank j
			if color == 0 {
				return k + j
			}
			return j
		}
		word := func(w, i int) int32 { return int32(w*100 + i + 1) }
		ints := func(v ...int32) []byte {
			b := make([]byte, 4*len(v))
			for i, x := range v {
				binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
			}
			return b
		}
		at := func(b []byte, i int) int32 { return int32(binary.LittleEndian.Uint32(b[4*i:])) }
		// methods is a's collective through the ordinary methods: its
		// blocking, nonblocking and persistent forms.
		methods := func(a cabi.InterArgs) (func() error, func() (*mpi.Request, error), func() (*mpi.Persistent, error)) {
			switch a.Kind {
			case cabi.InterBarrier:
				return ic.Barrier, ic.Ibarrier, ic.BarrierInit
			case cabi.InterBcast:
				return func() error { return ic.Bcast(a.Send, a.Root) },
					func() (*mpi.Request, error) { return ic.Ibcast(a.Send, a.Root) },
					func() (*mpi.Persistent, error) { return ic.BcastInit(a.Send, a.Root) }
			case cabi.InterGather:
				return func() error { return ic.Gather(a.Send, a.Recv, a.Root) },
					func() (*mpi.Request, error) { return ic.Igather(a.Send, a.Recv, a.Root) },
					func() (*mpi.Persistent, error) { return ic.GatherInit(a.Send, a.Recv, a.Root) }
			case cabi.InterAllreduce:
				return func() error { return ic.Allreduce(a.Send, a.Recv, a.Datatype, a.Op) },
					func() (*mpi.Request, error) { return ic.Iallreduce(a.Send, a.Recv, a.Datatype, a.Op) },
					func() (*mpi.Persistent, error) { return ic.AllreduceInit(a.Send, a.Recv, a.Datatype, a.Op) }
			case cabi.InterReduceScatter:
				return func() error { return ic.ReduceScatter(a.Send, a.Recv, a.RecvCounts, a.Datatype, a.Op) },
					func() (*mpi.Request, error) {
						return ic.IreduceScatter(a.Send, a.Recv, a.RecvCounts, a.Datatype, a.Op)
					},
					func() (*mpi.Persistent, error) {
						return ic.ReduceScatterInit(a.Send, a.Recv, a.RecvCounts, a.Datatype, a.Op)
					}
			case cabi.InterAlltoallv:
				return func() error {
						return ic.Alltoallv(a.Send, a.SendCounts, a.SendDispls, a.Recv, a.RecvCounts, a.RecvDispls)
					}, func() (*mpi.Request, error) {
						return ic.Ialltoallv(a.Send, a.SendCounts, a.SendDispls, a.Recv, a.RecvCounts, a.RecvDispls)
					}, func() (*mpi.Persistent, error) {
						return ic.AlltoallvInit(a.Send, a.SendCounts, a.SendDispls, a.Recv, a.RecvCounts, a.RecvDispls)
					}
			}
			fail("no ordinary method for kind %d", a.Kind)
			return nil, nil, nil
		}
		// run runs a in each form, resetting with fill before each run:
		// through InterColl and its twins, then through the methods.
		run := func(a cabi.InterArgs, fill func(), check func(form string)) {
			block, start, bind := methods(a)
			fill()
			must(block(), "method kind %d", a.Kind)
			check("method blocking")
			fill()
			rq, err := start()
			must(err, "I-method kind %d", a.Kind)
			_, err = rq.Wait()
			must(err, "I-method kind %d: Wait", a.Kind)
			check("method nonblocking")
			p, err := bind()
			must(err, "Init method kind %d", a.Kind)
			fill()
			_, err = p.Start()
			must(err, "Start kind %d", a.Kind)
			_, err = p.Wait()
			must(err, "Wait kind %d", a.Kind)
			check("method persistent")
			must(p.Free(), "Free")
			fill()
			must(cabi.InterColl(ic, a), "InterColl kind %d", a.Kind)
			check("blocking")
			fill()
			rq, err = cabi.IinterColl(ic, a)
			must(err, "IinterColl kind %d", a.Kind)
			_, err = rq.Wait()
			must(err, "IinterColl kind %d: Wait", a.Kind)
			check("nonblocking")
			p, err = cabi.InterCollInit(ic, a)
			must(err, "InterCollInit kind %d", a.Kind)
			for range 2 {
				fill()
				_, err := p.Start()
				must(err, "Start kind %d", a.Kind)
				_, err = p.Wait()
				must(err, "Wait kind %d", a.Kind)
				check("persistent")
			}
			must(p.Free(), "Free")
		}
		run(cabi.InterArgs{Kind: cabi.InterBarrier}, func() {}, func(string) {})

		// Bcast from the last rank of the second group.
		root := mpi.ProcNull
		if color == 0 {
			root = n - k - 1
		} else if me == nl-1 {
			root = mpi.Root
		}
		buf := make([]byte, 12)
		run(cabi.InterArgs{Kind: cabi.InterBcast, Root: root, Send: buf, Recv: buf}, func() {
			copy(buf, ints(-1, -1, -1))
			if root == mpi.Root {
				copy(buf, ints(word(r, 0), word(r, 1), word(r, 2)))
			}
		}, func(form string) {
			for i := range 3 {
				want := int32(-1)
				switch root {
				case mpi.Root:
					want = word(r, i)
				case mpi.ProcNull:
				default:
					want = word(n-1, i)
				}
				if at(buf, i) != want {
					fail("%s Bcast: int %d is %d, want %d", form, i, at(buf, i), want)
				}
			}
		})

		// Gather to the first rank of the first group.
		groot := 0
		if color == 0 {
			groot = mpi.ProcNull
			if me == 0 {
				groot = mpi.Root
			}
		}
		send := ints(word(r, 0), word(r, 1))
		recv := make([]byte, 8*nr)
		run(cabi.InterArgs{Kind: cabi.InterGather, Root: groot, Send: send, Recv: recv}, func() { clear(recv) }, func(form string) {
			for j := range nr {
				for i := range 2 {
					if groot == mpi.Root && at(recv, 2*j+i) != word(remote(j), i) {
						fail("%s Gather: block %d int %d is %d", form, j, i, at(recv, 2*j+i))
					}
				}
			}
		})

		// Allreduce (sum) and ReduceScatter with uneven blocks.
		sum := make([]byte, 8)
		run(cabi.InterArgs{Kind: cabi.InterAllreduce, Send: send, Recv: sum, Datatype: mpi.Int32, Op: mpi.Sum},
			func() { clear(sum) }, func(form string) {
				for i := range 2 {
					var want int32
					for j := range nr {
						want += word(remote(j), i)
					}
					if at(sum, i) != want {
						fail("%s Allreduce: int %d is %d, want %d", form, i, at(sum, i), want)
					}
				}
			})
		total := 2 * k * (n - k)
		vec := make([]int32, total)
		for i := range vec {
			vec[i] = word(r, i)
		}
		counts, off, mine := make([]int, nl), 0, 0
		for i := range nl {
			c := i + 1
			if i == nl-1 {
				c = total - off
			}
			if i == me {
				mine = off
			}
			counts[i] = 4 * c
			off += c
		}
		part := make([]byte, counts[me])
		run(cabi.InterArgs{Kind: cabi.InterReduceScatter, Send: ints(vec...), Recv: part, RecvCounts: counts,
			Datatype: mpi.Int32, Op: mpi.Sum}, func() { clear(part) }, func(form string) {
			for i := range counts[me] / 4 {
				var want int32
				for j := range nr {
					want += word(remote(j), mine+i)
				}
				if at(part, i) != want {
					fail("%s ReduceScatter: int %d is %d, want %d", form, i, at(part, i), want)
				}
			}
		})

		// Alltoallv: (me + j) % 3 ints to remote rank j, from 3j.
		out := make([]int32, 3*nr)
		sc, sd, rc, rd := make([]int, nr), make([]int, nr), make([]int, nr), make([]int, nr)
		for j := range nr {
			for i := range 3 {
				out[3*j+i] = word(r, 3*j+i)
			}
			sc[j], sd[j] = 4*((me+j)%3), 12*j
			rc[j], rd[j] = 4*((j+me)%3), 12*(nr-1-j)
		}
		in := make([]byte, 12*nr)
		run(cabi.InterArgs{Kind: cabi.InterAlltoallv, Send: ints(out...), Recv: in, SendCounts: sc, SendDispls: sd,
			RecvCounts: rc, RecvDispls: rd}, func() { clear(in) }, func(form string) {
			for j := range nr {
				for i := range rc[j] / 4 {
					if got := at(in, rd[j]/4+i); got != word(remote(j), 3*me+i) {
						fail("%s Alltoallv: from %d int %d is %d", form, j, i, got)
					}
				}
			}
		})

		// Alltoallw: the same exchange counted in int16s sent and bytes
		// received, through its three forms.
		wsc, wrc := make([]int, nr), make([]int, nr)
		st, rt := make([]mpi.Datatype, nr), make([]mpi.Datatype, nr)
		for j := range nr {
			wsc[j], st[j], wrc[j], rt[j] = sc[j]/2, mpi.Int16, rc[j], mpi.Byte
		}
		wsend := ints(out...)
		checkW := func(form string) {
			for j := range nr {
				for i := range rc[j] / 4 {
					if got := at(in, rd[j]/4+i); got != word(remote(j), 3*me+i) {
						fail("%s Alltoallw: from %d int %d is %d", form, j, i, got)
					}
				}
			}
		}
		clear(in)
		must(ic.Alltoallw(wsend, wsc, sd, st, in, wrc, rd, rt), "Alltoallw")
		checkW("blocking")
		clear(in)
		wq, err := ic.Ialltoallw(wsend, wsc, sd, st, in, wrc, rd, rt)
		must(err, "Ialltoallw")
		_, err = wq.Wait()
		must(err, "Ialltoallw: Wait")
		checkW("nonblocking")
		wp, err := ic.AlltoallwInit(wsend, wsc, sd, st, in, wrc, rd, rt)
		must(err, "AlltoallwInit")
		for range 2 {
			clear(in)
			_, err = wp.Start()
			must(err, "AlltoallwInit: Start")
			_, err = wp.Wait()
			must(err, "AlltoallwInit: Wait")
			checkW("persistent")
		}
		must(wp.Free(), "Free")

		// Bad arguments: nothing sent, the right class.
		if err := cabi.InterColl(ic, cabi.InterArgs{Kind: cabi.InterBcast, Root: nr, Send: buf, Recv: buf}); mpi.ClassOf(err) != mpi.ErrRoot {
			fail("Bcast with root %d: %v", nr, err)
		}
		if err := cabi.InterColl(w, cabi.InterArgs{Kind: cabi.InterBarrier}); mpi.ClassOf(err) != mpi.ErrComm {
			fail("InterColl on an intracommunicator: %v", err)
		}
		if err := ic.Scan(send, sum, mpi.Int32, mpi.Sum); mpi.ClassOf(err) != mpi.ErrComm {
			fail("Scan on an intercommunicator: %v", err)
		}
		if _, err := ic.Iexscan(send, sum, mpi.Int32, mpi.Sum); mpi.ClassOf(err) != mpi.ErrComm {
			fail("Iexscan on an intercommunicator: %v", err)
		}
		if _, err := ic.ScanInit(send, sum, mpi.Int32, mpi.Sum); mpi.ClassOf(err) != mpi.ErrComm {
			fail("ScanInit on an intercommunicator: %v", err)
		}
		if err := ic.Bcast(buf, nr); mpi.ClassOf(err) != mpi.ErrRoot {
			fail("Bcast method with root %d: %v", nr, err)
		}
		must(ic.Free(), "Free")
		must(local.Free(), "Free local")
	})
}
