//go:build !ompi && !mpich

package mpi_test

import (
	"fmt"
	"log"

	"github.com/hympi/hympi/mpi"
)

// A whole program: join the job, compute with the other ranks, leave. Run
// it as `hympirun -n 4 ./prog`; run directly, it is a job of one rank, which
// is what this example's output shows.
func Example() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	rank, size := world.Rank(), world.Size()

	// Every rank contributes its rank number; everyone gets the total.
	sum := make([]int, 1)
	if err := mpi.AllreduceSlice(world, []int{rank}, sum, mpi.Sum); err != nil {
		log.Fatal(err)
	}

	// Rank 0 gathers one value from each rank, in rank order.
	all := make([]float64, size)
	if err := mpi.GatherSlice(world, []float64{float64(rank) / 2}, all, 0); err != nil {
		log.Fatal(err)
	}

	// Complex numbers reduce too (Sum and Prod).
	z := make([]complex128, 1)
	if err := mpi.AllreduceSlice(world, []complex128{complex(1, float64(rank))}, z, mpi.Sum); err != nil {
		log.Fatal(err)
	}

	fmt.Printf("rank %d of %d: sum of ranks %d, gathered %v, z %v\n", rank, size, sum[0], all, z[0])
	// Output: rank 0 of 1: sum of ranks 0, gathered [0], z (1+0i)
}

// Point-to-point with typed slices. Under `hympirun -n 2`, rank 0 sends four
// float64 to rank 1, which learns how many arrived from the status.
func Example_sendRecv() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()
	switch world.Rank() {
	case 0:
		if err := mpi.SendSlice(world, []float64{1, 2, 3, 4}, 1, 7); err != nil {
			log.Fatal(err)
		}
	case 1:
		buf := make([]float64, 16)
		st, err := mpi.RecvSlice(world, buf, 0, 7)
		if err != nil {
			log.Fatal(err)
		}
		n := mpi.ElemCount[float64](st)
		fmt.Println("received", buf[:n])
	}
}

// A ring: each rank passes its number to the right and receives from the
// left, without deadlock, with one SendrecvSlice. Run under hympirun.
func ExampleSendrecvSlice() {
	world := mpi.World() // after mpi.Init
	rank, size := world.Rank(), world.Size()
	right, left := (rank+1)%size, (rank+size-1)%size
	got := make([]int32, 1)
	if _, err := mpi.SendrecvSlice(world, []int32{int32(rank)}, right, 0, got, left, 0); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("rank %d got %d from rank %d\n", rank, got[0], left)
}

// Nonblocking: start the receive and the send, compute, then wait for both.
func ExampleIrecvSlice() {
	world := mpi.World() // after mpi.Init
	peer := world.Size() - 1 - world.Rank()
	in := make([]float32, 1024)
	out := make([]float32, 1024)
	rreq, err := mpi.IrecvSlice(world, in, peer, 0)
	if err != nil {
		log.Fatal(err)
	}
	sreq, err := mpi.IsendSlice(world, out, peer, 0)
	if err != nil {
		log.Fatal(err)
	}
	// ... compute here while the messages move ...
	if _, err := mpi.Waitall([]*mpi.Request{rreq, sreq}); err != nil {
		log.Fatal(err)
	}
}

// ReduceLocal combines two buffers with a reduction operator, without any
// communication (and without Init): here complex products.
func ExampleReduceLocal() {
	in := []complex128{1 + 1i, 2}
	inout := []complex128{1 - 1i, 3i}
	if err := mpi.ReduceLocal(mpi.AsBytes(in), mpi.AsBytes(inout), mpi.TypeOf[complex128](), mpi.Prod); err != nil {
		log.Fatal(err)
	}
	fmt.Println(inout)
	// Output: [(2+0i) (0+6i)]
}

// Ranks contribute different amounts; the v-variants take counts and
// displacements in elements, and only the root needs them.
func ExampleGathervSlice() {
	world := mpi.World() // after mpi.Init
	rank, size := world.Rank(), world.Size()
	mine := make([]float64, rank+1) // rank r sends r+1 values
	for i := range mine {
		mine[i] = float64(rank)
	}
	var all []float64
	var counts, displs []int
	if rank == 0 {
		for r := 0; r < size; r++ {
			counts = append(counts, r+1)
			displs = append(displs, len(all))
			all = append(all, make([]float64, r+1)...)
		}
	}
	if err := mpi.GathervSlice(world, mine, all, counts, displs, 0); err != nil {
		log.Fatal(err)
	}
	if rank == 0 {
		fmt.Println(all) // with 3 ranks: [0 1 1 2 2 2]
	}
}
