/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: the state of one qdisc, which its datapath and PAUSE receive
 * path (dcb_qdisc.c) and its netlink side (dcb_nl.c) share.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_SCHED_H
#define _SCH_DCB_SCHED_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "dcb_pool.h"
#include "uapi/pkt_sched_dcb.h"

/* A marking curve (TCA_DCB_ECN_*, see pkt_sched_dcb.h). */
struct dcb_ecn {
	u8			mode;		/* enum tc_dcb_ecn_mode */
	u32			kmin;		/* bytes; K of STEP, NP_ECN */
	u32			kmax;		/* bytes */
	u32			pmax;		/* TC_DCB_PROB_ONE = 1.0 */
};

struct dcb_band_cfg {
	struct dcb_ecn		ecn;		/* own curve, if ecn_own */
	bool			ecn_own;
	u8			nonect;		/* enum tc_dcb_nonect */
	u32			limit;		/* bytes, 0 = port limit only */
};

/* Everything `tc qdisc change` can set; replaced as a whole. */
struct dcb_cfg {
	u64			rate;		/* bytes/s, 0 = not shaped */
	u32			overhead;	/* bytes per packet */
	u32			burst;		/* bytes, 0 = auto */
	u32			limit;		/* port limit, bytes */
	u8			classify;
	u8			dscp_map[TC_DCB_NUM_DSCP];
	struct dcb_ecn		ecn;		/* default curve */
	u8			nonect;		/* bands' default */
	struct dcb_band_cfg	band[TC_DCB_NUM_BANDS];
	u32			pool;		/* pool id */
	struct dcb_pfc_cfg	pfc;
};

struct dcb_band {
	struct qdisc_skb_head	q;
	u32			backlog;	/* bytes */
	/* effective marking curve, derived from the configuration */
	struct dcb_ecn		ecn;
	u8			nonect;		/* own, else the port's */
	u32			limit;
	struct gnet_stats_basic_sync bstats;
	struct tc_dcb_stats	st;
	/* paused by the peer until this time (ns), 0 = not paused */
	u64			paused_until;
	u64			pause_start;	/* under rx_lock */
	u64			paused_ns;	/* closed pauses, rx_lock */
	/* pauses the peer started, written under rx_lock; a packet that
	 * sees another value at its dequeue than at its enqueue (see
	 * struct dcb_skb_cb) waited through a pause
	 */
	u32			pause_seq;
	bool			held;		/* skipped while paused */
};

/* The qdisc's TCA_STATS_APP: the header and its blocks, as sent. */
struct dcb_xstats {
	struct tc_dcb_xstats	 hdr;
	struct tc_dcb_port_stats port;
	struct tc_dcb_stats	 total;
	struct tc_dcb_pool_stats pool;
};

/* dcb_sched.ds_class[]: the band (bits 0-2), and ECT */
#define DCB_CLASS_BAND		(TC_DCB_NUM_BANDS - 1)
#define DCB_CLASS_ECT		BIT(3)
#define DCB_CLASS_ANY		BIT(4)	/* for dcb_enqueue_any() */

struct dcb_sched {
	struct dcb_cfg		cfg;
	/* per DS field: its band by the DSCP map (0 when classifying by
	 * priority) and whether the packet is ECN-capable (DCB_CLASS_*)
	 */
	u8			ds_class[256];
	struct psched_ratecfg	rate;
	u64			burst_ns;
	u64			t_next;		/* earliest next transmit */
	u64			lag_ns;		/* line time lost, backlogged */
	struct qdisc_watchdog	watchdog;
	struct dcb_band		band[TC_DCB_NUM_BANDS];
	/* &band[i], set by ->init: the datapath loads it where it would
	 * multiply by the band's size
	 */
	struct dcb_band		*bandp[TC_DCB_NUM_BANDS];
	unsigned long		backlogged;	/* bit per band with packets */
	u64			backlog_peak;
	struct dcb_pool		*pool;
	struct dcb_port		*port;		/* root qdisc: this port */
	s64			init_buffer;	/* from ->init for ->attach */
	spinlock_t		rx_lock;	/* PAUSE receive state */
	u64			pause_rate;	/* bytes/s timing PAUSE quanta */
	u64			pfc_malformed;	/* under rx_lock */
	struct dcb_xstats	xstats;		/* scratch for dumps */
};

#endif /* _SCH_DCB_SCHED_H */
