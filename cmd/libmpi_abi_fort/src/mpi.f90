! mpi: hympi's `use mpi` binding. The same constants, sentinels and
! buffer interfaces as mpif.h (the routines without buffers have implicit
! interfaces, as with mpif.h).
module mpi
  implicit none
  include 'mpif.h'
end module mpi
