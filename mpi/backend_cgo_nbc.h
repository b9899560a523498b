// Collectives of the system-MPI backend that also come nonblocking: each
// wrapper makes the blocking call when nb is 0 and the MPI_I* call
// otherwise, so the Go side checks arguments once for both forms and
// crosses into C once either way. The request comes back in .req.
#ifndef HY_NBC_H
#define HY_NBC_H
#include "backend_cgo.h"

#define HY_NBC(blocking, nonblocking)              \
	do {                                           \
		MPI_Request r_ = MPI_REQUEST_NULL;         \
		hy_rq q_ = {0, 0};                         \
		if (!nb) {                                 \
			q_.err = (blocking);                   \
			return q_;                             \
		}                                          \
		q_.err = (nonblocking);                    \
		q_.req = (hy_h)r_;                         \
		return q_;                                 \
	} while (0)

static inline hy_rq hy_c_reduce(int nb, void *s, void *r, long long n, hy_h dt, hy_h op, int root, int ip, hy_h c) {
	if (HY_BIG(n)) return hy_rq_big;
	HY_NBC(MPI_Reduce(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), root, HY_COMM(c)),
	       MPI_Ireduce(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), root, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_scan(int nb, int ex, void *s, void *r, long long n, hy_h dt, hy_h op, int ip, hy_h c) {
	if (HY_BIG(n)) return hy_rq_big;
	if (ex)
		HY_NBC(MPI_Exscan(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), HY_COMM(c)),
		       MPI_Iexscan(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), HY_COMM(c), &r_));
	HY_NBC(MPI_Scan(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), HY_COMM(c)),
	       MPI_Iscan(HY_IP(s, ip), r, n, HY_DT(dt), HY_OP(op), HY_COMM(c), &r_));
}
static inline hy_rq hy_c_reduce_scatter(int nb, void *s, void *r, int *counts, hy_h dt, hy_h op, int ip, hy_h c) {
	HY_NBC(MPI_Reduce_scatter(HY_IP(s, ip), r, counts, HY_DT(dt), HY_OP(op), HY_COMM(c)),
	       MPI_Ireduce_scatter(HY_IP(s, ip), r, counts, HY_DT(dt), HY_OP(op), HY_COMM(c), &r_));
}
static inline hy_rq hy_c_gather(int nb, void *s, long long sn, void *r, long long rn, int root, int ip, hy_h c) {
	if (HY_BIG(sn) || HY_BIG(rn)) return hy_rq_big;
	HY_NBC(MPI_Gather(HY_IP(s, ip), sn, MPI_BYTE, r, rn, MPI_BYTE, root, HY_COMM(c)),
	       MPI_Igather(HY_IP(s, ip), sn, MPI_BYTE, r, rn, MPI_BYTE, root, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_gatherv(int nb, void *s, int sn, void *r, int *counts, int *displs, int root, int ip, hy_h c) {
	HY_NBC(MPI_Gatherv(HY_IP(s, ip), sn, MPI_BYTE, r, counts, displs, MPI_BYTE, root, HY_COMM(c)),
	       MPI_Igatherv(HY_IP(s, ip), sn, MPI_BYTE, r, counts, displs, MPI_BYTE, root, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_scatter(int nb, void *s, long long sn, void *r, long long rn, int root, int ip, hy_h c) {
	if (HY_BIG(sn) || HY_BIG(rn)) return hy_rq_big;
	HY_NBC(MPI_Scatter(s, sn, MPI_BYTE, HY_IP(r, ip), rn, MPI_BYTE, root, HY_COMM(c)),
	       MPI_Iscatter(s, sn, MPI_BYTE, HY_IP(r, ip), rn, MPI_BYTE, root, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_scatterv(int nb, void *s, int *counts, int *displs, void *r, int rn, int root, int ip, hy_h c) {
	HY_NBC(MPI_Scatterv(s, counts, displs, MPI_BYTE, HY_IP(r, ip), rn, MPI_BYTE, root, HY_COMM(c)),
	       MPI_Iscatterv(s, counts, displs, MPI_BYTE, HY_IP(r, ip), rn, MPI_BYTE, root, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_allgather(int nb, void *s, long long sn, void *r, long long rn, int ip, hy_h c) {
	if (HY_BIG(sn) || HY_BIG(rn)) return hy_rq_big;
	HY_NBC(MPI_Allgather(HY_IP(s, ip), sn, MPI_BYTE, r, rn, MPI_BYTE, HY_COMM(c)),
	       MPI_Iallgather(HY_IP(s, ip), sn, MPI_BYTE, r, rn, MPI_BYTE, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_allgatherv(int nb, void *s, int sn, void *r, int *counts, int *displs, int ip, hy_h c) {
	HY_NBC(MPI_Allgatherv(HY_IP(s, ip), sn, MPI_BYTE, r, counts, displs, MPI_BYTE, HY_COMM(c)),
	       MPI_Iallgatherv(HY_IP(s, ip), sn, MPI_BYTE, r, counts, displs, MPI_BYTE, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_alltoall(int nb, void *s, long long m, void *r, hy_h c) {
	if (HY_BIG(m)) return hy_rq_big;
	HY_NBC(MPI_Alltoall(s, m, MPI_BYTE, r, m, MPI_BYTE, HY_COMM(c)),
	       MPI_Ialltoall(s, m, MPI_BYTE, r, m, MPI_BYTE, HY_COMM(c), &r_));
}
static inline hy_rq hy_c_alltoallv(int nb, void *s, int *sc, int *sd, void *r, int *rc, int *rd, hy_h c) {
	HY_NBC(MPI_Alltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, HY_COMM(c)),
	       MPI_Ialltoallv(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, HY_COMM(c), &r_));
}
#endif
