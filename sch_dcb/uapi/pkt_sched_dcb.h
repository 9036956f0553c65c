/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sch_dcb: netlink interface of the DCB lab switch-port qdisc.
 *
 * This header is the single definition shared by the kernel module, the
 * tc plugin (q_dcb.so) and the userspace tools (dcbmon).  Everything in it
 * is append-only: new attributes go before __TCA_DCB_MAX, new statistics
 * go at the end of their structure, and readers check the payload length.
 */
#ifndef _UAPI_PKT_SCHED_DCB_H
#define _UAPI_PKT_SCHED_DCB_H

#include <linux/types.h>

#define TC_DCB_NUM_BANDS	8
#define TC_DCB_NUM_DSCP		64

/* Probabilities are fixed point: TC_DCB_PROB_ONE means 1.0. */
#define TC_DCB_PROB_SHIFT	32
#define TC_DCB_PROB_ONE		0xffffffffU

enum tc_dcb_classify {
	TC_DCB_CLASSIFY_DSCP,		/* band = dscp_map[DSCP] (default) */
	TC_DCB_CLASSIFY_PRIO,		/* band = skb->priority & 7 */
	__TC_DCB_CLASSIFY_MAX,
};

enum tc_dcb_ecn_mode {
	TC_DCB_ECN_OFF,			/* no marking, no WRED */
	TC_DCB_ECN_RED,			/* kmin/kmax/pmax, coin per packet */
	TC_DCB_ECN_STEP,		/* DCTCP: mark when queue >= kmin */
	TC_DCB_ECN_NP_ECN,		/* PCN's NP-ECN (PFC issue) */
	__TC_DCB_ECN_MAX,
};

/*
 * Marking curve of one band, on the band's instantaneous queue length in
 * bytes (q, measured before the arriving packet is queued):
 *   RED:  q <= kmin: p = 0; q >= kmax: p = 1;
 *         otherwise p = pmax * (q - kmin) / (kmax - kmin)
 *   STEP: q >= kmin: p = 1, else 0 (kmax and pmax ignored)
 * ECT packets selected by the coin are CE-marked, non-ECT ones dropped
 * (WRED).
 */
struct tc_dcb_ecn {
	__u32	mode;		/* enum tc_dcb_ecn_mode */
	__u32	kmin;		/* bytes (also K of STEP) */
	__u32	kmax;		/* bytes */
	__u32	pmax;		/* probability, TC_DCB_PROB_ONE = 1.0 */
};

/* Qdisc options (TCA_OPTIONS of the qdisc) */
enum {
	TCA_DCB_UNSPEC,
	TCA_DCB_RATE64,		/* u64, bytes per second; 0 = not shaped */
	TCA_DCB_OVERHEAD,	/* u32, bytes added to each packet's length */
	TCA_DCB_BURST,		/* u32, bytes of catch-up credit; 0 = auto */
	TCA_DCB_LIMIT,		/* u32, port limit in bytes */
	TCA_DCB_CLASSIFY,	/* u8, enum tc_dcb_classify */
	TCA_DCB_DSCP_MAP,	/* u8[TC_DCB_NUM_DSCP], band of each DSCP */
	TCA_DCB_ECN,		/* struct tc_dcb_ecn, default of every band */
	TCA_DCB_BANDS,		/* nest of TCA_DCB_BAND */
	TCA_DCB_PAD,
	__TCA_DCB_MAX
};
#define TCA_DCB_MAX (__TCA_DCB_MAX - 1)

/* Inside TCA_DCB_BANDS: one TCA_DCB_BAND nest per band being set */
enum {
	TCA_DCB_BANDS_UNSPEC,
	TCA_DCB_BAND,
	__TCA_DCB_BANDS_MAX
};
#define TCA_DCB_BANDS_MAX (__TCA_DCB_BANDS_MAX - 1)

/*
 * Per-band settings.  Also the TCA_OPTIONS of `tc class change ... dcb`
 * (without TCA_DCB_BAND_INDEX: the class id gives the band).
 */
enum {
	TCA_DCB_BAND_UNSPEC,
	TCA_DCB_BAND_INDEX,	/* u8, 0..7 */
	TCA_DCB_BAND_LIMIT,	/* u32, bytes; 0 = port limit only */
	TCA_DCB_BAND_ECN,	/* struct tc_dcb_ecn, overrides the default */
	TCA_DCB_BAND_ECN_DEFAULT, /* flag: drop the override */
	__TCA_DCB_BAND_MAX
};
#define TCA_DCB_BAND_MAX (__TCA_DCB_BAND_MAX - 1)

/* Statistics of one band (tc -s class show) and of the port (totals). */
struct tc_dcb_stats {
	__u64	enq_packets;
	__u64	enq_bytes;
	__u64	deq_packets;
	__u64	deq_bytes;
	__u64	backlog_bytes;
	__u64	backlog_packets;
	__u64	backlog_peak;	/* bytes, highest backlog seen */
	__u64	ecn_marked;	/* packets CE-marked here */
	__u64	drops_tail;	/* band or port limit */
	__u64	drops_wred;	/* non-ECT packets selected by the curve */
};

/* TCA_STATS_APP of the qdisc (tc -s qdisc show) */
struct tc_dcb_xstats {
	__u32			version;	/* TC_DCB_XSTATS_VERSION */
	__u32			nbands;		/* TC_DCB_NUM_BANDS */
	__u64			rate;		/* bytes/s in force */
	struct tc_dcb_stats	total;
	struct tc_dcb_stats	band[TC_DCB_NUM_BANDS];
};
#define TC_DCB_XSTATS_VERSION	1

#endif /* _UAPI_PKT_SCHED_DCB_H */
