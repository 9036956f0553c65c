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
	TC_DCB_ECN_NP_ECN,		/* PCN's NP-ECN, see below */
	__TC_DCB_ECN_MAX,
};

/*
 * Marking curve of one band, on the band's instantaneous queue length in
 * bytes (q, measured before the arriving packet is queued):
 *   RED:  q <= kmin: p = 0; q >= kmax: p = 1;
 *         otherwise p = pmax * (q - kmin) / (kmax - kmin)
 *   STEP: q >= kmin: p = 1, else 0 (kmax and pmax ignored)
 * ECT packets selected by the coin are CE-marked; non-ECT ones are
 * dropped (WRED) or passed, see enum tc_dcb_nonect.
 *   NP_ECN: marking at dequeue.  When the peer resumes a paused band
 *         holding N packets, those N leave unmarked; after them an ECT
 *         packet is marked when the band still holds more than kmin
 *         bytes once it has left (K, the threshold of PCN's "traditional"
 *         marking; the paper sets it to 0, which starves paced flows:
 *         TC_DCB_NP_ECN_K_DEFAULT is what tc sends when none is given).
 *         K must be below the band's limit; kmax and pmax must be 0;
 *         no WRED.
 *
 * A curve travels as a nest of TCA_DCB_ECN_* (TCA_DCB_ECN of the port,
 * TCA_DCB_BAND_ECN of a band) and replaces the curve as a whole: MODE is
 * required, a member left out is 0.  New members are appended, with 0
 * meaning what the curve did without them.
 */
enum {
	TCA_DCB_ECN_UNSPEC,
	TCA_DCB_ECN_MODE,	/* u8, enum tc_dcb_ecn_mode */
	TCA_DCB_ECN_KMIN,	/* u32, bytes (also K of STEP and NP_ECN) */
	TCA_DCB_ECN_KMAX,	/* u32, bytes */
	TCA_DCB_ECN_PMAX,	/* u32, probability, TC_DCB_PROB_ONE = 1.0 */
	__TCA_DCB_ECN_MAX
};
#define TCA_DCB_ECN_MAX (__TCA_DCB_ECN_MAX - 1)

/*
 * NP-ECN's K when the user gives none (tc): 10 KB, two packets of the
 * largest RoCE MTU (4096 B of payload is about 4.2 KB on the wire).  A K
 * below one packet acts as 0; one packet is not always enough when a
 * CNP period holds few packets per flow.  See Documentation/sch_dcb.rst.
 */
#define TC_DCB_NP_ECN_K_DEFAULT	10240

/*
 * What a RED or STEP band does with a non-ECT packet its curve selects.
 * AUTO: PASS on a lossless band, DROP (WRED) on a lossy one.  A band is
 * lossless for a packet when PFC is on for the band on the packet's
 * ingress port (the pool's port that would PAUSE its sender) or on this
 * port.  A passed packet still meets the limits, the pool and PFC.
 * The port default (TCA_DCB_NONECT) applies to every band whose own
 * setting (TCA_DCB_BAND_NONECT) is AUTO.
 */
enum tc_dcb_nonect {
	TC_DCB_NONECT_AUTO,		/* default: by PFC, see above */
	TC_DCB_NONECT_PASS,		/* "ECN only": never WRED */
	TC_DCB_NONECT_DROP,		/* WRED, even on a lossless band */
	__TC_DCB_NONECT_MAX,
};

/* Qdisc options (TCA_OPTIONS of the qdisc) */
enum {
	TCA_DCB_UNSPEC,
	TCA_DCB_RATE64,		/* u64, bytes per second; 0 = not shaped */
	TCA_DCB_OVERHEAD,	/* u32, bytes added to each packet's length */
	TCA_DCB_BURST,		/* u32, bytes of catch-up credit; 0 = auto */
	TCA_DCB_LIMIT,		/* u32, port limit in bytes (not applied to
				 * packets lossless on their ingress port
				 * in a pool with a size)
				 */
	TCA_DCB_CLASSIFY,	/* u8, enum tc_dcb_classify */
	TCA_DCB_DSCP_MAP,	/* u8[TC_DCB_NUM_DSCP], band of each DSCP */
	TCA_DCB_RESERVED,	/* not used; refused */
	TCA_DCB_BANDS,		/* nest of TCA_DCB_BAND */
	TCA_DCB_PAD,
	TCA_DCB_POOL,		/* u32, shared buffer pool id in the netns */
	TCA_DCB_BUFFER,		/* u32, pool size in bytes; 0 = unlimited */
	TCA_DCB_PFC,		/* nest of TCA_DCB_PFC_*, replaced as a whole */
	TCA_DCB_NONECT,		/* u8, enum tc_dcb_nonect, bands' default */
	TCA_DCB_ECN,		/* nest of TCA_DCB_ECN_*, default of every band */
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
	TCA_DCB_BAND_RESERVED,	/* not used; refused */
	TCA_DCB_BAND_ECN_DEFAULT, /* flag: drop the override */
	TCA_DCB_BAND_NONECT,	/* u8, enum tc_dcb_nonect; AUTO = port's */
	TCA_DCB_BAND_ECN,	/* nest of TCA_DCB_ECN_*, overrides the default */
	__TCA_DCB_BAND_MAX
};
#define TCA_DCB_BAND_MAX (__TCA_DCB_BAND_MAX - 1)

