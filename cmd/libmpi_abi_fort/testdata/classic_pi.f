c**********************************************************************
c   pi.f - compute pi by integrating f(x) = 4/(1 + x**2)
c
c   Written the way the classic MPI examples are: FORTRAN 77, mpif.h,
c   rank 0 broadcasts the interval count, everyone sums a strided
c   share, MPI_REDUCE collects. Repeats for several interval counts and
c   checks the error against the known value.
c**********************************************************************
      program main

      include 'mpif.h'

      double precision  PI25DT
      parameter        (PI25DT = 3.141592653589793238462643d0)

      double precision  mypi, pi, h, sum, x, f, a, t0, t1
      integer n, myid, numprocs, i, rc, ierr, iter, nbad
c                                 function to integrate
      f(a) = 4.d0 / (1.d0 + a*a)

      call MPI_INIT( ierr )
      call MPI_COMM_RANK( MPI_COMM_WORLD, myid, ierr )
      call MPI_COMM_SIZE( MPI_COMM_WORLD, numprocs, ierr )
      nbad = 0
      t0 = MPI_WTIME()

      do 30 iter = 1, 4
      if ( myid .eq. 0 ) then
         n = 1000 * 10**iter
      endif
      call MPI_BCAST(n,1,MPI_INTEGER,0,MPI_COMM_WORLD,ierr)

c                                 calculate the interval size
      h = 1.0d0/n
      sum  = 0.0d0
      do 20 i = myid+1, n, numprocs
         x = h * (dble(i) - 0.5d0)
         sum = sum + f(x)
 20   continue
      mypi = h * sum

c                                 collect all the partial sums
      call MPI_REDUCE(mypi,pi,1,MPI_DOUBLE_PRECISION,MPI_SUM,0,
     &                  MPI_COMM_WORLD,ierr)

c                                 node 0 prints the answer.
      if (myid .eq. 0) then
         if (abs(pi - PI25DT) .gt. 1.0d-12 + 1.0d0/dble(n)**2)
     +      nbad = nbad + 1
         write(6, 97) n, pi, abs(pi - PI25DT)
 97      format('  n = ', i8, '  pi is approximately: ', F18.16,
     +          '  Error is: ', E10.3)
      endif
 30   continue

      t1 = MPI_WTIME()
      call MPI_BCAST(nbad,1,MPI_INTEGER,0,MPI_COMM_WORLD,ierr)
      call MPI_FINALIZE(rc)
      if (nbad .eq. 0 .and. t1 .ge. t0) then
         write(6, '(a,i0,a)') 'rank ', myid, ' OK'
      endif
      stop
      end
