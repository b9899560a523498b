/* bsend_ext.c — MPI 4.1's Bsend buffers: one per communicator, ahead of
 * the process's; MPI_BUFFER_AUTOMATIC; flushes that wait only for what is
 * buffered and, in their nonblocking form, let the receive be posted
 * after them; session buffers; and the errors of misuse. Also
 * MPI_Abi_set_fortran_info/booleans, which accept only hympi's own facts. */
#include <stdint.h>
#include "check.h"

enum { BIG = 1 << 16 };

int main(int argc, char **argv)
{
	int rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	MPI_Comm dup;
	CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
	int cls, x = 42, y = 0;

	/* No buffer anywhere: Bsend fails, detach and flush say so / do nothing. */
	void *got;
	int gotn;
	MPI_Error_class(MPI_Bsend(&x, 1, MPI_INT, right, 0, dup), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	MPI_Error_class(MPI_Comm_detach_buffer(dup, &got, &gotn), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	CHECK_RC(MPI_Comm_flush_buffer(dup));
	CHECK_RC(MPI_Buffer_flush());

	/* A communicator's buffer serves that communicator only. */
	size_t cap = 4 * (BIG + MPI_BSEND_OVERHEAD);
	char *cbuf = malloc(cap);
	CHECK_RC(MPI_Comm_attach_buffer(dup, cbuf, (int)cap));
	MPI_Error_class(MPI_Comm_attach_buffer(dup, cbuf, (int)cap), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	MPI_Error_class(MPI_Comm_attach_buffer(dup, NULL, 10), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	MPI_Error_class(MPI_Comm_attach_buffer(MPI_COMM_NULL, cbuf, 10), &cls);
	CHECK(cls == MPI_ERR_COMM);
	MPI_Error_class(MPI_Bsend(&x, 1, MPI_INT, right, 0, MPI_COMM_WORLD), &cls);
	CHECK(cls == MPI_ERR_BUFFER);

	/* Large messages stay in the buffer until received: every rank
	 * flushes before it receives, which only the nonblocking flush allows. */
	char *out = malloc(2 * BIG), *in = malloc(2 * BIG);
	for (int i = 0; i < 2 * BIG; i++) out[i] = (char)(i * 7 + rank);
	CHECK_RC(MPI_Bsend(out, BIG, MPI_CHAR, right, 1, dup));
	MPI_Request br;
	CHECK_RC(MPI_Ibsend(out + BIG, BIG, MPI_CHAR, right, 2, dup, &br));
	MPI_Request fr;
	CHECK_RC(MPI_Comm_iflush_buffer(dup, &fr));
	CHECK(fr != MPI_REQUEST_NULL);
	CHECK_RC(MPI_Recv(in, BIG, MPI_CHAR, left, 1, dup, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Recv(in + BIG, BIG, MPI_CHAR, left, 2, dup, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
	CHECK(fr == MPI_REQUEST_NULL);
	CHECK_RC(MPI_Wait(&br, MPI_STATUS_IGNORE));
	for (int i = 0; i < 2 * BIG; i++) CHECK(in[i] == (char)(i * 7 + left));
	CHECK_RC(MPI_Comm_detach_buffer(dup, &got, &gotn));
	CHECK(got == cbuf && gotn == (int)cap);

	/* MPI_BUFFER_AUTOMATIC for the process: any number of messages. */
	CHECK_RC(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
	enum { N = 8 };
	for (int i = 0; i < N; i++) CHECK_RC(MPI_Bsend(out, BIG, MPI_CHAR, right, 10 + i, MPI_COMM_WORLD));
	CHECK_RC(MPI_Buffer_iflush(&fr));
	for (int i = 0; i < N; i++) {
		memset(in, 0, BIG);
		CHECK_RC(MPI_Recv(in, BIG, MPI_CHAR, left, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK(in[BIG - 1] == (char)((BIG - 1) * 7 + left));
	}
	CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
	/* ... and the communicator's automatic buffer comes first. */
	CHECK_RC(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0));
	CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, right, 3, dup));
	CHECK_RC(MPI_Recv(&y, 1, MPI_INT, left, 3, dup, MPI_STATUS_IGNORE));
	CHECK(y == 42);
	CHECK_RC(MPI_Comm_flush_buffer(dup));
	MPI_Count gotc = -1;
	CHECK_RC(MPI_Comm_detach_buffer_c(dup, &got, &gotc));
	CHECK(got == MPI_BUFFER_AUTOMATIC && gotc == 0);
	CHECK_RC(MPI_Buffer_detach(&got, &gotn));
	CHECK(got == MPI_BUFFER_AUTOMATIC && gotn == 0);
	MPI_Error_class(MPI_Buffer_detach(&got, &gotn), &cls);
	CHECK(cls == MPI_ERR_BUFFER);

	/* A blocking flush of messages sent to oneself, received already. */
	char sbuf[256 + MPI_BSEND_OVERHEAD];
	CHECK_RC(MPI_Buffer_attach_c(sbuf, sizeof sbuf));
	CHECK_RC(MPI_Bsend(&x, 1, MPI_INT, rank, 4, MPI_COMM_WORLD));
	CHECK_RC(MPI_Recv(&y, 1, MPI_INT, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Buffer_flush());
	MPI_Count n2;
	CHECK_RC(MPI_Buffer_detach_c(&got, &n2));
	CHECK(got == sbuf && n2 == (MPI_Count)sizeof sbuf);

	/* Session buffers. */
	MPI_Session s;
	CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
	MPI_Error_class(MPI_Session_detach_buffer(s, &got, &gotn), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	CHECK_RC(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
	MPI_Error_class(MPI_Session_attach_buffer_c(s, cbuf, 100), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	CHECK_RC(MPI_Session_iflush_buffer(s, &fr));
	CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
	CHECK_RC(MPI_Session_flush_buffer(s));
	CHECK_RC(MPI_Session_detach_buffer(s, &got, &gotn));
	CHECK(got == MPI_BUFFER_AUTOMATIC && gotn == 0);
	CHECK_RC(MPI_Session_attach_buffer_c(s, cbuf, (MPI_Count)cap));
	CHECK_RC(MPI_Session_detach_buffer_c(s, &got, &gotc));
	CHECK(got == cbuf && gotc == (MPI_Count)cap);
	/* Finalizing a session with a buffer leaves none for the next. */
	CHECK_RC(MPI_Session_attach_buffer(s, cbuf, 100));
	CHECK_RC(MPI_Session_finalize(&s));
	CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
	MPI_Error_class(MPI_Session_detach_buffer(s, &got, &gotn), &cls);
	CHECK(cls == MPI_ERR_BUFFER);
	CHECK_RC(MPI_Session_finalize(&s));

	/* Fortran facts: hympi's own are accepted, others refused. */
	unsigned char t4[4] = {1, 0, 0, 0}, f4[4] = {0}, m4[4] = {0xff, 0xff, 0xff, 0xff};
	CHECK_RC(MPI_Abi_set_fortran_booleans(4, t4, f4));
	MPI_Error_class(MPI_Abi_set_fortran_booleans(4, m4, f4), &cls);
	CHECK(cls == MPI_ERR_ABI);
	MPI_Error_class(MPI_Abi_set_fortran_booleans(3, t4, f4), &cls);
	CHECK(cls == MPI_ERR_ARG);
	unsigned char gt[4], gf[4];
	int is_set = 0;
	CHECK_RC(MPI_Abi_get_fortran_booleans(4, gt, gf, &is_set));
	CHECK(is_set && !memcmp(gt, t4, 4) && !memcmp(gf, f4, 4));
	MPI_Info fi;
	CHECK_RC(MPI_Abi_get_fortran_info(&fi));
	CHECK_RC(MPI_Abi_set_fortran_info(fi));
	CHECK_RC(MPI_Info_set(fi, "mpi_integer_size", "8"));
	MPI_Error_class(MPI_Abi_set_fortran_info(fi), &cls);
	CHECK(cls == MPI_ERR_ABI);
	CHECK_RC(MPI_Info_free(&fi));
	MPI_Error_class(MPI_Abi_set_fortran_info(MPI_INFO_NULL), &cls);
	CHECK(cls == MPI_ERR_INFO);

	CHECK_RC(MPI_Comm_free(&dup));
	free(cbuf);
	free(out);
	free(in);
	report_ok();
	MPI_Finalize();
	return 0;
}
