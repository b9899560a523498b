/*
 * nbc.c — nonblocking (MPI_I*) and persistent (MPI_*_init) collectives,
 * and the large-count (_c) forms of every collective. One path does the
 * argument work for all of them (hc_icoll: MPI_IN_PLACE, counts and
 * displacements to bytes, non-contiguous data packed into scratch the
 * request owns) and hands the result to Go (nbc.go), which runs the
 * engine's general schedule of the collective.
 *
 * The blocking _c forms of collectives whose blocking path is the general
 * schedule (the v forms, Reduce_scatter, Alltoallw) are the nonblocking
 * form plus MPI_Wait: the same messages as the int form on another rank.
 * The others take the blocking int form's path with 64-bit counts.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nbc.h"
#include "collane.h"
#include "_cgo_export.h"
#include "golane.h"

static int64_t hc_at(const void *v, int big, int i)
{
	return big ? ((const int64_t *)v)[i] : ((const int *)v)[i];
}

/* hc_scale fills out[i] = v[i] * unit; 0 if an entry is negative or the
 * product overflows. */
static int hc_scale(int64_t *out, const void *v, int big, int n, int64_t unit)
{
	for (int i = 0; i < n; i++) {
		int64_t x = hc_at(v, big, i);
		if (x < 0 || (unit > 0 && x > INT64_MAX / unit)) return 0;
		out[i] = x * unit;
	}
	return 1;
}

/* Non-contiguous data of the data-movement collectives travels packed: the
 * engine moves contiguous scratch (after the ops, in the same allocation,
 * which the request frees), packed from the user's send buffer before each
 * start and unpacked into the receive buffer on completion. */
HC_HIDDEN void hc_pk_run(void *p, int unpack)
{
	hc_pk *pk = p;
	for (int i = 0; i < pk->nops; i++) {
		hc_pkop *o = &pk->ops[i];
		int back = o->unpack && unpack, fill = !o->unpack && !unpack;
		char *scr = (o->unpack ? pk->rscr : pk->sscr) + o->off;
		if (!unpack && o->unpack && pk->keep) fill = 1;
		if (!back && !fill) continue;
		int64_t n = o->count * hc_type_msg_size(o->dt);
		if (hc_type_contig(o->dt)) { /* an Alltoallw peer's plain block */
			if (back)
				memcpy(o->user, scr, n);
			else
				memcpy(scr, o->user, n);
		} else if (back)
			hc_type_unpack(o->dt, o->count, scr, n, o->user);
		else
			hc_type_pack(o->dt, o->count, o->user, scr);
	}
}

HC_HIDDEN void hc_pk_hold(void *p)
{
	hc_pk *pk = p;
	for (int i = 0; i < pk->nops; i++) pk->ops[i].dt = (MPI_Datatype)hc_type_hold(pk->ops[i].dt);
}

/* Releasing a handle that is not a hold does nothing, so state that was
 * never held frees the same way. */
HC_HIDDEN void hc_pk_free(void *p)
{
	hc_pk *pk = p;
	if (!pk) return;
	for (int i = 0; i < pk->nops; i++) hc_type_release((intptr_t)pk->ops[i].dt);
	free(pk);
}

/* hc_pk_simple packs sn elements of dt from sfrom and unpacks rn into rto:
 * the reduce-scatters, whose input is one run of elements (in place too). */
static hc_pk *hc_pk_simple(MPI_Datatype dt, int64_t sn, const void *sfrom, int64_t rn, void *rto)
{
	int64_t es = hc_type_msg_size(dt);
	hc_pk *pk = malloc(sizeof *pk + 2 * sizeof(hc_pkop) + es * (sn + rn) + 1);
	if (!pk) return NULL;
	pk->nops = 2;
	pk->keep = 0;
	pk->sscr = (char *)&pk->ops[2];
	pk->rscr = pk->sscr + es * sn;
	pk->ops[0] = (hc_pkop){dt, sn, 0, (char *)sfrom, 0};
	pk->ops[1] = (hc_pkop){dt, rn, 0, rto, 1};
	return pk;
}

static int hc_is_v(int kind, int recv)
{
	return kind == HC_NBC_ALLTOALLV || (recv ? kind == HC_NBC_GATHERV || kind == HC_NBC_ALLGATHERV
						 : kind == HC_NBC_SCATTERV);
}

/* hc_pk_side adds one side's ops (or, with ops NULL, counts them) and
 * returns the side's packed bytes; for a v side it rewrites the byte
 * displacements to the packed layout. */
static int64_t hc_pk_side(int kind, int recv, hc_raw *a, hc_nbc *g, int size, hc_pkop *ops, int *nops)
{
	MPI_Datatype dt = recv ? a->rtype : a->stype;
	char *user = recv ? g->rbuf : g->sbuf;
	int64_t es = hc_type_msg_size(dt);
	if (es <= 0 || !user) return 0;
	if (!hc_is_v(kind, recv)) {
		int64_t bytes = recv ? g->rn : g->sn;
		if (ops) ops[*nops] = (hc_pkop){dt, bytes / es, 0, user, recv};
		++*nops;
		return bytes;
	}
	int64_t *c = recv ? g->rc : g->sc, *d = recv ? g->rd : g->sd;
	const void *disp = recv ? a->rdispls : a->sdispls;
	if (!c) return 0;
	MPI_Aint lb, ext;
	PMPI_Type_get_extent(dt, &lb, &ext);
	int64_t off = 0;
	for (int i = 0; i < size; i++) {
		if (ops) {
			ops[*nops] = (hc_pkop){dt, c[i] / es, off, user + hc_at(disp, a->big, i) * ext, recv};
			d[i] = off;
		}
		++*nops;
		off += c[i];
	}
	return off;
}

