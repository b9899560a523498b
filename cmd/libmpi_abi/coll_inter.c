/*
 * coll_inter.c — collectives on intercommunicators (MPI 4.1 §6.2.2). The
 * collective entry points hand an intercommunicator here (hc_icoll in
 * nbc.c, the blocking paths in coll.c): the arguments are checked against
 * the remote group's size where MPI sizes them by it, counts become bytes,
 * non-contiguous data travels packed, and Go (coll_inter.go) runs the
 * engine's intercommunicator schedule, blocking, nonblocking or
 * persistent.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "nbc.h"
#include "_cgo_export.h"
#include "golane.h"

/* hc_inter_probe learns once whether ci is an intercommunicator; entries
 * are published with inter = -1 (core.c). */
HC_HIDDEN int hc_inter_probe(int ci)
{
	int flag = 0, rsize = 0;
	if (hympi_go_comm_inter(ci, &flag, &rsize) != 0) return 0;
	hc_comms[ci].inter = flag ? rsize : 0;
	return flag;
}

/* One side (send or receive) of the call as the engine moves it. */
typedef struct {
	int used;
	const char *user;     /* the user's buffer */
	int nblk;             /* v sides: blocks; 0: one run of elements */
	int64_t count;        /* fixed sides: elements */
	MPI_Datatype dt;      /* the type, or types[k] per block */
	const MPI_Datatype *types;
	const void *counts, *displs;
	int cbig, dbig, dbytes; /* counts MPI_Count, displs MPI_Aint, displs in bytes */
	int packed;
	int64_t bytes;        /* whole side in bytes (fixed) */
	int64_t *c, *d;       /* v sides: bytes and byte offsets per block */
} hc_iside;

static int64_t hc_iat(const void *v, int big, int i)
{
	return big ? ((const int64_t *)v)[i] : ((const int *)v)[i];
}

static MPI_Datatype hc_iside_type(const hc_iside *s, int k) { return s->types ? s->types[k] : s->dt; }

/* hc_iside_check checks one side and fills its byte layout (c and d have
 * nblk entries). */
