! The mpi_f08 binding: derived-type handles and status, optional ierror,
! the same coverage as the other bindings. Every rank prints "rank R OK"
! when all checks passed.
module checks08
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

program f08
  use mpi_f08
  use checks08
  implicit none
  integer :: ierr, rank, np, next, prev, cnt, i, hsize, res, gsize, cls
  type(MPI_Status) :: status, stats(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: half, dup
  type(MPI_Group) :: wgroup, igroup
  type(MPI_Datatype) :: ctype
  double precision :: d(4), ds(4), pair(2), pres(2), t0
  complex :: c, cs
  logical :: l, ls, flag
  integer :: iv(3), ivs(3), ranks(2), gathered(64)
  integer(kind=MPI_ADDRESS_KIND) :: val
  integer(kind=MPI_COUNT_KIND) :: bigcount

  call MPI_Init()
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call check(ierr == MPI_SUCCESS, 'ierror present')
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  ! Blocking and nonblocking point-to-point, status as a derived type.
  d = [(10 * rank + i, i = 1, 4)]
  call MPI_Sendrecv(d, 4, MPI_DOUBLE_PRECISION, next, 1, ds, 4, MPI_DOUBLE_PRECISION, &
                    MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 1, 'status fields')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt)
  call check(cnt == 4 .and. ds(2) == 10 * prev + 2, 'sendrecv')
  iv = [rank, 2 * rank, 3]
  call MPI_Irecv(ivs, 3, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(iv, 3, MPI_INTEGER, next, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, stats)
  call check(all(reqs == MPI_REQUEST_NULL), 'waitall nulls requests')
  call check(stats(1)%MPI_SOURCE == prev .and. ivs(2) == 2 * prev, 'irecv')
  call MPI_Irecv(ivs, 3, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(iv, 3, MPI_INTEGER, next, 3, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call MPI_Test(reqs(1), flag, status)
  call check(flag, 'test null')

  ! Large counts: the same generic names with INTEGER(MPI_COUNT_KIND).
  call MPI_Irecv(ds, 4_MPI_COUNT_KIND, MPI_DOUBLE_PRECISION, prev, 4, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(d, 4_MPI_COUNT_KIND, MPI_DOUBLE_PRECISION, next, 4, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), status)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, bigcount)
  call check(bigcount == 4 .and. ds(1) == 10 * prev + 1, 'large-count send')
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, bigcount)
  call check(bigcount == 16, 'large-count type size')

  ! Collectives with Fortran types.
  call MPI_Allreduce(d, ds, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(ds(4) == 10 * np * (np - 1) / 2 + 4 * np, 'dp sum')
  pair = [dble(mod(rank, 3)), dble(rank)]
  call MPI_Allreduce(pair, pres, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD)
  call check(pres(1) == min(np - 1, 2) .and. pres(2) == min(np - 1, 2), 'maxloc')
  l = .true.
  call MPI_Allreduce(l, ls, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  call check(ls, 'land')
  c = cmplx(1.0, rank)
  call MPI_Allreduce(c, cs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
  call check(cs == cmplx(np, np * (np - 1) / 2), 'complex sum')
  iv(1) = rank
  call MPI_Allreduce(MPI_IN_PLACE, iv, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(iv(1) == np - 1, 'in place')
  call MPI_Gather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(gathered(np) == np - 1, 'gather')

  ! Communicators and groups.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, hsize)
  call check(hsize == (np + 1 - mod(rank, 2)) / 2, 'split')
  call MPI_Comm_dup(half, dup)
  call MPI_Comm_compare(dup, half, res)
  call check(res == MPI_CONGRUENT, 'dup')
  call check(dup /= half .and. .not. (dup == MPI_COMM_NULL), 'handle compare')
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'free')
  call MPI_Comm_free(half)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup)
  ranks = [1, 0]
  call MPI_Group_incl(wgroup, 2, ranks, igroup)
  call MPI_Group_size(igroup, gsize)
  call check(gsize == 2, 'group incl')
  call MPI_Group_rank(igroup, i)
  if (rank < 2) call check(i == 1 - rank, 'group order')
  call MPI_Group_free(igroup)
  call MPI_Group_free(wgroup)

  ! A derived datatype.
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, ctype)
  call MPI_Type_commit(ctype)
  call MPI_Type_size(ctype, i)
  call check(i == 16, 'type size')
  d = rank
  call MPI_Bcast(d, 2, ctype, np - 1, MPI_COMM_WORLD)
  call check(all(d == np - 1), 'bcast derived')
  call MPI_Type_free(ctype)

  ! Attributes and errors.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  call check(flag .and. val >= 32767, 'tag_ub')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, i, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, i, 77_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  val = 0
  call MPI_Comm_get_attr(dup, i, val, flag)
  call check(flag .and. val == 77, 'MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(i)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Recv(d, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_NULL, status, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_COMM, 'error class')
  call MPI_Sizeof(pair, i)
  call check(i == 8, 'MPI_Sizeof double')
  call MPI_Sizeof(c, i)
  call check(i == 8, 'MPI_Sizeof complex')
  call check(MPI_Wtime() >= t0 .and. MPI_Wtick() > 0, 'wtime')

  call MPI_Finalize()
  if (nbad == 0) print '(a,i0,a)', 'rank ', rank, ' OK'
end program