/*
 * PFC of this port (802.1Qbb).  Every packet queued on any sch_dcb of the
 * pool is charged to (its ingress port = skb->skb_iif, band); a port is a
 * sch_dcb root qdisc of the pool, and this nest configures it as an
 * ingress port.  When the bytes charged to (port, band) of a band in
 * prio_mask exceed XOFF, a PAUSE frame goes out of this port's device;
 * later packets go to the (port, band) headroom; beyond it they are
 * queued in the shared part of the pool while it has room or dropped
 * (enum tc_dcb_overflow); below XON a RESUME (quanta 0) goes out.
 * XOFF is static (xoff) or, when beta is set, the DCQCN paper's dynamic
 * threshold  beta * (B - R - s) / 8  with B the pool size, R the headroom
 * reserved by all ports of the pool and s the bytes queued in the pool.
 *
 * From each PAUSE (not its refreshes) until the band resumes, every byte
 * that still arrives for (port, band), queued or dropped, is counted: the
 * largest such sum is pause_inflight_peak, the longest time from a PAUSE
 * to the last of those arrivals pause_react_us.  The headroom must hold
 * pause_inflight_peak; an overflow is counted (in_borrowed or in_drops)
 * and logged with the headroom and delay that would have held what was
 * measured.
 */
enum {
	TCA_DCB_PFC_UNSPEC,
	TCA_DCB_PFC_PRIO_MASK,	/* u8, bit N: band N is lossless; 0 = off */
	TCA_DCB_PFC_XOFF,	/* u32, bytes (static threshold) */
	TCA_DCB_PFC_XON,	/* u32, bytes; 0 = XOFF - 2 MTU (static) */
	TCA_DCB_PFC_BETA,	/* u32, dynamic threshold factor; 0 = static */
	TCA_DCB_PFC_HEADROOM,	/* u32, bytes per (port, band); 0 = auto */
	TCA_DCB_PFC_QUANTA,	/* u16, PAUSE time, 512 bit times; 0 = 0xffff */
	TCA_DCB_PFC_DELAY,	/* u32, us: PAUSE response time for headroom */
	TCA_DCB_PFC_OVERFLOW,	/* u8, enum tc_dcb_overflow */
	__TCA_DCB_PFC_MAX
};
#define TCA_DCB_PFC_MAX (__TCA_DCB_PFC_MAX - 1)

#define TC_DCB_PFC_QUANTA_DEFAULT	0xffff

/*
 * A packet that arrives at a paused (port, band) whose headroom is full.
 * SHARED: it is queued in the shared part of the pool (what lossy traffic
 * uses) while that has room, counted in in_borrowed, and dropped (in_drops)
 * only when it is full.  No other (port, band) loses headroom to it.  In an
 * emulated fabric a stalled CPU can deliver at once what a wire would have
 * carried over tens of milliseconds; SHARED keeps the band lossless through
 * that while the buffer lasts.  DROP: dropped at once, as by a switch ASIC
 * without a shared headroom pool.
 */
enum tc_dcb_overflow {
	TC_DCB_OVERFLOW_SHARED,		/* default */
	TC_DCB_OVERFLOW_DROP,
	__TC_DCB_OVERFLOW_MAX,
};
/*
 * Default PFC delay: 5 ms.  In a guest whose namespaces share one vCPU,
 * packets a peer has already sent can wait in the receive backlog until
 * that CPU gets to them, up to about a scheduler tick (4 ms at HZ=250);
 * they arrive after the PAUSE.  Measured in virtual time, the delay whose
 * auto headroom 2 MTU + rate * delay would have held every arrival after
 * a PAUSE was 0.8 ms (4:1 RDMA incast, 100 Mbit/s) to 3.8 ms (two UDP
 * hosts at 40 Mbit/s).  Real NICs need far less: set delay to the cable
 * and NIC response time; a guest in real time, whose vCPUs stall, more.
 */
