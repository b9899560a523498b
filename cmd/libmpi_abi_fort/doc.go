// Package fort holds hympi's Fortran bindings (mpif.h, use mpi, use
// mpi_f08) built on the C ABI library: the generator in gen/, the C and
// Fortran sources in src/, and the tests that compile Fortran programs and
// run them under hympirun. `make fortran` builds bin/lib/libmpi_abi_fort.so
// and the modules in bin/include.
package fort

//go:generate go run ./gen
