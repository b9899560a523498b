/*
 * htab.c — growable handle tables. A handle's index finds its object in a
 * two-level table whose chunks never move once allocated, so a lookup takes
 * no lock while another thread grows the table; freed indexes are reused.
 * Index 0 is never handed out (a zero handle is never valid).
 */
#include <stdlib.h>

#include "htab.h"

void *hc_htab_get(hc_htab *t, int i)
{
	if (i <= 0 || i > HC_INDEX_MASK) return NULL;
	void **c = __atomic_load_n(&t->chunks[i / HC_HTAB_CHUNK], __ATOMIC_ACQUIRE);
	return c ? __atomic_load_n(&c[i % HC_HTAB_CHUNK], __ATOMIC_ACQUIRE) : NULL;
}

int hc_htab_put(hc_htab *t, void *p)
{
	pthread_mutex_lock(&t->mu);
	int i;
	if (t->nfree > 0) {
		i = t->free[--t->nfree];
	} else {
		if (t->next == 0) t->next = 1;
		if (t->next > HC_INDEX_MASK) {
			pthread_mutex_unlock(&t->mu);
			return -1;
		}
		i = t->next;
		if (!t->chunks[i / HC_HTAB_CHUNK]) {
			void **c = calloc(HC_HTAB_CHUNK, sizeof *c);
			if (!c) {
				pthread_mutex_unlock(&t->mu);
				return -1;
			}
			__atomic_store_n(&t->chunks[i / HC_HTAB_CHUNK], c, __ATOMIC_RELEASE);
		}
		t->next++;
	}
	__atomic_store_n(&t->chunks[i / HC_HTAB_CHUNK][i % HC_HTAB_CHUNK], p, __ATOMIC_RELEASE);
	t->live++;
	pthread_mutex_unlock(&t->mu);
	return i;
}

void *hc_htab_del(hc_htab *t, int i)
{
	if (i <= 0 || i > HC_INDEX_MASK) return NULL;
	pthread_mutex_lock(&t->mu);
	void **c = t->chunks[i / HC_HTAB_CHUNK];
	void *p = c ? c[i % HC_HTAB_CHUNK] : NULL;
	if (p) {
		if (t->nfree == t->capfree) {
			int cap = t->capfree ? 2 * t->capfree : 64;
			int *f = realloc(t->free, cap * sizeof *f);
			if (!f) {
				/* Keep the object: a leak of one slot beats a lost index. */
				pthread_mutex_unlock(&t->mu);
				return NULL;
			}
			t->free = f;
			t->capfree = cap;
		}
		__atomic_store_n(&c[i % HC_HTAB_CHUNK], NULL, __ATOMIC_RELEASE);
		t->free[t->nfree++] = i;
		t->live--;
	}
	pthread_mutex_unlock(&t->mu);
	return p;
}
