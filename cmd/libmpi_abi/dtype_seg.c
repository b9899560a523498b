/*
 * dtype_seg.c — a datatype's data as a list of byte segments, for the
 * one-sided operations that reach a non-contiguous target with one
 * process_vm_readv/writev or a loop of loads and stores.
 */
#include "dtype.h"

typedef struct {
	int64_t *segs, max, n, end;
} hc_segctx;

static int hc_seg_run(void *c, int64_t off, int64_t bytes, const hc_dt *leaf, int64_t count)
{
	(void)leaf;
	(void)count;
	hc_segctx *s = c;
	if (bytes == 0) return 0;
	if (s->n > 0 && off == s->end) {
		if (s->n <= s->max) s->segs[2 * (s->n - 1) + 1] += bytes;
		s->end += bytes;
		return 0;
	}
	if (s->n < s->max) {
		s->segs[2 * s->n] = off;
		s->segs[2 * s->n + 1] = bytes;
	}
	s->n++;
	s->end = off + bytes;
	return 0;
}

/* hc_type_segments lists the byte blocks of count elements of dt in
 * type-map order, adjacent blocks merged, as (offset, length) pairs in
 * segs (room for max pairs); it returns how many there are (-1 for an
 * invalid type), which may exceed max: then call again with more room. */
HC_HIDDEN int64_t hc_type_segments(MPI_Datatype dt, int64_t count, int64_t *segs, int64_t max)
{
	hc_dt *t = hc_dt_get(dt);
	if (!t) return -1;
	hc_segctx s = {segs, max, 0, 0};
	hc_dt_walk(t, 0, count, 1, hc_seg_run, &s);
	return s.n;
}
