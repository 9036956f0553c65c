/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of sch_dcb: PFC frames sent and received, ECN marks.
 *
 * Copyright (c) 2026 DCB lab
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sch_dcb

#if !defined(_DCB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DCB_TRACE_H

#include <linux/netdevice.h>
#include <linux/tracepoint.h>

#include "dcb_compat.h"

/* A PFC frame sent out of, or a valid one received by, @dev: the bands
 * paused (for @quanta; received: the lowest band's) and resumed.
 */
DECLARE_EVENT_CLASS(dcb_pfc,
	TP_PROTO(const struct net_device *dev, u8 pause_mask, u8 resume_mask,
		 u16 quanta),
	TP_ARGS(dev, pause_mask, resume_mask, quanta),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__field(u8, pause_mask)
		__field(u8, resume_mask)
		__field(u16, quanta)
	),
	TP_fast_assign(
		dcb_assign_str(dev, dev->name);
		__entry->pause_mask = pause_mask;
		__entry->resume_mask = resume_mask;
		__entry->quanta = quanta;
	),
	TP_printk("dev=%s pause=0x%02x resume=0x%02x quanta=%u",
		  __get_str(dev), __entry->pause_mask, __entry->resume_mask,
		  __entry->quanta)
);

DEFINE_EVENT(dcb_pfc, dcb_pfc_tx,
	TP_PROTO(const struct net_device *dev, u8 pause_mask, u8 resume_mask,
		 u16 quanta),
	TP_ARGS(dev, pause_mask, resume_mask, quanta)
);

DEFINE_EVENT(dcb_pfc, dcb_pfc_rx,
	TP_PROTO(const struct net_device *dev, u8 pause_mask, u8 resume_mask,
		 u16 quanta),
	TP_ARGS(dev, pause_mask, resume_mask, quanta)
);

/* A packet CE-marked in @band holding @backlog bytes; @np: by NP-ECN. */
TRACE_EVENT(dcb_mark,
	TP_PROTO(const struct net_device *dev, u8 band, u32 backlog, bool np),
	TP_ARGS(dev, band, backlog, np),
	TP_STRUCT__entry(
		__string(dev, dev->name)
		__field(u8, band)
		__field(u32, backlog)
		__field(bool, np)
	),
	TP_fast_assign(
		dcb_assign_str(dev, dev->name);
		__entry->band = band;
		__entry->backlog = backlog;
		__entry->np = np;
	),
	TP_printk("dev=%s band=%u backlog=%u np=%d", __get_str(dev),
		  __entry->band, __entry->backlog, __entry->np)
);

#endif /* _DCB_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE dcb_trace
#include <trace/define_trace.h>
