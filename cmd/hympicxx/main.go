// Command hympicxx (installed also as hympic++, mpicxx and mpic++) compiles
// and links C++ MPI programs against hympi's C ABI:
//
//	hympicxx prog.cpp -o prog && hympirun -n 4 ./prog
//
// It runs $HYMPICXX_CXX, else $CXX, else c++, so the C++ runtime is linked
// by the C++ driver, with the same flags and query options as hympicc (see
// hympicxx --help).
package main

import "github.com/hympi/hympi/cmd/internal/wrapper"

func main() { wrapper.Main(wrapper.CXX) }
