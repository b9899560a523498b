/* rma.c — one-sided communication through the C ABI: every window flavour
 * under every synchronisation mode for a few datatypes, checked against a
 * serial model; shared-memory windows, attributes, keyvals, error handlers,
 * request-based operations, and a passive target that never calls MPI. */
#include <stdint.h>
#include <unistd.h>
#include "check.h"

enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAVORS };
enum { S_FENCE, S_PSCW, S_LOCK, S_LOCKALL, NSYNCS };
static const char *fname[] = {"create", "allocate", "shared", "dynamic"};

static int rank, size;
/* With single copy refused (HYMPI_DIRECTCOPY_FAIL), created windows use
 * the separate model and dynamic windows are refused. */
static int nocma;

/* Values travel as the element type; the model computes in double. */
typedef struct {
	MPI_Datatype dt;
	size_t sz;
} dtype;

static void set(const dtype *t, void *p, int i, double v)
{
	if (t->dt == MPI_INT) ((int *)p)[i] = (int)v;
	else if (t->dt == MPI_DOUBLE) ((double *)p)[i] = v;
	else ((int64_t *)p)[i] = (int64_t)v;
}

static double get(const dtype *t, const void *p, int i)
{
	if (t->dt == MPI_INT) return ((const volatile int *)p)[i];
	if (t->dt == MPI_DOUBLE) return ((const volatile double *)p)[i];
	return (double)((const volatile int64_t *)p)[i];
}

typedef struct {
	MPI_Win win;
	void *mem;   /* this rank's window memory */
	void *owned; /* create/dynamic: malloc'd */
	MPI_Aint *bases; /* dynamic: every rank's attached address */
} rwin;

static rwin make_win(int flavor, const dtype *t, int nelem)
{
	rwin w = {MPI_WIN_NULL, NULL, NULL, NULL};
	MPI_Aint bytes = (MPI_Aint)(t->sz * nelem);
	switch (flavor) {
	case F_CREATE:
		w.mem = w.owned = calloc(nelem, t->sz);
		CHECK_RC(MPI_Win_create(w.mem, bytes, (int)t->sz, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win));
		break;
	case F_ALLOCATE:
		CHECK_RC(MPI_Win_allocate(bytes, (int)t->sz, MPI_INFO_NULL, MPI_COMM_WORLD, &w.mem, &w.win));
		break;
	case F_SHARED:
		CHECK_RC(MPI_Win_allocate_shared(bytes, (int)t->sz, MPI_INFO_NULL, MPI_COMM_WORLD, &w.mem, &w.win));
		break;
	case F_DYNAMIC: {
		CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w.win));
		w.mem = w.owned = calloc(nelem, t->sz);
		CHECK_RC(MPI_Win_attach(w.win, w.mem, bytes));
		MPI_Aint mine;
		CHECK_RC(MPI_Get_address(w.mem, &mine));
		w.bases = malloc(size * sizeof *w.bases);
		CHECK_RC(MPI_Allgather(&mine, 1, MPI_AINT, w.bases, 1, MPI_AINT, MPI_COMM_WORLD));
		break;
	}
	}
	memset(w.mem, 0, bytes);
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	return w;
}

static MPI_Aint disp(const rwin *w, const dtype *t, int target, int i)
{
	return w->bases ? w->bases[target] + (MPI_Aint)(i * t->sz) : i;
}

static void free_win(rwin *w)
{
	if (w->bases) CHECK_RC(MPI_Win_detach(w->win, w->mem));
	CHECK_RC(MPI_Win_free(&w->win));
	CHECK(w->win == MPI_WIN_NULL);
	free(w->owned);
	free(w->bases);
}

static MPI_Group world;

