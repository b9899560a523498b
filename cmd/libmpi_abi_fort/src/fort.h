/*
 * fort.h — what the Fortran wrappers share: gfortran's conventions and the
 * sentinels Fortran programs pass where C would pass a special pointer.
 *
 * gfortran passes every argument by reference, appends the length of each
 * CHARACTER argument as a size_t after the declared arguments, and keeps a
 * default INTEGER and LOGICAL in 4 bytes (.TRUE. is 1). A Fortran handle
 * is the standard ABI's integer value of the C handle (MPI_Comm_toint), so
 * the conversion is a cast both ways.
 */
#ifndef HYMPI_FORT_H
#define HYMPI_FORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "mpi_abi_fort.h"

/* The sentinels: Fortran common blocks (mpif.h, mpi, mpi_f08 all name the
 * same ones), defined here so their addresses are known to C. */
extern int mpi_fortran_bottom_;
extern int mpi_fortran_in_place_;
extern int mpi_fortran_errcodes_ignore_[1];
extern int mpi_fortran_unweighted_[1];
extern int mpi_fortran_weights_empty_[1];

#define HF_BUF(p) ((const void *)(p) == (const void *)&mpi_fortran_bottom_ ? MPI_BOTTOM : \
	(const void *)(p) == (const void *)&mpi_fortran_in_place_ ? MPI_IN_PLACE : (void *)(p))
#define HF_STATUS(p) ((void *)(p) == (void *)mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (p))
#define HF_STATUSES(p) ((void *)(p) == (void *)mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE : (p))
#define HF_ERRCODES(p) ((void *)(p) == (void *)mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : (p))
#define HF_WEIGHTS(p) ((void *)(p) == (void *)mpi_fortran_unweighted_ ? MPI_UNWEIGHTED : \
	(void *)(p) == (void *)mpi_fortran_weights_empty_ ? MPI_WEIGHTS_EMPTY : (p))

/* Handle arrays: C handles are pointer-sized, Fortran's are INTEGERs.
 * hf_handles_in returns a malloc'd copy (NULL if n <= 0 or out of memory). */
void *hf_handles_in(const MPI_Fint *f, int n);
void hf_handles_out(MPI_Fint *f, void **h, int n);
/* The number of datatypes MPI_Alltoallw reads per side. */
int hf_comm_span(MPI_Fint comm);
/* Fortran indexes requests from 1. */
void hf_indices_to_f(const MPI_Fint *outcount, MPI_Fint *idx);
/* CHARACTER arguments: hf_cstr copies a Fortran string without its
 * trailing blanks into a NUL-terminated malloc'd one; hf_cbuf allocates a
 * C buffer large enough for any output of an MPI call with a Fortran
 * buffer of len characters; hf_fstr copies C's answer back, blank padded. */
char *hf_cstr(const char *f, size_t len);
char *hf_cbuf(size_t len);
void hf_fstr(char *f, size_t len, const char *c);
int hf_nomem(const char *fn);

#endif
