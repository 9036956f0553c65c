// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dcb: the PFC frames that the ports of a pool send.
 *
 * The pool (dcb_pool.c) decides when a (port, band) pauses or resumes its
 * peer and schedules the port's tasklet; the tasklet sends one 802.1Qbb
 * frame for the bands that changed and those still paused, straight to
 * the driver, and its hrtimer refreshes the pause at half its lifetime as
 * the peer times it, or retries a frame that could not leave.
 *
 * Copyright (c) 2026 DCB lab
 */

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#include "dcb_pool.h"
#include "dcb_frame.h"
#include "dcb_trace.h"
#include "dcb_pfc.h"

#define DCB_PFC_FRAME_LEN	60	/* minimum frame, without FCS */
#define DCB_RETRY_NS		(100 * NSEC_PER_USEC)
#define DCB_RETRY_FAST		100	/* then every DCB_RETRY_SLOW_NS */
#define DCB_RETRY_SLOW_NS	(100 * NSEC_PER_MSEC)
#define DCB_REFRESH_MIN_NS	(10 * NSEC_PER_USEC)

/*
 * The rate (bytes/s) at which the link peer of a device times the quanta
 * of our PAUSEs: the qdisc knows it (the peer may be a sch_dcb), and
 * gives this at module load (dcb_pool_init()), so the pool calls nothing
 * of the qdisc.
 */
u64 (*dcb_peer_rate)(struct net_device *dev) __read_mostly;

/* ------------------------------------------------------------------ */
/* Sending PFC frames                                                  */

int dcb_send_pfc(struct net_device *dev, u8 pause, u8 resume,
		 u16 quanta)
{
	struct dcb_pfc_hdr *pfc;
	struct sk_buff *skb;
	struct ethhdr *eth;
	unsigned int i;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + DCB_PFC_FRAME_LEN, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_reset_mac_header(skb);
	eth = skb_put_zero(skb, DCB_PFC_FRAME_LEN);
	ether_addr_copy(eth->h_dest, dcb_pfc_dst);
	ether_addr_copy(eth->h_source, dev->dev_addr);
	eth->h_proto = htons(ETH_P_PAUSE);
	pfc = (struct dcb_pfc_hdr *)(eth + 1);
	pfc->opcode = htons(DCB_PFC_OPCODE);
	pfc->vector = htons(pause | resume);
	for (i = 0; i < TC_DCB_NUM_BANDS; i++)
		if (pause & BIT(i))
			pfc->time[i] = htons(quanta);
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = htons(ETH_P_PAUSE);
	skb->priority = TC_PRIO_CONTROL;
	skb->dev = dev;

	trace_dcb_pfc_tx(dev, pause, resume, quanta);
	return dev_direct_xmit(skb, 0) == NETDEV_TX_OK ? 0 : -ENOBUFS;
}

/*
 * Half the lifetime of our PAUSE as the peer times it; pool->lock held.
 * The peer counts the quanta at its own rate, so a peer faster than this
 * port lets the pause lapse sooner than this port's rate says: time the
 * refresh with the faster of the two.  dcb_peer_rate() knows the peer's
 * rate when it is our sch_dcb across a veth, and assumes an unshaped peer
 * when it cannot know.
 */
static u64 dcb_refresh_ns(const struct dcb_port *p)
{
	u64 rate = p->rate ?: DCB_UNSHAPED_RATE;
	u64 lifetime;

	rate = max(rate, dcb_peer_rate(p->dev));
	/* quanta * 512 bit times = quanta * 64 byte times */
	lifetime = div64_u64((u64)p->pfc.quanta * 64 * NSEC_PER_SEC, rate);
	return max_t(u64, lifetime / 2, DCB_REFRESH_MIN_NS);
}

/*
 * Announce the paused bands (new ones and refreshes) and the bands that
 * have just resumed, in one frame; re-arm the refresh.
 */
void dcb_port_tx(struct tasklet_struct *t)
{
	struct dcb_port *p = from_tasklet(p, t, tx);
	struct dcb_pool *pool = p->pool;
	u8 pause = 0, resume, changed;
	unsigned int i;
	u16 quanta;
	u64 delay;
	int err;

	spin_lock_bh(&pool->lock);
	if (p->dead) {
		spin_unlock_bh(&pool->lock);
		return;
	}
	changed = p->changed;
	p->changed = 0;
	for (i = 0; i < TC_DCB_NUM_BANDS; i++)
		if (p->band[i].paused)
			pause |= BIT(i);
	resume = changed & ~pause;
	quanta = p->pfc.quanta;
	spin_unlock_bh(&pool->lock);

	if (!pause && !resume)
		return;

	rcu_read_lock();
	err = dcb_send_pfc(p->dev, pause, resume, quanta);
	rcu_read_unlock();

	spin_lock_bh(&pool->lock);
	if (err) {
		p->changed |= changed;
		p->failures++;
	} else {
		for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
			p->band[i].pause_tx += !!(pause & BIT(i));
			p->band[i].resume_tx += !!(resume & BIT(i));
		}
		p->failures = 0;
	}
	if (p->dead || !(pause || p->changed))
		goto unlock;
	if (!err) {
		delay = dcb_refresh_ns(p);
	} else if (!netif_running(p->dev) || !netif_carrier_ok(p->dev)) {
		/* nothing can leave: dcb_netdev_event() restarts us when
		 * the link comes back, or the next state change does
		 */
		goto unlock;
	} else if (p->failures < DCB_RETRY_FAST) {
		delay = DCB_RETRY_NS;
	} else {
		delay = max_t(u64, dcb_refresh_ns(p), DCB_RETRY_SLOW_NS);
	}
	hrtimer_start(&p->refresh, ns_to_ktime(delay), HRTIMER_MODE_REL_SOFT);
unlock:
	spin_unlock_bh(&pool->lock);
}

enum hrtimer_restart dcb_port_refresh(struct hrtimer *timer)
{
	struct dcb_port *p = container_of(timer, struct dcb_port, refresh);

	tasklet_schedule(&p->tx);
	return HRTIMER_NORESTART;
}
