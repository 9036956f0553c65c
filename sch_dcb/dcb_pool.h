/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: the switch's shared buffer pool and PFC (dcb_pool.c) as the
 * qdisc (dcb_qdisc.c) uses it.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_POOL_H
#define _SCH_DCB_POOL_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>

#include "dcb_compat.h"
#include "uapi/pkt_sched_dcb.h"

struct dcb_net;
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
 * The drops the egress qdisc asks of the admission (dcb_pool_admit()),
 * which alone knows whether the packet is lossless on its ingress port
 * (PFC on for the band there, the pool of finite size for the limits).
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
int dcb_pool_join(struct net_device *dev, bool root, u32 id,
		  struct dcb_pool **poolp, struct dcb_port **portp,
		  struct netlink_ext_ack *extack);
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

/*
 * A switch's shared buffer (dcb_pool.c); its datapath part is here so that
 * the qdisc's enqueue and dequeue inline it.
 */
struct dcb_pool {
	struct list_head	node;		/* in dcb_net->pools */
	struct dcb_net		*dn;
	u32			id;
	refcount_t		ref;		/* one per qdisc */
	unsigned int		nports;
	spinlock_t		lock;
	u64			size;		/* 0 = unlimited */
	u64			reserved;	/* headroom of all ports */
	s64			shared;		/* size - reserved (S64_MAX if
						 * unlimited): for the charge
						 */
	atomic64_t		used;		/* bytes queued, headroom too */
	atomic64_t		peak;
	u64			headroom_used;
	u64			drops_full;
	struct xarray		ports;		/* ifindex -> dcb_port */
	struct rcu_head		rcu;
};

/* Datapath (under the egress qdisc's lock). */
enum dcb_admit dcb_pool_full(struct dcb_pool *pool);
enum dcb_admit dcb_pool_admit_rx(struct dcb_pool *pool, struct sk_buff *skb,
				 unsigned int band, unsigned int len,
				 unsigned int flags);
void dcb_pool_credit_port(struct dcb_pool *pool, const struct dcb_skb_cb *cb,
			  unsigned int len);

/* Raise the pool's peak to @used, racing chargers on other CPUs. */
static inline void dcb_pool_peak(struct dcb_pool *pool, s64 used)
{
	s64 peak = atomic64_read(&pool->peak);

	do {
		if (likely(used <= peak))
			return;
	} while (!atomic64_try_cmpxchg(&pool->peak, &peak, used));
}

/*
 * Charge @len bytes to the pool, which takes them into its shared part
 * (the headroom of a paused band is the caller's to count): true, with
 * the pool's bytes now in *@usedp, or false, and nothing charged, if that
 * part is full.  The bytes are added before the test, so of two packets
 * racing for the last room, on two CPUs, with or without pool->lock, one
 * at least sees the other's bytes: the shared part never exceeds its
 * size.  A racer may see bytes that are about to leave the shared part
 * (another's headroom packet between its charge and its headroom count,
 * or a refused packet between its charge and its undoing) and refuse a
 * packet that would have fit: only at the last MTU or so of a full pool,
 * and never on one CPU.
 */
static __always_inline bool dcb_pool_charge(struct dcb_pool *pool,
					     unsigned int len, s64 *usedp)
{
	s64 used = atomic64_add_return(len, &pool->used);

	*usedp = used;
	if (likely(used - (s64)READ_ONCE(pool->headroom_used) <=
		   READ_ONCE(pool->shared)))
		return true;
	atomic64_sub(len, &pool->used);
	return false;
}

/* The egress qdisc's drop (@flags, DCB_ADMIT_F_*) of a lossy packet. */
static inline enum dcb_admit dcb_admit_drop(unsigned int flags)
{
	return flags & DCB_ADMIT_F_WRED ? DCB_ADMIT_WRED : DCB_ADMIT_LIMIT;
}

/*
 * Charge @len bytes of a packet that no port of the pool received to the
 * pool's shared part, as @cb records: false, and nothing charged, if
 * that part is full.
 */
static __always_inline bool dcb_pool_take(struct dcb_pool *pool,
					  struct dcb_skb_cb *cb,
					  unsigned int len)
{
	s64 used;

	if (unlikely(!dcb_pool_charge(pool, len, &used)))
		return false;
	dcb_pool_peak(pool, used);
	cb->port = NULL;
	return true;
}