static int hc_pk_build(int kind, hc_raw *a, hc_nbc *g, int size, int me)
{
	int ns = kind != HC_NBC_ALLTOALLV || !a->rtypes ? !hc_type_contig(a->stype) && g->sbuf : 0;
	int nr = kind != HC_NBC_ALLTOALLV || !a->rtypes ? !hc_type_contig(a->rtype) && g->rbuf : 0;
	if (kind == HC_NBC_ALLTOALLV && a->rtypes) {
		int any = 0;
		for (int i = 0; i < size; i++)
			any |= !hc_type_contig(a->rtypes[i]) || (!g->inplace && !hc_type_contig(a->stypes[i]));
		if (!any) return MPI_SUCCESS;
		/* Alltoallw: every block packed with its own type; the byte
		 * displacements become the packed layout's. In place only the
		 * receive side exists: its scratch starts as a packed copy of
		 * the receive buffer (keep), the engine exchanges in there. */
		int64_t sb = 0, rb = 0;
		for (int i = 0; i < size; i++) sb += g->inplace ? 0 : g->sc[i], rb += g->rc[i];
		hc_pk *pk = malloc(sizeof *pk + 2 * size * sizeof(hc_pkop) + sb + rb + 1);
		if (!pk) return MPI_ERR_NO_MEM;
		pk->nops = 0;
		pk->keep = g->inplace;
		pk->sscr = (char *)&pk->ops[2 * size];
		pk->rscr = pk->sscr + sb;
		for (int side = g->inplace; side < 2; side++) {
			int64_t off = 0, *c = side ? g->rc : g->sc, *d = side ? g->rd : g->sd;
			const MPI_Datatype *ts = side ? a->rtypes : a->stypes;
			char *user = side ? g->rbuf : g->sbuf;
			for (int i = 0; i < size; i++) {
				int64_t es = hc_type_msg_size(ts[i]);
				pk->ops[pk->nops++] = (hc_pkop){ts[i], es > 0 ? c[i] / es : 0, off, user + d[i], side};
				d[i] = off;
				off += c[i];
			}
		}
		g->sbuf = g->inplace ? NULL : pk->sscr;
		g->rbuf = pk->rscr;
		g->pk = pk;
		return MPI_SUCCESS;
	}
	/* In place, one side is (part of) the other: only the buffer the
	 * caller gave travels packed, and the receive scratch starts as a copy
	 * of the receive buffer (keep), which holds this rank's input. */
	int ip = g->inplace || a->sbuf == MPI_IN_PLACE || a->rbuf == MPI_IN_PLACE;
	if (ip) {
		if (kind == HC_NBC_SCATTER || kind == HC_NBC_SCATTERV)
			nr = 0;
		else
			ns = 0;
	}
	if (!ns && !nr) return MPI_SUCCESS;
	int n = 0;
	int64_t sb = ns ? hc_pk_side(kind, 0, a, g, size, NULL, &n) : 0;
	int64_t rb = nr ? hc_pk_side(kind, 1, a, g, size, NULL, &n) : 0;
	hc_pk *pk = malloc(sizeof *pk + n * sizeof(hc_pkop) + sb + rb + 1);
	if (!pk) return MPI_ERR_NO_MEM;
	pk->nops = pk->keep = 0;
	pk->sscr = (char *)&pk->ops[n];
	pk->rscr = pk->sscr + sb;
	if (ns) hc_pk_side(kind, 0, a, g, size, pk->ops, &pk->nops);
	if (nr) hc_pk_side(kind, 1, a, g, size, pk->ops, &pk->nops);
	if (ns) g->sbuf = pk->sscr;
	if (nr) g->rbuf = pk->rscr;
	if (ip) {
		/* The own block, now in the scratch (the v forms find it from
		 * the packed layout themselves). */
		pk->keep = 1;
		switch (kind) {
		case HC_NBC_GATHER:
			g->sbuf = pk->rscr + (int64_t)a->root * (g->rn / size);
			break;
		case HC_NBC_ALLGATHER:
			g->sbuf = pk->rscr + (int64_t)me * (g->rn / size);
			break;
		case HC_NBC_ALLTOALL:
			g->sbuf = pk->rscr;
			break;
		case HC_NBC_SCATTER:
			g->rbuf = pk->sscr + (int64_t)a->root * (g->sn / size);
			break;
		}
	}
	g->pk = pk;
	return MPI_SUCCESS;
}

/* hc_side_check checks one side of a v-collective: its count and
 * displacement arrays (and, for Alltoallw, its type array), its counts and
 * its buffer; the same checks the blocking int forms make in coll.c. */
