//go:build !ompi && !mpich

package mpi

import (
	"slices"
	"testing"
)

// TestCStartAdaptive drives the C ABI's nonblocking starts (takeDone after
// the start, as cmd/libmpi_abi does) through the ways their collectives
// complete, and checks where each start stops: at once while the
// communicator's collectives are waited for, deferring the receives once
// a test completed one, back at once after a wait had to.
func TestCStartAdaptive(t *testing.T) {
	old := collStartsComplete
	collStartsComplete = true
	defer func() { collStartsComplete = old }()
	comms := inProcessJob(t, 2)
	send := [2][]byte{putInt64s([]int64{1, 20}), putInt64s([]int64{300, 4000})}
	want := []int64{301, 4020}
	steps := []struct {
		name        string
		peerFirst   bool   // rank 1's message is there before rank 0 starts
		finish      string // how rank 0 completes a start takeDone left: "test" or "wait"
		doneAtStart bool
		deferAfter  bool
	}{
		{"waited, message there: complete at start", true, "", true, false},
		{"message late, completed by a test", false, "test", false, true},
		{"after a test: the start defers though the message is there", true, "test", false, true},
		{"deferred, then waited for", true, "wait", false, false},
		{"after a wait: complete at start again", true, "", true, false},
		{"message late, completed by a wait", false, "wait", false, false},
	}
	for _, st := range steps {
		recv := [2][]byte{make([]byte, 16), make([]byte, 16)}
		var r1 *Request
		var err error
		if st.peerFirst {
			if r1, err = comms[1].Iallreduce(send[1], recv[1], Int64, Sum); err != nil {
				t.Fatalf("%s: rank 1: %v", st.name, err)
			}
		}
		r0, err := comms[0].Iallreduce(send[0], recv[0], Int64, Sum)
		if err != nil {
			t.Fatalf("%s: rank 0: %v", st.name, err)
		}
		done := r0.takeDone()
		if done != st.doneAtStart {
			t.Errorf("%s: complete at start %v, want %v", st.name, done, st.doneAtStart)
		}
		if !st.peerFirst {
			if r1, err = comms[1].Iallreduce(send[1], recv[1], Int64, Sum); err != nil {
				t.Fatalf("%s: rank 1: %v", st.name, err)
			}
		}
		if !done {
			switch st.finish {
			case "test":
				if _, ok, err := r0.Test(); !ok || err != nil {
					t.Fatalf("%s: Test: %v %v", st.name, ok, err)
				}
			default:
				if _, err := r0.Wait(); err != nil {
					t.Fatalf("%s: Wait: %v", st.name, err)
				}
			}
		}
		if _, err := r1.Wait(); err != nil {
			t.Fatalf("%s: rank 1 Wait: %v", st.name, err)
		}
		for i := range recv {
			if got := int64s(recv[i]); !slices.Equal(got, want) {
				t.Errorf("%s: rank %d sum %v, want %v", st.name, i, got, want)
			}
		}
		if comms[0].nbDefer != st.deferAfter {
			t.Errorf("%s: starts defer %v after it, want %v", st.name, comms[0].nbDefer, st.deferAfter)
		}
		if n := len(comms[0].e.colls); n != 0 {
			t.Errorf("%s: %d collectives still live", st.name, n)
		}
	}
}

// TestPersistentResume runs persistent collectives whose Start finds the
// peer's message there or not, completed by Wait or by Test, and checks
// each run's result and that nothing stays live.
func TestPersistentResume(t *testing.T) {
	comms := inProcessJob(t, 2)
	buf := [2][]byte{make([]byte, 16), make([]byte, 16)}
	send := [2][]byte{make([]byte, 16), make([]byte, 16)}
	var ps [2]*Persistent
	var bs [2]*Persistent
	for i, c := range comms {
		var err error
		if ps[i], err = c.AllreduceInit(send[i], buf[i], Int64, Sum); err != nil {
			t.Fatal(err)
		}
		if bs[i], err = c.BarrierInit(); err != nil {
			t.Fatal(err)
		}
	}
	for run := 0; run < 8; run++ {
		first, second := 0, 1 // first starts before the other's message exists
		if run%2 == 1 {
			first, second = 1, 0
		}
		for i := range send {
			copy(send[i], putInt64s([]int64{int64(run + i), int64(10 * i)}))
		}
		r := [2]*Request{}
		b := [2]*Request{}
		var err error
		for _, i := range []int{first, second} {
			if r[i], err = ps[i].Start(); err != nil {
				t.Fatalf("run %d: Start %d: %v", run, i, err)
			}
			if b[i], err = bs[i].Start(); err != nil {
				t.Fatalf("run %d: barrier Start %d: %v", run, i, err)
			}
		}
		// The first starter finishes by Test on even runs, by Wait on odd.
		for _, i := range []int{first, second} {
			for _, q := range []*Request{r[i], b[i]} {
				if run%4 < 2 {
					if _, ok, err := q.Test(); !ok || err != nil {
						t.Fatalf("run %d: rank %d Test: %v %v", run, i, ok, err)
					}
				} else if _, err := q.Wait(); err != nil {
					t.Fatalf("run %d: rank %d Wait: %v", run, i, err)
				}
			}
		}
		want := []int64{int64(2*run + 1), 10}
		for i := range buf {
			if got := int64s(buf[i]); !slices.Equal(got, want) {
				t.Errorf("run %d: rank %d sum %v, want %v", run, i, got, want)
			}
			if n := len(comms[i].e.colls); n != 0 {
				t.Errorf("run %d: rank %d: %d collectives still live", run, i, n)
			}
		}
	}
	for i := range ps {
		if err := ps[i].Free(); err != nil {
			t.Error(err)
		}
		if err := bs[i].Free(); err != nil {
			t.Error(err)
		}
	}
}
