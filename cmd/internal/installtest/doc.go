// Package installtest holds the tests of `make install` and of the build
// systems that find an installed hympi: the tree is installed with DESTDIR
// into a temporary directory, moved elsewhere (so nothing may depend on the
// build tree or on the prefix it was installed for), and then used the way
// users switch MPIs: PATH first, CMake's find_package(MPI) and CTest,
// pkg-config, Meson's dependency('mpi'), and `make CC=mpicc`. Every program
// built prints MPI_Get_library_version, so a test knows it got hympi and not
// another MPI installed on the machine. There is no non-test code here.
package installtest