static int hc_side_check(int ci, const void *buf, const void *counts, const void *displs, int big, MPI_Datatype dt,
			 const MPI_Datatype *dts, int n, const char *fn)
{
	HC_CHECK_ARRAY(ci, counts, n, fn);
	HC_CHECK_ARRAY(ci, displs, n, fn);
	if (dts) HC_CHECK_ARRAY(ci, dts, n, fn);
	HC_CHECK_NOT_IN_PLACE(ci, buf, fn);
	int64_t total = 0;
	for (int i = 0; i < n; i++) {
		int64_t c = hc_at(counts, big, i);
		HC_CHECK_COUNT(ci, c, fn);
		if (dts) HC_CHECK_BUF(ci, buf, c, dts[i], fn);
		total += c;
	}
	if (!dts) HC_CHECK_BUF(ci, buf, total, dt, fn);
	return MPI_SUCCESS;
}

#define SIDE(...)                                                                                                      \
	do {                                                                                                           \
		int rc_ = hc_side_check(__VA_ARGS__);                                                                  \
		if (rc_) return rc_;                                                                                   \
	} while (0)

/* hc_icoll_check refuses bad arguments before anything is allocated or
 * started: the error goes through the communicator's handler once. */
static int hc_icoll_check(int kind, const hc_raw *a, int ci, int run, MPI_Request *req, const char *fn)
{
	int size = hc_comms[ci].size, me = hc_comms[ci].rank;
	if (run != RUN_BLOCKING) HC_CHECK_PTR(ci, req, fn);
	switch (kind) {
	case HC_NBC_BCAST:
		if (hc_type_msg_size(a->stype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
		HC_CHECK_COUNT(ci, a->scount, fn);
		HC_CHECK_NOT_IN_PLACE(ci, a->rbuf, fn);
		HC_CHECK_BUF(ci, a->rbuf, a->scount, a->stype, fn);
		break;
	case HC_NBC_REDUCE:
	case HC_NBC_ALLREDUCE:
	case HC_NBC_SCAN:
	case HC_NBC_EXSCAN:
	case HC_NBC_RSB: {
		hc_red r;
		if (hc_red_init(&r, a->op, a->stype)) return hc_error(ci, MPI_ERR_TYPE, fn);
		HC_CHECK_COUNT(ci, a->scount, fn);
		int has_recv = kind != HC_NBC_REDUCE || me == a->root;
		if (has_recv) HC_CHECK_NOT_IN_PLACE(ci, a->rbuf, fn);
		const void *sb = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
		HC_CHECK_BUF(ci, sb, kind == HC_NBC_RSB ? a->scount * size : a->scount, a->stype, fn);
		if (has_recv) HC_CHECK_BUF(ci, a->rbuf, a->scount, a->stype, fn);
		break;
	}
	case HC_NBC_RS: {
		hc_red r;
		if (hc_red_init(&r, a->op, a->stype)) return hc_error(ci, MPI_ERR_TYPE, fn);
		HC_CHECK_ARRAY(ci, a->rcounts, size, fn);
		HC_CHECK_NOT_IN_PLACE(ci, a->rbuf, fn);
		int64_t total = 0;
		for (int i = 0; i < size; i++) {
			HC_CHECK_COUNT(ci, hc_at(a->rcounts, a->big, i), fn);
			total += hc_at(a->rcounts, a->big, i);
		}
		HC_CHECK_BUF(ci, a->rbuf, hc_at(a->rcounts, a->big, me), a->stype, fn);
		HC_CHECK_BUF(ci, a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf, total, a->stype, fn);
		break;
	}
	case HC_NBC_GATHER:
	case HC_NBC_SCATTER:
	case HC_NBC_ALLGATHER:
	case HC_NBC_ALLTOALL: {
		int send_used = kind != HC_NBC_SCATTER || me == a->root;
		int recv_used = kind != HC_NBC_GATHER || me == a->root;
		if (send_used && a->sbuf != MPI_IN_PLACE) {
			if (hc_type_msg_size(a->stype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			HC_CHECK_COUNT(ci, a->scount, fn);
			HC_CHECK_BUF(ci, a->sbuf,
				     kind == HC_NBC_GATHER || kind == HC_NBC_ALLGATHER ? a->scount : a->scount * size,
				     a->stype, fn);
		}
		if (recv_used && a->rbuf != MPI_IN_PLACE) {
			if (hc_type_msg_size(a->rtype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			HC_CHECK_COUNT(ci, a->rcount, fn);
			HC_CHECK_BUF(ci, a->rbuf, kind == HC_NBC_SCATTER ? a->rcount : a->rcount * size, a->rtype, fn);
		}
		/* Only the side a process contributes may be MPI_IN_PLACE. */
		if (kind == HC_NBC_SCATTER ? send_used : recv_used)
			HC_CHECK_NOT_IN_PLACE(ci, kind == HC_NBC_SCATTER ? a->sbuf : a->rbuf, fn);
		break;
	}
	case HC_NBC_GATHERV:
	case HC_NBC_ALLGATHERV:
		if (a->sbuf != MPI_IN_PLACE) {
			if (hc_type_msg_size(a->stype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			HC_CHECK_COUNT(ci, a->scount, fn);
			HC_CHECK_BUF(ci, a->sbuf, a->scount, a->stype, fn);
		}
		if (kind == HC_NBC_ALLGATHERV || me == a->root) {
			if (hc_type_msg_size(a->rtype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			SIDE(ci, a->rbuf, a->rcounts, a->rdispls, a->big, a->rtype, NULL, size, fn);
		}
		break;
	case HC_NBC_SCATTERV:
		if (a->rbuf != MPI_IN_PLACE) {
			if (hc_type_msg_size(a->rtype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			HC_CHECK_COUNT(ci, a->rcount, fn);
			HC_CHECK_BUF(ci, a->rbuf, a->rcount, a->rtype, fn);
		}
		if (me == a->root) {
			if (hc_type_msg_size(a->stype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			SIDE(ci, a->sbuf, a->scounts, a->sdispls, a->big, a->stype, NULL, size, fn);
		}
		break;
	case HC_NBC_ALLTOALLV: {
		int w = a->rtypes != NULL || a->stypes != NULL;
		if (a->sbuf != MPI_IN_PLACE) {
			if (w) HC_CHECK_ARRAY(ci, a->stypes, size, fn);
			if (!w && hc_type_msg_size(a->stype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
			SIDE(ci, a->sbuf, a->scounts, a->sdispls, a->big, a->stype, w ? a->stypes : NULL, size, fn);
		}
		if (w) HC_CHECK_ARRAY(ci, a->rtypes, size, fn);
		if (!w && hc_type_msg_size(a->rtype) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
		SIDE(ci, a->rbuf, a->rcounts, a->rdispls, a->big, a->rtype, w ? a->rtypes : NULL, size, fn);
		break;
	}
	}
	return MPI_SUCCESS;
}

static int hc_icoll(int kind, hc_raw *a, MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	if (ci < 0) return hc_error(-1, MPI_ERR_COMM, fn);
	if (HC_IS_INTER(ci)) return hc_inter_icoll(kind, a, ci, run, req, fn);
	int bad = hc_icoll_check(kind, a, ci, run, req, fn);
	if (bad) return bad;
	int size = hc_comms[ci].size, me = hc_comms[ci].rank;
	hc_nbc g;
	memset(&g, 0, sizeof g);
	g.kind = kind;
	g.root = a->root;
	/* Byte counts and displacements: on the stack up to 64 ranks (Go
	 * copies them while it builds the schedule, inside the call). */
	int64_t arr_local[4 * 64], *arr = NULL;
#define ARR(words)                                                                                                     \
	(arr = (size_t)(words) <= sizeof arr_local / sizeof arr_local[0] ? arr_local                                     \
									   : malloc(sizeof(int64_t) * (size_t)(words)))
	int code = MPI_SUCCESS;
#define FAIL(c)                                                                                                        \
	do {                                                                                                           \
		code = (c);                                                                                            \
		goto out;                                                                                              \
	} while (0)
	switch (kind) {
	case HC_NBC_BARRIER:
		break;
	case HC_NBC_BCAST: {
		int64_t s = hc_type_msg_size(a->stype);
		if (s < 0) FAIL(MPI_ERR_TYPE);
		if (a->scount < 0) FAIL(MPI_ERR_COUNT);
		g.sbuf = g.rbuf = a->rbuf;
		g.sn = g.rn = s * a->scount;
		g.inplace = 1;
		if (!hc_type_contig(a->stype)) {
			g.pdt = (intptr_t)a->stype;
			g.pcount = a->scount;
			g.pack_from = me == a->root ? a->rbuf : NULL;
			g.unpack_to = me == a->root ? NULL : a->rbuf;
		}
		break;
	}
	case HC_NBC_REDUCE:
	case HC_NBC_ALLREDUCE:
	case HC_NBC_SCAN:
	case HC_NBC_EXSCAN:
	case HC_NBC_RSB: {
		if (hc_red_init(&g.red, a->op, a->stype)) FAIL(MPI_ERR_TYPE);
		if (a->scount < 0) FAIL(MPI_ERR_COUNT);
		const void *sb = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
		g.inplace = sb == a->rbuf && sb != NULL;
		g.sbuf = (void *)sb;
		g.rbuf = a->rbuf;
		g.sn = g.rn = g.red.esize * a->scount;
		if (!hc_type_contig(a->stype)) {
			if (kind == HC_NBC_RSB) {
				/* size blocks in, one out, through packed scratch. */
				if (!(g.pk = hc_pk_simple(a->stype, a->scount * size, sb, a->scount, a->rbuf)))
					FAIL(MPI_ERR_NO_MEM);
				g.inplace = 0;
				g.sbuf = ((hc_pk *)g.pk)->sscr;
				g.rbuf = ((hc_pk *)g.pk)->rscr;
				break;
			}
			int has_result = (kind != HC_NBC_REDUCE || me == a->root) && (kind != HC_NBC_EXSCAN || me != 0);
			g.pdt = (intptr_t)a->stype;
			g.pcount = a->scount;
			g.pack_from = (void *)sb;
			g.unpack_to = has_result ? a->rbuf : NULL;
		}
		break;
	}
	case HC_NBC_RS: {
		if (hc_red_init(&g.red, a->op, a->stype)) FAIL(MPI_ERR_TYPE);
		if (!a->rcounts) FAIL(MPI_ERR_ARG);
		if (!ARR(size)) FAIL(MPI_ERR_NO_MEM);
		if (!hc_scale(arr, a->rcounts, a->big, size, g.red.esize)) FAIL(MPI_ERR_COUNT);
		g.rc = arr;
		g.inplace = a->sbuf == MPI_IN_PLACE || a->sbuf == a->rbuf;
		g.sbuf = g.inplace ? a->rbuf : (void *)a->sbuf;
		g.rbuf = a->rbuf;
		if (!hc_type_contig(a->stype) && me >= 0 && me < size) {
			int64_t total = 0;
			for (int i = 0; i < size; i++) total += hc_at(a->rcounts, a->big, i);
			if (!(g.pk = hc_pk_simple(a->stype, total, g.sbuf, hc_at(a->rcounts, a->big, me), a->rbuf)))
				FAIL(MPI_ERR_NO_MEM);
			g.inplace = 0;
			g.sbuf = ((hc_pk *)g.pk)->sscr;
			g.rbuf = ((hc_pk *)g.pk)->rscr;
		}
		break;
	}
	case HC_NBC_GATHER:
	case HC_NBC_SCATTER:
	case HC_NBC_ALLGATHER:
	case HC_NBC_ALLTOALL: {
		int64_t ss = 0, rs = 0;
		const void *sb = a->sbuf;
		void *rb = a->rbuf;
		int send_used = kind != HC_NBC_SCATTER || me == a->root;
		int recv_used = kind != HC_NBC_GATHER || me == a->root;
		if (send_used && sb != MPI_IN_PLACE) {
			if ((ss = hc_type_msg_size(a->stype)) < 0) FAIL(MPI_ERR_TYPE);
			if (a->scount < 0) FAIL(MPI_ERR_COUNT);
		}
		if (recv_used && rb != MPI_IN_PLACE) {
			if ((rs = hc_type_msg_size(a->rtype)) < 0) FAIL(MPI_ERR_TYPE);
			if (a->rcount < 0) FAIL(MPI_ERR_COUNT);
		}
		int64_t sn = ss * a->scount, rn = rs * a->rcount;
		switch (kind) {
		case HC_NBC_GATHER:
			if (me != a->root) rn = 0, rb = NULL;
			if (sb == MPI_IN_PLACE) sb = (char *)rb + (int64_t)a->root * rn, sn = rn;
			rn *= size;
			break;
		case HC_NBC_SCATTER:
			if (me != a->root) sn = 0, sb = NULL;
			if (rb == MPI_IN_PLACE) rb = (char *)sb + (int64_t)a->root * sn, rn = sn;
			sn *= size;
			break;
		case HC_NBC_ALLGATHER:
			if (sb == MPI_IN_PLACE) sb = (char *)rb + (int64_t)me * rn, sn = rn;
			rn *= size;
			break;
		case HC_NBC_ALLTOALL:
			if (sb == MPI_IN_PLACE) sb = rb, sn = rn, g.inplace = 1;
			sn *= size;
			rn *= size;
			break;
		}
		g.sbuf = (void *)sb;
		g.rbuf = rb;
		g.sn = sn;
		g.rn = rn;
		break;
	}
	case HC_NBC_GATHERV:
	case HC_NBC_ALLGATHERV: {
		g.inplace = a->sbuf == MPI_IN_PLACE;
		int64_t ss = 0, rs;
		if (!g.inplace) {
			if ((ss = hc_type_msg_size(a->stype)) < 0) FAIL(MPI_ERR_TYPE);
			if (a->scount < 0) FAIL(MPI_ERR_COUNT);
			g.sbuf = (void *)a->sbuf;
			g.sn = ss * a->scount;
		}
		if (kind == HC_NBC_ALLGATHERV || me == a->root) {
			if ((rs = hc_type_msg_size(a->rtype)) < 0) FAIL(MPI_ERR_TYPE);
			if (!a->rcounts || !a->rdispls) FAIL(MPI_ERR_ARG);
			if (!ARR(2 * size)) FAIL(MPI_ERR_NO_MEM);
			if (!hc_scale(arr, a->rcounts, a->big, size, rs)) FAIL(MPI_ERR_COUNT);
			if (!hc_scale(arr + size, a->rdispls, a->big, size, rs)) FAIL(MPI_ERR_BUFFER);
			g.rc = arr;
			g.rd = arr + size;
			g.rbuf = a->rbuf;
		} else if (g.inplace) {
			FAIL(MPI_ERR_BUFFER); /* MPI_IN_PLACE is the root's only */
		}
		break;
	}
	case HC_NBC_SCATTERV: {
		g.inplace = a->rbuf == MPI_IN_PLACE;
		int64_t ss, rs;
		if (!g.inplace) {
			if ((rs = hc_type_msg_size(a->rtype)) < 0) FAIL(MPI_ERR_TYPE);
			if (a->rcount < 0) FAIL(MPI_ERR_COUNT);
			g.rbuf = a->rbuf;
			g.rn = rs * a->rcount;
		}
		if (me == a->root) {
			if ((ss = hc_type_msg_size(a->stype)) < 0) FAIL(MPI_ERR_TYPE);
			if (!a->scounts || !a->sdispls) FAIL(MPI_ERR_ARG);
			if (!ARR(2 * size)) FAIL(MPI_ERR_NO_MEM);
			if (!hc_scale(arr, a->scounts, a->big, size, ss)) FAIL(MPI_ERR_COUNT);
			if (!hc_scale(arr + size, a->sdispls, a->big, size, ss)) FAIL(MPI_ERR_BUFFER);
			g.sc = arr;
			g.sd = arr + size;
			g.sbuf = (void *)a->sbuf;
		} else if (g.inplace) {
			FAIL(MPI_ERR_BUFFER);
		}
		break;
	}
	case HC_NBC_ALLTOALLV: {
		/* Alltoallv (one type each way) and Alltoallw (a type per peer,
		 * displacements in bytes). */
		int w = a->rtypes != NULL;
		g.inplace = a->sbuf == MPI_IN_PLACE;
		if (!a->rcounts || !a->rdispls || (!g.inplace && (!a->scounts || !a->sdispls))) FAIL(MPI_ERR_ARG);
		if (!ARR(4 * size)) FAIL(MPI_ERR_NO_MEM);
		g.sc = arr, g.sd = arr + size, g.rc = arr + 2 * size, g.rd = arr + 3 * size;
		for (int side = 0; side < 2; side++) {
			if (side == 0 && g.inplace) continue;
			const void *cnt = side ? a->rcounts : a->scounts, *dsp = side ? a->rdispls : a->sdispls;
			int64_t *oc = side ? g.rc : g.sc, *od = side ? g.rd : g.sd;
			MPI_Datatype one = side ? a->rtype : a->stype;
			const MPI_Datatype *many = side ? a->rtypes : a->stypes;
			if (!w) {
				int64_t s = hc_type_msg_size(one);
				if (s < 0) FAIL(MPI_ERR_TYPE);
				if (!hc_scale(oc, cnt, a->big, size, s)) FAIL(MPI_ERR_COUNT);
				if (!hc_scale(od, dsp, a->big, size, s)) FAIL(MPI_ERR_BUFFER);
				continue;
			}
			if (!many) FAIL(MPI_ERR_ARG);
			for (int i = 0; i < size; i++) {
				int64_t s = hc_type_msg_size(many[i]), c = hc_at(cnt, a->big, i), d = hc_at(dsp, a->big, i);
				if (s < 0) FAIL(MPI_ERR_TYPE);
				if (c < 0 || (s > 0 && c > INT64_MAX / s)) FAIL(MPI_ERR_COUNT);
				if (d < 0) FAIL(MPI_ERR_BUFFER);
				oc[i] = c * s;
				od[i] = d;
			}
		}
		if (g.inplace) {
			g.sc = NULL, g.sd = NULL;
		} else {
			g.sbuf = (void *)a->sbuf;
		}
		g.rbuf = a->rbuf;
		break;
	}
	default:
		FAIL(MPI_ERR_INTERN);
	}
	if (kind >= HC_NBC_GATHER && (code = hc_pk_build(kind, a, &g, size, me)) != MPI_SUCCESS) goto out;
	if (run == RUN_BLOCKING) {
		/* The engine's blocking entry, no request: C scratch is packed
		 * before the call and unpacked after it here. */
		if (g.pk) hc_pk_run(g.pk, 0);
		code = hympi_go_icoll(ci, &g, run, NULL, NULL);
		if (!code && g.pk) hc_pk_run(g.pk, 1);
		hc_pk_free(g.pk);
		g.pk = NULL;
		goto out;
	}
	code = hympi_go_icoll(ci, &g, run, (intptr_t *)req, hc_thread_reqcache());
	if (!code && run == RUN_PERSISTENT) hc_pc_learn(ci, *req, &g);
out:
	if (code) hc_pk_free(g.pk); /* on success the request owns it */
	if (arr != arr_local) free(arr);
#undef ARR
#undef FAIL
	if (code) return hc_error(ci, code, fn);
	return MPI_SUCCESS;
}

/* Shapes of collective calls, so each entry point is one line. */

HC_HIDDEN int hc_nb_barrier(MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_raw a = {0};
	return hc_icoll(HC_NBC_BARRIER, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_bcast(void *buf, int64_t count, MPI_Datatype dt, int root, MPI_Comm comm, int run, MPI_Request *req,
		       const char *fn)
{
	hc_raw a = {.rbuf = buf, .scount = count, .stype = dt, .root = root};
	return hc_icoll(HC_NBC_BCAST, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_red(int kind, const void *sbuf, void *rbuf, int64_t count, MPI_Datatype dt, MPI_Op op, int root,
		     MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .scount = count, .stype = dt, .op = op, .root = root};
	return hc_icoll(kind, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_rs(const void *sbuf, void *rbuf, const void *rcounts, int big, MPI_Datatype dt, MPI_Op op,
		    MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .rcounts = rcounts, .big = big, .stype = dt, .op = op};
	return hc_icoll(HC_NBC_RS, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_mv(int kind, const void *sbuf, int64_t scount, MPI_Datatype st, void *rbuf, int64_t rcount,
		    MPI_Datatype rt, int root, MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount, .stype = st, .rtype = rt, .root = root};
	return hc_icoll(kind, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_gv(int kind, const void *sbuf, int64_t scount, MPI_Datatype st, void *rbuf, const void *rcounts,
		    const void *displs, int big, MPI_Datatype rt, int root, MPI_Comm comm, int run, MPI_Request *req,
		    const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcounts = rcounts, .rdispls = displs, .big = big,
		    .stype = st, .rtype = rt, .root = root};
	return hc_icoll(kind, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_sv(const void *sbuf, const void *scounts, const void *displs, int big, MPI_Datatype st, void *rbuf,
		    int64_t rcount, MPI_Datatype rt, int root, MPI_Comm comm, int run, MPI_Request *req, const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .rcount = rcount, .scounts = scounts, .sdispls = displs, .big = big,
		    .stype = st, .rtype = rt, .root = root};
	return hc_icoll(HC_NBC_SCATTERV, &a, comm, run, req, fn);
}

HC_HIDDEN int hc_nb_av(const void *sbuf, const void *scounts, const void *sdispls, MPI_Datatype st, void *rbuf,
		    const void *rcounts, const void *rdispls, MPI_Datatype rt, int big, MPI_Comm comm, int run,
		    MPI_Request *req, const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
		    .rdispls = rdispls, .big = big, .stype = st, .rtype = rt};
	return hc_icoll(HC_NBC_ALLTOALLV, &a, comm, run, req, fn);
}

static int hc_nb_aw(const void *sbuf, const void *scounts, const void *sdispls, const MPI_Datatype *st, void *rbuf,
		    const void *rcounts, const void *rdispls, const MPI_Datatype *rt, int big, MPI_Comm comm, int run,
		    MPI_Request *req, const char *fn)
{
	hc_raw a = {.sbuf = sbuf, .rbuf = rbuf, .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
		    .rdispls = rdispls, .big = big, .stypes = st, .rtypes = rt};
	if (!rt) {
		/* The per-peer types are what tell Alltoallw from Alltoallv. */
		HC_GUARD(fn);
		return hc_error(hc_comm_index(comm) < 0 ? -1 : hc_comm_index(comm), MPI_ERR_TYPE, fn);
	}
	/* A blocking one may run from a plan (collane.h). */
	hc_cc_aw w = {0};
	int rc = run == RUN_BLOCKING ? hc_aw_try(&w, &a, comm, fn) : -1;
	if (rc >= 0) return rc;
	rc = hc_icoll(HC_NBC_ALLTOALLV, &a, comm, run, req, fn);
	if (!rc) hc_aw_learn(&w);
	return rc;
}

/* ---- entry points ---------------------------------------------------- */

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	return hc_barrier(comm, 1, request, "MPI_Ibarrier");
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Barrier_init");
	return hc_nb_barrier(comm, RUN_PERSISTENT, request, "MPI_Barrier_init");
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_bcast_x(buffer, count, datatype, root, comm, 1, request, "MPI_Ibcast");
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Bcast_init");
	return hc_nb_bcast(buffer, count, datatype, root, comm, RUN_PERSISTENT, request, "MPI_Bcast_init");
}

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_bcast_x(buffer, count, datatype, root, comm, 1, request, "MPI_Ibcast_c");
}

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Bcast_init_c");
	return hc_nb_bcast(buffer, count, datatype, root, comm, RUN_PERSISTENT, request, "MPI_Bcast_init_c");
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	return hc_bcast(buffer, count, datatype, root, comm, "MPI_Bcast_c");
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, 1, request, "MPI_Ireduce");
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Reduce_init");
	return hc_nb_red(HC_NBC_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, RUN_PERSISTENT, request, "MPI_Reduce_init");
}

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, 1, request, "MPI_Ireduce_c");
}

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Reduce_init_c");
	return hc_nb_red(HC_NBC_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, RUN_PERSISTENT, request, "MPI_Reduce_init_c");
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	return hc_reduce(RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce_c");
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, 1, request, "MPI_Iallreduce");
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Allreduce_init");
	return hc_nb_red(HC_NBC_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Allreduce_init");
}

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, 1, request, "MPI_Iallreduce_c");
}

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Allreduce_init_c");
	return hc_nb_red(HC_NBC_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Allreduce_init_c");
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, "MPI_Allreduce_c");
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, 1, request, "MPI_Iscan");
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Scan_init");
	return hc_nb_red(HC_NBC_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Scan_init");
}

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, 1, request, "MPI_Iscan_c");
}

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Scan_init_c");
	return hc_nb_red(HC_NBC_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Scan_init_c");
}

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, "MPI_Scan_c");
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, 1, request, "MPI_Iexscan");
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Exscan_init");
	return hc_nb_red(HC_NBC_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Exscan_init");
}

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, 1, request, "MPI_Iexscan_c");
}

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Exscan_init_c");
	return hc_nb_red(HC_NBC_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Exscan_init_c");
}

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, "MPI_Exscan_c");
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, 1, request, "MPI_Ireduce_scatter_block");
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Reduce_scatter_block_init");
	return hc_nb_red(HC_NBC_RSB, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Reduce_scatter_block_init");
}

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_reduce_x(RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, 1, request, "MPI_Ireduce_scatter_block_c");
}

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Reduce_scatter_block_init_c");
	return hc_nb_red(HC_NBC_RSB, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, RUN_PERSISTENT, request, "MPI_Reduce_scatter_block_init_c");
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, "MPI_Reduce_scatter_block_c");
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_rs(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, RUN_NB, request, "MPI_Ireduce_scatter");
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Reduce_scatter_init");
	return hc_nb_rs(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, RUN_PERSISTENT, request, "MPI_Reduce_scatter_init");
}

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_rs(sendbuf, recvbuf, recvcounts, 1, datatype, op, comm, RUN_NB, request, "MPI_Ireduce_scatter_c");
}

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Reduce_scatter_init_c");
	return hc_nb_rs(sendbuf, recvbuf, recvcounts, 1, datatype, op, comm, RUN_PERSISTENT, request, "MPI_Reduce_scatter_init_c");
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_nb_rs(sendbuf, recvbuf, recvcounts, 1, datatype, op, comm, RUN_BLOCKING, NULL, "MPI_Reduce_scatter_c");
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, request, "MPI_Igather");
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Gather_init");
	return hc_nb_mv(HC_NBC_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Gather_init");
}

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, request, "MPI_Igather_c");
}

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Gather_init_c");
	return hc_nb_mv(HC_NBC_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Gather_init_c");
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_move(MOV_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Gather_c");
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, request, "MPI_Iscatter");
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Scatter_init");
	return hc_nb_mv(HC_NBC_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Scatter_init");
}

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, request, "MPI_Iscatter_c");
}

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Scatter_init_c");
	return hc_nb_mv(HC_NBC_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Scatter_init_c");
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_move(MOV_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatter_c");
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, 1, request, "MPI_Iallgather");
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Allgather_init");
	return hc_nb_mv(HC_NBC_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Allgather_init");
}

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, 1, request, "MPI_Iallgather_c");
}

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Allgather_init_c");
	return hc_nb_mv(HC_NBC_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Allgather_init_c");
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_move(MOV_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, "MPI_Allgather_c");
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, 1, request, "MPI_Ialltoall");
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Alltoall_init");
	return hc_nb_mv(HC_NBC_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Alltoall_init");
}

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_move_x(MOV_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, 1, request, "MPI_Ialltoall_c");
}

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Alltoall_init_c");
	return hc_nb_mv(HC_NBC_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Alltoall_init_c");
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_move(MOV_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, "MPI_Alltoall_c");
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_gatherv_x(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, 1, request, "MPI_Igatherv");
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Gatherv_init");
	return hc_nb_gv(HC_NBC_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Gatherv_init");
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_gv(HC_NBC_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, root, comm, RUN_NB, request, "MPI_Igatherv_c");
}

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Gatherv_init_c");
	return hc_nb_gv(HC_NBC_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Gatherv_init_c");
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_nb_gv(HC_NBC_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, root, comm, RUN_BLOCKING, NULL, "MPI_Gatherv_c");
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_scatterv_x(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 1, request, "MPI_Iscatterv");
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Scatterv_init");
	return hc_nb_sv(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Scatterv_init");
}

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_sv(sendbuf, sendcounts, displs, 1, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_NB, request, "MPI_Iscatterv_c");
}

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Scatterv_init_c");
	return hc_nb_sv(sendbuf, sendcounts, displs, 1, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_PERSISTENT, request, "MPI_Scatterv_init_c");
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_nb_sv(sendbuf, sendcounts, displs, 1, sendtype, recvbuf, recvcount, recvtype, root, comm, RUN_BLOCKING, NULL, "MPI_Scatterv_c");
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_allgatherv_x(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, 1, request, "MPI_Iallgatherv");
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Allgatherv_init");
	return hc_nb_gv(HC_NBC_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Allgatherv_init");
}

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_gv(HC_NBC_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, 0, comm, RUN_NB, request, "MPI_Iallgatherv_c");
}

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Allgatherv_init_c");
	return hc_nb_gv(HC_NBC_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Allgatherv_init_c");
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_gv(HC_NBC_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1, recvtype, 0, comm, RUN_BLOCKING, NULL, "MPI_Allgatherv_c");
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_alltoallv_x(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 1, request, "MPI_Ialltoallv");
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Alltoallv_init");
	return hc_nb_av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 0, comm, RUN_PERSISTENT, request, "MPI_Alltoallv_init");
}

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 1, comm, RUN_NB, request, "MPI_Ialltoallv_c");
}

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Alltoallv_init_c");
	return hc_nb_av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 1, comm, RUN_PERSISTENT, request, "MPI_Alltoallv_init_c");
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_nb_av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 1, comm, RUN_BLOCKING, NULL, "MPI_Alltoallv_c");
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 0, comm, RUN_NB, request, "MPI_Ialltoallw");
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Alltoallw_init");
	return hc_nb_aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 0, comm, RUN_PERSISTENT, request, "MPI_Alltoallw_init");
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return hc_nb_aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 0, comm, RUN_BLOCKING, NULL, "MPI_Alltoallw");
}

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	return hc_nb_aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 1, comm, RUN_NB, request, "MPI_Ialltoallw_c");
}

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	HC_INIT_INFO(comm, info, "MPI_Alltoallw_init_c");
	return hc_nb_aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 1, comm, RUN_PERSISTENT, request, "MPI_Alltoallw_init_c");
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return hc_nb_aw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, 1, comm, RUN_BLOCKING, NULL, "MPI_Alltoallw_c");
}

#define HC_ALIASES_nbc
#include "aliases_gen.h"