static void open_epoch(int sync, MPI_Win win)
{
	if (sync == S_FENCE) CHECK_RC(MPI_Win_fence(0, win));
	if (sync == S_PSCW) {
		CHECK_RC(MPI_Win_post(world, 0, win));
		CHECK_RC(MPI_Win_start(world, 0, win));
	}
	if (sync == S_LOCKALL) CHECK_RC(MPI_Win_lock_all(0, win));
}

static void close_epoch(int sync, MPI_Win win)
{
	if (sync == S_FENCE) CHECK_RC(MPI_Win_fence(0, win));
	if (sync == S_PSCW) {
		CHECK_RC(MPI_Win_complete(win));
		int flag = 0;
		while (!flag) CHECK_RC(MPI_Win_test(win, &flag));
	}
	if (sync == S_LOCKALL) {
		CHECK_RC(MPI_Win_flush_all(win));
		CHECK_RC(MPI_Win_unlock_all(win));
	}
	if (sync == S_LOCK || sync == S_LOCKALL) CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

/* Slots of each rank's window: [o] Put by origin o; [n] Accumulate(SUM,
 * o+1) from each origin; [n+1] Fetch_and_op(SUM, 1); [n+2]
 * Get_accumulate(MAX, o); [n+3] Compare_and_swap claimed by one origin. */
static void grid(int flavor, int sync, const dtype *t)
{
	int n = size, ne = n + 4;
	rwin w = make_win(flavor, t, ne);
	char buf[64], res[64], cmp[64];
	for (int round = 0; round < 2; round++) {
		open_epoch(sync, w.win);
		for (int k = 0; k < n; k++) {
			int tg = (rank + k) % n;
			if (sync == S_LOCK) CHECK_RC(MPI_Win_lock(k % 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, tg, 0, w.win));
			set(t, buf, 0, 100 * rank + tg + round);
			if (sync == S_LOCKALL) {
				MPI_Request rq;
				CHECK_RC(MPI_Rput(buf, 1, t->dt, tg, disp(&w, t, tg, rank), 1, t->dt, w.win, &rq));
				CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
				CHECK(rq == MPI_REQUEST_NULL);
			} else {
				CHECK_RC(MPI_Put(buf, 1, t->dt, tg, disp(&w, t, tg, rank), 1, t->dt, w.win));
			}
			set(t, buf, 0, rank + 1);
			CHECK_RC(MPI_Accumulate(buf, 1, t->dt, tg, disp(&w, t, tg, n), 1, t->dt, MPI_SUM, w.win));
			set(t, buf, 0, 1);
			CHECK_RC(MPI_Fetch_and_op(buf, res, t->dt, tg, disp(&w, t, tg, n + 1), MPI_SUM, w.win));
			double old = get(t, res, 0);
			CHECK(old >= round * n && old < (round + 1) * n);
			set(t, buf, 0, rank);
			CHECK_RC(MPI_Get_accumulate(buf, 1, t->dt, res, 1, t->dt, tg, disp(&w, t, tg, n + 2), 1, t->dt,
						    MPI_MAX, w.win));
			CHECK(get(t, res, 0) <= n - 1);
			if (round == 0) {
				set(t, buf, 0, rank + 1);
				set(t, cmp, 0, 0);
				CHECK_RC(MPI_Compare_and_swap(buf, cmp, res, t->dt, tg, disp(&w, t, tg, n + 3), w.win));
			}
			if (sync == S_LOCK) {
				CHECK_RC(MPI_Win_flush(tg, w.win));
				CHECK_RC(MPI_Win_unlock(tg, w.win));
			}
		}
		close_epoch(sync, w.win);
		if (sync == S_LOCK || sync == S_LOCKALL) CHECK_RC(MPI_Win_sync(w.win));
		for (int o = 0; o < n; o++) CHECK(get(t, w.mem, o) == 100 * o + rank + round);
		CHECK(get(t, w.mem, n) == (round + 1) * n * (n + 1) / 2);
		CHECK(get(t, w.mem, n + 1) == (round + 1) * n);
		CHECK(get(t, w.mem, n + 2) == n - 1);
		CHECK(get(t, w.mem, n + 3) >= 1 && get(t, w.mem, n + 3) <= n);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		/* Read the neighbour's window back with Get (Rget under lock_all). */
		int tg = (rank + 1) % n;
		open_epoch(sync, w.win);
		if (sync == S_LOCK) CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, tg, 0, w.win));
		char all[64 * 16];
		if (sync == S_LOCKALL) {
			MPI_Request rq;
			CHECK_RC(MPI_Rget(all, n, t->dt, tg, disp(&w, t, tg, 0), n, t->dt, w.win, &rq));
			CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		} else {
			CHECK_RC(MPI_Get(all, n, t->dt, tg, disp(&w, t, tg, 0), n, t->dt, w.win));
		}
		if (sync == S_LOCK) CHECK_RC(MPI_Win_unlock(tg, w.win));
		close_epoch(sync, w.win);
		for (int o = 0; o < n; o++) CHECK(get(t, all, o) == 100 * o + tg + round);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	}
	free_win(&w);
}

