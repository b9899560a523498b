! mpi: hympi's `use mpi` binding: mpif.h's constants, sentinels and
! buffer interfaces, plus explicit interfaces for every other routine
! (arrays other than buffers stay unchecked, as classic codes pass a
! scalar where a routine takes an array of one).
module mpi
  implicit none
  include 'mpif.h'
  include 'mpi_gen.f90'

  ! The routines written by hand in C (fort.c, callbacks.c).
  interface
    subroutine MPI_INIT(IERROR)
      integer IERROR
    end subroutine
    subroutine MPI_INIT_THREAD(REQUIRED, PROVIDED, IERROR)
      integer REQUIRED, PROVIDED, IERROR
    end subroutine
    subroutine MPI_COMM_GET_ATTR(COMM, COMM_KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)
      integer COMM, COMM_KEYVAL, IERROR
      integer(kind=8) ATTRIBUTE_VAL
      logical FLAG
    end subroutine
    subroutine MPI_COMM_SET_ATTR(COMM, COMM_KEYVAL, ATTRIBUTE_VAL, IERROR)
      integer COMM, COMM_KEYVAL, IERROR
      integer(kind=8) ATTRIBUTE_VAL
    end subroutine
    subroutine MPI_ATTR_GET(COMM, KEYVAL, ATTRIBUTE_VAL, FLAG, IERROR)
      integer COMM, KEYVAL, ATTRIBUTE_VAL, IERROR
      logical FLAG
    end subroutine
    subroutine MPI_ATTR_PUT(COMM, KEYVAL, ATTRIBUTE_VAL, IERROR)
      integer COMM, KEYVAL, ATTRIBUTE_VAL, IERROR
    end subroutine
    subroutine MPI_OP_CREATE(USER_FN, COMMUTE, OP, IERROR)
      external USER_FN
      logical COMMUTE
      integer OP, IERROR
    end subroutine
    subroutine MPI_COMM_CREATE_ERRHANDLER(COMM_ERRHANDLER_FN, ERRHANDLER, IERROR)
      external COMM_ERRHANDLER_FN
      integer ERRHANDLER, IERROR
    end subroutine
    subroutine MPI_COMM_CREATE_KEYVAL(COMM_COPY_ATTR_FN, COMM_DELETE_ATTR_FN, COMM_KEYVAL, EXTRA_STATE, IERROR)
      external COMM_COPY_ATTR_FN, COMM_DELETE_ATTR_FN
      integer COMM_KEYVAL, IERROR
      integer(kind=8) EXTRA_STATE
    end subroutine
    subroutine MPI_KEYVAL_CREATE(COPY_FN, DELETE_FN, KEYVAL, EXTRA_STATE, IERROR)
      external COPY_FN, DELETE_FN
      integer KEYVAL, EXTRA_STATE, IERROR
    end subroutine
  end interface

contains

  ! MPI_SIZEOF: the size in bytes of one element of x, any type and rank.
  subroutine MPI_Sizeof(x, size, ierror)
    class(*), intent(in) :: x(..)
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = int(storage_size(x) / 8)
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine
end module mpi