static int hc_iside_check(int ci, hc_iside *s, const char *fn)
{
	if (!s->used) return MPI_SUCCESS;
	HC_CHECK_NOT_IN_PLACE(ci, s->user, fn);
	if (s->nblk == 0) {
		int64_t es = hc_type_msg_size(s->dt);
		if (es < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
		HC_CHECK_COUNT(ci, s->count, fn);
		if (es > 0 && s->count > INT64_MAX / es) return hc_error(ci, MPI_ERR_COUNT, fn);
		HC_CHECK_BUF(ci, s->user, s->count, s->dt, fn);
		s->bytes = s->count * es;
		s->packed = !hc_type_contig(s->dt);
		return MPI_SUCCESS;
	}
	HC_CHECK_ARRAY(ci, s->counts, s->nblk, fn);
	HC_CHECK_ARRAY(ci, s->displs, s->nblk, fn);
	if (s->types) HC_CHECK_ARRAY(ci, s->types, s->nblk, fn);
	for (int k = 0; k < s->nblk; k++) {
		MPI_Datatype dt = hc_iside_type(s, k);
		int64_t es = hc_type_msg_size(dt), n = hc_iat(s->counts, s->cbig, k);
		if (es < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
		HC_CHECK_COUNT(ci, n, fn);
		if (es > 0 && n > INT64_MAX / es) return hc_error(ci, MPI_ERR_COUNT, fn);
		HC_CHECK_BUF(ci, s->user, n, dt, fn);
		s->packed |= !hc_type_contig(dt);
	}
	return MPI_SUCCESS;
}

/* hc_iside_layout fills a checked v side's byte counts and offsets: into
 * the user's buffer, or into scratch laid out block after block when the
 * side travels packed. */
static int hc_iside_layout(hc_iside *s)
{
	int64_t off = 0;
	for (int k = 0; k < s->nblk; k++) {
		MPI_Datatype dt = hc_iside_type(s, k);
		int64_t n = hc_iat(s->counts, s->cbig, k), d = hc_iat(s->displs, s->dbig, k);
		s->c[k] = n * hc_type_msg_size(dt);
		if (s->packed) {
			s->d[k] = off;
			off += s->c[k];
		} else {
			MPI_Aint lb, ext;
			PMPI_Type_get_extent(dt, &lb, &ext);
			s->d[k] = s->dbytes ? d : d * ext;
			if (s->d[k] < 0) return MPI_ERR_BUFFER;
		}
	}
	s->bytes = off;
	return MPI_SUCCESS;
}

/* hc_iside_ops adds the packing operations of a packed side at scratch
 * scr; it returns the number added. */
static int hc_iside_ops(hc_iside *s, int unpack, hc_pkop *ops)
{
	if (s->nblk == 0) {
		ops[0] = (hc_pkop){s->dt, s->count, 0, (char *)s->user, unpack};
		return 1;
	}
	for (int k = 0; k < s->nblk; k++) {
		MPI_Datatype dt = hc_iside_type(s, k);
		MPI_Aint lb, ext;
		PMPI_Type_get_extent(dt, &lb, &ext);
		int64_t d = hc_iat(s->displs, s->dbig, k);
		ops[k] = (hc_pkop){dt, hc_iat(s->counts, s->cbig, k), s->d[k], (char *)s->user + (s->dbytes ? d : d * ext),
				   unpack};
	}
	return s->nblk;
}

static const int hc_inter_kind[] = {
	[HC_NBC_BARRIER] = 0, [HC_NBC_BCAST] = 1,   [HC_NBC_GATHER] = 2,     [HC_NBC_GATHERV] = 3,
	[HC_NBC_SCATTER] = 4, [HC_NBC_SCATTERV] = 5, [HC_NBC_ALLGATHER] = 6,  [HC_NBC_ALLGATHERV] = 7,
	[HC_NBC_ALLTOALL] = 8, [HC_NBC_ALLTOALLV] = 9, [HC_NBC_REDUCE] = 10,  [HC_NBC_ALLREDUCE] = 11,
	[HC_NBC_RSB] = 12,    [HC_NBC_RS] = 13,
};

HC_HIDDEN int hc_inter_icoll(int kind, const hc_raw *a, int ci, int run, MPI_Request *req, const char *fn)
{
	if (kind == HC_NBC_SCAN || kind == HC_NBC_EXSCAN)
		return hc_arg_fail(ci, MPI_ERR_COMM, fn, "no prefix reduction on an intercommunicator");
	MPI_Request local;
	if (run == RUN_BLOCKING) req = &local;
	else HC_CHECK_PTR(ci, req, fn);
	int nl = hc_comms[ci].size, nr = hc_comms[ci].inter, me = hc_comms[ci].rank, root = a->root;
	int rooted = kind == HC_NBC_BCAST || kind == HC_NBC_GATHER || kind == HC_NBC_GATHERV ||
		     kind == HC_NBC_SCATTER || kind == HC_NBC_SCATTERV || kind == HC_NBC_REDUCE;
	if (rooted && root != MPI_ROOT && root != MPI_PROC_NULL && (root < 0 || root >= nr))
		return hc_arg_fail(ci, MPI_ERR_ROOT, fn, "root is not MPI_ROOT, MPI_PROC_NULL or a remote rank");
	int is_root = rooted && root == MPI_ROOT, idle = rooted && root == MPI_PROC_NULL;
	hc_iside snd = {0}, rcv = {0};
	snd.user = a->sbuf, snd.dt = a->stype, snd.count = a->scount;
	rcv.user = a->rbuf, rcv.dt = a->rtype, rcv.count = a->rcount;
	hc_red red = {0};
	int reduce = kind == HC_NBC_REDUCE || kind == HC_NBC_ALLREDUCE || kind == HC_NBC_RSB || kind == HC_NBC_RS;
	if (reduce && !idle && hc_red_init(&red, a->op, a->stype)) return hc_error(ci, MPI_ERR_TYPE, fn);
	switch (kind) {
	case HC_NBC_BARRIER:
		break;
	case HC_NBC_BCAST: /* one buffer: sent at the root, received elsewhere */
		if (idle) break;
		if (is_root) snd.used = 1, snd.user = a->rbuf;
		else rcv.used = 1, rcv.dt = a->stype, rcv.count = a->scount;
		break;
	case HC_NBC_GATHER:
	case HC_NBC_GATHERV:
		if (idle) break;
		if (!is_root) {
			snd.used = 1;
		} else if (kind == HC_NBC_GATHER) {
			rcv.used = 1;
			if (a->rcount > 0 && a->rcount > INT64_MAX / nr) return hc_error(ci, MPI_ERR_COUNT, fn);
			rcv.count = a->rcount * nr;
		} else {
			rcv.used = 1, rcv.nblk = nr, rcv.counts = a->rcounts, rcv.displs = a->rdispls;
			rcv.cbig = rcv.dbig = a->big;
		}
		break;
	case HC_NBC_SCATTER:
	case HC_NBC_SCATTERV:
		if (idle) break;
		if (!is_root) {
			rcv.used = 1;
		} else if (kind == HC_NBC_SCATTER) {
			snd.used = 1;
			if (a->scount > 0 && a->scount > INT64_MAX / nr) return hc_error(ci, MPI_ERR_COUNT, fn);
			snd.count = a->scount * nr;
		} else {
			snd.used = 1, snd.nblk = nr, snd.counts = a->scounts, snd.displs = a->sdispls;
			snd.cbig = snd.dbig = a->big;
		}
		break;
	case HC_NBC_ALLGATHER:
	case HC_NBC_ALLGATHERV:
	case HC_NBC_ALLTOALL:
		snd.used = rcv.used = 1;
		if (kind == HC_NBC_ALLTOALL) {
			if (a->scount > 0 && a->scount > INT64_MAX / nr) return hc_error(ci, MPI_ERR_COUNT, fn);
			snd.count = a->scount * nr;
		}
		if (kind == HC_NBC_ALLGATHERV) {
			rcv.nblk = nr, rcv.counts = a->rcounts, rcv.displs = a->rdispls, rcv.cbig = rcv.dbig = a->big;
		} else {
			if (a->rcount > 0 && a->rcount > INT64_MAX / nr) return hc_error(ci, MPI_ERR_COUNT, fn);
			rcv.count = a->rcount * nr;
		}
		break;
	case HC_NBC_ALLTOALLV: {
		int w = a->stypes != NULL || a->rtypes != NULL;
		snd.used = rcv.used = 1;
		snd.nblk = rcv.nblk = nr;
		snd.counts = a->scounts, snd.displs = a->sdispls, rcv.counts = a->rcounts, rcv.displs = a->rdispls;
		snd.cbig = rcv.cbig = a->big;
		snd.dbig = rcv.dbig = a->big;
		snd.dbytes = rcv.dbytes = w;
		if (w) {
			HC_CHECK_ARRAY(ci, a->stypes, nr, fn);
			HC_CHECK_ARRAY(ci, a->rtypes, nr, fn);
			snd.types = a->stypes, rcv.types = a->rtypes;
		}
		break;
	}
	case HC_NBC_REDUCE:
		if (idle) break;
		if (is_root) rcv.used = 1, rcv.dt = a->stype, rcv.count = a->scount;
		else snd.used = 1;
		break;
	case HC_NBC_ALLREDUCE:
		snd.used = rcv.used = 1;
		rcv.dt = a->stype, rcv.count = a->scount;
		break;
	case HC_NBC_RSB:
		snd.used = rcv.used = 1;
		if (a->scount > 0 && a->scount > INT64_MAX / nl) return hc_error(ci, MPI_ERR_COUNT, fn);
		snd.count = a->scount * nl;
		rcv.dt = a->stype, rcv.count = a->scount;
		break;
	case HC_NBC_RS: {
		HC_CHECK_ARRAY(ci, a->rcounts, nl, fn);
		int64_t total = 0;
		for (int i = 0; i < nl; i++) {
			int64_t n = hc_iat(a->rcounts, a->big, i);
			HC_CHECK_COUNT(ci, n, fn);
			total += n;
		}
		snd.used = rcv.used = 1;
		snd.count = total;
		rcv.dt = a->stype, rcv.count = hc_iat(a->rcounts, a->big, me);
		break;
	}
	default:
		return hc_error(ci, MPI_ERR_INTERN, fn);
	}
	int rc;
	if ((rc = hc_iside_check(ci, &snd, fn)) || (rc = hc_iside_check(ci, &rcv, fn))) return rc;
	int64_t *arr = malloc(sizeof(int64_t) * (4 * nr + 1));
	if (!arr) return hc_error(ci, MPI_ERR_NO_MEM, fn);
	snd.c = arr, snd.d = arr + nr, rcv.c = arr + 2 * nr, rcv.d = arr + 3 * nr;
	hc_inter g;
	memset(&g, 0, sizeof g);
	g.kind = hc_inter_kind[kind];
	g.root = root;
	g.red = red;
	if (snd.nblk) rc = hc_iside_layout(&snd);
	if (!rc && rcv.nblk) rc = hc_iside_layout(&rcv);
	g.sbuf = (void *)snd.user, g.rbuf = (void *)rcv.user;
	if (!rc && (snd.packed || rcv.packed)) {
		int64_t sb = snd.packed ? snd.bytes : 0, rb = rcv.packed ? rcv.bytes : 0;
		int nops = (snd.nblk ? snd.nblk : 1) + (rcv.nblk ? rcv.nblk : 1);
		hc_pk *pk = malloc(sizeof *pk + nops * sizeof(hc_pkop) + sb + rb + 1);
		if (!pk) {
			rc = MPI_ERR_NO_MEM;
		} else {
			pk->nops = 0;
			pk->keep = 0;
			pk->sscr = (char *)&pk->ops[nops];
			pk->rscr = pk->sscr + sb;
			if (snd.packed) pk->nops += hc_iside_ops(&snd, 0, pk->ops), g.sbuf = pk->sscr;
			if (rcv.packed) pk->nops += hc_iside_ops(&rcv, 1, pk->ops + pk->nops), g.rbuf = pk->rscr;
			g.pk = pk;
		}
	}
	if (snd.used) {
		g.sn = snd.bytes;
		if (snd.nblk) g.sc = snd.c, g.sd = snd.d, g.ns = nr;
	}
	if (rcv.used) {
		g.rn = rcv.bytes;
		if (rcv.nblk) g.rc = rcv.c, g.rd = rcv.d, g.nrv = nr;
	}
	if (kind == HC_NBC_RS) {
		/* The blocks of the result, one per local rank, in bytes. */
		int64_t *rs = malloc(sizeof(int64_t) * (nl + 1));
		if (!rs) rc = MPI_ERR_NO_MEM;
		for (int i = 0; rs && i < nl; i++) rs[i] = hc_iat(a->rcounts, a->big, i) * red.esize;
		g.rc = rs, g.nrv = nl;
		if (!rc) rc = hympi_go_iinter(ci, &g, run == RUN_PERSISTENT, (intptr_t *)req);
		free(rs);
	} else if (!rc) {
		rc = hympi_go_iinter(ci, &g, run == RUN_PERSISTENT, (intptr_t *)req);
	}
	if (rc) hc_pk_free(g.pk); /* on success the request owns it */
	free(arr);
	if (rc) return hc_error(ci, rc, fn);
	if (run == RUN_BLOCKING) return PMPI_Wait(req, MPI_STATUS_IGNORE);
	return MPI_SUCCESS;
}
