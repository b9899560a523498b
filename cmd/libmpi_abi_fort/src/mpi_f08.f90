! mpi_f08: hympi's Fortran 2008 binding. Handles are derived types holding
! the standard ABI's integer value (MPI_VAL); every routine takes an
! optional ierror. Buffers are TYPE(*), DIMENSION(*) with gfortran's
! NO_ARG_CHECK (any type, kind and rank; MPI_SUBARRAYS_SUPPORTED is
! .false.: pass contiguous buffers to nonblocking calls). Routines forward
! to the same C entry points as mpif.h and `use mpi`.
module mpi_f08
  use, intrinsic :: iso_c_binding, only: c_char, c_size_t, c_ptr, c_funptr, c_funloc
  implicit none
  private :: c_char, c_size_t, c_ptr, c_funptr, c_funloc

  type, bind(C) :: MPI_Status
    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    integer :: MPI_internal(5)
  end type

  ! The sentinels: the same common blocks as mpif.h's, whose addresses
  ! the C wrappers recognise.
  type(MPI_Status) :: MPI_STATUS_IGNORE
  type(MPI_Status) :: MPI_STATUSES_IGNORE(1)
  integer :: MPI_BOTTOM, MPI_IN_PLACE
  integer :: MPI_ERRCODES_IGNORE(1), MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)
  common /mpi_fortran_status_ignore/ MPI_STATUS_IGNORE
  common /mpi_fortran_statuses_ignore/ MPI_STATUSES_IGNORE
  common /mpi_fortran_bottom/ MPI_BOTTOM
  common /mpi_fortran_in_place/ MPI_IN_PLACE
  common /mpi_fortran_errcodes_ignore/ MPI_ERRCODES_IGNORE
  common /mpi_fortran_unweighted/ MPI_UNWEIGHTED
  common /mpi_fortran_weights_empty/ MPI_WEIGHTS_EMPTY

  include 'mpi_f08_gen.f90'

  ! The predefined attribute callbacks, for MPI_Comm_create_keyval
  ! (external procedures: callbacks.c defines them).
  interface
    subroutine MPI_COMM_NULL_COPY_FN(oldcomm, comm_keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      import
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine
    subroutine MPI_COMM_DUP_FN(oldcomm, comm_keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      import
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine
    subroutine MPI_COMM_NULL_DELETE_FN(comm, comm_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Comm) :: comm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine
  end interface

  ! The callback interfaces of the standard, for programs that declare
  ! procedure(MPI_User_function) and the like.
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine
    subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      import
      type(MPI_Comm) :: oldcomm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      logical :: flag
    end subroutine
    subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
      import
      type(MPI_Comm) :: comm
      integer :: comm_keyval, ierror
      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    end subroutine
    subroutine MPI_Comm_errhandler_function(comm, error_code)
      import
      type(MPI_Comm) :: comm
      integer :: error_code
    end subroutine
  end interface

contains

  ! Between a status of the mpi module (an INTEGER array) and mpi_f08's:
  ! the same eight integers.
  subroutine MPI_Status_f2f08(f_status, f08_status, ierror)
    integer, intent(in) :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status), intent(out) :: f08_status
    integer, optional, intent(out) :: ierror
    f08_status = transfer(f_status, f08_status)
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine

  subroutine MPI_Status_f082f(f08_status, f_status, ierror)
    type(MPI_Status), intent(in) :: f08_status
    integer, intent(out) :: f_status(MPI_STATUS_SIZE)
    integer, optional, intent(out) :: ierror
    f_status = transfer(f08_status, f_status)
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine

  include 'mpi_f08_procs_gen.f90'

  ! MPI_SIZEOF: the size in bytes of one element of x, any type and rank.
  subroutine MPI_Sizeof(x, size, ierror)
    class(*), intent(in) :: x(..)
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = int(storage_size(x) / 8)
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine

  ! Written by hand: no argc/argv, functions, callbacks and attribute
  ! values (integers in Fortran, pointers in C).

  subroutine MPI_Init(ierror)
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_init(ierr) bind(C, name="mpi_init_")
        integer :: ierr
      end subroutine
    end interface
    call c_init(ierr)
    if (present(ierror)) ierror = ierr
  end subroutine

  subroutine MPI_Init_thread(required, provided, ierror)
    integer, intent(in) :: required
    integer, intent(out) :: provided
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_init_thread(required, provided, ierr) bind(C, name="mpi_init_thread_")
        integer :: required, provided, ierr
      end subroutine
    end interface
    call c_init_thread(required, provided, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine

  subroutine MPI_F_sync_reg(buf)
    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
    type(*), dimension(*) :: buf
    interface
      subroutine c_sync_reg(buf) bind(C, name="mpi_f_sync_reg_")
        type(*), dimension(*) :: buf
      end subroutine
    end interface
    call c_sync_reg(buf)
  end subroutine

  double precision function MPI_Wtime()
    interface
      double precision function c_wtime() bind(C, name="mpi_wtime_")
      end function
    end interface
    MPI_Wtime = c_wtime()
  end function

  double precision function MPI_Wtick()
    interface
      double precision function c_wtick() bind(C, name="mpi_wtick_")
      end function
    end interface
    MPI_Wtick = c_wtick()
  end function

  subroutine MPI_Comm_get_attr(comm, comm_keyval, attribute_val, flag, ierror)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: comm_keyval
    integer(kind=MPI_ADDRESS_KIND), intent(out) :: attribute_val
    logical, intent(out) :: flag
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_get(comm, key, val, flag, ierr) bind(C, name="mpi_comm_get_attr_")
        import
        type(MPI_Comm) :: comm
        integer :: key, ierr
        integer(kind=MPI_ADDRESS_KIND) :: val
        logical :: flag
      end subroutine
    end interface
    call c_get(comm, comm_keyval, attribute_val, flag, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine

  subroutine MPI_Comm_set_attr(comm, comm_keyval, attribute_val, ierror)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: comm_keyval
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: attribute_val
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_set(comm, key, val, ierr) bind(C, name="mpi_comm_set_attr_")
        import
        type(MPI_Comm) :: comm
        integer :: key, ierr
        integer(kind=MPI_ADDRESS_KIND) :: val
      end subroutine
    end interface
    call c_set(comm, comm_keyval, attribute_val, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine

  ! The callbacks' C trampolines call the Fortran procedure with every
  ! argument by reference: MPI_User_function's VALUE c_ptr arguments
  ! receive the buffers' addresses the same way.
  subroutine MPI_Op_create(user_fn, commute, op, ierror)
    procedure(MPI_User_function) :: user_fn
    logical, intent(in) :: commute
    type(MPI_Op), intent(out) :: op
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_op_create(fn, commute, op, ierr) bind(C, name="mpi_op_create_")
        import
        type(c_funptr), value :: fn
        logical :: commute
        type(MPI_Op) :: op
        integer :: ierr
      end subroutine
    end interface
    call c_op_create(c_funloc(user_fn), commute, op, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine

  subroutine MPI_Comm_create_errhandler(comm_errhandler_fn, errhandler, ierror)
    procedure(MPI_Comm_errhandler_function) :: comm_errhandler_fn
    type(MPI_Errhandler), intent(out) :: errhandler
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_eh_create(fn, eh, ierr) bind(C, name="mpi_comm_create_errhandler_")
        import
        type(c_funptr), value :: fn
        type(MPI_Errhandler) :: eh
        integer :: ierr
      end subroutine
    end interface
    call c_eh_create(c_funloc(comm_errhandler_fn), errhandler, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine

  subroutine MPI_Comm_create_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state, ierror)
    procedure(MPI_Comm_copy_attr_function) :: comm_copy_attr_fn
    procedure(MPI_Comm_delete_attr_function) :: comm_delete_attr_fn
    integer, intent(out) :: comm_keyval
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
    integer, optional, intent(out) :: ierror
    integer :: ierr
    interface
      subroutine c_kv_create(copy, del, key, extra, ierr) bind(C, name="mpi_comm_create_keyval_")
        import
        type(c_funptr), value :: copy, del
        integer :: key, ierr
        integer(kind=MPI_ADDRESS_KIND) :: extra
      end subroutine
    end interface
    call c_kv_create(c_funloc(comm_copy_attr_fn), c_funloc(comm_delete_attr_fn), comm_keyval, extra_state, ierr)
    if (present(ierror)) ierror = ierr
  end subroutine
end module mpi_f08