/* Derived datatypes: a strided origin into a contiguous target and back;
 * a contiguous origin into a strided target (Put, Accumulate,
 * Get_accumulate), on user memory (single copy) and allocated memory;
 * MPI_REPLACE and MPI_NO_OP. */
static void derived(void)
{
	int n = size;
	MPI_Datatype vec;
	CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
	CHECK_RC(MPI_Type_commit(&vec));
	for (int flavor = F_CREATE; flavor <= F_ALLOCATE; flavor++) {
		dtype t = {MPI_INT, sizeof(int)};
		rwin w = make_win(flavor, &t, 8);
		int *mem = w.mem;
		int src[8], back[8];
		for (int i = 0; i < 8; i++) src[i] = rank * 10 + i, back[i] = -1;
		int tg = (rank + 1) % n, from = (rank + n - 1) % n;
		CHECK_RC(MPI_Win_fence(0, w.win));
		CHECK_RC(MPI_Put(src, 1, vec, tg, 0, 4, MPI_INT, w.win));
		CHECK_RC(MPI_Win_fence(0, w.win));
		for (int i = 0; i < 4; i++) CHECK(mem[i] == from * 10 + 2 * i);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* checked before anyone goes on */
		CHECK_RC(MPI_Get(back, 1, vec, tg, 0, 4, MPI_INT, w.win));
		CHECK_RC(MPI_Win_fence(0, w.win));
		for (int i = 0; i < 8; i++) CHECK(back[i] == (i % 2 ? -1 : rank * 10 + i));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* checked before anyone goes on */
		/* Strided target: elements 0, 2, 4, 6 (starting at displacement 1:
		 * 1, 3, 5, 7). */
		for (int i = 0; i < 8; i++) mem[i] = 0;
		CHECK_RC(MPI_Win_fence(0, w.win));
		CHECK_RC(MPI_Put(src, 4, MPI_INT, tg, 1, 1, vec, w.win));
		CHECK_RC(MPI_Win_fence(0, w.win));
		for (int i = 0; i < 8; i++) CHECK(mem[i] == (i % 2 ? from * 10 + i / 2 : 0));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* checked before anyone goes on */
		int ones[4] = {1, 1, 1, 1}, prev[4] = {0};
		CHECK_RC(MPI_Accumulate(ones, 4, MPI_INT, tg, 0, 1, vec, MPI_SUM, w.win));
		CHECK_RC(MPI_Win_fence(0, w.win));
		for (int i = 0; i < 8; i++) CHECK(mem[i] == (i % 2 ? from * 10 + i / 2 : 1));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* checked before anyone goes on */
		CHECK_RC(MPI_Get_accumulate(ones, 4, MPI_INT, prev, 4, MPI_INT, tg, 1, 1, vec, MPI_SUM, w.win));
		CHECK_RC(MPI_Win_fence(0, w.win));
		for (int i = 0; i < 4; i++) CHECK(prev[i] == rank * 10 + i);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* checked before anyone goes on */
		for (int i = 0; i < 8; i++) CHECK(mem[i] == (i % 2 ? from * 10 + i / 2 + 1 : 1));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* checked before anyone goes on */
		int v = 1000 + rank, r = -1;
		CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT, tg, 0, 1, MPI_INT, MPI_REPLACE, w.win));
		CHECK_RC(MPI_Win_fence(0, w.win));
		CHECK(mem[0] == 1000 + from);
		CHECK_RC(MPI_Fetch_and_op(NULL, &r, MPI_INT, tg, 0, MPI_NO_OP, w.win));
		CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
		CHECK(r == 1000 + rank && mem[0] == 1000 + from);
		free_win(&w);
	}
	CHECK_RC(MPI_Type_free(&vec));
}

