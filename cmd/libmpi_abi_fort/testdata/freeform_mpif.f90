! mpif.h included in free source form, by a program unit that passes
! buffers of three types to MPI_BCAST and uses the sentinels.
program freeform
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, i(2)
  real :: r(3)
  character(len=5) :: s
  logical :: ok, flag
  integer :: info, vlen

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  i = rank
  r = rank
  s = 'xxxxx'
  if (rank == 0) s = 'hello'
  call MPI_BCAST(i, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_BCAST(r, 3, MPI_REAL, 0, MPI_COMM_WORLD, ierr)
  call MPI_BCAST(s, 5, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  ok = all(i == 0) .and. all(r == 0.0) .and. s == 'hello'
  if (np > 1) then
    if (rank == 1) call MPI_SEND(r, 1, MPI_REAL, 0, 4, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      call MPI_RECV(r, 1, MPI_REAL, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      ok = ok .and. ierr == MPI_SUCCESS
    end if
  end if
  ! What the library says of the Fortran it was built for.
  call MPI_ABI_GET_FORTRAN_INFO(info, ierr)
  ok = ok .and. ierr == MPI_SUCCESS
  call MPI_INFO_GET_VALUELEN(info, 'mpi_logical_size', vlen, flag, ierr)
  ok = ok .and. flag .and. vlen == 1
  call MPI_INFO_GET(info, 'mpi_logical_true', 5, s, flag, ierr)
  ok = ok .and. flag .and. s == '1'
  call MPI_INFO_FREE(info, ierr)
  ok = ok .and. info == MPI_INFO_NULL
  call MPI_ALLREDUCE(MPI_IN_PLACE, ok, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  if (ok) print '(a,i0,a)', 'rank ', rank, ' OK'
end program
