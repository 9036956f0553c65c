/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the pcn algorithm: events/rxe_cc_pcn/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rxe_cc_pcn

#if !defined(PCN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define PCN_TRACE_H

#include <linux/tracepoint.h>

#include "rxe_cc_compat.h"

/* RP: a CNP was handled.  Rates in kb/s, w on a 2^20 scale. */
TRACE_EVENT(rxe_cc_pcn_rate,
	TP_PROTO(const char *dev, u32 qpn, u32 rate, u32 w, u32 rec_rate,
		 bool ecn),
	TP_ARGS(dev, qpn, rate, w, rec_rate, ecn),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(u32, rate)
		__field(u32, w)
		__field(u32, rec_rate)
		__field(bool, ecn)
	),
	TP_fast_assign(
		rxe_cc_assign_str(dev, dev);
		__entry->qpn = qpn;
		__entry->rate = rate;
		__entry->w = w;
		__entry->rec_rate = rec_rate;
		__entry->ecn = ecn;
	),
	TP_printk("dev=%s qpn=%u rate_kbps=%u w=%u rec_kbps=%u ecn=%d",
		  __get_str(dev), __entry->qpn, __entry->rate, __entry->w,
		  __entry->rec_rate, __entry->ecn)
);

/*
 * NP: a CNP is due at the end of a period; the engine sends it after the
 * callback if the responder is ready (rxe_cc_cnp_sent says it went).
 */
TRACE_EVENT(rxe_cc_pcn_cnp_sent,
	TP_PROTO(const char *dev, u32 qpn, u32 rec_rate, bool ecn),
	TP_ARGS(dev, qpn, rec_rate, ecn),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, qpn)
		__field(u32, rec_rate)
		__field(bool, ecn)
	),
	TP_fast_assign(
		rxe_cc_assign_str(dev, dev);
		__entry->qpn = qpn;
		__entry->rec_rate = rec_rate;
		__entry->ecn = ecn;
	),
	TP_printk("dev=%s qpn=%u rec_kbps=%u ecn=%d", __get_str(dev),
		  __entry->qpn, __entry->rec_rate, __entry->ecn)
);

/* RP: a CNP whose payload is not a valid PCN CNP, ignored. */
TRACE_EVENT(rxe_cc_pcn_bad_cnp,
	TP_PROTO(u32 qpn, int err, u8 magic, u8 flags),
	TP_ARGS(qpn, err, magic, flags),
	TP_STRUCT__entry(
		__field(u32, qpn)
		__field(int, err)
		__field(u8, magic)
		__field(u8, flags)
	),
	TP_fast_assign(
		__entry->qpn = qpn;
		__entry->err = err;
		__entry->magic = magic;
		__entry->flags = flags;
	),
	TP_printk("qpn=%u err=%s magic=0x%02x flags=0x%02x", __entry->qpn,
		  __print_symbolic(__entry->err,
				   { 1, "magic" }, { 2, "flags" },
				   { 3, "rsvd" }, { 4, "rate" }),
		  __entry->magic, __entry->flags)
);

#endif /* PCN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pcn_trace
#include <trace/define_trace.h>
