/*
 * nbc_atonce.c — whether the program waits on its nonblocking and
 * persistent collectives at once, and so whether their starts may spin.
 *
 * A C nonblocking start that finds a peer's message missing does not spin
 * for it: it stays pending in C (nbc_pend.c) so that a program computing
 * between start and wait overlaps the peers' sends. But a program that
 * waits at once (MPI_I* then MPI_Wait, OSU's nonblocking latency loops)
 * then pays for the pending run on top of the collective: the keep, the
 * lookup in the wait and the resumed rounds, ~400 instructions at 2 ranks
 * (callgrind-nbc, ibcast early: start + wait) on a collective of ~500, where
 * a start that spins like the blocking call would have found the message.
 * With more ranks than CPUs the start does not even stay in C: it goes to
 * Go, where the blocking call yields in C.
 *
 * The two patterns differ in the time between a start and the next wait,
 * which this file measures with the time-stamp counter: a start leaves
 * its stamp (hc_nb_stamp; of the starts that completed the collective
 * only a sample, and only while starts spin: nbc.h), the next MPI_Wait
 * reads the counter once (hc_nb_waited), and when it waits for that
 * start's handle within HC_NB_ATONCE_TICKS (a call and a return: tens of
 * ticks; any computation worth overlapping: more) the next starts run as
 * the blocking call does (spin, or yield when oversubscribed). A longer
 * gap, a wait for other requests first (a halo exchange while the
 * collective runs), or an MPI_Test in between (a program that polls its
 * collectives computes) turns that off again: the cost of a wrong guess is one start's spin, or one
 * pending run. Under valgrind every gap is long: callgrind counts the
 * starts of a computing program.
 *
 * Without the counter (not x86-64) starts never spin, as before.
 */
#include "nbc.h"

int hc_nb_atonce;
uint64_t hc_nb_stamp;
MPI_Request hc_nb_stamp_req;
unsigned long hc_nb_atonce_starts;
unsigned hc_nb_sample;
