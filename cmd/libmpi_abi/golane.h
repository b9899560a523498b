/*
 * golane.h — every call into Go first hands the receive lane's queued
 * receives to the engine (fastlane.h), so that whatever Go does next
 * (post, match, probe, cancel, progress, free a communicator, finalize)
 * sees them as the oldest posted receives, in order. Included right after
 * _cgo_export.h by every file that calls Go: each hympi_go_X below becomes
 * one load of hc_lane_n, then the call. TestGoCallsSyncTheLane holds this
 * list to the //export functions and the includes to the files.
 *
 * Not wrapped: hympi_go_lane_flush and hympi_go_cn_adopt (the hand-overs
 * themselves) and hympi_go_fl_comm (the fast lane's set-up, which touches
 * no queue).
 */
#ifndef HYMPI_GOLANE_H
#define HYMPI_GOLANE_H

#include "fastlane.h"

/* hc_cn_n: nonblocking collectives pending in C (nbc_pend.c), which
 * hc_go_sync hands to Go too, after the receive lane's queue. */
HC_HIDDEN extern int hc_cn_n;
HC_HIDDEN void hc_go_sync(void);

#define HC_LANE_SYNC() (__builtin_expect((hc_lane_n | hc_cn_n) != 0, 0) ? hc_go_sync() : (void)0)