/* Shared windows: each rank's piece where Win_shared_query says, loads and
 * stores without MPI calls; contiguous by default, page-aligned pieces with
 * alloc_shared_noncontig. */
static void shared(void)
{
	for (int nc = 0; nc < 2; nc++) {
		MPI_Info info = MPI_INFO_NULL;
		if (nc) {
			CHECK_RC(MPI_Info_create(&info));
			CHECK_RC(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
		}
		int64_t *mine;
		MPI_Win win;
		MPI_Aint bytes = (rank + 1) * sizeof(int64_t);
		CHECK_RC(MPI_Win_allocate_shared(bytes, sizeof(int64_t), info, MPI_COMM_WORLD, &mine, &win));
		if (nc) CHECK_RC(MPI_Info_free(&info));
		for (int i = 0; i <= rank; i++) mine[i] = rank * 100 + i;
		CHECK_RC(MPI_Win_sync(win));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		CHECK_RC(MPI_Win_sync(win));
		char *prev_end = NULL;
		for (int r = 0; r < size; r++) {
			MPI_Aint sz;
			int du;
			int64_t *p;
			CHECK_RC(MPI_Win_shared_query(win, r, &sz, &du, &p));
			CHECK(sz == (MPI_Aint)((r + 1) * sizeof(int64_t)) && du == sizeof(int64_t));
			if (r == rank) CHECK(p == mine);
			if (!nc && prev_end) CHECK((char *)p == prev_end);
			if (nc) CHECK(((uintptr_t)p & 4095) == 0);
			prev_end = (char *)p + sz;
			for (int i = 0; i <= r; i++) CHECK(p[i] == r * 100 + i);
		}
		MPI_Aint sz_c, du_c;
		int64_t *p0;
		CHECK_RC(MPI_Win_shared_query_c(win, MPI_PROC_NULL, &sz_c, &du_c, &p0));
		CHECK(sz_c == sizeof(int64_t) && du_c == sizeof(int64_t));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		CHECK_RC(MPI_Win_free(&win));
	}
}

static int deleted, handled;
static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
	deleted += *(int *)val;
	return MPI_SUCCESS;
}
static void errh_fn(MPI_Win *win, int *code, ...) { handled = *code; }

