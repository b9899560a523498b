//go:build !ompi && !mpich

package mpi

import (
	"fmt"
	"math"
	"testing"
)

// TestComplexKernels: Sum and Prod on complex numbers, both widths, through
// the same resolution the collectives use.
func TestComplexKernels(t *testing.T) {
	for _, c := range []struct {
		name      string
		op        Op
		in, inout []complex128
		want      []complex128
	}{
		{"sum", Sum, []complex128{1 + 2i, -3i}, []complex128{0.5 - 1i, 4}, []complex128{1.5 + 1i, 4 - 3i}},
		{"prod", Prod, []complex128{1 + 2i, 2}, []complex128{3 - 1i, 1i}, []complex128{5 + 5i, 2i}},
	} {
		t.Run("complex128 "+c.name, func(t *testing.T) {
			inout := append([]complex128(nil), c.inout...)
			if err := ReduceLocal(AsBytes(c.in), AsBytes(inout), TypeOf[complex128](), c.op); err != nil {
				t.Fatal(err)
			}
			for i := range inout {
				if inout[i] != c.want[i] {
					t.Errorf("element %d: %v, want %v", i, inout[i], c.want[i])
				}
			}
		})
		t.Run("complex64 "+c.name, func(t *testing.T) {
			in := make([]complex64, len(c.in))
			inout := make([]complex64, len(c.inout))
			for i := range in {
				in[i], inout[i] = complex64(c.in[i]), complex64(c.inout[i])
			}
			if err := ReduceLocal(AsBytes(in), AsBytes(inout), TypeOf[complex64](), c.op); err != nil {
				t.Fatal(err)
			}
			for i := range inout {
				if inout[i] != complex64(c.want[i]) {
					t.Errorf("element %d: %v, want %v", i, inout[i], c.want[i])
				}
			}
		})
	}
	for _, dt := range []Datatype{Complex64, Complex128} {
		if err := ReduceLocal(make([]byte, dt.Size()), make([]byte, dt.Size()), dt, Max); ClassOf(err) != ErrOp {
			t.Errorf("Max on %v: %v, want ErrOp", dt, err)
		}
	}
	if TypeOf[complex64]() != Complex64 || TypeOf[complex128]() != Complex128 || Complex64.Size() != 8 || Complex128.Size() != 16 {
		t.Errorf("TypeOf/Size: %v %v %d %d", TypeOf[complex64](), TypeOf[complex128](), Complex64.Size(), Complex128.Size())
	}
}

