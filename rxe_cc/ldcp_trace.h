/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of the ldcp algorithm: events/rxe_cc_ldcp/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rxe_cc_ldcp

#if !defined(LDCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define LDCP_TRACE_H

#include <linux/tracepoint.h>

/*
 * cwnd changed: cwnd in packets on a 2^16 scale, the window given to the
 * requester in packets, the packets the ACK acknowledged and its ECE
 * (n = 0: a fast start raised cwnd).
 */
TRACE_EVENT(rxe_cc_ldcp,
	TP_PROTO(u32 qpn, u32 cwnd, u32 window, u32 n, bool ece),
	TP_ARGS(qpn, cwnd, window, n, ece),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(u32, cwnd)
		__field(u32, window)
		__field(u32, n)
		__field(bool, ece)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->cwnd = cwnd;
		__entry->window = window;
		__entry->n = n;
		__entry->ece = ece;
	),
	TP_printk("qpn=%u cwnd=%u.%04u window=%u n=%u ece=%u",
		  __entry->qpn, __entry->cwnd >> 16,
		  ((__entry->cwnd & 0xffff) * 10000) >> 16,
		  __entry->window, __entry->n, __entry->ece)
);

#endif /* LDCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ldcp_trace
#include <trace/define_trace.h>