/* Attributes, names, groups, keyvals, error handlers, bad input. */
static void attrs(void)
{
	int buf[4] = {0};
	MPI_Win win;
	CHECK_RC(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	void *base;
	MPI_Aint *sz;
	int *du, *flavor, *model, flag;
	CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
	CHECK(flag && base == buf);
	CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
	CHECK(flag && *sz == sizeof buf);
	CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
	CHECK(flag && *du == sizeof(int));
	CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
	CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE);
	CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
	CHECK(flag && *model == (nocma && size > 1 ? MPI_WIN_SEPARATE : MPI_WIN_UNIFIED));
	char name[MPI_MAX_OBJECT_NAME];
	int len;
	CHECK_RC(MPI_Win_set_name(win, "table"));
	CHECK_RC(MPI_Win_get_name(win, name, &len));
	CHECK(len == 5 && strcmp(name, "table") == 0);
	MPI_Group g;
	int gs, cmp;
	CHECK_RC(MPI_Win_get_group(win, &g));
	CHECK_RC(MPI_Group_size(g, &gs));
	CHECK(gs == size);
	CHECK_RC(MPI_Group_compare(g, world, &cmp));
	CHECK(cmp == MPI_IDENT);
	CHECK_RC(MPI_Group_free(&g));
	MPI_Info info;
	CHECK_RC(MPI_Win_get_info(win, &info));
	CHECK_RC(MPI_Info_free(&info));

	int key, one = 1, two = 2, *got;
	CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL));
	CHECK_RC(MPI_Win_set_attr(win, key, &one));
	CHECK_RC(MPI_Win_get_attr(win, key, &got, &flag));
	CHECK(flag && got == &one);
	CHECK_RC(MPI_Win_set_attr(win, key, &two)); /* deletes one */
	CHECK(deleted == 1);

	MPI_Errhandler eh, cur;
	CHECK_RC(MPI_Win_get_errhandler(win, &cur));
	CHECK(cur == MPI_ERRORS_ARE_FATAL);
	CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	int cls, v = 1;
	CHECK_RC(MPI_Win_fence(0, win));
	int rc = MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 4, 1, MPI_INT, win);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RMA_RANGE);
	rc = MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RANK);
	rc = MPI_Put(&v, 1, MPI_INT, 0, 0, 2, MPI_INT, win);
	CHECK(rc != MPI_SUCCESS);
	rc = MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, win);
	CHECK(rc != MPI_SUCCESS);
	CHECK_RC(MPI_Win_fence(0, win));
	rc = MPI_Win_lock(12345, 0, 0, win);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_LOCKTYPE);
	CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
	rc = MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RMA_SYNC);
	rc = MPI_Win_unlock(0, win);
	MPI_Error_class(rc, &cls);
	CHECK(cls == MPI_ERR_RMA_SYNC);
	CHECK(buf[0] == 0 && buf[3] == 0); /* nothing refused changed memory */

	CHECK_RC(MPI_Win_create_errhandler(errh_fn, &eh));
	CHECK_RC(MPI_Win_set_errhandler(win, eh));
	CHECK_RC(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
	CHECK(handled == MPI_ERR_OTHER);
	CHECK_RC(MPI_Errhandler_free(&eh));
	CHECK_RC(MPI_Win_free(&win));
	CHECK(deleted == 3);
	CHECK_RC(MPI_Win_free_keyval(&key));
}

/* Rank 0 computes (sleeps, reads its memory) and never calls MPI while the
 * others lock it, accumulate and unlock. */
static void passive(void)
{
	for (int flavor = 0; flavor < NFLAVORS; flavor++) {
		if (nocma && (flavor == F_CREATE || flavor == F_DYNAMIC)) continue; /* the owner must sync to see */
		dtype t = {MPI_INT64_T, sizeof(int64_t)};
		rwin w = make_win(flavor, &t, 1);
		if (rank == 0) {
			for (int i = 0; get(&t, w.mem, 0) != size - 1; i++) {
				CHECK(i < 30000);
				usleep(1000);
			}
		} else {
			int64_t one = 1;
			CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
			CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, disp(&w, &t, 0, 0), 1, MPI_INT64_T, MPI_SUM, w.win));
			CHECK_RC(MPI_Win_unlock(0, w.win));
		}
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		free_win(&w);
	}
}

/* Fetch_and_op, Compare_and_swap and Accumulate of a predefined type
 * (done in C on allocated windows) and Accumulate of a derived origin type
 * (done by the engine) from every rank on one element of rank 0: the same
 * mutex makes each atomic against the others. */
