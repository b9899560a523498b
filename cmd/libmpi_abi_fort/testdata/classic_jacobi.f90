! jacobi.f90 - Jacobi iteration for the 2-D Laplace equation, the way
! classic Fortran 90 MPI codes are written: `use mpi`, a 1-D block
! decomposition by columns, halo exchange with MPI_SENDRECV and
! MPI_PROC_NULL at the edges, a global residual by MPI_ALLREDUCE, and a
! derived type (MPI_TYPE_VECTOR) for a row. Verified against the same
! iteration run serially on rank 0 after an MPI_GATHERV.
program jacobi
  use mpi
  implicit none
  integer, parameter :: nx = 24, ny = 30, iters = 200
  double precision, allocatable :: u(:,:), unew(:,:), full(:,:), serial(:,:), snew(:,:)
  integer :: ierr, rank, np, left, right, ncols, first, it, j, status(MPI_STATUS_SIZE)
  integer, allocatable :: counts(:), displs(:)
  integer :: rowtype
  double precision :: diff, gdiff, err, row(ny)
  logical :: ok

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)

  ! Columns 1..ny split in blocks; columns 0 and ny+1 are the boundary.
  allocate(counts(np), displs(np))
  do j = 0, np - 1
    counts(j + 1) = ny / np + merge(1, 0, j < mod(ny, np))
  end do
  displs(1) = 0
  do j = 2, np
    displs(j) = displs(j - 1) + counts(j - 1)
  end do
  ncols = counts(rank + 1)
  first = displs(rank + 1) + 1
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= np) right = MPI_PROC_NULL

  allocate(u(0:nx + 1, 0:ncols + 1), unew(0:nx + 1, 0:ncols + 1))
  call init(u, first)
  unew = u

  do it = 1, iters
    call MPI_SENDRECV(u(1, ncols), nx, MPI_DOUBLE_PRECISION, right, 1, &
                      u(1, 0), nx, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_SENDRECV(u(1, 1), nx, MPI_DOUBLE_PRECISION, left, 2, &
                      u(1, ncols + 1), nx, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, status, ierr)
    unew(1:nx, 1:ncols) = 0.25d0 * (u(0:nx - 1, 1:ncols) + u(2:nx + 1, 1:ncols) + &
                                    u(1:nx, 0:ncols - 1) + u(1:nx, 2:ncols + 1))
    diff = sum((unew(1:nx, 1:ncols) - u(1:nx, 1:ncols))**2)
    u(1:nx, 1:ncols) = unew(1:nx, 1:ncols)
    call MPI_ALLREDUCE(diff, gdiff, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do

  ! Gather the interior columns on rank 0 (a column is nx contiguous
  ! values), and send the top row with a vector type as a spot check.
  allocate(full(nx, ny))
  call MPI_GATHERV(u(1:nx, 1:ncols), nx * ncols, MPI_DOUBLE_PRECISION, full, nx * counts, &
                   nx * displs, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  call MPI_TYPE_VECTOR(ncols, 1, nx + 2, MPI_DOUBLE_PRECISION, rowtype, ierr)
  call MPI_TYPE_COMMIT(rowtype, ierr)

  ok = .true.
  if (rank == 0) then
    allocate(serial(0:nx + 1, 0:ny + 1), snew(0:nx + 1, 0:ny + 1))
    call init(serial, 1)
    snew = serial
    do it = 1, iters
      snew(1:nx, 1:ny) = 0.25d0 * (serial(0:nx - 1, 1:ny) + serial(2:nx + 1, 1:ny) + &
                                   serial(1:nx, 0:ny - 1) + serial(1:nx, 2:ny + 1))
      serial(1:nx, 1:ny) = snew(1:nx, 1:ny)
    end do
    err = maxval(abs(full - serial(1:nx, 1:ny)))
    ok = err < 1d-12 .and. gdiff > 0
    print '(a,i0,a,es10.3,a,es10.3)', 'jacobi ', iters, ' iterations: residual ', sqrt(gdiff), &
          ' max diff from serial ', err
  end if
  if (np > 1) then
    if (rank == np - 1) call MPI_SEND(u(1, 1), 1, rowtype, 0, 3, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
      call MPI_RECV(row, counts(np), MPI_DOUBLE_PRECISION, np - 1, 3, MPI_COMM_WORLD, status, ierr)
      ok = ok .and. all(row(1:counts(np)) == full(1, displs(np) + 1:ny))
    end if
  end if
  call MPI_TYPE_FREE(rowtype, ierr)
  call MPI_BCAST(ok, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  if (ok) print '(a,i0,a)', 'rank ', rank, ' OK'

contains

  ! Boundary: 1 on the left edge, 0 elsewhere; interior starts at 0.
  subroutine init(a, col0)
    double precision, intent(out) :: a(0:, 0:)
    integer, intent(in) :: col0
    a = 0
    if (col0 == 1) a(:, 0) = 1
  end subroutine
end program
