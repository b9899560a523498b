! More of the generated bindings through mpi_f08: CHARACTER arguments in
! and out, LOGICAL arrays, handle arrays (struct types, Alltoallw),
! Cartesian topologies, group ranges, probes, and Fortran callbacks.
module more_checks
  use mpi_f08
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

  ! MPI_User_function of mpi_f08: buffers arrive as C pointers.
  subroutine maxabs(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    double precision, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (datatype == MPI_DOUBLE_PRECISION) b = max(abs(a), abs(b))
  end subroutine

  subroutine copy_plus_one(oldcomm, keyval, extra, valin, valout, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    valout = valin + extra
    flag = oldcomm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID
    ierror = MPI_SUCCESS
  end subroutine

  subroutine count_delete(comm, keyval, val, extra, ierror)
    type(MPI_Comm) :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    integer :: deletes
    common /dels/ deletes
    if (comm /= MPI_COMM_NULL .and. keyval >= 0 .and. val + extra > 0) deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine
end module

program f08more
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  use more_checks
  implicit none
  type pt
    sequence
    integer :: id
    double precision :: x
  end type
  integer :: rank, np, n, i, ierr, keyval, deletes, coords(2), dims(2), src, dst, ranges(3, 1)
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=20) :: short
  logical :: flag, periods(2)
  type(MPI_Info) :: info
  type(MPI_Datatype) :: ptype, types(2)
  integer :: blens(2)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2), base, val
  type(pt) :: p(2), q(2)
  type(MPI_Comm) :: cart, dup
  type(MPI_Group) :: wg, rg
  type(MPI_Status) :: status
  integer :: fstatus(MPI_STATUS_SIZE)
  procedure(MPI_User_function), pointer :: userfn
  type(c_ptr) :: mem
  real, pointer :: arr(:)
  type(MPI_Request) :: reqs(2)
  type(MPI_Op) :: op
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), sbuf(:), rbuf(:)
  type(MPI_Datatype), allocatable :: st(:), rt(:)
  double precision :: d(2), dr(2)
  common /dels/ deletes

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  ! Strings out (blank padded) and in (trailing blanks dropped).
  call MPI_Get_library_version(version, n)
  call check(n > 0 .and. version(n+1:) == ' ' .and. index(version, 'hympi') > 0, 'library version')
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'color   ', 'blue sky  ')
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, value, flag)
  call check(flag .and. value == 'blue sky', 'info get')
  call MPI_Info_get_valuelen(info, 'color', n, flag)
  call check(flag .and. n == 8, 'info valuelen')
  call MPI_Info_get(info, 'size', 20, short, flag)
  call check(.not. flag, 'missing key')
  call MPI_Info_get_nkeys(info, n)
  call MPI_Info_get_nthkey(info, 0, short)
  call check(n == 1 .and. short == 'color', 'nthkey')
  call MPI_Info_free(info)
  call check(info == MPI_INFO_NULL, 'info free')

  ! A struct type built from handle and address arrays.
  call MPI_Get_address(p(1)%id, disps(1))
  call MPI_Get_address(p(1)%x, disps(2))
  call MPI_Get_address(p(1), base)
  disps = disps - base
  blens = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  call MPI_Type_create_struct(2, blens, disps, types, ptype)
  call MPI_Type_commit(ptype)
  p(1) = pt(rank, rank * 1.5d0)
  p(2) = pt(-rank, 2.5d0)
  call MPI_Sendrecv(p, 2, ptype, mod(rank + 1, np), 5, q, 2, ptype, mod(rank + np - 1, np), 5, &
                    MPI_COMM_WORLD, status)
  call check(q(1)%id == mod(rank + np - 1, np) .and. q(2)%x == 2.5d0, 'struct sendrecv')
  call MPI_Type_free(ptype)

  ! Alltoallw: one datatype per peer (where the C library has it).
  allocate(sc(np), sd(np), rc(np), rd(np), st(np), rt(np), sbuf(np), rbuf(np))
  sc = 1
  rc = 1
  sd = [(4 * (i - 1), i = 1, np)]
  rd = sd
  st = MPI_INTEGER
  rt = MPI_INTEGER
  sbuf = [(100 * rank + i - 1, i = 1, np)]
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_ERR_UNSUPPORTED_OPERATION) then
    call check(ierr == MPI_SUCCESS .and. all(rbuf == [(100 * (i - 1) + rank, i = 1, np)]), 'alltoallw')
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! A periodic 2-D Cartesian grid with LOGICAL periods.
  dims = 0
  call MPI_Dims_create(np, 2, dims)
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart)
  call MPI_Cart_coords(cart, rank, 2, coords)
  call MPI_Cart_shift(cart, 0, 1, src, dst)
  call check(dst == mod(coords(1) + 1, dims(1)) * dims(2) + coords(2), 'cart shift')
  periods = .false.
  call MPI_Cart_get(cart, 2, dims, periods, coords)
  call check(periods(1) .and. .not. periods(2), 'cart periods')
  call MPI_Comm_test_inter(cart, flag)
  call check(.not. flag, 'test_inter')
  call MPI_Comm_free(cart)

  ! Group ranges.
  call MPI_Comm_group(MPI_COMM_WORLD, wg)
  ranges(:, 1) = [0, np - 1, 2]
  call MPI_Group_range_incl(wg, 1, ranges, rg)
  call MPI_Group_size(rg, n)
  call check(n == (np + 1) / 2, 'range incl')
  call MPI_Group_free(rg)
  call MPI_Group_free(wg)

  ! Probes and Testall flags.
  call MPI_Isend(rank, 1, MPI_INTEGER, 0, 9, MPI_COMM_SELF, reqs(1))
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_SELF, flag, status)
  end do
  call check(status%MPI_TAG == 9, 'iprobe')
  call MPI_Status_f082f(status, fstatus)
  call check(fstatus(MPI_TAG) == 9 .and. fstatus(MPI_SOURCE) == 0, 'status f082f')
  fstatus(MPI_TAG) = 10
  call MPI_Status_f2f08(fstatus, status)
  call check(status%MPI_TAG == 10, 'status f2f08')
  call MPI_Irecv(n, 1, MPI_INTEGER, 0, 9, MPI_COMM_SELF, reqs(2))
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE)
  end do
  call check(n == rank, 'testall')

  ! Memory from MPI_Alloc_mem, as a C pointer.
  call MPI_Alloc_mem(400_MPI_ADDRESS_KIND, MPI_INFO_NULL, mem, ierr)
  call check(ierr == MPI_SUCCESS, 'alloc_mem')
  call c_f_pointer(mem, arr, [100])
  arr = 1.5
  call MPI_Allreduce(MPI_IN_PLACE, arr, 100, MPI_REAL, MPI_SUM, MPI_COMM_WORLD)
  call check(arr(100) == 1.5 * np, 'allreduce in alloc_mem memory')
  call MPI_Free_mem(arr, ierr)
  call check(ierr == MPI_SUCCESS, 'free_mem')

  ! Fortran callbacks: a reduction and attribute copy/delete.
  userfn => maxabs
  call MPI_Op_create(userfn, .true., op)
  d = [dble(-rank), 1d0]
  call MPI_Allreduce(d, dr, 2, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD)
  call check(dr(1) == np - 1 .and. dr(2) == 1, 'user op')
  call MPI_Op_free(op)
  deletes = 0
  call MPI_Comm_create_keyval(copy_plus_one, count_delete, keyval, 1_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 41_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, keyval, val, flag)
  call check(flag .and. val == 42, 'copy callback')
  call MPI_Comm_free(dup)
  call check(deletes == 1, 'delete callback')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval)
  call check(deletes == 2, 'delete attr')
  call MPI_Comm_free_keyval(keyval)

  call MPI_Finalize(ierr)
  if (nbad == 0) print '(a,i0,a)', 'rank ', rank, ' OK'
end program