// TestInProcessTyped runs every typed form on a 3-rank in-process job and
// checks each rank's result element by element, with counts in elements.
func TestInProcessTyped(t *testing.T) {
	const n = 3
	// val is rank r's element i: distinct everywhere, exact in every type.
	val := func(r, i int) float64 { return float64(10*r + i + 1) }
	for _, c := range []struct {
		name string
		run  func(c *Comm) error
	}{
		{"IsendSlice/IrecvSlice", func(c *Comm) error {
			to, from := (c.rank+1)%n, (c.rank+n-1)%n
			send := []float64{val(c.rank, 0), val(c.rank, 1)}
			recv := make([]float64, 2)
			rr, err := IrecvSlice(c, recv, from, 5)
			if err != nil {
				return err
			}
			sr, err := IsendSlice(c, send, to, 5)
			if err != nil {
				return err
			}
			if _, err := sr.Wait(); err != nil {
				return err
			}
			st, err := rr.Wait()
			if err != nil {
				return err
			}
			if ElemCount[float64](st) != 2 {
				return fmt.Errorf("ElemCount %d, want 2 (Count %d bytes)", ElemCount[float64](st), st.Count)
			}
			return expect(recv, []float64{val(from, 0), val(from, 1)})
		}},
		{"SsendSlice", func(c *Comm) error {
			to, from := (c.rank+1)%n, (c.rank+n-1)%n
			recv := make([]uint64, 2)
			if c.rank%2 == 0 {
				if err := SsendSlice(c, []uint64{uint64(c.rank), 7}, to, 2); err != nil {
					return err
				}
				if _, err := RecvSlice(c, recv, from, 2); err != nil {
					return err
				}
			} else {
				if _, err := RecvSlice(c, recv, from, 2); err != nil {
					return err
				}
				if err := SsendSlice(c, []uint64{uint64(c.rank), 7}, to, 2); err != nil {
					return err
				}
			}
			return expect(recv, []uint64{uint64(from), 7})
		}},
		{"SendrecvSlice", func(c *Comm) error {
			to, from := (c.rank+1)%n, (c.rank+n-1)%n
			recv := make([]int32, 1)
			if _, err := SendrecvSlice(c, []int32{int32(c.rank)}, to, 1, recv, from, 1); err != nil {
				return err
			}
			return expect(recv, []int32{int32(from)})
		}},
		{"GatherSlice/GathervSlice", func(c *Comm) error {
			recv := make([]float32, n)
			if err := GatherSlice(c, []float32{float32(val(c.rank, 0))}, recv, 1); err != nil {
				return err
			}
			if c.rank == 1 {
				if err := expect(recv, []float32{1, 11, 21}); err != nil {
					return err
				}
			}
			// Rank r sends r+1 elements; root places them back to front.
			send := make([]int64, c.rank+1)
			for i := range send {
				send[i] = int64(val(c.rank, i))
			}
			var counts, displs []int
			recvv := make([]int64, 6)
			if c.rank == 0 {
				counts, displs = []int{1, 2, 3}, []int{5, 3, 0}
			}
			if err := GathervSlice(c, send, recvv, counts, displs, 0); err != nil {
				return err
			}
			if c.rank == 0 {
				return expect(recvv, []int64{21, 22, 23, 11, 12, 1})
			}
			return nil
		}},
		{"ScatterSlice/ScattervSlice", func(c *Comm) error {
			var send []uint16
			if c.rank == 2 {
				send = []uint16{1, 2, 3, 4, 5, 6}
			}
			recv := make([]uint16, 2)
			if err := ScatterSlice(c, send, recv, 2); err != nil {
				return err
			}
			if err := expect(recv, []uint16{uint16(2*c.rank + 1), uint16(2*c.rank + 2)}); err != nil {
				return err
			}
			var counts, displs []int
			if c.rank == 2 {
				counts, displs = []int{3, 2, 1}, []int{3, 1, 0}
			}
			recvv := make([]uint16, 3-c.rank)
			if err := ScattervSlice(c, send, counts, displs, recvv, 2); err != nil {
				return err
			}
			want := [][]uint16{{4, 5, 6}, {2, 3}, {1}}[c.rank]
			return expect(recvv, want)
		}},
		{"AllgatherSlice/AllgathervSlice", func(c *Comm) error {
			recv := make([]complex128, n)
			if err := AllgatherSlice(c, []complex128{complex(val(c.rank, 0), -1)}, recv); err != nil {
				return err
			}
			if err := expect(recv, []complex128{1 - 1i, 11 - 1i, 21 - 1i}); err != nil {
				return err
			}
			send := make([]int8, c.rank+1)
			for i := range send {
				send[i] = int8(val(c.rank, i))
			}
			recvv := make([]int8, 6)
			if err := AllgathervSlice(c, send, recvv, []int{1, 2, 3}, []int{0, 1, 3}); err != nil {
				return err
			}
			return expect(recvv, []int8{1, 11, 12, 21, 22, 23})
		}},
		{"AlltoallSlice/AlltoallvSlice", func(c *Comm) error {
			send := make([]float64, n)
			for j := range send {
				send[j] = val(c.rank, j)
			}
			recv := make([]float64, n)
			if err := AlltoallSlice(c, send, recv); err != nil {
				return err
			}
			if err := expect(recv, []float64{val(0, c.rank), val(1, c.rank), val(2, c.rank)}); err != nil {
				return err
			}
			// Rank r sends j+1 elements to rank j.
			sc, sd := []int{1, 2, 3}, []int{0, 1, 3}
			sendv := make([]float64, 6)
			for i := range sendv {
				sendv[i] = val(c.rank, i)
			}
			rc := []int{c.rank + 1, c.rank + 1, c.rank + 1}
			rd := []int{0, c.rank + 1, 2 * (c.rank + 1)}
			recvv := make([]float64, 3*(c.rank+1))
			if err := AlltoallvSlice(c, sendv, sc, sd, recvv, rc, rd); err != nil {
				return err
			}
			var want []float64
			for src := 0; src < n; src++ {
				for k := 0; k <= c.rank; k++ {
					want = append(want, val(src, sd[c.rank]+k))
				}
			}
			return expect(recvv, want)
		}},
		{"ScanSlice/ExscanSlice", func(c *Comm) error {
			recv := make([]complex64, 1)
			if err := ScanSlice(c, []complex64{complex(float32(c.rank+1), 1)}, recv, Sum); err != nil {
				return err
			}
			wantScan := []complex64{1 + 1i, 3 + 2i, 6 + 3i}[c.rank]
			if err := expect(recv, []complex64{wantScan}); err != nil {
				return err
			}
			ex := []int{-7}
			if err := ExscanSlice(c, []int{c.rank + 1}, ex, Prod); err != nil {
				return err
			}
			if c.rank > 0 {
				return expect(ex, []int{[]int{0, 1, 2}[c.rank]})
			}
			return nil
		}},
		{"ReduceScatterSlice/ReduceScatterBlockSlice", func(c *Comm) error {
			send := make([]uint32, 6)
			for i := range send {
				send[i] = uint32(i + c.rank)
			}
			// Sum over ranks of i+r is 3i+3.
			recv := make([]uint32, 3-c.rank)
			if err := ReduceScatterSlice(c, send, recv, []int{3, 2, 1}, Sum); err != nil {
				return err
			}
			first := []int{0, 3, 5}[c.rank]
			want := make([]uint32, len(recv))
			for k := range want {
				want[k] = uint32(3*(first+k) + 3)
			}
			if err := expect(recv, want); err != nil {
				return err
			}
			blk := make([]uint32, 2)
			if err := ReduceScatterBlockSlice(c, send, blk, Max); err != nil {
				return err
			}
			return expect(blk, []uint32{uint32(2*c.rank + 2), uint32(2*c.rank + 3)})
		}},
		{"IbcastSlice/IallreduceSlice", func(c *Comm) error {
			data := make([]complex128, 2)
			if c.rank == 0 {
				data[0], data[1] = 1i, 2
			}
			r, err := IbcastSlice(c, data, 0)
			if err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			if err := expect(data, []complex128{1i, 2}); err != nil {
				return err
			}
			sum := make([]complex128, 2)
			r, err = IallreduceSlice(c, data, sum, Sum)
			if err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
			return expect(sum, []complex128{3i, 6})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			runRanks(t, inProcessJob(t, n), c.run)
		})
	}
}

