// Command hympifort (installed also as mpifort, mpif90 and mpif77) compiles
// and links Fortran MPI programs against hympi's Fortran bindings
// (mpif.h, the mpi and mpi_f08 modules, libmpi_abi_fort) and C ABI:
//
//	hympifort prog.f90 -o prog && hympirun -n 4 ./prog
//
// It runs $HYMPIFORT_FC, else $FC, else gfortran, with the same query
// options as hympicc (see hympifort --help).
package main

import "github.com/hympi/hympi/cmd/internal/wrapper"

func main() { wrapper.Main(wrapper.Fortran) }
