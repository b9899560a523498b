/*
 * coll.c — collectives, reduction operators, communicators and groups.
 * In-place arguments are resolved here where it is pointer arithmetic.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbc.h"
#include "collane.h"
#include "dtype.h"
#include "argcheck.h"
#include "_cgo_export.h"
#include "golane.h"
#include "reduce_kernels.h"

HC_HIDDEN int hc_comm_reserve(void);
HC_HIDDEN void hc_comm_release(int i);
HC_HIDDEN void hc_comm_publish(int i, int rank, int size, MPI_Errhandler eh);
HC_HIDDEN int hc_comm_copy_attrs(int from, int to);
HC_HIDDEN void hc_comm_discard(int ni);
HC_HIDDEN int hc_comm_delete_attrs(int ci);
HC_HIDDEN int hc_comm_copy_topo(int from, int to);

enum { VEC_GATHER, VEC_ALLGATHER, VEC_SCATTER };

#define COMM(ci, comm, fn)                                                     \
	int ci = hc_comm_index(comm);                                          \
	if (__builtin_expect(ci < 0, 0)) return hc_error(-1, MPI_ERR_COMM, fn)

#define SIZE(s, dt, ci, fn)                                                    \
	int64_t s = hc_type_msg_size(dt);                                      \
	if (s < 0) return hc_error(ci, MPI_ERR_TYPE, fn)

HC_HIDDEN int hc_red_init(hc_red *r, MPI_Op op, MPI_Datatype dt)
{
	/* One lookup for what hc_type_msg_size and hc_type_base would each
	 * look up again: this runs on every reduction. */
	hc_dt *t = hc_dt_get(dt);
	r->op = (intptr_t)op;
	r->dt = (intptr_t)dt;
	r->esize = t && t->committed ? t->size : -1;
	if (r->esize < 0) return MPI_ERR_TYPE;
	/* A user operator takes any type; a predefined one needs a single
	 * base type (builtin_ok fails otherwise). */
	r->base = t->base;
	r->nbase = t->base ? t->nbase : 0;
	r->builtin_ok = (intptr_t)op < 0x1000 && op != MPI_OP_NULL && hc_builtin_ok(r->op, r->base);
	return MPI_SUCCESS;
}

/*
 * The blocking collectives and their nonblocking twins share one path
 * here when the data is plain (contiguous types, nothing to copy aside):
 * nb says which, req is where a nonblocking call's handle goes. Either
 * way one call into Go starts the collective (hympi_go_barrier and the
 * like: a nil request runs it to completion); a nonblocking one the Go
 * side finds complete already comes back as the complete operation's
 * handle (HC_REQ_DONE), which MPI_Wait answers without entering Go.
 * Everything else nonblocking takes the general path of nbc.c (hc_icoll),
 * which builds the request's packing state and scratch.
 */
#define RUN_OF(nb) ((nb) ? RUN_NB : RUN_BLOCKING)
#define NB_REQ(nb, req) ((nb) ? (intptr_t *)(req) : NULL)
#define NB_CACHE(nb) ((nb) ? hc_thread_reqcache() : NULL)

