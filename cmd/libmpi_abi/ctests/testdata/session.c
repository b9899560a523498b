/* MPI 4 sessions: without MPI_Init (HYMPI_SESSION_ALONE set) or alongside it.
 * Process sets mpi://WORLD and mpi://SELF, their info, groups and
 * communicators made from them, session info, session error handlers. */
#include <stdint.h>
#include "check.h"

static int handled, handled_code, self_handled, self_code;

static void on_self_error(MPI_Comm *c, int *code, ...)
{
	(void)c;
	self_handled++;
	self_code = *code;
}

static void on_error(MPI_Session *s, int *code, ...)
{
	(void)s;
	handled++;
	handled_code = *code;
}

static void use_session(MPI_Session s)
{
	int n, len, flag;
	CHECK_RC(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
	CHECK(n >= 2);
	int seen_world = 0, seen_self = 0;
	for (int i = 0; i < n; i++) {
		len = 0;
		CHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
		CHECK(len > 1);
		char name[64];
		CHECK(len <= (int)sizeof name);
		CHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
		CHECK((int)strlen(name) == len - 1);
		seen_world += strcmp(name, "mpi://WORLD") == 0;
		seen_self += strcmp(name, "mpi://SELF") == 0;
	}
	CHECK(seen_world == 1 && seen_self == 1);
	/* A short buffer gets a truncated, terminated name. */
	char shortname[5];
	len = sizeof shortname;
	CHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, &len, shortname));
	CHECK(strlen(shortname) == 4);

	MPI_Info info;
	char v[MPI_MAX_INFO_VAL + 1];
	CHECK_RC(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
	CHECK_RC(MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL, v, &flag));
	MPI_Info_free(&info);
	int wsize = atoi(v);
	CHECK(flag && wsize >= 1);
	CHECK_RC(MPI_Session_get_pset_info(s, "mpi://SELF", &info));
	CHECK_RC(MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL, v, &flag));
	CHECK(flag && strcmp(v, "1") == 0);
	MPI_Info_free(&info);

	MPI_Group g;
	CHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
	CHECK_RC(MPI_Group_size(g, &n));
	CHECK(n == wsize);
	MPI_Comm c;
	CHECK_RC(MPI_Comm_create_from_group(g, "org.hympi.test.session", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
	int rank, size;
	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &size);
	CHECK(size == wsize);
	int sum = 0;
	CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
	CHECK(sum == size * (size - 1) / 2);
	int x = rank, y = -1;
	CHECK_RC(MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 3, &y, 1, MPI_INT, (rank + size - 1) % size, 3, c,
			      MPI_STATUS_IGNORE));
	CHECK(y == (rank + size - 1) % size);
	MPI_Comm_free(&c);
	MPI_Group_free(&g);
	CHECK_RC(MPI_Group_from_session_pset(s, "mpi://self", &g)); /* names ignore case, as in MPICH */
	CHECK_RC(MPI_Group_size(g, &n));
	CHECK(n == 1);
	CHECK_RC(MPI_Comm_create_from_group(g, "org.hympi.test.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
	MPI_Comm_size(c, &n);
	CHECK(n == 1);
	MPI_Comm_free(&c);
	MPI_Group_free(&g);

	/* Errors go through the session's handler. */
	MPI_Errhandler eh, got;
	CHECK_RC(MPI_Session_create_errhandler(on_error, &eh));
	CHECK_RC(MPI_Session_set_errhandler(s, eh));
	CHECK_RC(MPI_Session_get_errhandler(s, &got));
	CHECK(got == eh);
	CHECK(MPI_Group_from_session_pset(s, "mpi://nowhere", &g) == MPI_ERR_ARG);
	CHECK(handled == 1 && handled_code == MPI_ERR_ARG);
	CHECK_RC(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
	CHECK(handled == 2 && handled_code == MPI_ERR_OTHER);
	CHECK_RC(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
	CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, v) == MPI_ERR_ARG);
	CHECK(handled == 2);
	CHECK_RC(MPI_Errhandler_free(&eh));

	/* Bad arguments on a good session: MPI_ERR_ARG, never a crash. */
	CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL) == MPI_ERR_ARG);
	CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 0, (int *)1, v) == MPI_ERR_ARG);
	CHECK(MPI_Session_get_pset_info(s, (const char *)1, &info) == MPI_ERR_ARG);
	CHECK(MPI_Session_get_info(s, (MPI_Info *)1) == MPI_ERR_ARG);
	CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", (MPI_Group *)1) == MPI_ERR_ARG);
	CHECK(MPI_Session_get_errhandler(s, NULL) == MPI_ERR_ARG);
	CHECK(MPI_Session_set_errhandler(s, (MPI_Errhandler)(intptr_t)0x7777777) == MPI_ERR_ARG);
	CHECK(MPI_Session_get_num_psets(s, (MPI_Info)(intptr_t)0x7777777, &n) == MPI_ERR_INFO);
	CHECK(handled == 2);

	CHECK_RC(MPI_Session_get_info(s, &info));
	CHECK_RC(MPI_Info_get(info, "hympi_session_hint", MPI_MAX_INFO_VAL, v, &flag));
	CHECK(flag && strcmp(v, "kept") == 0);
	MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
	int alone = getenv("HYMPI_SESSION_ALONE") != NULL, flag;
	if (!alone) MPI_Init(&argc, &argv);
	MPI_Initialized(&flag);
	CHECK(flag == !alone);
	MPI_Info info;
	MPI_Session s, s2;
	/* Info calls work before any initialization. */
	CHECK_RC(MPI_Info_create(&info));
	CHECK_RC(MPI_Info_set(info, "hympi_session_hint", "kept"));
	CHECK_RC(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
	MPI_Info_free(&info);
	MPI_Initialized(&flag);
	CHECK(flag == !alone); /* a session does not initialize the world model */
	use_session(s);
	/* A second session at the same time. */
	CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
	int n;
	CHECK_RC(MPI_Session_get_num_psets(s2, MPI_INFO_NULL, &n));
	CHECK_RC(MPI_Session_finalize(&s2));
	CHECK(s2 == MPI_SESSION_NULL);
	int rank = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	printf("rank %d OK\n", rank);
	fflush(stdout);
	CHECK_RC(MPI_Session_finalize(&s));
	/* Sessions can start again after every one has ended. */
	CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
	MPI_Group g;
	MPI_Comm c;
	CHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
	CHECK_RC(MPI_Comm_create_from_group(g, "org.hympi.test.again", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
	int sum = 0;
	CHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
	MPI_Comm_size(c, &n);
	CHECK(sum == n * (n - 1) / 2);
	MPI_Comm_free(&c);
	MPI_Group_free(&g);
	CHECK_RC(MPI_Session_finalize(&s));
	if (!alone) {
		/* An error on no valid session goes to MPI_COMM_SELF's handler,
		 * not to an abort (MPI_COMM_WORLD's stays fatal here). */
		MPI_Errhandler self_eh;
		CHECK_RC(MPI_Comm_create_errhandler(on_self_error, &self_eh));
		CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh));
		CHECK(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n) == MPI_ERR_SESSION);
		CHECK(self_handled == 1 && self_code == MPI_ERR_SESSION);
		CHECK(MPI_Session_call_errhandler((MPI_Session)(intptr_t)0x7777777, MPI_ERR_OTHER) != MPI_SUCCESS);
		CHECK(self_handled == 2 && self_code == MPI_ERR_SESSION);
		CHECK(MPI_Session_init(MPI_INFO_NULL, (MPI_Errhandler)(intptr_t)0x7777777, &s) == MPI_ERR_ARG);
		CHECK(MPI_Session_finalize(NULL) == MPI_ERR_ARG);
		CHECK(self_handled == 4 && self_code == MPI_ERR_ARG);
		CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
		CHECK_RC(MPI_Errhandler_free(&self_eh));
		/* A session the program never ends does not hide its
		 * MPI_Finalize: the job still ends cleanly. */
		CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
		MPI_Finalize();
	}
	return 0;
}
