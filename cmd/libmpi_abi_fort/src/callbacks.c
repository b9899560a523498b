/*
 * callbacks.c — Fortran procedures as MPI callbacks.
 *
 * The C library calls a user reduction or error handler with C handles and
 * no context to say which Fortran procedure it stands for, so each
 * registered procedure gets one of a fixed set of C trampolines that
 * converts the handles and calls it. Attribute callbacks do carry a
 * context (extra_state): it points at a record with the Fortran procedures
 * and the user's own extra_state.
 */
#include <pthread.h>
#include "fort.h"

#define HF_SLOTS 64

static pthread_mutex_t hf_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reductions ------------------------------------------------------ */

typedef void hf_user_fn(void *in, void *inout, MPI_Fint *len, MPI_Fint *dt);
static hf_user_fn *hf_ops[HF_SLOTS];

#define HF_OP_TRAMP(i)                                                             \
	static void hf_op_##i(void *in, void *inout, int *len, MPI_Datatype *dt) \
	{                                                                         \
		MPI_Fint fdt = (MPI_Fint)(intptr_t)*dt;                           \
		hf_ops[0##i](in, inout, len, &fdt);                               \
	}
#define HF_8(M, b) M(b##0) M(b##1) M(b##2) M(b##3) M(b##4) M(b##5) M(b##6) M(b##7)
#define HF_64(M) HF_8(M, ) HF_8(M, 1) HF_8(M, 2) HF_8(M, 3) HF_8(M, 4) HF_8(M, 5) HF_8(M, 6) HF_8(M, 7)
/* Trampoline hf_op_N serves slot N read as octal (0..77 for 0..63): the
 * tables below list them in slot order. */
HF_64(HF_OP_TRAMP)
#define HF_NAME(i) hf_op_##i,
static MPI_User_function *const hf_op_tramps[HF_SLOTS] = {HF_64(HF_NAME)};
#undef HF_NAME

/* hf_slot finds fn's slot in table (or a free one): a procedure
 * registered twice shares its trampoline. */
static int hf_slot(void **table, void *fn)
{
	int free = -1;
	for (int i = 0; i < HF_SLOTS; i++) {
		if (table[i] == fn) return i;
		if (!table[i] && free < 0) free = i;
	}
	if (free >= 0) table[free] = fn;
	return free;
}

void mpi_op_create_(hf_user_fn *fn, const MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
	pthread_mutex_lock(&hf_lock);
	int s = hf_slot((void **)hf_ops, (void *)fn);
	pthread_mutex_unlock(&hf_lock);
	if (s < 0) {
		*ierr = MPI_ERR_INTERN;
		return;
	}
	MPI_Op h = MPI_OP_NULL;
	*ierr = MPI_Op_create(hf_op_tramps[s], *commute != 0, &h);
	if (*ierr == MPI_SUCCESS) *op = (MPI_Fint)(intptr_t)h;
}

/* ---- error handlers -------------------------------------------------- */

typedef void hf_eh_fn(MPI_Fint *comm, MPI_Fint *code);
static hf_eh_fn *hf_ehs[HF_SLOTS];

#define HF_EH_TRAMP(i)                                                  \
	static void hf_eh_##i(MPI_Comm *comm, int *code, ...)          \
	{                                                              \
		MPI_Fint fc = (MPI_Fint)(intptr_t)*comm;               \
		hf_ehs[0##i](&fc, code);                               \
	}
HF_64(HF_EH_TRAMP)
#define HF_NAME(i) hf_eh_##i,
static MPI_Comm_errhandler_function *const hf_eh_tramps[HF_SLOTS] = {HF_64(HF_NAME)};
#undef HF_NAME

void mpi_comm_create_errhandler_(hf_eh_fn *fn, MPI_Fint *eh, MPI_Fint *ierr)
{
	pthread_mutex_lock(&hf_lock);
	int s = hf_slot((void **)hf_ehs, (void *)fn);
	pthread_mutex_unlock(&hf_lock);
	if (s < 0) {
		*ierr = MPI_ERR_INTERN;
		return;
	}
	MPI_Errhandler h = MPI_ERRHANDLER_NULL;
	*ierr = MPI_Comm_create_errhandler(hf_eh_tramps[s], &h);
	if (*ierr == MPI_SUCCESS) *eh = (MPI_Fint)(intptr_t)h;
}

void mpi_errhandler_create_(hf_eh_fn *fn, MPI_Fint *eh, MPI_Fint *ierr)
{
	mpi_comm_create_errhandler_(fn, eh, ierr);
}

/* ---- attribute callbacks --------------------------------------------- */

/* MPI-2 style: values and extra_state are INTEGER(KIND=MPI_ADDRESS_KIND). */
typedef void hf_copy_fn(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
	MPI_Fint *flag, MPI_Fint *ierr);
typedef void hf_delete_fn(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *val, MPI_Aint *extra, MPI_Fint *ierr);
/* MPI-1 style (MPI_KEYVAL_CREATE): everything default INTEGER. */
typedef void hf_copy1_fn(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
	MPI_Fint *flag, MPI_Fint *ierr);
typedef void hf_delete1_fn(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *val, MPI_Fint *extra, MPI_Fint *ierr);

typedef struct {
	void *copy, *del;
	MPI_Aint extra;
	int old; /* MPI-1 style */
} hf_keyval;

static int hf_copy(MPI_Comm comm, int key, void *state, void *in, void *out, int *flag)
{
	hf_keyval *k = state;
	MPI_Fint fc = (MPI_Fint)(intptr_t)comm, fk = key, ierr = MPI_SUCCESS;
	if (k->old) {
		MPI_Fint e = (MPI_Fint)k->extra, vi = (MPI_Fint)(intptr_t)in, vo = 0;
		((hf_copy1_fn *)k->copy)(&fc, &fk, &e, &vi, &vo, flag, &ierr);
		*(void **)out = (void *)(intptr_t)vo;
	} else {
		MPI_Aint vi = (MPI_Aint)in, vo = 0;
		((hf_copy_fn *)k->copy)(&fc, &fk, &k->extra, &vi, &vo, flag, &ierr);
		*(void **)out = (void *)vo;
	}
	*flag = *flag != 0;
	return ierr;
}

static int hf_delete(MPI_Comm comm, int key, void *val, void *state)
{
	hf_keyval *k = state;
	MPI_Fint fc = (MPI_Fint)(intptr_t)comm, fk = key, ierr = MPI_SUCCESS;
	if (k->old) {
		MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;
		((hf_delete1_fn *)k->del)(&fc, &fk, &v, &e, &ierr);
	} else {
		MPI_Aint v = (MPI_Aint)val;
		((hf_delete_fn *)k->del)(&fc, &fk, &v, &k->extra, &ierr);
	}
	return ierr;
}

/* The predefined Fortran callbacks. Passed to MPI_COMM_CREATE_KEYVAL they
 * become the C library's own sentinels; called directly they behave as
 * the standard says. */
void mpi_comm_null_copy_fn_(MPI_Fint *c, MPI_Fint *k, MPI_Aint *e, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
	MPI_Fint *ierr)
{
	(void)c, (void)k, (void)e, (void)in, (void)out;
	*flag = 0;
	*ierr = MPI_SUCCESS;
}
void mpi_comm_dup_fn_(MPI_Fint *c, MPI_Fint *k, MPI_Aint *e, MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
	MPI_Fint *ierr)
{
	(void)c, (void)k, (void)e;
	*out = *in;
	*flag = 1;
	*ierr = MPI_SUCCESS;
}
void mpi_comm_null_delete_fn_(MPI_Fint *c, MPI_Fint *k, MPI_Aint *v, MPI_Aint *e, MPI_Fint *ierr)
{
	(void)c, (void)k, (void)v, (void)e;
	*ierr = MPI_SUCCESS;
}
void mpi_null_copy_fn_(MPI_Fint *c, MPI_Fint *k, MPI_Fint *e, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag,
	MPI_Fint *ierr)
{
	(void)c, (void)k, (void)e, (void)in, (void)out;
	*flag = 0;
	*ierr = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint *c, MPI_Fint *k, MPI_Fint *e, MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	(void)c, (void)k, (void)e;
	*out = *in;
	*flag = 1;
	*ierr = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint *c, MPI_Fint *k, MPI_Fint *v, MPI_Fint *e, MPI_Fint *ierr)
{
	(void)c, (void)k, (void)v, (void)e;
	*ierr = MPI_SUCCESS;
}

static void hf_create_keyval(void *copy, void *del, MPI_Aint extra, int old, MPI_Fint *key, MPI_Fint *ierr)
{
	MPI_Comm_copy_attr_function *ccopy = hf_copy;
	MPI_Comm_delete_attr_function *cdel = hf_delete;
	if (copy == (void *)mpi_comm_null_copy_fn_ || copy == (void *)mpi_null_copy_fn_) ccopy = MPI_COMM_NULL_COPY_FN;
	if (copy == (void *)mpi_comm_dup_fn_ || copy == (void *)mpi_dup_fn_) ccopy = MPI_COMM_DUP_FN;
	if (del == (void *)mpi_comm_null_delete_fn_ || del == (void *)mpi_null_delete_fn_) cdel = MPI_COMM_NULL_DELETE_FN;
	/* The record lives as long as the program: a keyval's callbacks may
	 * run after MPI_Comm_free_keyval, on communicators still holding it. */
	hf_keyval *k = malloc(sizeof *k);
	if (!k) {
		*ierr = MPI_ERR_NO_MEM;
		return;
	}
	*k = (hf_keyval){copy, del, extra, old};
	int ck = MPI_KEYVAL_INVALID;
	*ierr = MPI_Comm_create_keyval(ccopy, cdel, &ck, k);
	if (*ierr == MPI_SUCCESS) *key = ck;
	else free(k);
}

void mpi_comm_create_keyval_(void *copy, void *del, MPI_Fint *key, const MPI_Aint *extra, MPI_Fint *ierr)
{
	hf_create_keyval(copy, del, *extra, 0, key, ierr);
}

void mpi_keyval_create_(void *copy, void *del, MPI_Fint *key, const MPI_Fint *extra, MPI_Fint *ierr)
{
	hf_create_keyval(copy, del, *extra, 1, key, ierr);
}

#pragma weak pmpi_op_create_ = mpi_op_create_
#pragma weak pmpi_comm_create_errhandler_ = mpi_comm_create_errhandler_
#pragma weak pmpi_errhandler_create_ = mpi_errhandler_create_
#pragma weak pmpi_comm_create_keyval_ = mpi_comm_create_keyval_
#pragma weak pmpi_keyval_create_ = mpi_keyval_create_