HC_HIDDEN int hc_barrier(MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (HC_IS_INTER(ci)) return hc_nb_barrier(comm, RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	/* A plan of this call runs in C (collane.c). */
	hc_cc_key k = {{HC_CC_BARRIER}, 0, NULL, NULL};
	k.raw = k.k;
	int rc;
	if (hc_cc_first(ci, k.k, NULL, !nb, nb ? req : NULL, &rc) || hc_cc_try(ci, &k, !nb, nb ? req : NULL, &rc))
		return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_barrier(ci, NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc) hc_cc_learn(ci, &k);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
	return hc_barrier(comm, 0, NULL, "MPI_Barrier");
}

HC_HIDDEN int hc_bcast(void *buffer, int64_t count, MPI_Datatype datatype, int root, MPI_Comm comm, const char *fn)
{
	return hc_bcast_x(buffer, count, datatype, root, comm, 0, NULL, fn);
}

HC_HIDDEN int hc_bcast_x(void *buffer, int64_t count, MPI_Datatype datatype, int root, MPI_Comm comm, int nb,
			 MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (HC_IS_INTER(ci)) return hc_nb_bcast(buffer, count, datatype, root, comm, RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	/* The arguments of the call that keyed a plan pass its checks again. */
	int64_t raw[HC_CC_RAW] = {HC_CC_BCAST, (int64_t)(intptr_t)buffer, count, (int64_t)(intptr_t)datatype, root};
	int rc, pre = HC_CC_PREDEF(datatype);
	if (pre && hc_cc_first(ci, raw, NULL, 0, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	SIZE(s, datatype, ci, fn);
	if (count < 0) return hc_error(ci, MPI_ERR_COUNT, fn);
	HC_CHECK_NOT_IN_PLACE(ci, buffer, fn);
	HC_CHECK_BUF(ci, buffer, count, datatype, fn);
	if (!hc_type_contig(datatype)) {
		if (nb) return hc_nb_bcast(buffer, count, datatype, root, comm, RUN_NB, req, fn);
		void *tmp = malloc(s * count > 0 ? (size_t)(s * count) : 1);
		if (!tmp) return hc_error(ci, MPI_ERR_NO_MEM, fn);
		if (hc_comms[ci].rank == root) hc_type_pack(datatype, count, buffer, tmp);
		int rc = hympi_go_bcast(ci, tmp, s * count, root, NULL, NULL);
		if (!rc && hc_comms[ci].rank != root) hc_type_unpack(datatype, count, tmp, s * count, buffer);
		free(tmp);
		return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	}
	hc_cc_key k = {{HC_CC_BCAST, (int64_t)(intptr_t)buffer, 0, s * count, (int64_t)(intptr_t)datatype, 0, root, s},
		       0, NULL, pre ? raw : NULL};
	if (hc_cc_try(ci, &k, 0, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_bcast(ci, buffer, s * count, root, NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc) hc_cc_learn(ci, &k);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	return hc_bcast(buffer, count, datatype, root, comm, "MPI_Bcast");
}

/* Reductions over non-contiguous types run on packed copies. */
static int hc_reduce_packed(int ci, int kind, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype dt, hc_red *r,
			    int root, const char *fn)
{
	int64_t n = r->esize * count;
	int me = hc_comms[ci].rank;
	int has_result = (kind != RED_REDUCE || me == root) && (kind != RED_EXSCAN || me != 0);
	char *st = malloc(n ? n : 1), *rt = malloc(n ? n : 1);
	if (!st || !rt) {
		free(st);
		free(rt);
		return hc_error(ci, MPI_ERR_NO_MEM, fn);
	}
	hc_type_pack(dt, count, sendbuf, st);
	int inplace = sendbuf == recvbuf;
	int rc = hympi_go_reduce(ci, kind, st, inplace ? st : (has_result || kind != RED_REDUCE ? rt : NULL), n, r, root,
				 NULL, NULL);
	if (!rc && has_result) hc_type_unpack(dt, count, inplace ? st : rt, n, recvbuf);
	free(st);
	free(rt);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

HC_HIDDEN int hc_reduce(int kind, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype dt, MPI_Op op,
			int root, MPI_Comm comm, const char *fn)
{
	return hc_reduce_x(kind, sendbuf, recvbuf, count, dt, op, root, comm, 0, NULL, fn);
}

HC_HIDDEN int hc_reduce_x(int kind, const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype dt, MPI_Op op,
			  int root, MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
	static const int nbc[] = {[RED_REDUCE] = HC_NBC_REDUCE, [RED_ALLREDUCE] = HC_NBC_ALLREDUCE,
				  [RED_SCAN] = HC_NBC_SCAN, [RED_EXSCAN] = HC_NBC_EXSCAN,
				  [RED_SCATTER_BLOCK] = HC_NBC_RSB};
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	/* Reduce-scatter-block in place copies its input aside here: its
	 * nonblocking form takes nbc.c's path (the one not in place, as the
	 * other reductions, the lane's: through nbc.c it cost 3.5x the
	 * blocking call). */
	if (HC_IS_INTER(ci) || (nb && kind == RED_SCATTER_BLOCK && (sendbuf == MPI_IN_PLACE || sendbuf == recvbuf)))
		return hc_nb_red(nbc[kind], sendbuf, recvbuf, count, dt, op, root, comm, RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	/* The arguments of the call that keyed a plan pass its checks again. */
	int64_t raw[HC_CC_RAW] = {HC_CC_RED + kind,	      (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)recvbuf, count,
				  (int64_t)(intptr_t)dt, (int64_t)(intptr_t)op,	      root};
	int rc, pre = HC_CC_PREDEF(dt);
	if (pre && hc_cc_first(ci, raw, NULL, !nb && kind == RED_ALLREDUCE, nb ? req : NULL, &rc))
		return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	hc_red r;
	if (hc_red_init(&r, op, dt)) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (count < 0) return hc_error(ci, MPI_ERR_COUNT, fn);
	int me = hc_comms[ci].rank;
	/* MPI_Reduce's recvbuf means nothing off the root. */
	if (kind != RED_REDUCE || me == root) HC_CHECK_NOT_IN_PLACE(ci, recvbuf, fn);
	if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
	HC_CHECK_BUF(ci, sendbuf, kind == RED_SCATTER_BLOCK ? (int64_t)count * hc_comms[ci].size : count, dt, fn);
	if (kind != RED_REDUCE || me == root) HC_CHECK_BUF(ci, recvbuf, count, dt, fn);
	if (!hc_type_contig(dt)) {
		/* Reduce-scatter-block takes the general schedule either way. */
		if (nb || kind == RED_SCATTER_BLOCK)
			return hc_nb_red(nbc[kind], sendbuf, recvbuf, count, dt, op, root, comm, RUN_OF(nb), req, fn);
		return hc_reduce_packed(ci, kind, sendbuf, recvbuf, count, dt, &r, root, fn);
	}
	hc_cc_key k = {{HC_CC_RED + kind, (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)recvbuf, r.esize * count,
			(int64_t)(intptr_t)dt, (int64_t)(intptr_t)op, root, r.esize},
		       0, NULL, pre ? raw : NULL};
	/* Not Reduce_scatter_block in place: Go runs it on a fresh copy of
	 * the input, which a plan would keep reading. */
	int lane = kind != RED_SCATTER_BLOCK || sendbuf != recvbuf;
	if (lane && hc_cc_try(ci, &k, !nb && kind == RED_ALLREDUCE, nb ? req : NULL, &rc))
		return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_reduce(ci, kind, (void *)sendbuf, recvbuf, r.esize * count, &r, root, NB_REQ(nb, req),
			     NB_CACHE(nb));
	if (!rc && lane) hc_cc_learn(ci, &k);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
	return hc_reduce(RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, "MPI_Reduce");
}
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, "MPI_Allreduce");
}
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, "MPI_Scan");
}
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return hc_reduce(RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, "MPI_Exscan");
}
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
			      MPI_Comm comm)
{
	return hc_reduce(RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, 0, comm,
			 "MPI_Reduce_scatter_block");
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
			MPI_Comm comm)
{
	const char *fn = "MPI_Reduce_scatter";
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (HC_IS_INTER(ci)) return hc_nb_rs(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, RUN_BLOCKING, NULL, fn);
	hc_red r;
	if (hc_red_init(&r, op, datatype)) return hc_error(ci, MPI_ERR_TYPE, fn);
	HC_CHECK_ARRAY(ci, recvcounts, hc_comms[ci].size, fn);
	HC_CHECK_NOT_IN_PLACE(ci, recvbuf, fn);
	int64_t total = 0;
	for (int i = 0; i < hc_comms[ci].size; i++) {
		HC_CHECK_COUNT(ci, recvcounts[i], fn);
		total += recvcounts[i];
	}
	HC_CHECK_BUF(ci, recvbuf, recvcounts[hc_comms[ci].rank], datatype, fn);
	if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf;
	HC_CHECK_BUF(ci, sendbuf, total, datatype, fn);
	if (!hc_type_contig(datatype)) /* the general schedule either way */
		return hc_nb_rs(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, RUN_BLOCKING, NULL, fn);
	/* The collective lane: a reduction's key (collane.h), the counts with it. */
	hc_cc_key k = {{HC_CC_RS, (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)recvbuf, 0, (int64_t)(intptr_t)datatype,
			(int64_t)(intptr_t)op, 0, r.esize},
		       0};
	hc_cc_vec v = {1, {{recvcounts, (size_t)hc_comms[ci].size * sizeof(int)}}};
	int rc;
	if (hc_cc_try_v(ci, &k, &v, NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_reduce_scatter(ci, (void *)sendbuf, recvbuf, (int *)recvcounts, &r);
	if (!rc) hc_cc_learn_v(ci, &k, &v);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

HC_HIDDEN int hc_reduce_local(const void *inbuf, void *inoutbuf, int64_t count, MPI_Datatype datatype, MPI_Op op,
			      const char *fn)
{
	HC_GUARD(fn);
	/* A predefined type with a predefined operator and two real buffers
	 * (not NULL, not MPI_IN_PLACE): nothing to look up, nothing that can
	 * fail but the pair, which hc_reduce_builtin declines (the checks
	 * below then report it). */
	if ((uintptr_t)datatype < 0x1000 && count >= 0 && (uintptr_t)inbuf >= 4096 && (uintptr_t)inoutbuf >= 4096 &&
	    hc_reduce_builtin(op, datatype, inbuf, inoutbuf, count))
		return MPI_SUCCESS;
	hc_red r;
	if (hc_red_init(&r, op, datatype)) return hc_error(-1, MPI_ERR_TYPE, fn);
	if (count < 0) return hc_error(-1, MPI_ERR_COUNT, fn);
	HC_CHECK_NOT_IN_PLACE(-1, inbuf, fn);
	HC_CHECK_NOT_IN_PLACE(-1, inoutbuf, fn);
	HC_CHECK_BUF(-1, inbuf, count, datatype, fn);
	HC_CHECK_BUF(-1, inoutbuf, count, datatype, fn);
	if (!hc_type_contig(datatype)) {
		/* Packed copies: the operator sees them in the type's layout
		 * again (hc_red_apply). */
		int64_t n = r.esize * count;
		char *a = malloc(n ? n : 1), *b = malloc(n ? n : 1);
		int rc = a && b ? 0 : MPI_ERR_NO_MEM;
		if (!rc) {
			hc_type_pack(datatype, count, inbuf, a);
			hc_type_pack(datatype, count, inoutbuf, b);
			/* Packed, a predefined operator's operands are base
			 * elements back to back: laid out as in an array of
			 * them unless the base type has holes (the padded
			 * pair types). */
			if (!(r.builtin_ok && r.base && hc_type_contig((MPI_Datatype)r.base) && hc_reduce_builtin(op, (MPI_Datatype)r.base, a, b, count * r.nbase)))
				rc = hympi_go_reduce_local(a, b, n, &r);
			if (!rc) hc_type_unpack(datatype, count, b, n, inoutbuf);
		}
		free(a);
		free(b);
		return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
	}
	/* A predefined operator on a predefined base type needs no Go: a
	 * contiguous derived type is count * nbase elements of its base. */
	if (r.builtin_ok && r.base && hc_reduce_builtin(op, (MPI_Datatype)r.base, inbuf, inoutbuf, count * r.nbase))
		return MPI_SUCCESS;
	int rc = hympi_go_reduce_local((void *)inbuf, inoutbuf, r.esize * count, &r);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
	return hc_reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local");
}
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op)
{
	return hc_reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local_c");
}

HC_HIDDEN int hc_move(int kind, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
		      int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fn)
{
	return hc_move_x(kind, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, 0, NULL, fn);
}

HC_HIDDEN int hc_move_x(int kind, const void *sendbuf, int64_t sendcount, MPI_Datatype sendtype, void *recvbuf,
			int64_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int nb, MPI_Request *req,
			const char *fn)
{
	static const int nbc[] = {[MOV_GATHER] = HC_NBC_GATHER, [MOV_SCATTER] = HC_NBC_SCATTER,
				  [MOV_ALLGATHER] = HC_NBC_ALLGATHER, [MOV_ALLTOALL] = HC_NBC_ALLTOALL};
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	/* Alltoall in place copies its input aside in Go: its nonblocking
	 * form takes nbc.c's path. */
	if (HC_IS_INTER(ci) || (nb && kind == MOV_ALLTOALL && sendbuf == MPI_IN_PLACE))
		return hc_nb_mv(nbc[kind], sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
				RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	int size = hc_comms[ci].size, me = hc_comms[ci].rank;
	int64_t ss = 0, rs = 0;
	int send_used = kind != MOV_SCATTER || me == root;
	int recv_used = kind != MOV_GATHER || me == root;
	/* The arguments of the call that keyed a plan pass its checks again;
	 * the types of sides not used may be anything. */
	int64_t raw[HC_CC_RAW] = {HC_CC_MOVE + kind,	     (int64_t)(intptr_t)sendbuf, sendcount,
				  (int64_t)(intptr_t)sendtype, (int64_t)(intptr_t)recvbuf, recvcount,
				  (int64_t)(intptr_t)recvtype, root};
	int rc, pre = (!send_used || sendbuf == MPI_IN_PLACE || HC_CC_PREDEF(sendtype)) &&
		      (!recv_used || recvbuf == MPI_IN_PLACE || HC_CC_PREDEF(recvtype));
	if (pre && hc_cc_first(ci, raw, NULL, 0, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	/* Only the types of the sides this process uses count (a non-root's
	 * receive type in Gather may be anything). */
	int packed = (send_used && sendbuf != MPI_IN_PLACE && !hc_type_contig(sendtype)) ||
		     (recv_used && recvbuf != MPI_IN_PLACE && !hc_type_contig(recvtype));
	if (send_used && sendbuf != MPI_IN_PLACE) {
		ss = hc_type_msg_size(sendtype);
		if (ss < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
		if (sendcount < 0) return hc_error(ci, MPI_ERR_COUNT, fn);
		HC_CHECK_BUF(ci, sendbuf, kind == MOV_GATHER || kind == MOV_ALLGATHER ? sendcount : (int64_t)sendcount * size,
			     sendtype, fn);
	}
	if (recv_used && recvbuf != MPI_IN_PLACE) {
		rs = hc_type_msg_size(recvtype);
		if (rs < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
		if (recvcount < 0) return hc_error(ci, MPI_ERR_COUNT, fn);
		HC_CHECK_BUF(ci, recvbuf, kind == MOV_SCATTER ? recvcount : (int64_t)recvcount * size, recvtype, fn);
	}
	/* Only the side a process contributes may be MPI_IN_PLACE. */
	if (kind == MOV_SCATTER ? send_used : recv_used) HC_CHECK_NOT_IN_PLACE(ci, kind == MOV_SCATTER ? sendbuf : recvbuf, fn);
	/* Gather and Scatter of non-contiguous types run the general schedule
	 * (request-owned scratch), as every nonblocking one does; blocking
	 * Allgather and Alltoall keep the fast path over packed copies. */
	if (packed && (nb || kind == MOV_GATHER || kind == MOV_SCATTER))
		return hc_nb_mv(nbc[kind], sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
				RUN_OF(nb), req, fn);
	/* Non-contiguous types: the whole buffers travel packed (a buffer of
	 * size blocks is size * count elements of the type in a row); an
	 * in-place buffer is packed first so its own block goes along. */
	void *stmp = NULL, *rtmp = NULL, *user_recv = NULL;
	int64_t ns = 0, nr = 0;
	if (packed) {
		int in_place = sendbuf == MPI_IN_PLACE;
		if (send_used && !in_place) {
			ns = (int64_t)sendcount * (kind == MOV_SCATTER || kind == MOV_ALLTOALL ? size : 1);
			if (!(stmp = malloc(ss * ns > 0 ? ss * ns : 1))) return hc_error(ci, MPI_ERR_NO_MEM, fn);
			hc_type_pack(sendtype, ns, sendbuf, stmp);
			sendbuf = stmp;
		}
		if (recv_used && recvbuf != MPI_IN_PLACE) {
			nr = (int64_t)recvcount * (kind == MOV_SCATTER ? 1 : size);
			if (!(rtmp = malloc(rs * nr > 0 ? rs * nr : 1))) {
				free(stmp);
				return hc_error(ci, MPI_ERR_NO_MEM, fn);
			}
			if (in_place) hc_type_pack(recvtype, nr, recvbuf, rtmp);
			user_recv = recvbuf;
			recvbuf = rtmp;
		}
	}
	int64_t sn = ss * sendcount, rn = rs * recvcount;
	/* Whole-buffer sizes: the root's (or everyone's) side of size blocks. */
	switch (kind) {
	case MOV_GATHER:
		if (me != root) rn = 0, recvbuf = NULL;
		if (sendbuf == MPI_IN_PLACE) sendbuf = (char *)recvbuf + (int64_t)root * rn, sn = rn;
		rn *= size;
		break;
	case MOV_SCATTER:
		if (me != root) sn = 0, sendbuf = NULL;
		if (recvbuf == MPI_IN_PLACE) recvbuf = (char *)sendbuf + (int64_t)root * sn, rn = sn;
		sn *= size;
		break;
	case MOV_ALLGATHER:
		if (sendbuf == MPI_IN_PLACE) sendbuf = (char *)recvbuf + (int64_t)me * rn, sn = rn;
		rn *= size;
		break;
	case MOV_ALLTOALL:
		if (sendbuf == MPI_IN_PLACE) sendbuf = recvbuf, sn = rn;
		sn *= size;
		rn *= size;
		break;
	}
	/* The collective lane (collane.c) keys a call by the buffers Go gets:
	 * not for packed copies (fresh each call) nor Alltoall in place (Go
	 * copies the input). */
	hc_cc_key k = {{HC_CC_MOVE + kind, (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)recvbuf, sn, rn, 0, root, 0},
		       0, NULL, pre ? raw : NULL};
	int lane = !packed && !(kind == MOV_ALLTOALL && sendbuf == recvbuf);
	if (lane && hc_cc_try(ci, &k, 0, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_gather(ci, kind, (void *)sendbuf, sn, recvbuf, rn, root, NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc && lane) hc_cc_learn(ci, &k);
	if (!rc && rtmp) hc_type_unpack(recvtype, nr, rtmp, rs * nr, user_recv);
	free(stmp);
	free(rtmp);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_move(MOV_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Gather");
}
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_move(MOV_SCATTER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatter");
}
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_move(MOV_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, "MPI_Allgather");
}
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_move(MOV_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 0, comm, "MPI_Alltoall");
}

/* hc_vcheck checks the counts and buffer of one side of a v-collective. */
static int hc_vcheck(int ci, const void *buf, const int *counts, const int *displs, MPI_Datatype dt, const char *fn)
{
	int n = hc_comms[ci].size;
	HC_CHECK_ARRAY(ci, counts, n, fn);
	HC_CHECK_ARRAY(ci, displs, n, fn);
	HC_CHECK_NOT_IN_PLACE(ci, buf, fn);
	int64_t total = 0;
	for (int i = 0; i < n; i++) {
		HC_CHECK_COUNT(ci, counts[i], fn);
		total += counts[i];
	}
	HC_CHECK_BUF(ci, buf, total, dt, fn);
	return MPI_SUCCESS;
}

#define VCHECK(ci, buf, counts, displs, dt, fn)                                \
	do {                                                                   \
		int rc_ = hc_vcheck(ci, buf, counts, displs, dt, fn);          \
		if (rc_) return rc_;                                           \
	} while (0)

#define SCHECK(ci, buf, count, dt, fn)                                         \
	do {                                                                   \
		HC_CHECK_COUNT(ci, count, fn);                                 \
		HC_CHECK_BUF(ci, buf, count, dt, fn);                          \
	} while (0)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_gatherv_x(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, 0, NULL,
			    "MPI_Gatherv");
}

HC_HIDDEN int hc_gatherv_x(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
			   int nb, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (HC_IS_INTER(ci))
		return hc_nb_gv(HC_NBC_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
				comm, RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	int me = hc_comms[ci].rank, inplace = sendbuf == MPI_IN_PLACE, rc;
	size_t an = (size_t)hc_comms[ci].size * sizeof(int);
	/* The arguments of the call that keyed a plan, and its arrays, pass
	 * its checks again. */
	int64_t raw[HC_CC_RAW] = {HC_CC_GATHERV,	   (int64_t)(intptr_t)sendbuf, sendcount, (int64_t)(intptr_t)sendtype,
				  (int64_t)(intptr_t)recvbuf, (int64_t)(intptr_t)recvtype, root};
	hc_cc_vec v = {0};
	if (me == root) v = (hc_cc_vec){2, {{recvcounts, an}, {displs, an}}};
	int pre = (inplace || HC_CC_PREDEF(sendtype)) &&
		  (me != root || (HC_CC_PREDEF(recvtype) && HC_CC_ARRAYS_OK(recvcounts, displs)));
	if (pre && hc_cc_first_v(ci, raw, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	int64_t ss = 0, rs = 0;
	if (!inplace && (ss = hc_type_msg_size(sendtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (me == root && (rs = hc_type_msg_size(recvtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (!inplace) SCHECK(ci, sendbuf, sendcount, sendtype, fn);
	if (me == root) VCHECK(ci, recvbuf, recvcounts, displs, recvtype, fn);
	if ((!inplace && !hc_type_contig(sendtype)) || (me == root && !hc_type_contig(recvtype)))
		return hc_nb_gv(HC_NBC_GATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, root,
				comm, RUN_OF(nb), req, fn);
	/* The collective lane (collane.c): the key is what Go's call is made
	 * of, the root's arrays with it. */
	hc_cc_key k = {{HC_CC_GATHERV, inplace ? 0 : (int64_t)(intptr_t)sendbuf, me == root ? (int64_t)(intptr_t)recvbuf : 0,
			ss * sendcount, rs, root, inplace, 0},
		       0, NULL, pre ? raw : NULL};
	if (hc_cc_try_v(ci, &k, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_gatherv(ci, VEC_GATHER, inplace ? NULL : (void *)sendbuf, ss * sendcount, recvbuf,
			      me == root ? (int *)recvcounts : NULL, me == root ? (int *)displs : NULL, rs, root, inplace,
			      NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc) hc_cc_learn_v(ci, &k, &v);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		    const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_allgatherv_x(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, 0, NULL,
			       "MPI_Allgatherv");
}

HC_HIDDEN int hc_allgatherv_x(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			      const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, int nb,
			      MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (HC_IS_INTER(ci))
		return hc_nb_gv(HC_NBC_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, 0,
				comm, RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	int inplace = sendbuf == MPI_IN_PLACE, rc;
	size_t an = (size_t)hc_comms[ci].size * sizeof(int);
	/* The arguments of the call that keyed a plan, and its arrays, pass
	 * its checks again. */
	int64_t raw[HC_CC_RAW] = {HC_CC_ALLGATHERV, (int64_t)(intptr_t)sendbuf, sendcount, (int64_t)(intptr_t)sendtype,
				  (int64_t)(intptr_t)recvbuf, (int64_t)(intptr_t)recvtype};
	hc_cc_vec v = {2, {{recvcounts, an}, {displs, an}}};
	int pre = (inplace || HC_CC_PREDEF(sendtype)) && HC_CC_PREDEF(recvtype) && HC_CC_ARRAYS_OK(recvcounts, displs);
	if (pre && hc_cc_first_v(ci, raw, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	int64_t ss = 0, rs;
	if (!inplace && (ss = hc_type_msg_size(sendtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if ((rs = hc_type_msg_size(recvtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (!inplace) SCHECK(ci, sendbuf, sendcount, sendtype, fn);
	VCHECK(ci, recvbuf, recvcounts, displs, recvtype, fn);
	if ((!inplace && !hc_type_contig(sendtype)) || !hc_type_contig(recvtype))
		return hc_nb_gv(HC_NBC_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, 0,
				comm, RUN_OF(nb), req, fn);
	hc_cc_key k = {{HC_CC_ALLGATHERV, inplace ? 0 : (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)recvbuf,
			ss * sendcount, rs, 0, inplace, 0},
		       0, NULL, pre ? raw : NULL};
	if (hc_cc_try_v(ci, &k, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_gatherv(ci, VEC_ALLGATHER, inplace ? NULL : (void *)sendbuf, ss * sendcount, recvbuf,
			      (int *)recvcounts, (int *)displs, rs, 0, inplace, NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc) hc_cc_learn_v(ci, &k, &v);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return hc_scatterv_x(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, 0, NULL,
			     "MPI_Scatterv");
}

HC_HIDDEN int hc_scatterv_x(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, int nb,
			    MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (HC_IS_INTER(ci))
		return hc_nb_sv(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root, comm,
				RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	int me = hc_comms[ci].rank, inplace = recvbuf == MPI_IN_PLACE, rc;
	size_t an = (size_t)hc_comms[ci].size * sizeof(int);
	/* The arguments of the call that keyed a plan, and its arrays, pass
	 * its checks again. */
	int64_t raw[HC_CC_RAW] = {HC_CC_SCATTERV,	    (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)sendtype,
				  (int64_t)(intptr_t)recvbuf, recvcount,		 (int64_t)(intptr_t)recvtype, root};
	hc_cc_vec v = {0};
	if (me == root) v = (hc_cc_vec){2, {{sendcounts, an}, {displs, an}}};
	int pre = (inplace || HC_CC_PREDEF(recvtype)) &&
		  (me != root || (HC_CC_PREDEF(sendtype) && HC_CC_ARRAYS_OK(sendcounts, displs)));
	if (pre && hc_cc_first_v(ci, raw, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	int64_t ss = 0, rs = 0;
	if (me == root && (ss = hc_type_msg_size(sendtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (!inplace && (rs = hc_type_msg_size(recvtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (!inplace) SCHECK(ci, recvbuf, recvcount, recvtype, fn);
	if (me == root) VCHECK(ci, sendbuf, sendcounts, displs, sendtype, fn);
	if ((me == root && !hc_type_contig(sendtype)) || (!inplace && !hc_type_contig(recvtype)))
		return hc_nb_sv(sendbuf, sendcounts, displs, 0, sendtype, recvbuf, recvcount, recvtype, root, comm,
				RUN_OF(nb), req, fn);
	hc_cc_key k = {{HC_CC_SCATTERV, me == root ? (int64_t)(intptr_t)sendbuf : 0, inplace ? 0 : (int64_t)(intptr_t)recvbuf,
			rs * recvcount, ss, root, inplace, 0},
		       0, NULL, pre ? raw : NULL};
	if (hc_cc_try_v(ci, &k, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_gatherv(ci, VEC_SCATTER, me == root ? (void *)sendbuf : NULL, rs * recvcount,
			      inplace ? NULL : recvbuf, me == root ? (int *)sendcounts : NULL,
			      me == root ? (int *)displs : NULL, ss, root, inplace, NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc) hc_cc_learn_v(ci, &k, &v);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
		   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return hc_alltoallv_x(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, 0,
			      NULL, "MPI_Alltoallv");
}

HC_HIDDEN int hc_alltoallv_x(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
			     MPI_Comm comm, int nb, MPI_Request *req, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	/* In place, the Go side copies the input aside: the nonblocking form
	 * takes nbc.c's path. */
	if (HC_IS_INTER(ci) || (nb && sendbuf == MPI_IN_PLACE))
		return hc_nb_av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 0, comm,
				RUN_OF(nb), req, fn);
	if (nb) HC_CHECK_PTR(ci, req, fn);
	int inplace = sendbuf == MPI_IN_PLACE, rc;
	size_t an = (size_t)hc_comms[ci].size * sizeof(int);
	/* The arguments of the call that keyed a plan, and its arrays, pass
	 * its checks again (in place never keys one). */
	int64_t raw[HC_CC_RAW] = {HC_CC_ALLTOALLV, (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)sendtype,
				  (int64_t)(intptr_t)recvbuf, (int64_t)(intptr_t)recvtype};
	hc_cc_vec v = {4, {{sendcounts, an}, {sdispls, an}, {recvcounts, an}, {rdispls, an}}};
	int pre = !inplace && HC_CC_PREDEF(sendtype) && HC_CC_PREDEF(recvtype) && HC_CC_ARRAYS_OK(sendcounts, sdispls) &&
		  HC_CC_ARRAYS_OK(recvcounts, rdispls);
	if (pre && hc_cc_first_v(ci, raw, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	int64_t ss = 0, rs;
	if (!inplace && (ss = hc_type_msg_size(sendtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if ((rs = hc_type_msg_size(recvtype)) < 0) return hc_error(ci, MPI_ERR_TYPE, fn);
	if (!inplace) VCHECK(ci, sendbuf, sendcounts, sdispls, sendtype, fn);
	VCHECK(ci, recvbuf, recvcounts, rdispls, recvtype, fn);
	if ((!inplace && !hc_type_contig(sendtype)) || !hc_type_contig(recvtype))
		return hc_nb_av(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, 0, comm,
				RUN_OF(nb), req, fn);
	/* Not in place: Go copies the input aside then. */
	hc_cc_key k = {{HC_CC_ALLTOALLV, (int64_t)(intptr_t)sendbuf, (int64_t)(intptr_t)recvbuf, ss, rs, 0, 0, 0},
		       0, NULL, pre ? raw : NULL};
	if (!inplace && hc_cc_try_v(ci, &k, &v, nb ? req : NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	rc = hympi_go_alltoallv(ci, inplace ? NULL : (void *)sendbuf, (int *)sendcounts, (int *)sdispls, ss, recvbuf,
				(int *)recvcounts, (int *)rdispls, rs, inplace, NB_REQ(nb, req), NB_CACHE(nb));
	if (!rc && !inplace) hc_cc_learn_v(ci, &k, &v);
	return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
}

/* Alltoallw's key: the buffers and every array as given (a plan is
 * learned only when every type is predefined: a derived type's handle may
 * be freed and reused). Not in place (Go copies the input aside then). */
HC_HIDDEN int hc_aw_try(hc_cc_aw *w, const hc_raw *a, MPI_Comm comm, const char *fn)
{
	HC_GUARD(fn);
	int ci = hc_comm_index(comm);
	/* An array argcheck.h refuses is left to hc_icoll's checks. */
	if (ci < 0 || HC_IS_INTER(ci) || a->sbuf == MPI_IN_PLACE || (uintptr_t)a->scounts < 4096 ||
	    (uintptr_t)a->sdispls < 4096 || (uintptr_t)a->rcounts < 4096 || (uintptr_t)a->rdispls < 4096 ||
	    (uintptr_t)a->stypes < 4096 || (uintptr_t)a->rtypes < 4096)
		return -1;
	size_t n = (size_t)hc_comms[ci].size, an = n * (a->big ? 8 : sizeof(int)), tn = n * sizeof(MPI_Datatype);
	w->ci = ci;
	w->k = (hc_cc_key){{HC_CC_ALLTOALLW, (int64_t)(intptr_t)a->sbuf, (int64_t)(intptr_t)a->rbuf, a->big}, 0};
	w->v = (hc_cc_vec){6,
			   {{a->scounts, an},
			    {a->sdispls, an},
			    {a->stypes, tn},
			    {a->rcounts, an},
			    {a->rdispls, an},
			    {a->rtypes, tn}}};
	int rc;
	if (hc_cc_try_v(ci, &w->k, &w->v, NULL, &rc)) return rc ? hc_error(ci, rc, fn) : MPI_SUCCESS;
	w->lane = 1;
	return -1;
}

HC_HIDDEN void hc_aw_learn(hc_cc_aw *w)
{
	if (!w->lane) return;
	for (int side = 0; side < 2; side++) {
		const MPI_Datatype *ts = w->v.s[side ? 5 : 2].p;
		for (int i = 0; i < hc_comms[w->ci].size; i++) {
			hc_dt *t = hc_dt_get(ts[i]);
			if (!t || !t->predefined || t->handle != (intptr_t)ts[i]) return;
		}
	}
	hc_cc_learn_v(w->ci, &w->k, &w->v);
}

/* ---- operators ------------------------------------------------------- */

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
	HC_GUARD("MPI_Op_create");
	HC_CHECK_PTR(-1, user_fn, "MPI_Op_create");
	HC_CHECK_PTR(-1, op, "MPI_Op_create");
	return hympi_go_op_create((uintptr_t)user_fn, commute, 0, (intptr_t *)op);
}

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
	HC_GUARD("MPI_Op_create_c");
	HC_CHECK_PTR(-1, user_fn, "MPI_Op_create_c");
	HC_CHECK_PTR(-1, op, "MPI_Op_create_c");
	return hympi_go_op_create((uintptr_t)user_fn, commute, 1, (intptr_t *)op);
}

int PMPI_Op_free(MPI_Op *op)
{
	HC_GUARD("MPI_Op_free");
	HC_CHECK_PTR(-1, op, "MPI_Op_free");
	int rc = hympi_go_op_free((intptr_t)*op);
	if (rc) return hc_error(-1, rc, "MPI_Op_free");
	*op = MPI_OP_NULL;
	return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
	HC_GUARD("MPI_Op_commutative");
	HC_CHECK_PTR(-1, commute, "MPI_Op_commutative");
	if ((intptr_t)op <= (intptr_t)MPI_OP_NULL || ((intptr_t)op > (intptr_t)MPI_NO_OP && (intptr_t)op < 0x1000))
		return hc_arg_fail(-1, MPI_ERR_OP, "MPI_Op_commutative", "invalid operator");
	int rc = hympi_go_op_commutative((intptr_t)op, commute);
	return rc ? hc_error(-1, rc, "MPI_Op_commutative") : MPI_SUCCESS;
}

/* ---- communicators --------------------------------------------------- */

/* hc_adopt finishes the creation of a communicator at index ni: size 0
 * means this process is not a member (MPI_COMM_NULL). */
static int hc_adopt(int ci, int rc, int ni, int rank, int size, MPI_Comm *newcomm, const char *fn)
{
	if (rc) {
		hc_comm_release(ni);
		*newcomm = MPI_COMM_NULL;
		return hc_error(ci, rc, fn);
	}
	if (size == 0) {
		hc_comm_release(ni);
		*newcomm = MPI_COMM_NULL;
		return MPI_SUCCESS;
	}
	hc_comm_publish(ni, rank, size, hc_comms[ci].eh);
	*newcomm = (MPI_Comm)hc_make(HK_COMM, ni);
	return MPI_SUCCESS;
}

#define RESERVE(ni, ci, fn)                                                    \
	int ni = hc_comm_reserve();                                            \
	if (ni < 0) return hc_error(ci, MPI_ERR_INTERN, fn)

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	const char *fn = "MPI_Comm_dup";
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	RESERVE(ni, ci, fn);
	int rank, size;
	int rc = hympi_go_comm_dup(ci, ni, &rank, &size);
	rc = hc_adopt(ci, rc, ni, rank, size, newcomm, fn);
	if (rc) return rc;
	rc = hc_comm_copy_attrs(ci, ni);
	if (!rc) rc = hc_comm_copy_topo(ci, ni);
	if (!rc) rc = hc_comm_info_copy(ci, ni);
	if (rc) {
		/* A copy callback failed: the duplicate never reaches the
		 * caller (MPICH and Open MPI free it and return
		 * MPI_COMM_NULL). Freeing is local, so ranks whose callbacks
		 * succeeded keep their duplicate without waiting for ours. */
		hc_comm_discard(ni);
		*newcomm = MPI_COMM_NULL;
		return hc_error(ci, rc, fn);
	}
	return MPI_SUCCESS;
}

/* hc_comm_discard frees the half-made communicator ni: the attributes
 * copied so far get their delete callbacks (their results cannot change
 * the outcome), then the engine's side and the slot go. */
HC_HIDDEN void hc_comm_discard(int ni)
{
	(void)hc_comm_delete_attrs(ni);
	(void)hympi_go_comm_free(ni);
	hc_comm_release(ni);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	const char *fn = "MPI_Comm_split";
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	if (color < 0 && color != MPI_UNDEFINED) return hc_error(ci, MPI_ERR_ARG, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	RESERVE(ni, ci, fn);
	int rank, size;
	int rc = hympi_go_comm_split(ci, color, key, ni, &rank, &size);
	return hc_adopt(ci, rc, ni, rank, size, newcomm, fn);
}

static int hc_create(MPI_Comm comm, MPI_Group group, int tag, int use_tag, MPI_Comm *newcomm, const char *fn)
{
	HC_GUARD(fn);
	COMM(ci, comm, fn);
	HC_CHECK_PTR(ci, newcomm, fn);
	RESERVE(ni, ci, fn);
	int rank, size;
	int rc = hympi_go_comm_create(ci, (intptr_t)group, tag, use_tag, ni, &rank, &size);
	return hc_adopt(ci, rc, ni, rank, size, newcomm, fn);
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	return hc_create(comm, group, 0, 0, newcomm, "MPI_Comm_create");
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
	return hc_create(comm, group, tag, 1, newcomm, "MPI_Comm_create_group");
}

int PMPI_Comm_free(MPI_Comm *comm)
{
	const char *fn = "MPI_Comm_free";
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, comm, fn);
	COMM(ci, *comm, fn);
	if (ci < 2) return hc_error(ci, MPI_ERR_COMM, fn);
	int rc = hc_comm_delete_attrs(ci);
	if (rc) return hc_error(ci, rc, fn);
	rc = hympi_go_comm_free(ci);
	if (rc) return hc_error(ci, rc, fn);
	if (hc_pc_n) hc_pc_comm_gone(ci);
	hc_comm_release(ci);
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}

int PMPI_Comm_disconnect(MPI_Comm *comm) { return PMPI_Comm_free(comm); }

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	HC_GUARD("MPI_Comm_group");
	COMM(ci, comm, "MPI_Comm_group");
	HC_CHECK_PTR(ci, group, "MPI_Comm_group");
	int rc = hympi_go_comm_group(ci, (intptr_t *)group);
	return rc ? hc_error(ci, rc, "MPI_Comm_group") : MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	HC_GUARD("MPI_Comm_compare");
	COMM(c1, comm1, "MPI_Comm_compare");
	COMM(c2, comm2, "MPI_Comm_compare");
	HC_CHECK_PTR(c1, result, "MPI_Comm_compare");
	int rc = hympi_go_comm_compare(c1, c2, result);
	return rc ? hc_error(c1, rc, "MPI_Comm_compare") : MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
	COMM(ci, comm, "MPI_Comm_get_name");
	HC_CHECK_PTR(ci, comm_name, "MPI_Comm_get_name");
	HC_CHECK_PTR(ci, resultlen, "MPI_Comm_get_name");
	snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", hc_comms[ci].name);
	*resultlen = (int)strlen(comm_name);
	return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
	COMM(ci, comm, "MPI_Comm_set_name");
	HC_CHECK_PTR(ci, comm_name, "MPI_Comm_set_name");
	snprintf(hc_comms[ci].name, MPI_MAX_OBJECT_NAME, "%s", comm_name);
	return MPI_SUCCESS;
}

/* ---- groups ---------------------------------------------------------- */

enum { G_INCL, G_EXCL, G_RANGE_INCL, G_RANGE_EXCL, G_UNION, G_INTERSECTION, G_DIFFERENCE };

static int hc_group_op(int kind, MPI_Group g, int n, const int *ranks, MPI_Group g2, MPI_Group *out, const char *fn)
{
	HC_GUARD(fn);
	HC_CHECK_PTR(-1, out, fn);
	if (kind <= G_RANGE_EXCL) {
		HC_CHECK_COUNT(-1, n, fn);
		HC_CHECK_ARRAY(-1, ranks, n, fn);
	}
	int rc = hympi_go_group_op(kind, (intptr_t)g, n, (int *)ranks, (intptr_t)g2, (intptr_t *)out);
	return rc ? hc_error(-1, rc, fn) : MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
	HC_GUARD("MPI_Group_size");
	HC_CHECK_PTR(-1, size, "MPI_Group_size");
	int rank;
	int rc = hympi_go_group_size((intptr_t)group, size, &rank);
	return rc ? hc_error(-1, rc, "MPI_Group_size") : MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
	HC_GUARD("MPI_Group_rank");
	HC_CHECK_PTR(-1, rank, "MPI_Group_rank");
	int size;
	int rc = hympi_go_group_size((intptr_t)group, &size, rank);
	return rc ? hc_error(-1, rc, "MPI_Group_rank") : MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
	return hc_group_op(G_INCL, group, n, ranks, MPI_GROUP_NULL, newgroup, "MPI_Group_incl");
}
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
	return hc_group_op(G_EXCL, group, n, ranks, MPI_GROUP_NULL, newgroup, "MPI_Group_excl");
}
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
	return hc_group_op(G_RANGE_INCL, group, n, ranges ? &ranges[0][0] : NULL, MPI_GROUP_NULL, newgroup, "MPI_Group_range_incl");
}
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
	return hc_group_op(G_RANGE_EXCL, group, n, ranges ? &ranges[0][0] : NULL, MPI_GROUP_NULL, newgroup, "MPI_Group_range_excl");
}
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	return hc_group_op(G_UNION, group1, 0, NULL, group2, newgroup, "MPI_Group_union");
}
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	return hc_group_op(G_INTERSECTION, group1, 0, NULL, group2, newgroup, "MPI_Group_intersection");
}
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	return hc_group_op(G_DIFFERENCE, group1, 0, NULL, group2, newgroup, "MPI_Group_difference");
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
	HC_GUARD("MPI_Group_compare");
	HC_CHECK_PTR(-1, result, "MPI_Group_compare");
	int rc = hympi_go_group_compare((intptr_t)group1, (intptr_t)group2, result);
	return rc ? hc_error(-1, rc, "MPI_Group_compare") : MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
	HC_GUARD("MPI_Group_translate_ranks");
	HC_CHECK_COUNT(-1, n, "MPI_Group_translate_ranks");
	HC_CHECK_ARRAY(-1, ranks1, n, "MPI_Group_translate_ranks");
	HC_CHECK_ARRAY(-1, ranks2, n, "MPI_Group_translate_ranks");
	int rc = hympi_go_group_translate((intptr_t)group1, n, (int *)ranks1, (intptr_t)group2, ranks2);
	return rc ? hc_error(-1, rc, "MPI_Group_translate_ranks") : MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
	HC_GUARD("MPI_Group_free");
	HC_CHECK_PTR(-1, group, "MPI_Group_free");
	if (*group == MPI_GROUP_EMPTY) {
		*group = MPI_GROUP_NULL;
		return MPI_SUCCESS;
	}
	int rc = hympi_go_group_free((intptr_t)*group);
	if (rc) return hc_error(-1, rc, "MPI_Group_free");
	*group = MPI_GROUP_NULL;
	return MPI_SUCCESS;
}

/* ---- topology helpers ------------------------------------------------ */

/* A search for MPI_Dims_create's factorisation: dims in non-increasing
 * order whose largest minus smallest is least; among equals, the one that
 * is largest compared from the last dimension backwards. That is the rule
 * MPICH 4 follows (its topo/dims5 lists 75,000 cases and this matches every
 * one); "as close to each other as possible" alone leaves ties open. */
typedef struct {
	const int *divs; /* the divisors of the number, ascending */
	int ndivs, k;
	int cur[32], best[32], range; /* range < 0: none found yet */
} hc_dims_search;

/* hc_pow_le tells whether b^e <= n, without overflow. */
static int hc_pow_le(int64_t b, int e, int64_t n)
{
	int64_t p = 1;
	for (int i = 0; i < e; i++) {
		if (p > n / b) return 0;
		p *= b;
	}
	return p <= n;
}

/* hc_iroot is the largest x with x^e <= n. */
static int64_t hc_iroot(int64_t n, int e)
{
	int64_t lo = 1, hi = n; /* lo^e <= n < (hi+1)^e */
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		if (hc_pow_le(mid, e, n)) lo = mid;
		else hi = mid - 1;
	}
	return lo;
}

static int hc_dims_better(const hc_dims_search *s)
{
	for (int j = s->k - 1; j >= 0; j--)
		if (s->cur[j] != s->best[j]) return s->cur[j] > s->best[j];
	return 0;
}

static void hc_dims_walk(hc_dims_search *s, int i, int64_t rem, int64_t maxd)
{
	int left = s->k - i;
	if (left == 1) {
		if (rem > maxd) return;
		s->cur[i] = (int)rem;
		int range = s->cur[0] - s->cur[i];
		if (s->range < 0 || range < s->range || (range == s->range && hc_dims_better(s))) {
			s->range = range;
			memcpy(s->best, s->cur, sizeof s->best);
		}
		return;
	}
	for (int j = 0; j < s->ndivs; j++) {
		int64_t d = s->divs[j];
		if (d > maxd || d > rem) break;
		/* d is the largest of what is left, so d^left >= rem. */
		if (rem % d || hc_pow_le(d, left, rem - 1)) continue;
		int64_t top = i == 0 ? d : s->cur[0];
		/* The smallest dimension is at most (rem/d)^(1/(left-1)): no
		 * range below top minus that. */
		if (s->range >= 0 && top - hc_iroot(rem / d, left - 1) > s->range) {
			if (i == 0) break; /* grows with d */
			continue;
		}
		s->cur[i] = (int)d;
		hc_dims_walk(s, i + 1, rem / d, d);
	}
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
	if (nnodes < 1 || ndims < 0) return hc_error(-1, MPI_ERR_ARG, "MPI_Dims_create");
	HC_CHECK_ARRAY(-1, dims, ndims, "MPI_Dims_create");
	int rest = nnodes, free_dims = 0;
	for (int i = 0; i < ndims; i++) {
		if (dims[i] < 0) return hc_error(-1, MPI_ERR_DIMS, "MPI_Dims_create");
		if (dims[i] > 0) {
			if (rest % dims[i]) return hc_error(-1, MPI_ERR_DIMS, "MPI_Dims_create");
			rest /= dims[i];
		} else {
			free_dims++;
		}
	}
	if (free_dims == 0) return rest == 1 ? MPI_SUCCESS : hc_error(-1, MPI_ERR_DIMS, "MPI_Dims_create");
	/* At most one dimension per prime factor exceeds 1 (31 for an int):
	 * the rest are 1 whatever the search finds. */
	int nprimes = 0;
	for (int64_t p = 2, r = rest; r > 1; ) {
		if (p * p > r) {
			nprimes++;
			break;
		}
		if (r % p == 0) {
			nprimes++;
			r /= p;
		} else {
			p++;
		}
	}
	/* Divisors of rest, ascending: at most 1,600 for an int. */
	int small[1600], large[1600], ns = 0, nl = 0;
	for (int64_t d = 1; d * d <= rest; d++)
		if (rest % d == 0) {
			small[ns++] = (int)d;
			if (d * d != rest) large[nl++] = (int)(rest / d);
		}
	int *divs = malloc((size_t)(ns + nl) * sizeof *divs);
	hc_dims_search *s = calloc(1, sizeof *s);
	if (!divs || !s) {
		free(divs);
		free(s);
		return hc_error(-1, MPI_ERR_NO_MEM, "MPI_Dims_create");
	}
	memcpy(divs, small, (size_t)ns * sizeof *divs);
	for (int i = 0; i < nl; i++) divs[ns + i] = large[nl - 1 - i];
	s->divs = divs;
	s->ndivs = ns + nl;
	s->k = free_dims < nprimes ? free_dims : nprimes;
	s->range = -1;
	if (s->k == 0) s->best[0] = 1; /* rest is 1 */
	else hc_dims_walk(s, 0, rest, rest);
	for (int i = 0, k = 0; i < ndims; i++)
		if (dims[i] == 0) {
			dims[i] = k < s->k ? s->best[k] : 1;
			k++;
		}
	free(divs);
	free(s);
	return MPI_SUCCESS;
}

#define HC_ALIASES_coll
#include "aliases_gen.h"
