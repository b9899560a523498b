/*
 * fort.c — the helpers of the generated wrappers, the sentinels, and the
 * Fortran routines that cannot be generated: MPI_INIT (no argc/argv in
 * Fortran), the functions MPI_WTIME and friends, and the attribute calls
 * whose values are integers in Fortran but pointers in C.
 */
#include <string.h>
#include "fort.h"

/* Sized like the largest Fortran declaration of each and aligned as
 * gfortran aligns common blocks; Fortran objects that name the same
 * common block share this storage. */
#define HF_COMMON __attribute__((aligned(32)))
HF_COMMON int mpi_fortran_bottom_;
HF_COMMON int mpi_fortran_in_place_;
HF_COMMON int mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
HF_COMMON int mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
HF_COMMON int mpi_fortran_errcodes_ignore_[1];
HF_COMMON int mpi_fortran_unweighted_[1];
HF_COMMON int mpi_fortran_weights_empty_[1];

void *hf_handles_in(const MPI_Fint *f, int n)
{
	if (n <= 0) return NULL;
	void **h = malloc((size_t)n * sizeof *h);
	if (!h) return NULL;
	for (int i = 0; i < n; i++) h[i] = (void *)(intptr_t)f[i];
	return h;
}

void hf_handles_out(MPI_Fint *f, void **h, int n)
{
	for (int i = 0; i < n; i++) f[i] = (MPI_Fint)(intptr_t)h[i];
}

int hf_comm_span(MPI_Fint comm)
{
	MPI_Comm c = (MPI_Comm)(intptr_t)comm;
	int inter = 0, n = 0;
	if (MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS) return 0;
	if (inter ? MPI_Comm_remote_size(c, &n) : MPI_Comm_size(c, &n)) return 0;
	return n;
}

void hf_indices_to_f(const MPI_Fint *outcount, MPI_Fint *idx)
{
	if (*outcount == MPI_UNDEFINED) return;
	for (int i = 0; i < *outcount; i++) idx[i]++;
}

char *hf_cstr(const char *f, size_t len)
{
	while (len > 0 && f[len - 1] == ' ') len--;
	char *c = malloc(len + 1);
	if (!c) return NULL;
	memcpy(c, f, len);
	c[len] = 0;
	return c;
}

char *hf_cbuf(size_t len)
{
	/* C writes up to its MPI_MAX_* limit (NUL included) whatever the
	 * Fortran buffer holds; the copy back truncates to len. */
	size_t n = len + 1;
	if (n < MPI_MAX_LIBRARY_VERSION_STRING) n = MPI_MAX_LIBRARY_VERSION_STRING;
	return calloc(1, n);
}

void hf_fstr(char *f, size_t len, const char *c)
{
	size_t n = strlen(c);
	if (n > len) n = len;
	memcpy(f, c, n);
	memset(f + n, ' ', len - n);
}

int hf_nomem(const char *fn)
{
	(void)fn;
	return MPI_ERR_NO_MEM;
}

void mpi_init_(MPI_Fint *ierr)
{
	*ierr = MPI_Init(NULL, NULL);
}

void mpi_init_thread_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
	*ierr = MPI_Init_thread(NULL, NULL, *required, provided);
}

/* MPI_F_SYNC_REG does nothing, out of the compiler's sight: after it, a
 * variable MPI wrote through MPI_BOTTOM or a nonblocking call must be read
 * from memory again. */
void mpi_f_sync_reg_(void *buf)
{
	(void)buf;
}

