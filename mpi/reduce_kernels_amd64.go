//go:build !ompi && !mpich

package mpi

import "golang.org/x/sys/cpu"

// The vector kernels of amd64. Go's compiler does not vectorise, so the
// loops of the commonest predefined pairs (reduce_kernels_gen.go lists
// them) are AVX2 assembly, generated into reduce_kernels_avx2_amd64.{s,go}:
// 32 bytes per instruction, four blocks per iteration. They read and
// write only the n bytes they are given through a and b, so the unsafe
// part is that contract, which their Go wrappers keep: n is len(inout) rounded
// down to 32, and in is at least as long. The elements past the last
// whole block go through the generic kernel.
//
// Results are the generic kernels' bit for bit: every operation is
// element-wise with the same operands (VMAXPS and the like return their
// second source, b, when the comparison fails, as the generic kernels keep
// b), which reduce_kernels_amd64_test.go checks for every pair.

//go:generate go run reduce_kernels_gen.go

// haveAVX2: the processor and the operating system support AVX2.
var haveAVX2 = cpu.X86.HasAVX2

// archKernel is the vector kernel of (dt, op), nil where there is none or
// the processor lacks AVX2.
func archKernel(dt Datatype, op Op) func(in, inout []byte) {
	if !haveAVX2 {
		return nil
	}
	return avx2Kernel(dt, op)
}
