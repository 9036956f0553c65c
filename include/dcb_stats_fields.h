/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The members of struct tc_dcb_stats as one list, for userspace.
 *
 * DCB_STATS_FIELDS(X) calls X(name) once for every member of struct
 * tc_dcb_stats (sch_dcb/uapi/pkt_sched_dcb.h), in the struct's order.
 * The tc plugin takes its JSON keys from it and dcbmon its CSV columns,
 * so a counter appended to the struct is appended here and nowhere else.
 * The uAPI struct itself stays a plain definition; the static assertions
 * below stop the build of every user when the two differ (a member
 * missing, added, reordered or not a __u64).  The kernel does not use it.
 */
#ifndef _DCB_STATS_FIELDS_H
#define _DCB_STATS_FIELDS_H

#include <stddef.h>

#include "pkt_sched_dcb.h"

#define DCB_STATS_FIELDS(X)	\
	X(enq_packets)		\
	X(enq_bytes)		\
	X(deq_packets)		\
	X(deq_bytes)		\
	X(backlog_bytes)	\
	X(backlog_packets)	\
	X(backlog_peak)		\
	X(ecn_marked)		\
	X(drops_tail)		\
	X(drops_wred)		\
	X(drops_headroom)	\
	X(pause_tx)		\
	X(resume_tx)		\
	X(pause_rx)		\
	X(resume_rx)		\
	X(paused_us)		\
	X(in_bytes)		\
	X(in_peak)		\
	X(in_headroom)		\
	X(in_drops)		\
	X(xoff)			\
	X(np_unmarked)		\
	X(nonect_passed)	\
	X(pause_inflight_peak)	\
	X(pause_react_us)	\
	X(shaper_lag_us)	\
	X(in_borrowed)		\
	X(pause_lapses)

/* DCB_STAT_<member>: the member's index in the struct, in __u64 units */
#define DCB_STATS_ENUM(f)	DCB_STAT_##f,
enum {
	DCB_STATS_FIELDS(DCB_STATS_ENUM)
	DCB_STATS_NUM
};
#undef DCB_STATS_ENUM

/* The list is the struct: each member at its index, and no other */
#define DCB_STATS_CHECK(f)						\
	_Static_assert(offsetof(struct tc_dcb_stats, f) ==		\
		       DCB_STAT_##f * sizeof(__u64) &&			\
		       sizeof(((struct tc_dcb_stats *)0)->f) == sizeof(__u64), \
		       "DCB_STATS_FIELDS: " #f " is not at its index");
DCB_STATS_FIELDS(DCB_STATS_CHECK)
#undef DCB_STATS_CHECK
_Static_assert(sizeof(struct tc_dcb_stats) == DCB_STATS_NUM * sizeof(__u64),
	       "DCB_STATS_FIELDS does not list every member of struct tc_dcb_stats");

#endif /* _DCB_STATS_FIELDS_H */