static void atomics(void)
{
	MPI_Datatype one64;
	CHECK_RC(MPI_Type_contiguous(1, MPI_INT64_T, &one64));
	CHECK_RC(MPI_Type_commit(&one64));
	for (int flavor = F_CREATE; flavor < NFLAVORS; flavor++) {
		if (nocma && flavor == F_DYNAMIC) continue;
		dtype t = {MPI_INT64_T, sizeof(int64_t)};
		rwin w = make_win(flavor, &t, 2);
		const int iters = 300;
		int64_t one = 1, old, seen_max = -1;
		CHECK_RC(MPI_Win_lock_all(0, w.win));
		for (int i = 0; i < iters; i++) {
			CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, disp(&w, &t, 0, 0), MPI_SUM, w.win));
			CHECK(old > seen_max); /* this rank's own increments are ordered */
			seen_max = old;
			CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, disp(&w, &t, 0, 0), 1, MPI_INT64_T, MPI_SUM, w.win));
			CHECK_RC(MPI_Accumulate(&one, 1, one64, 0, disp(&w, &t, 0, 0), 1, MPI_INT64_T, MPI_SUM, w.win));
			int64_t mine = rank + 1, zero = 0, got;
			do
				CHECK_RC(MPI_Compare_and_swap(&mine, &zero, &got, MPI_INT64_T, 0, disp(&w, &t, 0, 1), w.win));
			while (got != 0);
			CHECK_RC(MPI_Compare_and_swap(&zero, &mine, &got, MPI_INT64_T, 0, disp(&w, &t, 0, 1), w.win));
			CHECK(got == mine);
		}
		CHECK_RC(MPI_Win_unlock_all(w.win));
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		CHECK_RC(MPI_Win_sync(w.win)); /* the separate model's owner sees remote updates now */
		if (rank == 0) CHECK(get(&t, w.mem, 0) == 3 * iters * size && get(&t, w.mem, 1) == 0);
		CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
		free_win(&w);
	}
	CHECK_RC(MPI_Type_free(&one64));
}

/* The C library's fast path on allocated windows refuses what the engine
 * refuses: no epoch, out of range, after the epoch ended. */
