/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb internals shared by the qdisc (dcb_qdisc.c) and the shared
 * buffer / PFC machinery (dcb_pfc.c).
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_H
#define _SCH_DCB_H

#include <linux/types.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>

#include "dcb_compat.h"
#include "uapi/pkt_sched_dcb.h"

struct dcb_pool;
struct dcb_port;

/* PAUSE quanta of an unshaped port are timed at 10 Gb/s (bytes/s). */
#define DCB_UNSHAPED_RATE	(10000000000ULL / 8)

/* PFC settings of one port as configured (0 = default where allowed). */
struct dcb_pfc_cfg {
	u8	mask;		/* lossless bands; 0 = PFC off */
	u16	quanta;
	u32	xoff;
	u32	xon;
	u32	beta;		/* 0 = static XOFF */
	u32	headroom;
	u32	delay_us;
	u8	overflow;	/* enum tc_dcb_overflow */
};

/*
 * What a queued packet was charged to, and the pause it waited through
 * (NP-ECN); lives in qdisc_skb_cb()->data.
 */
struct dcb_skb_cb {
	struct dcb_port	*port;		/* ingress port, or NULL */
	u8		band;
	u32		pause_seq;	/* band's pause_seq at enqueue, one
					 * less if the band was paused then
					 */
};

static inline struct dcb_skb_cb *dcb_cb(struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct dcb_skb_cb));
	return (struct dcb_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* Outcome of the admission of a packet (dcb_pool_admit()). */
enum dcb_admit {
	DCB_ADMIT_OK,		/* charged to the pool */
	DCB_ADMIT_WRED,		/* non-ECT, selected, not lossless: drop */
	DCB_ADMIT_LIMIT,	/* beyond a limit and not lossless: drop */
	DCB_ADMIT_HEADROOM,	/* ingress (port, band) beyond its headroom */
	DCB_ADMIT_FULL,		/* shared part of the pool full */
};

/*
 * What the egress qdisc asks of the admission, which alone knows whether
 * the packet is lossless on its ingress port (PFC on for the band there,
 * the pool of finite size for the limits).
 */
#define DCB_ADMIT_F_WRED	BIT(0)	/* drop unless lossless at ingress */
#define DCB_ADMIT_F_LIMIT	BIT(1)	/* over a limit: drop unless lossless
					 * at ingress in a sized pool
					 */

/* Per-port PFC figures for a statistics dump. */
struct dcb_port_stats {
	u64	pause_tx;
	u64	resume_tx;
	u64	in_bytes;
	u64	in_peak;
	u64	in_headroom;
	u64	in_drops;
	u64	in_borrowed;
	u64	xoff;
	u64	inflight_peak;
	u64	react_us;
};

/* A pool size request: bytes (0 = unlimited), or keep the pool's size. */
#define DCB_BUFFER_KEEP		(-1LL)

/* Pool membership, configuration (RTNL / process context). */
int dcb_pool_join(struct Qdisc *sch, u32 id, struct dcb_pool **poolp,
		  struct dcb_port **portp, struct netlink_ext_ack *extack);
int dcb_pool_activate(struct dcb_pool *pool, struct dcb_port *port);
void dcb_pool_leave(struct dcb_pool *pool, struct dcb_port *port);
int dcb_pool_check(struct dcb_pool *pool, struct dcb_port *port,
		   const struct dcb_pfc_cfg *pfc, s64 buffer, u64 rate,
		   unsigned int mtu, struct netlink_ext_ack *extack);
void dcb_pool_apply(struct dcb_pool *pool, struct dcb_port *port,
		    const struct dcb_pfc_cfg *pfc, s64 buffer, u64 rate,
		    unsigned int mtu);
u64 dcb_pool_size(const struct dcb_pool *pool);
void dcb_port_pfc(const struct dcb_port *port, struct dcb_pfc_cfg *pfc);

/* Datapath (under the egress qdisc's lock). */
enum dcb_admit dcb_pool_admit(struct dcb_pool *pool, struct sk_buff *skb,
			      unsigned int band, unsigned int len,
			      unsigned int flags);
void dcb_pool_credit(struct dcb_pool *pool, struct sk_buff *skb,
		     unsigned int len);

/* Statistics. */
void dcb_pool_stats(struct dcb_pool *pool, struct tc_dcb_pool_stats *ps);
void dcb_port_stats(struct dcb_pool *pool, struct dcb_port *port,
		    unsigned int band, struct dcb_port_stats *st);

/* Receiving PAUSE frames: implemented by the qdisc. */
void dcb_pause_received(struct Qdisc *sch, u8 pause_mask, u8 resume_mask,
			const u16 *quanta);
void dcb_pause_malformed(struct Qdisc *sch);
struct Qdisc *dcb_root_qdisc(struct net_device *dev);
u64 dcb_root_rate(struct net_device *dev);
u64 dcb_peer_pause_rate(struct net_device *dev);

int dcb_pfc_init(void);
void dcb_pfc_exit(void);

#endif /* _SCH_DCB_H */
