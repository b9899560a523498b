/*
 * htab.h — growable handle tables (htab.c): index -> object pointer, for
 * every kind of object that has no fixed limit.
 */
#ifndef HYMPI_HTAB_H
#define HYMPI_HTAB_H

#include <pthread.h>

#include "cabi.h"

#define HC_HTAB_CHUNK 4096
#define HC_HTAB_NCHUNKS ((HC_INDEX_MASK + 1) / HC_HTAB_CHUNK)

typedef struct {
	pthread_mutex_t mu;
	void **chunks[HC_HTAB_NCHUNKS];
	int *free;
	int nfree, capfree, next, live;
} hc_htab;

#define HC_HTAB_INIT { .mu = PTHREAD_MUTEX_INITIALIZER }

/* put stores p (non-NULL) and returns its index (> 0), or -1 when out of
 * memory or indexes; get returns the object at i or NULL; del removes and
 * returns it, and i becomes reusable. */
HC_HIDDEN int hc_htab_put(hc_htab *t, void *p);
HC_HIDDEN void *hc_htab_get(hc_htab *t, int i);
HC_HIDDEN void *hc_htab_del(hc_htab *t, int i);

#endif
