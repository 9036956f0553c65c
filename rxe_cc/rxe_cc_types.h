/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxe_cc: per-device and per-QP state of the congestion-control engine,
 * embedded in struct rxe_dev and struct rxe_qp by our patch series.
 */
#ifndef RXE_CC_TYPES_H
#define RXE_CC_TYPES_H

#include <linux/types.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/atomic.h>

struct rxe_cc_ops;
struct rxe_cc_sysfs;
struct rxe_cc_params;

/*
 * An outgoing request packet, offered to ops->pkt_prep before its headers
 * are finished.  The algorithm may change ect and ackreq.
 */
struct rxe_cc_pkt {
	u32		psn;
	u32		payload;	/* bytes of payload */
	u32		npsn;		/* PSNs taken: 1, or a READ's responses */
	bool		first;		/* first packet of a message */
	bool		last;		/* last packet of a message */
	bool		retry;		/* go-back-N retransmission */
	bool		ect;		/* in: engine default; out: ECT(0)? */
	bool		ackreq;		/* in: rxe's choice; out: AckReq bit */
};

/*
 * Per QP.  @lock serialises the algorithm's callbacks and guards the
 * fields marked (L); the requester (one task per QP) owns noack_ns and
 * undo.  The pacer is shared by the requester and the responder (its
 * RDMA READ responses), which run in tasks of their own.
 */
struct rxe_cc_qp {
	const struct rxe_cc_ops	*ops;		/* NULL: algorithm "none" */
	void			*priv;		/* ops->priv_size bytes */
	spinlock_t		lock;		/* BH: every ops callback */
	struct hrtimer		pacer;		/* re-schedules the requester */
	struct hrtimer		timer;		/* ops->on_timer (soft) */
	struct hrtimer		np_timer;	/* NP: CNP at the window's end */
	u64			timer_ns;	/* (L) its expiry, 0: none */
	u64			next_send_ns;	/* (L) pacer: earliest next packet */
	bool			behind;		/* (L) pacer: catching up a late timer */
	u32			pace_kbps;	/* (L) pacer: next_send_ns's rate */
	u32			recip_kbps;	/* (L) pacer: recip's rate */
	u64			recip;		/* (L) ns per byte, 32.32 */
	bool			held;		/* (L) pacer: held since last packet */
	u64			held_lag_ns;	/* (L) how late it was when held */
	unsigned long		pace_wait;	/* RXE_CC_PACE_*: tasks to re-run */
	bool			resp_unpaced;	/* (L) destroy began: responder unpaced */
	u32			rate_kbps;	/* algorithm's rate, 0: none */
	u32			limit_kbps;	/* IB_QP_RATE_LIMIT, 0: none */
	u32			cwnd;		/* packets in flight, 0: stock */
	u32			port_kbps;	/* port rate at QP creation */
	u32			acked_psn;	/* (L) RP: oldest PSN not acked */
	u32			snd_max;	/* (L) RP: PSN after highest sent */
	u64			noack_ns;	/* RP: pacing time since AckReq */
	bool			acked_valid;	/* (L) acked_psn, snd_max set */
	bool			ce_unacked;	/* (L) NP: CE executed since last ACK */
	bool			cnp_pending;	/* (L) send cnp_rsvd on unlock */
	u8			cnp_rsvd[16];	/* (L) RXE_CC_CNP_RSVD_BYTES */
	u64			last_cnp_ns;	/* (L) NP: last CNP for this QP */
	bool			np_ce_pending;	/* (L) NP: CE inside the window */
	bool			initialized;
	bool			stopped;	/* (L) destroy: no timer re-arms */
	/* RP: the last packet built, until sent (rxe_cc_req_unsent) */
	struct {
		bool		valid;
		bool		prepped;	/* ops->pkt_prep saw it */
		bool		acked_valid;
		u32		snd_max;
		u64		noack_ns;
		struct rxe_cc_pkt pkt;
	} undo;
};

/* Per device: knobs under /sys/class/infiniband/<dev>/cc/. */
struct rxe_cc_dev {
	struct mutex		lock;		/* algo selection, sysfs dirs */
	const struct rxe_cc_ops	*ops;		/* new QPs get this algorithm */
	void			*params;	/* ops->params_size bytes */
	struct rxe_cc_params	*cur;		/* ops' knobs, holds params */
	struct list_head	algo_params;	/* every rxe_cc_params */
	struct rxe_cc_sysfs	*sysfs;
	bool			dead;		/* being deleted: no new algo */
	atomic_t		nqps;		/* QPs using ops */
	u32			max_rate_mbps;	/* 0: unlimited (port speed) */
	u32			port_kbps;	/* netdev speed (RTNL to write) */
	u32			pacer_slack_us;	/* credit kept across idle time */
	u32			pacer_catchup_us; /* debt a late QP makes up */
	u32			min_time_between_cnps;	/* us */
	u32			base_rtt_us;	/* the defaults' RTT */
	u32			line_kbps;	/* the defaults' line rate */
	u8			line_src;	/* where that came from */
	bool			cnp_set;	/* N written, not derived */
	u8			roce_dscp;	/* when the traffic class has none */
	u8			cnp_dscp;
	u8			cnp_802p_prio;
	u8			ecn;		/* ECT(0) on data with an algo */
	u8			paced_ack;	/* paced QPs acked in time */
	u8			np_cnp_window_end; /* NP: DCQCN paper's rule */
};

#endif /* RXE_CC_TYPES_H */
