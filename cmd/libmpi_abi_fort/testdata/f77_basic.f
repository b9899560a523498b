C     The mpif.h binding, written as fixed-form FORTRAN 77 (plus
C     DOUBLE COMPLEX, as classic codes use it). Every rank prints
C     "rank R OK" when all checks passed.
      PROGRAM F77B
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, NBAD, NEXT, PREV
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 2)
      INTEGER REQS(2), CNT, IDX
      DOUBLE PRECISION D(4), DS(4), PAIR(2, 2), PRES(2, 2)
      REAL R(3), RS(3)
      INTEGER IV(3), IVS(3)
      LOGICAL L, LS, FLAG
      COMPLEX C, CS
      DOUBLE COMPLEX Z, ZS
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      CHARACTER*(MPI_MAX_ERROR_STRING) ESTR
      INTEGER PLEN, ELEN, ECLASS, IA(3), IB(2), IT(2), NT
      DOUBLE PRECISION T0, T1
      COMMON /BAD/ NBAD
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'init')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)
      T0 = MPI_WTIME()
C     Blocking ring, any source: status fields and count.
      DO I = 1, 4
        D(I) = 10 * RANK + I
      END DO
      IF (MOD(RANK, 2) .EQ. 0) THEN
        CALL MPI_SEND(D, 4, MPI_DOUBLE_PRECISION, NEXT, 7,
     &       MPI_COMM_WORLD, IERR)
        CALL MPI_RECV(DS, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE,
     &       7, MPI_COMM_WORLD, STATUS, IERR)
      ELSE
        CALL MPI_RECV(DS, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE,
     &       7, MPI_COMM_WORLD, STATUS, IERR)
        CALL MPI_SEND(D, 4, MPI_DOUBLE_PRECISION, NEXT, 7,
     &       MPI_COMM_WORLD, IERR)
      END IF
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. PREV, 'status source')
      CALL CHECK(STATUS(MPI_TAG) .EQ. 7, 'status tag')
      CALL MPI_GET_COUNT(STATUS, MPI_DOUBLE_PRECISION, CNT, IERR)
      CALL CHECK(CNT .EQ. 4, 'get_count')
      CALL CHECK(DS(3) .EQ. 10 * PREV + 3, 'ring data')
C     Nonblocking, the other way round; MPI_WAITANY counts from 1.
      CALL MPI_IRECV(IVS, 3, MPI_INTEGER, NEXT, 8, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      IV(1) = RANK
      IV(2) = -RANK
      IV(3) = 42
      CALL MPI_ISEND(IV, 3, MPI_INTEGER, PREV, 8, MPI_COMM_WORLD,
     &     REQS(2), IERR)
      CALL MPI_WAITANY(2, REQS, IDX, STATUS, IERR)
      CALL CHECK(IDX .EQ. 1 .OR. IDX .EQ. 2, 'waitany index')
      CALL CHECK(REQS(IDX) .EQ. MPI_REQUEST_NULL, 'waitany null')
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'waitall null')
      CALL CHECK(IVS(1) .EQ. NEXT .AND. IVS(3) .EQ. 42, 'isend data')
      CALL MPI_TEST(REQS(1), FLAG, MPI_STATUS_IGNORE, IERR)
      CALL CHECK(FLAG, 'test on null request')