#define TC_DCB_PFC_DELAY_DEFAULT	5000	/* us */

/*
 * Statistics.  Each structure below grows only at its end, keeps a size
 * that is a multiple of 8 bytes, and travels with its size: a reader
 * takes min(the size it knows, the size it got) and leaves the rest of
 * its copy 0 (include/dcb_xstats.h).  So a reader built before a counter
 * was appended reads a newer module, and a newer reader an older one.
 *
 * The TCA_STATS_APP of the qdisc (tc -s qdisc show) and of each class
 * (tc -s class show; band N is class MAJ:N+1) is struct tc_dcb_xstats,
 * a header giving the size of each block, then the blocks, each right
 * after the previous one:
 *   struct tc_dcb_port_stats	port_size bytes
 *   struct tc_dcb_stats	stats_size bytes: the band's counters, or
 *				the port's totals (sums over the bands,
 *				maxima for peaks and thresholds)
 *   struct tc_dcb_pool_stats	pool_size bytes
 * A class sends no port and no pool block (their sizes are 0).  A new
 * block gets its size appended to the header and follows the last
 * block.  The bands are not repeated in the qdisc's statistics: its
 * message must fit in the page-sized buffers of notifications and of
 * first dumps.
 *
 * Userspace lists the members of struct tc_dcb_stats with
 * DCB_STATS_FIELDS (include/dcb_stats_fields.h): a new member goes at
 * the end of both.
 */
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
	__u64	drops_headroom;	/* dropped here: (in port, band) headroom full */
	__u64	pause_tx;	/* PAUSEs for this band sent (and refreshes) */
	__u64	resume_tx;	/* RESUME (quanta 0) for this band sent */
	__u64	pause_rx;	/* PAUSE received for this band */
	__u64	resume_rx;	/* RESUME received for this band */
	__u64	paused_us;	/* time this band was held by the peer */
	__u64	in_bytes;	/* ingress counter: bytes in the pool */
	__u64	in_peak;	/* highest in_bytes */
	__u64	in_headroom;	/* of in_bytes, bytes in the headroom */
	__u64	in_drops;	/* packets from here dropped over headroom */
	__u64	xoff;		/* XOFF in force (dynamic: current), bytes */
	__u64	np_unmarked;	/* NP-ECN: paused packets let go unmarked */
	__u64	nonect_passed;	/* non-ECT packets selected, queued */
	__u64	pause_inflight_peak; /* ingress: bytes after a PAUSE, max */
	__u64	pause_react_us;	/* ingress: PAUSE to last such arrival, max */
	__u64	shaper_lag_us;	/* port: line time lost while backlogged */
	__u64	in_borrowed;	/* packets from here beyond the headroom,
				 * queued in the shared part of the pool
				 */
	__u64	pause_lapses;	/* PAUSEs received for this band after the
				 * peer's previous one had expired: the
				 * refresh came too late
				 */
};

/* The shared buffer pool this port belongs to. */
struct tc_dcb_pool_stats {
	__u32	id;
	__u32	ports;		/* sch_dcb qdiscs in the pool */
	__u64	size;		/* bytes, 0 = unlimited */
	__u64	reserved;	/* headroom reserved by all ports (R) */
	__u64	used;		/* bytes queued in the pool */
	__u64	peak;		/* highest used */
	__u64	headroom_used;	/* of used, bytes in headrooms; the
				 * rest is the shared occupancy (s)
				 */
	__u64	drops_full;	/* packets dropped: shared part full */
};

/* The port as a whole, beside its totals. */
struct tc_dcb_port_stats {
	__u64	rate;		/* bytes/s in force */
	__u64	pfc_malformed;	/* bad PAUSE frames ignored */
};

/*
 * The header of the qdisc's TCA_STATS_APP.  version and nbands keep the
 * places they had before the blocks had sizes, so a reader of that
 * layout refuses this one; appending to a block or adding a block
 * changes sizes, never the version.  The header grows by 8 bytes at a
 * time.
 */
struct tc_dcb_xstats {
	__u32	version;	/* TC_DCB_XSTATS_VERSION */
	__u32	nbands;		/* TC_DCB_NUM_BANDS */
	__u32	size;		/* bytes of this header */
	__u32	port_size;	/* bytes of struct tc_dcb_port_stats sent */
	__u32	stats_size;	/* bytes of struct tc_dcb_stats sent */
	__u32	pool_size;	/* bytes of struct tc_dcb_pool_stats sent */
};
#define TC_DCB_XSTATS_VERSION	8

#endif /* _UAPI_PKT_SCHED_DCB_H */