#define hympi_go_abort(...) (HC_LANE_SYNC(), hympi_go_abort(__VA_ARGS__))
#define hympi_go_allocs(...) (HC_LANE_SYNC(), hympi_go_allocs(__VA_ARGS__))
#define hympi_go_alltoallv(...) (HC_LANE_SYNC(), hympi_go_alltoallv(__VA_ARGS__))
#define hympi_go_barrier(...) (HC_LANE_SYNC(), hympi_go_barrier(__VA_ARGS__))
#define hympi_go_bcast(...) (HC_LANE_SYNC(), hympi_go_bcast(__VA_ARGS__))
#define hympi_go_bufx_attach(...) (HC_LANE_SYNC(), hympi_go_bufx_attach(__VA_ARGS__))
#define hympi_go_bufx_detach(...) (HC_LANE_SYNC(), hympi_go_bufx_detach(__VA_ARGS__))
#define hympi_go_bufx_iflush(...) (HC_LANE_SYNC(), hympi_go_bufx_iflush(__VA_ARGS__))
#define hympi_go_bufx_session_end(...) (HC_LANE_SYNC(), hympi_go_bufx_session_end(__VA_ARGS__))
#define hympi_go_cc_area(...) (HC_LANE_SYNC(), hympi_go_cc_area(__VA_ARGS__))
#define hympi_go_cc_run(...) (HC_LANE_SYNC(), hympi_go_cc_run(__VA_ARGS__))
#define hympi_go_cancel(...) (HC_LANE_SYNC(), hympi_go_cancel(__VA_ARGS__))
#define hympi_go_cn_reserve(...) (HC_LANE_SYNC(), hympi_go_cn_reserve(__VA_ARGS__))
#define hympi_go_comm_compare(...) (HC_LANE_SYNC(), hympi_go_comm_compare(__VA_ARGS__))
#define hympi_go_comm_create(...) (HC_LANE_SYNC(), hympi_go_comm_create(__VA_ARGS__))
#define hympi_go_comm_dup(...) (HC_LANE_SYNC(), hympi_go_comm_dup(__VA_ARGS__))
#define hympi_go_comm_free(...) (HC_LANE_SYNC(), hympi_go_comm_free(__VA_ARGS__))
#define hympi_go_comm_from_group(...) (HC_LANE_SYNC(), hympi_go_comm_from_group(__VA_ARGS__))
#define hympi_go_comm_group(...) (HC_LANE_SYNC(), hympi_go_comm_group(__VA_ARGS__))
#define hympi_go_comm_idup(...) (HC_LANE_SYNC(), hympi_go_comm_idup(__VA_ARGS__))
#define hympi_go_comm_inter(...) (HC_LANE_SYNC(), hympi_go_comm_inter(__VA_ARGS__))
#define hympi_go_comm_remote_group(...) (HC_LANE_SYNC(), hympi_go_comm_remote_group(__VA_ARGS__))
#define hympi_go_comm_split(...) (HC_LANE_SYNC(), hympi_go_comm_split(__VA_ARGS__))
#define hympi_go_done_request(...) (HC_LANE_SYNC(), hympi_go_done_request(__VA_ARGS__))
#define hympi_go_finalize(...) (HC_LANE_SYNC(), hympi_go_finalize(__VA_ARGS__))
#define hympi_go_gather(...) (HC_LANE_SYNC(), hympi_go_gather(__VA_ARGS__))
#define hympi_go_gatherv(...) (HC_LANE_SYNC(), hympi_go_gatherv(__VA_ARGS__))
#define hympi_go_get_status_all(...) (HC_LANE_SYNC(), hympi_go_get_status_all(__VA_ARGS__))
#define hympi_go_get_status_any(...) (HC_LANE_SYNC(), hympi_go_get_status_any(__VA_ARGS__))
#define hympi_go_get_status_some(...) (HC_LANE_SYNC(), hympi_go_get_status_some(__VA_ARGS__))
#define hympi_go_grequest_complete(...) (HC_LANE_SYNC(), hympi_go_grequest_complete(__VA_ARGS__))
#define hympi_go_grequest_start(...) (HC_LANE_SYNC(), hympi_go_grequest_start(__VA_ARGS__))
#define hympi_go_group_compare(...) (HC_LANE_SYNC(), hympi_go_group_compare(__VA_ARGS__))
#define hympi_go_group_free(...) (HC_LANE_SYNC(), hympi_go_group_free(__VA_ARGS__))
#define hympi_go_group_op(...) (HC_LANE_SYNC(), hympi_go_group_op(__VA_ARGS__))
#define hympi_go_group_size(...) (HC_LANE_SYNC(), hympi_go_group_size(__VA_ARGS__))
#define hympi_go_group_translate(...) (HC_LANE_SYNC(), hympi_go_group_translate(__VA_ARGS__))
#define hympi_go_hw_colors(...) (HC_LANE_SYNC(), hympi_go_hw_colors(__VA_ARGS__))
#define hympi_go_icoll(...) (HC_LANE_SYNC(), hympi_go_icoll(__VA_ARGS__))
#define hympi_go_iinter(...) (HC_LANE_SYNC(), hympi_go_iinter(__VA_ARGS__))
#define hympi_go_imrecv(...) (HC_LANE_SYNC(), hympi_go_imrecv(__VA_ARGS__))
#define hympi_go_ineighbor(...) (HC_LANE_SYNC(), hympi_go_ineighbor(__VA_ARGS__))
#define hympi_go_init(...) (HC_LANE_SYNC(), hympi_go_init(__VA_ARGS__))
#define hympi_go_intercomm_create(...) (HC_LANE_SYNC(), hympi_go_intercomm_create(__VA_ARGS__))
#define hympi_go_intercomm_from_groups(...) (HC_LANE_SYNC(), hympi_go_intercomm_from_groups(__VA_ARGS__))
#define hympi_go_intercomm_merge(...) (HC_LANE_SYNC(), hympi_go_intercomm_merge(__VA_ARGS__))
#define hympi_go_iprobe(...) (HC_LANE_SYNC(), hympi_go_iprobe(__VA_ARGS__))
#define hympi_go_irecv(...) (HC_LANE_SYNC(), hympi_go_irecv(__VA_ARGS__))
#define hympi_go_isend(...) (HC_LANE_SYNC(), hympi_go_isend(__VA_ARGS__))
#define hympi_go_isendrecv(...) (HC_LANE_SYNC(), hympi_go_isendrecv(__VA_ARGS__))
#define hympi_go_library_version(...) (HC_LANE_SYNC(), hympi_go_library_version(__VA_ARGS__))
#define hympi_go_mprobe(...) (HC_LANE_SYNC(), hympi_go_mprobe(__VA_ARGS__))
#define hympi_go_neighbor(...) (HC_LANE_SYNC(), hympi_go_neighbor(__VA_ARGS__))
#define hympi_go_noop(...) (HC_LANE_SYNC(), hympi_go_noop(__VA_ARGS__))
#define hympi_go_op_commutative(...) (HC_LANE_SYNC(), hympi_go_op_commutative(__VA_ARGS__))
#define hympi_go_op_create(...) (HC_LANE_SYNC(), hympi_go_op_create(__VA_ARGS__))
#define hympi_go_op_free(...) (HC_LANE_SYNC(), hympi_go_op_free(__VA_ARGS__))
#define hympi_go_pc_plan(...) (HC_LANE_SYNC(), hympi_go_pc_plan(__VA_ARGS__))
#define hympi_go_pc_start_at(...) (HC_LANE_SYNC(), hympi_go_pc_start_at(__VA_ARGS__))
#define hympi_go_parrived(...) (HC_LANE_SYNC(), hympi_go_parrived(__VA_ARGS__))
#define hympi_go_pinit(...) (HC_LANE_SYNC(), hympi_go_pinit(__VA_ARGS__))
#define hympi_go_pready(...) (HC_LANE_SYNC(), hympi_go_pready(__VA_ARGS__))
#define hympi_go_prequest(...) (HC_LANE_SYNC(), hympi_go_prequest(__VA_ARGS__))
#define hympi_go_probe(...) (HC_LANE_SYNC(), hympi_go_probe(__VA_ARGS__))
#define hympi_go_recv(...) (HC_LANE_SYNC(), hympi_go_recv(__VA_ARGS__))
#define hympi_go_reduce(...) (HC_LANE_SYNC(), hympi_go_reduce(__VA_ARGS__))
#define hympi_go_reduce_local(...) (HC_LANE_SYNC(), hympi_go_reduce_local(__VA_ARGS__))
#define hympi_go_reduce_scatter(...) (HC_LANE_SYNC(), hympi_go_reduce_scatter(__VA_ARGS__))
#define hympi_go_request_free(...) (HC_LANE_SYNC(), hympi_go_request_free(__VA_ARGS__))
#define hympi_go_request_get_status(...) (HC_LANE_SYNC(), hympi_go_request_get_status(__VA_ARGS__))
#define hympi_go_send(...) (HC_LANE_SYNC(), hympi_go_send(__VA_ARGS__))
#define hympi_go_sendrecv(...) (HC_LANE_SYNC(), hympi_go_sendrecv(__VA_ARGS__))
#define hympi_go_sendrecv_replace(...) (HC_LANE_SYNC(), hympi_go_sendrecv_replace(__VA_ARGS__))
#define hympi_go_session_exit(...) (HC_LANE_SYNC(), hympi_go_session_exit(__VA_ARGS__))
#define hympi_go_session_finalize(...) (HC_LANE_SYNC(), hympi_go_session_finalize(__VA_ARGS__))
#define hympi_go_session_init(...) (HC_LANE_SYNC(), hympi_go_session_init(__VA_ARGS__))
#define hympi_go_start(...) (HC_LANE_SYNC(), hympi_go_start(__VA_ARGS__))
#define hympi_go_test(...) (HC_LANE_SYNC(), hympi_go_test(__VA_ARGS__))
#define hympi_go_testall(...) (HC_LANE_SYNC(), hympi_go_testall(__VA_ARGS__))
#define hympi_go_testany(...) (HC_LANE_SYNC(), hympi_go_testany(__VA_ARGS__))
#define hympi_go_testsome(...) (HC_LANE_SYNC(), hympi_go_testsome(__VA_ARGS__))
#define hympi_go_type_freed(...) (HC_LANE_SYNC(), hympi_go_type_freed(__VA_ARGS__))
#define hympi_go_wait(...) (HC_LANE_SYNC(), hympi_go_wait(__VA_ARGS__))
#define hympi_go_waitall(...) (HC_LANE_SYNC(), hympi_go_waitall(__VA_ARGS__))
#define hympi_go_waitany(...) (HC_LANE_SYNC(), hympi_go_waitany(__VA_ARGS__))
#define hympi_go_waitsome(...) (HC_LANE_SYNC(), hympi_go_waitsome(__VA_ARGS__))
#define hympi_go_win_acc(...) (HC_LANE_SYNC(), hympi_go_win_acc(__VA_ARGS__))
#define hympi_go_win_attach(...) (HC_LANE_SYNC(), hympi_go_win_attach(__VA_ARGS__))
#define hympi_go_win_cas(...) (HC_LANE_SYNC(), hympi_go_win_cas(__VA_ARGS__))
#define hympi_go_win_create(...) (HC_LANE_SYNC(), hympi_go_win_create(__VA_ARGS__))
#define hympi_go_win_free(...) (HC_LANE_SYNC(), hympi_go_win_free(__VA_ARGS__))
#define hympi_go_win_group(...) (HC_LANE_SYNC(), hympi_go_win_group(__VA_ARGS__))
#define hympi_go_win_put(...) (HC_LANE_SYNC(), hympi_go_win_put(__VA_ARGS__))
#define hympi_go_win_req(...) (HC_LANE_SYNC(), hympi_go_win_req(__VA_ARGS__))
#define hympi_go_win_ring(...) (HC_LANE_SYNC(), hympi_go_win_ring(__VA_ARGS__))
#define hympi_go_win_separate(...) (HC_LANE_SYNC(), hympi_go_win_separate(__VA_ARGS__))
#define hympi_go_win_shared_query(...) (HC_LANE_SYNC(), hympi_go_win_shared_query(__VA_ARGS__))
#define hympi_go_win_sync(...) (HC_LANE_SYNC(), hympi_go_win_sync(__VA_ARGS__))

#endif