/*
 * dcb_pool_admit() of a packet that no port of the pool received: lossy,
 * charged to no port, no lock.
 */
static __always_inline enum dcb_admit
dcb_pool_admit_lossy(struct dcb_pool *pool, struct dcb_skb_cb *cb,
		     unsigned int len, unsigned int flags)
{
	if (unlikely(flags))
		return dcb_admit_drop(flags);
	if (unlikely(!dcb_pool_take(pool, cb, len)))
		return dcb_pool_full(pool);
	return DCB_ADMIT_OK;
}

/**
 * dcb_pool_admit - the admission rule of the switch
 * @pool: the egress qdisc's pool
 * @skb: the packet, whose control block records what it is charged to
 * @band: its band on the egress port
 * @len: its length in bytes
 * @flags: the drops the egress qdisc asks for (DCB_ADMIT_F_*)
 *
 * Whether @skb may be queued on @band of an egress port, and its charge
 * to the pool and to its ingress (port, band), decided here with one port
 * lookup and at most one lock, under the egress qdisc's lock.
 *
 * The packet is lossless when PFC is on for @band on its ingress port,
 * the pool's port whose device received it (skb->skb_iif), which PAUSEs
 * the sender for it.  Any other packet is lossy: one in a band without
 * PFC there, one whose port's qdisc is going away, and one that no port
 * of the pool received (sent by the switch itself, or received by a
 * device that is not a port), which is charged to no port and takes no
 * lock (dcb_pool_admit_lossy(); dcb_pool_admit_rx() for the rest).  The
 * qdisc's short enqueue, for such a packet when it asks for no drop,
 * charges it with dcb_pool_take() alone: the rule has nothing else to
 * decide for it.
 *
 * 1. WRED (DCB_ADMIT_F_WRED, a selected non-ECT packet): drops a lossy
 *    packet; a lossless one passes.
 * 2. The limits of the egress port and band (DCB_ADMIT_F_LIMIT): drop a
 *    lossy packet, and a lossless one in a pool without a size; in a
 *    sized pool 3. bounds a lossless packet instead, as a shared-buffer
 *    switch sets no egress limit on its lossless queues.
 * 3. The pool: a lossy packet takes the pool's shared part and is dropped
 *    when that is full.  A lossless packet pauses its band on the ingress
 *    port when the band's bytes would exceed XOFF or the shared part is
 *    full; while the band is paused its packets fill the band's headroom,
 *    beyond it the shared part (overflow queue) or nothing (overflow
 *    drop, or the shared part full).  That drop, counted in the band's
 *    in_drops and warned of, is the only loss of a lossless packet in a
 *    sized pool.
 *
 * Return: DCB_ADMIT_OK with the packet charged, else why it is refused,
 * with nothing charged.
 */
static __always_inline enum dcb_admit dcb_pool_admit(struct dcb_pool *pool,
						     struct sk_buff *skb,
						     unsigned int band,
						     unsigned int len,
						     unsigned int flags)
{
	if (skb->skb_iif)
		return dcb_pool_admit_rx(pool, skb, band, len, flags);
	return dcb_pool_admit_lossy(pool, dcb_cb(skb), len, flags);
}

/* Return the charge of @len bytes of a packet charged to no port. */
static __always_inline void dcb_pool_credit_lossy(struct dcb_pool *pool,
						  unsigned int len)
{
	atomic64_sub(len, &pool->used);
}

/* Return the charge of @skb, @len bytes, leaving the egress qdisc. */
static inline void dcb_pool_credit(struct dcb_pool *pool,
				   struct sk_buff *skb, unsigned int len)
{
	const struct dcb_skb_cb *cb = dcb_cb(skb);

	if (cb->port)
		dcb_pool_credit_port(pool, cb, len);
	else
		dcb_pool_credit_lossy(pool, len);
}

/* Statistics. */
void dcb_pool_stats(struct dcb_pool *pool, struct tc_dcb_pool_stats *ps);
void dcb_port_stats(struct dcb_pool *pool, struct dcb_port *port,
		    unsigned int band, struct dcb_port_stats *st);

int dcb_pool_init(u64 (*peer_pause_rate)(struct net_device *dev));
void dcb_pool_exit(void);

#endif /* _SCH_DCB_POOL_H */
