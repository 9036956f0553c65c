/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the rxe_cc engine: events/rxe_cc/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rxe_cc

#if !defined(RXE_CC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RXE_CC_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(rxe_cc_rate,
	TP_PROTO(u32 qpn, u32 kbps),
	TP_ARGS(qpn, kbps),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, kbps)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->kbps = kbps;
	),
	TP_printk("qpn=%u rate_kbps=%u", __entry->qpn, __entry->kbps)
);

TRACE_EVENT(rxe_cc_cnp_sent,
	TP_PROTO(u32 qpn, u32 dest_qpn),
	TP_ARGS(qpn, dest_qpn),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, dest_qpn)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->dest_qpn = dest_qpn;
	),
	TP_printk("qpn=%u dest_qpn=%u", __entry->qpn, __entry->dest_qpn)
);

TRACE_EVENT(rxe_cc_cnp_rcvd,
	TP_PROTO(u32 qpn),
	TP_ARGS(qpn),
	TP_STRUCT__entry(
		__field(u32, qpn)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
	),
	TP_printk("qpn=%u", __entry->qpn)
);

#endif /* RXE_CC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rxe_cc_trace
#include <trace/define_trace.h>
