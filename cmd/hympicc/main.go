// Command hympicc compiles and links C MPI programs against hympi's C ABI
// (libmpi_abi.so.1 and its standard-ABI mpi.h):
//
//	hympicc prog.c -o prog && hympirun -n 4 ./prog
//
// It runs $HYMPICC_CC, else $CC, else cc, with -I for hympi's include
// directory and, when linking, -L, an rpath and -lmpi_abi. A compiler
// variable that names hympicc or another MPI wrapper is skipped, so
// `CC=hympicc make` works. hympicc --help lists the query options
// (--showme, -show, --showme:compile, --showme:link, -compile_info,
// -link_info, ...) that build systems use. The shared implementation is
// package cmd/internal/wrapper.
package main

import "github.com/hympi/hympi/cmd/internal/wrapper"

func main() { wrapper.Main(wrapper.C) }
