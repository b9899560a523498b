/* file_errh.c — MPI_FILE_NULL's error handler without MPI-IO: created,
 * set, read back and called; other file handles are MPI_ERR_FILE; file
 * operations themselves stay unsupported. */
#include "check.h"

static int calls, last_code;
static MPI_File last_file;
static void file_handler(MPI_File *f, int *code, ...)
{
	calls++;
	last_code = *code;
	last_file = *f;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Errhandler eh = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;

	/* The default is MPI_ERRORS_RETURN. */
	CHECK_RC(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
	CHECK(got == MPI_ERRORS_RETURN);
	CHECK_RC(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));

	CHECK_RC(MPI_File_create_errhandler(file_handler, &eh));
	CHECK(eh != MPI_ERRHANDLER_NULL);
	CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
	CHECK_RC(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
	CHECK(got == eh);

	/* Calling it runs the function with MPI_FILE_NULL and the code. */
	CHECK_RC(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
	CHECK(calls == 1 && last_code == MPI_ERR_IO && last_file == MPI_FILE_NULL);

	/* Errors of these calls go through it too. */
	int cls;
	MPI_Error_class(MPI_File_set_errhandler((MPI_File)(intptr_t)0x7777, MPI_ERRORS_RETURN), &cls);
	CHECK(cls == MPI_ERR_FILE && calls == 2 && last_code == MPI_ERR_FILE);
	MPI_Error_class(MPI_File_get_errhandler(MPI_FILE_NULL, NULL), &cls);
	CHECK(cls == MPI_ERR_ARG && calls == 3);
	MPI_Error_class(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRHANDLER_NULL), &cls);
	CHECK(cls == MPI_ERR_ARG && calls == 4);
	CHECK_RC(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
	CHECK(got == eh); /* a refused set changes nothing */

	/* Opening a file stays unsupported. */
	MPI_File fh;
	MPI_Error_class(MPI_File_open(MPI_COMM_SELF, "x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), &cls);
	CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);

	CHECK_RC(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
	CHECK_RC(MPI_Errhandler_free(&eh));
	CHECK_RC(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
	CHECK(calls == 4);
	report_ok();
	MPI_Finalize();
	return 0;
}
