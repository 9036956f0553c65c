/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of the dcqcn algorithm: events/rxe_cc_dcqcn/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rxe_cc_dcqcn

#if !defined(DCQCN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define DCQCN_TRACE_H

#include <linux/tracepoint.h>

#include "rxe_cc_compat.h"

/*
 * The device and QP (QP numbers repeat across devices); R_C, R_T in
 * kb/s; alpha on a 2^20 scale; T, BC; what happened.
 */
TRACE_EVENT(rxe_cc_dcqcn,
	TP_PROTO(const char *dev, u32 qpn, u32 rc, u32 rt, u32 alpha, u32 t,
		 u32 bc, u8 ev),
	TP_ARGS(dev, qpn, rc, rt, alpha, t, bc, ev),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(u32, rc)
		__field(u32, rt)
		__field(u32, alpha)
		__field(u32, t)
		__field(u32, bc)
		__field(u8, ev)
	),
	TP_fast_assign(
		rxe_cc_assign_str(dev, dev);
		__entry->qpn = qpn;
		__entry->rc = rc;
		__entry->rt = rt;
		__entry->alpha = alpha;
		__entry->t = t;
		__entry->bc = bc;
		__entry->ev = ev;
	),
	TP_printk("dev=%s qpn=%u rc_kbps=%u rt_kbps=%u alpha=%u t=%u bc=%u ev=%s",
		  __get_str(dev), __entry->qpn, __entry->rc, __entry->rt, __entry->alpha,
		  __entry->t, __entry->bc,
		  __print_symbolic(__entry->ev,
				   { 0, "init" }, { 1, "cnp" },
				   { 2, "first_cnp" }, { 3, "alpha" },
				   { 4, "fast_recovery" }, { 5, "additive" },
				   { 6, "hyper" }))
);

#endif /* DCQCN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dcqcn_trace
#include <trace/define_trace.h>