// TestTypedCountsRefused: element counts that cannot be scaled to bytes,
// and negative ones, are ErrCount, before anything is sent.
func TestTypedCountsRefused(t *testing.T) {
	comms := inProcessJob(t, 1)
	c := comms[0]
	buf := make([]float64, 4)
	for _, tc := range []struct {
		name string
		err  error
		want ErrorClass
	}{
		{"huge Gatherv", GathervSlice(c, buf[:1], buf, []int{math.MaxInt / 2}, []int{0}, 0), ErrCount},
		{"huge Alltoallv", AlltoallvSlice(c, buf, []int{1}, []int{math.MaxInt / 4}, buf, []int{1}, []int{0}), ErrCount},
		{"huge ReduceScatter", ReduceScatterSlice(c, buf, buf[:1], []int{math.MinInt / 2}, Sum), ErrCount},
		{"negative Allgatherv", AllgathervSlice(c, buf[:1], buf, []int{-1}, []int{0}), ErrCount},
		{"negative ReduceScatter", ReduceScatterSlice(c, buf, buf[:1], []int{-2}, Sum), ErrCount},
		{"Gather short", GatherSlice(c, buf, buf[:2], 0), ErrBuffer},
	} {
		if ClassOf(tc.err) != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func expect[T comparable](got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("got %v, want %v", got, want)
		}
	}
	return nil
}
