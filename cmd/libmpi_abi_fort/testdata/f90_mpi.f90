! The `use mpi` binding: communicators, groups, derived datatypes, user
! reductions and error handlers, attributes, and one file passing buffers
! of several types to the same routine. Every rank prints "rank R OK"
! when all checks passed.
module checks
  implicit none
  integer :: nbad = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print *, 'FAIL: ', what
      nbad = nbad + 1
    end if
  end subroutine
end module

subroutine addabs(invec, inoutvec, n, dtype)
  use mpi
  implicit none
  integer :: n, dtype, i
  integer :: invec(n), inoutvec(n)
  if (dtype /= MPI_INTEGER) return
  do i = 1, n
    inoutvec(i) = abs(invec(i)) + abs(inoutvec(i))
  end do
end subroutine

subroutine on_error(comm, code)
  use mpi
  use checks
  implicit none
  integer :: comm, code
  integer :: ncalls
  common /eh/ ncalls
  call check(code /= MPI_SUCCESS .and. comm == MPI_COMM_WORLD, 'handler arguments')
  ncalls = ncalls + 1
end subroutine

subroutine more_types(rank, np)
  use mpi
  use checks
  implicit none
  integer, intent(in) :: rank, np
  integer :: ierr, i2(2, 1), i2r(2, 1), ib, ibr
  real :: r2(2), r2r(2)
  integer(kind=8) :: i8, i8r
  real(kind=8) :: d8, d8r
  complex(kind=8) :: z, zr
  logical :: l, lr
  integer(kind=2) :: h, hr
  i2(:, 1) = [mod(rank + 1, np), rank]
  call MPI_Allreduce(i2, i2r, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  call check(i2r(1, 1) == 0 .and. i2r(2, 1) == np - 1, '2integer minloc')
  r2 = [real(rank), real(rank)]
  call MPI_Allreduce(r2, r2r, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(r2r(1) == np - 1 .and. r2r(2) == np - 1, '2real maxloc')
  i8 = 2_8**40 + rank
  call MPI_Allreduce(i8, i8r, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(i8r == np * 2_8**40 + np * (np - 1) / 2, 'integer8 sum')
  d8 = -rank
  call MPI_Allreduce(d8, d8r, 1, MPI_REAL8, MPI_MIN, MPI_COMM_WORLD, ierr)
  call check(d8r == 1 - np, 'real8 min')
  z = cmplx(rank, -1, kind=8)
  call MPI_Allreduce(z, zr, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(zr == cmplx(np * (np - 1) / 2, -np, kind=8), 'double complex sum')
  l = .true.
  call MPI_Allreduce(l, lr, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  call check(lr .eqv. mod(np, 2) == 1, 'logical lxor')
  ib = ior(1, ishft(1, rank + 1))
  call MPI_Allreduce(ib, ibr, 1, MPI_INTEGER, MPI_BAND, MPI_COMM_WORLD, ierr)
  call check(ibr == 1, 'integer band')
  h = int(rank, 2)
  call MPI_Allreduce(h, hr, 1, MPI_INTEGER2, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(hr == np - 1, 'integer2 max')
end subroutine

program f90mpi
  use mpi
  use checks
  implicit none
  external :: addabs, on_error
  integer :: ierr, rank, np, half, hrank, hsize, dup, res, i
  integer :: wgroup, egroup, gsize, grank, ranks(1), tr(1)
  integer :: vtype, op, eh, keyval, ncalls
  integer :: status(MPI_STATUS_SIZE)
  integer :: reqs(2), idx(2), outcount, req1
  integer(kind=MPI_ADDRESS_KIND) :: val, extent, lb
  logical :: flag
  double precision :: a(4, 3), col(4)
  integer :: iv(2), ivs(2)
  real :: r(2), rs(2)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: nlen, bsize
  double precision :: bbuf(1000)
  integer(kind=8) :: marker
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  integer :: abtype, blk(1)
  double precision :: xb(2)
  common /eh/ ncalls

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! Split into even and odd ranks, then duplicate.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call check(ierr == MPI_SUCCESS, 'split')
  call MPI_Comm_rank(half, hrank, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  call check(hsize == (np + 1 - mod(rank, 2)) / 2, 'split size')
  call check(hrank == hsize - 1 - rank / 2, 'split key order')
  call MPI_Comm_dup(half, dup, ierr)
  call MPI_Comm_compare(half, dup, res, ierr)
  call check(res == MPI_CONGRUENT, 'dup congruent')
  iv = [rank, 1]
  call MPI_Allreduce(iv, ivs, 2, MPI_INTEGER, MPI_SUM, dup, ierr)
  call check(ivs(2) == hsize, 'allreduce on dup')
  call MPI_Comm_set_name(dup, 'halves', ierr)
  call MPI_Comm_get_name(dup, name, nlen, ierr)
  call check(name == 'halves' .and. nlen == 6, 'comm name')
  call MPI_Comm_free(dup, ierr)
  call check(dup == MPI_COMM_NULL, 'free sets null')
  call MPI_Comm_free(half, ierr)

  ! Groups.
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  ranks(1) = np - 1
  call MPI_Group_excl(wgroup, 1, ranks, egroup, ierr)
  call MPI_Group_size(egroup, gsize, ierr)
  call MPI_Group_rank(egroup, grank, ierr)
  call check(gsize == np - 1, 'group size')
  if (rank == np - 1) then
    call check(grank == MPI_UNDEFINED, 'excluded rank')
  else
    call check(grank == rank, 'group rank')
  end if
  ranks(1) = 0
  call MPI_Group_translate_ranks(egroup, 1, ranks, wgroup, tr, ierr)
  call check(tr(1) == 0, 'translate')
  call MPI_Group_free(egroup, ierr)
  call MPI_Group_free(wgroup, ierr)

  ! A derived datatype: one row of a column-major 4x3 matrix.
  call MPI_Type_vector(3, 1, 4, MPI_DOUBLE_PRECISION, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  call MPI_Type_get_extent(vtype, lb, extent, ierr)
  call check(extent == 9 * 8, 'vector extent')
  do i = 1, 3
    a(:, i) = 100 * rank + 10 * [1, 2, 3, 4] + i
  end do
  if (rank == 0) then
    call MPI_Send(a(2, 1), 1, vtype, 1, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(col, 3, MPI_DOUBLE_PRECISION, 0, 3, MPI_COMM_WORLD, status, ierr)
    call check(all(col(1:3) == [21, 22, 23]), 'vector row')
    call MPI_Get_count(status, MPI_DOUBLE_PRECISION, i, ierr)
    call check(i == 3, 'vector count')
  end if
  call MPI_Type_free(vtype, ierr)

  ! Absolute addresses through MPI_BOTTOM.
  call MPI_Get_address(xb, addr(1), ierr)
  blk = 2
  call MPI_Type_create_hindexed(1, blk, addr, MPI_DOUBLE_PRECISION, abtype, ierr)
  call MPI_Type_commit(abtype, ierr)
  xb = [dble(rank) + 5, 2d0 * rank]
  call MPI_F_sync_reg(xb)
  call MPI_Bcast(MPI_BOTTOM, 1, abtype, 0, MPI_COMM_WORLD, ierr)
  call MPI_F_sync_reg(xb)
  call check(ierr == MPI_SUCCESS .and. xb(1) == 5 .and. xb(2) == 0, 'MPI_BOTTOM')
  call MPI_Type_free(abtype, ierr)

  ! A user reduction, and buffers of two types to one routine.
  call MPI_Op_create(addabs, .true., op, ierr)
  iv = [-rank, rank]
  call MPI_Allreduce(iv, ivs, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(ivs(1) == np * (np - 1) / 2, 'user op')
  call MPI_Op_free(op, ierr)
  r = [real(rank), 2.0]
  call MPI_Allreduce(r, rs, 2, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(rs(2) == 2.0 * np, 'real sum')
  call MPI_Allreduce(MPI_IN_PLACE, r, 2, MPI_REAL, MPI_MIN, MPI_COMM_WORLD, ierr)
  call check(r(1) == 0.0, 'in place')

  ! More Fortran types in reductions.
  call more_types(rank, np)

  ! Waitsome counts requests from 1.
  call MPI_Irecv(ivs, 2, MPI_INTEGER, mod(rank + 1, np), 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(iv, 2, MPI_INTEGER, mod(rank + np - 1, np), 9, MPI_COMM_WORLD, reqs(2), ierr)
  outcount = 0
  do while (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL)
    call MPI_Waitsome(2, reqs, outcount, idx, MPI_STATUSES_IGNORE, ierr)
    do i = 1, outcount
      call check(idx(i) == 1 .or. idx(i) == 2, 'waitsome index')
    end do
  end do

  ! Buffered sends; detaching leaves the Fortran buffer's contents alone.
  bbuf = 3.0d0
  call MPI_Buffer_attach(bbuf, 8000, ierr)
  call check(ierr == MPI_SUCCESS, 'buffer attach')
  call MPI_Bsend(iv, 2, MPI_INTEGER, mod(rank + 1, np), 11, MPI_COMM_WORLD, ierr)
  call MPI_Recv(ivs, 2, MPI_INTEGER, mod(rank + np - 1, np), 11, MPI_COMM_WORLD, status, ierr)
  call check(ivs(2) == mod(rank + np - 1, np), 'bsend')
  marker = 7
  call MPI_Buffer_detach(marker, bsize, ierr)
  call check(ierr == MPI_SUCCESS .and. bsize == 8000, 'buffer detach')
  call check(marker == 7, 'detach leaves its argument alone')

  ! Classic codes pass a scalar request and status for arrays of one.
  call MPI_Irecv(ivs, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, req1, ierr)
  call MPI_Waitall(1, req1, status, ierr)
  call check(req1 == MPI_REQUEST_NULL .and. status(MPI_SOURCE) == MPI_PROC_NULL, 'waitall scalar')

  ! Attributes: a predefined one, and one of our own.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'tag_ub')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 12345_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, keyval, val, flag, ierr)
  call check(flag .and. val == 12345, 'dup_fn copied the attribute')
  call MPI_Comm_free(dup, ierr)

  ! A user error handler is called with the error.
  ncalls = 0
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
  call MPI_Send(iv, 1, MPI_INTEGER, -7, 0, MPI_COMM_WORLD, ierr)
  call check(ncalls == 1, 'user error handler called')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Bcast(iv, 1, MPI_INTEGER, np + 3, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i, res)
  call check(i == MPI_ERR_ROOT, 'bad root class')

  call MPI_Sizeof(a, i, ierr)
  call check(i == 8 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (nbad == 0) print '(a,i0,a)', 'rank ', rank, ' OK'
end program