C     Reductions with Fortran types.
      CALL MPI_ALLREDUCE(D, DS, 4, MPI_DOUBLE_PRECISION, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(DS(1) .EQ. 10 * NP * (NP - 1) / 2 + NP, 'dp sum')
      DO I = 1, 3
        R(I) = RANK * I
      END DO
      CALL MPI_ALLREDUCE(R, RS, 3, MPI_REAL, MPI_MAX,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(RS(3) .EQ. 3 * (NP - 1), 'real max')
      PAIR(1, 1) = MOD(RANK, 2)
      PAIR(2, 1) = RANK
      PAIR(1, 2) = -RANK
      PAIR(2, 2) = RANK
      CALL MPI_ALLREDUCE(PAIR, PRES, 2, MPI_2DOUBLE_PRECISION,
     &     MPI_MAXLOC, MPI_COMM_WORLD, IERR)
      CALL CHECK(PRES(1, 1) .EQ. 1 .AND. PRES(2, 1) .EQ. 1, 'maxloc')
      CALL CHECK(PRES(1, 2) .EQ. 0 .AND. PRES(2, 2) .EQ. 0, 'maxloc 2')
      L = RANK .GE. 0
      CALL MPI_ALLREDUCE(L, LS, 1, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(LS, 'land true')
      L = RANK .EQ. 0
      CALL MPI_ALLREDUCE(L, LS, 1, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(.NOT. LS, 'land false')
      CALL MPI_ALLREDUCE(L, LS, 1, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(LS, 'lor')
      C = CMPLX(RANK, 1)
      CALL MPI_ALLREDUCE(C, CS, 1, MPI_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(CS .EQ. CMPLX(NP * (NP - 1) / 2, NP), 'complex sum')
      Z = DCMPLX(0, 1)
      CALL MPI_ALLREDUCE(Z, ZS, 1, MPI_DOUBLE_COMPLEX, MPI_PROD,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(ZS .EQ. (0, 1)**NP, 'double complex prod')
      IV(1) = RANK + 1
      CALL MPI_REDUCE(IV, IVS, 1, MPI_INTEGER, MPI_SUM, 0,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) CALL CHECK(IVS(1) .EQ. NP*(NP+1)/2, 'reduce')
      IV(1) = 5
      IF (RANK .EQ. 0) IV(1) = 99
      CALL MPI_BCAST(IV, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(IV(1) .EQ. 99, 'bcast')
C     Strings, errors and time.
      CALL MPI_GET_PROCESSOR_NAME(PNAME, PLEN, IERR)
      CALL CHECK(PLEN .GT. 0 .AND. PNAME(PLEN+1:) .EQ. ' ', 'pname')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL MPI_SEND(D, 1, MPI_DOUBLE_PRECISION, NP + 5, 0,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IERR .NE. MPI_SUCCESS, 'bad rank fails')
      CALL MPI_ERROR_CLASS(IERR, ECLASS, I)
      CALL CHECK(ECLASS .EQ. MPI_ERR_RANK, 'error class')
      CALL MPI_ERROR_STRING(IERR, ESTR, ELEN, I)
      CALL CHECK(ELEN .GT. 0 .AND. ESTR(ELEN+1:) .EQ. ' ', 'estring')
C     MPI-1 routines classic codes still call.
      CALL MPI_ADDRESS(D(1), IA(1), IERR)
      CALL MPI_ADDRESS(IV(1), IA(2), IERR)
      CALL MPI_ADDRESS(D(3), IA(3), IERR)
      CALL CHECK(IA(3) - IA(1) .EQ. 16, 'mpi_address')
      IB(1) = 1
      IB(2) = 2
      IT(1) = MPI_INTEGER
      IT(2) = MPI_DOUBLE_PRECISION
      IA(1) = 0
      IA(2) = 8
      CALL MPI_TYPE_STRUCT(2, IB, IA, IT, NT, IERR)
      CALL MPI_TYPE_EXTENT(NT, CNT, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. CNT .EQ. 24, 'type_struct')
      CALL MPI_TYPE_FREE(NT, IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, NT, IERR)
      CALL CHECK(NT .EQ. MPI_ERRORS_RETURN, 'errhandler_get')
C     Bad handles and counts: the right class, nothing changed.
      CALL MPI_COMM_RANK(12345, I, IERR)
      CALL MPI_ERROR_CLASS(IERR, ECLASS, I)
      CALL CHECK(ECLASS .EQ. MPI_ERR_COMM, 'bad comm')
      CALL MPI_WAITALL(-1, REQS, STATS, IERR)
      CALL MPI_ERROR_CLASS(IERR, ECLASS, I)
      CALL CHECK(ECLASS .EQ. MPI_ERR_COUNT, 'negative count')
      CALL MPI_TYPE_SIZE(MPI_DATATYPE_NULL, CNT, IERR)
      CALL MPI_ERROR_CLASS(IERR, ECLASS, I)
      CALL CHECK(ECLASS .EQ. MPI_ERR_TYPE, 'null type')
      REQS(1) = 999
      CALL MPI_WAIT(REQS(1), STATUS, IERR)
      CALL MPI_ERROR_CLASS(IERR, ECLASS, I)
      CALL CHECK(ECLASS .EQ. MPI_ERR_REQUEST, 'bad request')
      CALL CHECK(REQS(1) .EQ. 999, 'bad request unchanged')
      T1 = MPI_WTIME()
      CALL CHECK(T1 .GE. T0 .AND. MPI_WTICK() .GT. 0, 'wtime')
      CALL MPI_FINALIZE(IERR)
      IF (NBAD .EQ. 0) PRINT '(A,I0,A)', 'rank ', RANK, ' OK'
      END

      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER NBAD
      COMMON /BAD/ NBAD
      IF (.NOT. OK) THEN
        PRINT *, 'FAIL: ', WHAT
        NBAD = NBAD + 1
      END IF
      END