static void fastchecks(void)
{
	int64_t *mem;
	MPI_Win win;
	CHECK_RC(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
	CHECK_RC(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
	mem[0] = mem[1] = 5;
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	int64_t v = 9, r = 0, c = 5;
	int tg = (rank + 1) % size, cls;
	struct {
		int rc, want;
	} cases[8];
	int k = 0;
	cases[k].rc = MPI_Put(&v, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, win), cases[k++].want = MPI_ERR_RMA_SYNC;
	cases[k].rc = MPI_Fetch_and_op(&v, &r, MPI_INT64_T, tg, 0, MPI_SUM, win), cases[k++].want = MPI_ERR_RMA_SYNC;
	cases[k].rc = MPI_Compare_and_swap(&v, &c, &r, MPI_INT64_T, tg, 0, win), cases[k++].want = MPI_ERR_RMA_SYNC;
	cases[k].rc = MPI_Win_flush(tg, win), cases[k++].want = MPI_ERR_RMA_SYNC;
	CHECK_RC(MPI_Win_lock_all(0, win));
	cases[k].rc = MPI_Put(&v, 1, MPI_INT64_T, tg, 2, 1, MPI_INT64_T, win), cases[k++].want = MPI_ERR_RMA_RANGE;
	cases[k].rc = MPI_Accumulate(&v, 2, MPI_INT64_T, tg, 1, 2, MPI_INT64_T, MPI_SUM, win), cases[k++].want = MPI_ERR_RMA_RANGE;
	cases[k].rc = MPI_Fetch_and_op(&v, &r, MPI_INT64_T, tg, -1, MPI_SUM, win), cases[k++].want = MPI_ERR_RMA_RANGE;
	CHECK_RC(MPI_Win_unlock_all(win));
	cases[k].rc = MPI_Get(&r, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, win), cases[k++].want = MPI_ERR_RMA_SYNC;
	for (int i = 0; i < k; i++) {
		MPI_Error_class(cases[i].rc, &cls);
		if (cls != cases[i].want) fprintf(stderr, "rank %d: fast-path case %d: class %d, want %d\n", rank, i, cls, cases[i].want);
		CHECK(cls == cases[i].want);
	}
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(mem[0] == 5 && mem[1] == 5);
	CHECK_RC(MPI_Win_free(&win));
}

/* Ranks may bring no memory: odd ranks create with NULL and size 0, and
 * every rank reaches the even ones only. */
static void empty(void)
{
	int64_t mem[2] = {0, 0};
	MPI_Win win;
	int odd = rank % 2;
	CHECK_RC(MPI_Win_create(odd ? NULL : mem, odd ? 0 : sizeof mem, sizeof(int64_t), MPI_INFO_NULL,
				MPI_COMM_WORLD, &win));
	MPI_Aint *sz;
	int flag;
	CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag));
	CHECK(flag && *sz == (odd ? 0 : (MPI_Aint)sizeof mem));
	int64_t one = 1;
	CHECK_RC(MPI_Win_fence(0, win));
	for (int t = 0; t < size; t += 2)
		CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT64_T, t, 1, 1, MPI_INT64_T, MPI_SUM, win));
	CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
	if (!odd) CHECK(mem[0] == 0 && mem[1] == size);
	CHECK_RC(MPI_Win_free(&win));
	void *base;
	CHECK_RC(MPI_Win_allocate(odd ? 0 : 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
	CHECK_RC(MPI_Win_free(&win));
}

/* Bad arguments: an error of the right class through the window's handler,
 * once, and nothing done; a negative size on one rank fails the creation
 * on every rank instead of leaving the others waiting. */
static int counted, counted_code;
static void count_fn(MPI_Win *win, int *code, ...)
{
	(void)win;
	counted++;
	counted_code = *code;
}

static void expect(int rc, int cls_want, int calls_want, int line)
{
	int cls = -1;
	if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
	if (cls != cls_want || counted != calls_want || (calls_want && counted_code != rc)) {
		fprintf(stderr, "rank %d: rma.c:%d: class %d (want %d), handler ran %d times (want %d)\n", rank, line, cls,
			cls_want, counted, calls_want);
		exit(1);
	}
	counted = 0;
}
#define EXPECT(call, cls, calls) expect((call), (cls), (calls), __LINE__)

static void badargs(void)
{
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	int64_t mem[2] = {0, 0};
	MPI_Win win = MPI_WIN_NULL;
	int rc = MPI_Win_create(mem, rank == size - 1 ? -1 : (MPI_Aint)sizeof mem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	int cls = -1;
	MPI_Error_class(rc, &cls);
	CHECK(rc != MPI_SUCCESS && win == MPI_WIN_NULL);
	CHECK(rank != size - 1 || cls == MPI_ERR_SIZE);
	MPI_Info freed, info;
	MPI_Info_create(&info);
	freed = info;
	MPI_Info_free(&info);
	EXPECT(MPI_Win_create(mem, sizeof mem, 8, freed, MPI_COMM_WORLD, &win), MPI_ERR_INFO, 0);
	EXPECT(MPI_Win_allocate(16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, NULL, &win), MPI_ERR_ARG, 0);
	EXPECT(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, (MPI_Win *)1), MPI_ERR_ARG, 0);
	EXPECT(MPI_Win_free(NULL), MPI_ERR_ARG, 0);
	EXPECT(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG, 0);
	EXPECT(MPI_Win_free_keyval(NULL), MPI_ERR_ARG, 0);
	EXPECT(MPI_Abi_get_fortran_info((MPI_Info *)1), MPI_ERR_ARG, 0);

	int64_t *base;
	MPI_Errhandler eh;
	CHECK_RC(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
	CHECK_RC(MPI_Win_create_errhandler(count_fn, &eh));
	CHECK_RC(MPI_Win_set_errhandler(win, eh));
	base[0] = base[1] = 7;
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	CHECK_RC(MPI_Win_lock_all(0, win));
	int tg = (rank + 1) % size, flag, len;
	int64_t v = 1, r = 0;
	MPI_Request req;
	MPI_Aint sz;
	int du;
	void *p;
	EXPECT(MPI_Put(NULL, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, win), MPI_ERR_BUFFER, 1);
	EXPECT(MPI_Get(MPI_IN_PLACE, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, win), MPI_ERR_BUFFER, 1);
	EXPECT(MPI_Rput(&v, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, win, NULL), MPI_ERR_ARG, 1);
	EXPECT(MPI_Raccumulate(&v, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, MPI_SUM, win, NULL), MPI_ERR_ARG, 1);
	EXPECT(MPI_Accumulate(NULL, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, MPI_SUM, win), MPI_ERR_BUFFER, 1);
	EXPECT(MPI_Get_accumulate(&v, 1, MPI_INT64_T, NULL, 1, MPI_INT64_T, tg, 0, 1, MPI_INT64_T, MPI_SUM, win),
	       MPI_ERR_BUFFER, 1);
	EXPECT(MPI_Fetch_and_op(&v, NULL, MPI_INT64_T, tg, 0, MPI_SUM, win), MPI_ERR_BUFFER, 1);
	EXPECT(MPI_Compare_and_swap(&v, NULL, &r, MPI_INT64_T, tg, 0, win), MPI_ERR_BUFFER, 1);
	EXPECT(MPI_Win_get_name(win, NULL, &len), MPI_ERR_ARG, 1);
	EXPECT(MPI_Win_get_attr(win, MPI_WIN_BASE, &p, NULL), MPI_ERR_ARG, 1);
	EXPECT(MPI_Win_get_group(win, NULL), MPI_ERR_ARG, 1);
	EXPECT(MPI_Win_get_info(win, (MPI_Info *)1), MPI_ERR_ARG, 1);
	EXPECT(MPI_Win_set_info(win, freed), MPI_ERR_INFO, 1);
	EXPECT(MPI_Win_shared_query(win, rank, &sz, &du, NULL), MPI_ERR_ARG, 1);
	EXPECT(MPI_Win_test(win, NULL), MPI_ERR_ARG, 1);
	/* Good calls still work, and no bad one wrote anything. */
	EXPECT(MPI_Get_accumulate(&v, 0, MPI_INT64_T, NULL, 0, MPI_INT64_T, tg, 0, 0, MPI_INT64_T, MPI_NO_OP, win),
	       -1, 0);
	EXPECT(MPI_Fetch_and_op(NULL, &r, MPI_INT64_T, tg, 1, MPI_NO_OP, win), -1, 0);
	CHECK(r == 7);
	CHECK_RC(MPI_Win_unlock_all(win));
	CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
	CHECK(base[0] == 7 && base[1] == 7);
	(void)flag;
	(void)req;
	CHECK_RC(MPI_Win_free(&win));
	CHECK_RC(MPI_Errhandler_free(&eh));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	dtype types[] = {{MPI_INT, sizeof(int)}, {MPI_DOUBLE, sizeof(double)}, {MPI_INT64_T, sizeof(int64_t)}};
	nocma = getenv("HYMPI_DIRECTCOPY_FAIL") != NULL;
	for (int f = 0; f < NFLAVORS - nocma; f++) /* F_DYNAMIC is last */
		for (int s = 0; s < NSYNCS; s++)
			for (int k = 0; k < 3; k++) grid(f, s, &types[k]);
	derived();
	shared();
	attrs();
	passive();
	atomics();
	fastchecks();
	empty();
	badargs();
	MPI_Group_free(&world);
	(void)fname;
	report_ok();
	MPI_Finalize();
	return 0;
}
