/* finalized.c — after MPI_Finalize only the procedures the standard allows
 * at any time succeed; every other call returns MPI_ERR_OTHER (hympi
 * returns the error; MPICH and Open MPI abort) and changes nothing, through
 * MPI_X and PMPI_X alike. A session opened afterwards makes its
 * communicators usable again. */
#include "check.h"

/* check.h's CHECK reports through MPI, refused here: exit instead. */
#undef CHECK
#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			exit(3);                                                         \
		}                                                                        \
	} while (0)

#define AFTER(call) CHECK((call) == MPI_ERR_OTHER)

int main(int argc, char **argv)
{
	int rank, size, flag, v, sv, len;
	char s[MPI_MAX_ERROR_STRING];
	CHECK_RC(MPI_Init(&argc, &argv));
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Datatype vec;
	CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
	CHECK_RC(MPI_Type_commit(&vec));
	/* HYMPI_FIN_SESSION=1: a session opened before MPI_Finalize keeps
	 * the library usable past it. */
	MPI_Session ses = MPI_SESSION_NULL;
	MPI_Comm sc = MPI_COMM_NULL;
	if (getenv("HYMPI_FIN_SESSION")) {
		MPI_Group g;
		CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
		CHECK_RC(MPI_Group_from_session_pset(ses, "mpi://WORLD", &g));
		CHECK_RC(MPI_Comm_create_from_group(g, "finalized.c", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
		CHECK_RC(MPI_Group_free(&g));
	}
	CHECK_RC(MPI_Finalize());
	if (ses != MPI_SESSION_NULL) goto session;

	/* Refused: nothing is written. */
	int r = -7, x = 5, sz = -7;
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Comm dup = MPI_COMM_NULL;
	AFTER(MPI_Comm_rank(MPI_COMM_WORLD, &r));
	AFTER(PMPI_Comm_rank(MPI_COMM_WORLD, &r));
	CHECK(r == -7);
	AFTER(MPI_Comm_size(MPI_COMM_SELF, &r));
	CHECK(r == -7);
	AFTER(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_SELF));
	AFTER(MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &req));
	CHECK(req == MPI_REQUEST_NULL);
	AFTER(MPI_Barrier(MPI_COMM_WORLD));
	AFTER(MPI_Allreduce(&x, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
	AFTER(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	CHECK(dup == MPI_COMM_NULL);
	AFTER(MPI_Type_size(vec, &sz));
	CHECK(sz == -7);
	AFTER(MPI_Type_free(&vec));
	AFTER(MPI_Wait(&req, MPI_STATUS_IGNORE));
	AFTER(MPI_Query_thread(&r));
	AFTER(MPI_Abort(MPI_COMM_WORLD, 9)); /* would end the job otherwise */

	/* Allowed at any time. */
	flag = 0;
	CHECK_RC(MPI_Finalized(&flag));
	CHECK(flag == 1);
	CHECK_RC(MPI_Initialized(&flag));
	CHECK(flag == 1);
	CHECK_RC(MPI_Get_version(&v, &sv));
	CHECK_RC(MPI_Get_library_version(s, &len));
	CHECK_RC(MPI_Error_string(MPI_ERR_OTHER, s, &len));
	CHECK_RC(MPI_Error_class(MPI_ERR_COMM, &v));
	CHECK(v == MPI_ERR_COMM);
	MPI_Info info;
	CHECK_RC(MPI_Info_create(&info));
	CHECK_RC(MPI_Info_set(info, "k", "v"));
	CHECK_RC(MPI_Info_free(&info));

session:

	if (ses != MPI_SESSION_NULL) {
		/* The session still works, and MPI_Finalize's refusals start
		 * only when it ends. */
		int crank = -1, sum = 0;
		CHECK_RC(MPI_Comm_rank(sc, &crank));
		CHECK(crank == rank);
		CHECK_RC(MPI_Allreduce(&crank, &sum, 1, MPI_INT, MPI_SUM, sc));
		CHECK(sum == size * (size - 1) / 2);
		CHECK_RC(MPI_Comm_free(&sc));
		CHECK_RC(MPI_Session_finalize(&ses));
		AFTER(MPI_Comm_rank(MPI_COMM_SELF, &r));
		AFTER(MPI_Type_size(MPI_INT, &r));
	}

	printf("rank %d OK\n", rank);
	return 0;
}
