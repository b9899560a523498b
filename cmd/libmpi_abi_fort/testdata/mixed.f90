! Fortran and C sharing MPI objects: the C side (mixed_c.c) converts
! Fortran handles and statuses with mpi_abi_fort.h.
program mixed
  use mpi
  implicit none
  integer :: ierr, rank, np, half, csize, hsize, ignored
  integer :: status(MPI_STATUS_SIZE)
  logical :: ok
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, half, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  call c_size_of(half, MPI_STATUS_IGNORE, csize, ignored)
  ok = csize == hsize .and. ignored == 1
  status(MPI_TAG) = 41
  call c_size_of(MPI_COMM_WORLD, status, csize, ignored)
  ok = ok .and. csize == np .and. ignored == 0 .and. status(MPI_TAG) == 42
  call MPI_Comm_free(half, ierr)
  call MPI_Finalize(ierr)
  if (ok) print '(a,i0,a)', 'rank ', rank, ' OK'
end program