double mpi_wtime_(void) { return MPI_Wtime(); }
double mpi_wtick_(void) { return MPI_Wtick(); }
double pmpi_wtime_(void) { return PMPI_Wtime(); }
double pmpi_wtick_(void) { return PMPI_Wtick(); }
MPI_Aint mpi_aint_add_(const MPI_Aint *base, const MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
MPI_Aint mpi_aint_diff_(const MPI_Aint *a, const MPI_Aint *b) { return MPI_Aint_diff(*a, *b); }

/* Attributes. In Fortran an attribute value is an integer; C stores it as
 * the pointer's value. The predefined attributes (MPI_TAG_UB ...) are
 * pointers to int in C and the int itself in Fortran. */
static int hf_get_attr(MPI_Fint comm, MPI_Fint key, MPI_Aint *val, MPI_Fint *flag)
{
	void *v = NULL;
	int rc = MPI_Comm_get_attr((MPI_Comm)(intptr_t)comm, key, &v, flag);
	if (rc != MPI_SUCCESS) return rc;
	*flag = *flag != 0;
	if (*flag) *val = (key >= MPI_TAG_UB && key <= MPI_UNIVERSE_SIZE) ? *(int *)v : (MPI_Aint)v;
	return rc;
}

void mpi_comm_get_attr_(const MPI_Fint *comm, const MPI_Fint *key, MPI_Aint *val, MPI_Fint *flag, MPI_Fint *ierr)
{
	*ierr = hf_get_attr(*comm, *key, val, flag);
}

void mpi_attr_get_(const MPI_Fint *comm, const MPI_Fint *key, MPI_Fint *val, MPI_Fint *flag, MPI_Fint *ierr)
{
	MPI_Aint v = 0;
	*ierr = hf_get_attr(*comm, *key, &v, flag);
	if (*ierr == MPI_SUCCESS && *flag) *val = (MPI_Fint)v;
}

void mpi_comm_set_attr_(const MPI_Fint *comm, const MPI_Fint *key, const MPI_Aint *val, MPI_Fint *ierr)
{
	*ierr = MPI_Comm_set_attr((MPI_Comm)(intptr_t)*comm, *key, (void *)*val);
}

void mpi_attr_put_(const MPI_Fint *comm, const MPI_Fint *key, const MPI_Fint *val, MPI_Fint *ierr)
{
	*ierr = MPI_Comm_set_attr((MPI_Comm)(intptr_t)*comm, *key, (void *)(intptr_t)*val);
}

/* The C-callable conversions of MPI-4 (MPI_Fint is a default INTEGER):
 * the standard ABI keeps them out of the C library, the Fortran library
 * provides them for mixed-language programs. */
#define HF_C2F(T, name)                                                      \
	MPI_Fint MPI_##name##_c2f(T h) { return (MPI_Fint)(intptr_t)h; }     \
	T MPI_##name##_f2c(MPI_Fint f) { return (T)(intptr_t)f; }
HF_C2F(MPI_Comm, Comm)
HF_C2F(MPI_Datatype, Type)
HF_C2F(MPI_Errhandler, Errhandler)
HF_C2F(MPI_File, File)
HF_C2F(MPI_Group, Group)
HF_C2F(MPI_Info, Info)
HF_C2F(MPI_Message, Message)
HF_C2F(MPI_Op, Op)
HF_C2F(MPI_Request, Request)
HF_C2F(MPI_Session, Session)
HF_C2F(MPI_Win, Win)

int MPI_Status_c2f(const MPI_Status *c, MPI_Fint *f)
{
	if (!c || !f || c == MPI_STATUS_IGNORE) return MPI_ERR_ARG;
	memcpy(f, c, sizeof *c);
	return MPI_SUCCESS;
}

int MPI_Status_f2c(const MPI_Fint *f, MPI_Status *c)
{
	if (!c || !f || f == MPI_F_STATUS_IGNORE) return MPI_ERR_ARG;
	memcpy(c, f, sizeof *c);
	return MPI_SUCCESS;
}

/* The profiling names of the routines above (wrappers_gen.c has the
 * generated ones'). */
#pragma weak pmpi_init_ = mpi_init_
#pragma weak pmpi_f_sync_reg_ = mpi_f_sync_reg_
#pragma weak pmpi_init_thread_ = mpi_init_thread_
#pragma weak pmpi_aint_add_ = mpi_aint_add_
#pragma weak pmpi_aint_diff_ = mpi_aint_diff_
#pragma weak pmpi_comm_get_attr_ = mpi_comm_get_attr_
#pragma weak pmpi_attr_get_ = mpi_attr_get_
#pragma weak pmpi_comm_set_attr_ = mpi_comm_set_attr_
#pragma weak pmpi_attr_put_ = mpi_attr_put_
