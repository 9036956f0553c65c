// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dcb: a data-center switch port as a queueing discipline.
 *
 * Eight strict-priority bands (802.1p 0..7, band 7 first), each a byte
 * FIFO with its own ECN marking curve (RED with an independent coin per
 * packet on the instantaneous queue, or DCTCP's step), WRED drops of
 * non-ECT packets selected by the curve, byte limits per band and per
 * port, and line-rate shaping of the whole port.  With PCN's NP-ECN a
 * band marks at dequeue instead, telling real congestion from PAUSE
 * backlog.
 *
 * The ports of a network namespace share a buffer pool and emulate PFC
 * (dcb_pool.c).  PFC and PAUSE frames received on a device whose root
 * qdisc is sch_dcb pause and resume its bands, here, beside the band
 * state they change; everything else is counted or ignored.
 *
 * Classification: DSCP through a 64-entry map (default DSCP >> 3), or
 * skb->priority.  Band N is class <handle>:(N+1).
 *
 * Configurations come parsed and checked from dcb_nl.c (netlink), which
 * also dumps them; dcb_config.c commits them and holds the class
 * operations.
 *
 * Copyright (c) 2026 DCB lab
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/random.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/etherdevice.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>
#include <net/dsfield.h>

#include "dcb.h"
#include "dcb_pool.h"
#include "dcb_frame.h"
#include "dcb_sched.h"
#include "dcb_nl.h"
#include "dcb_config.h"

#define CREATE_TRACE_POINTS
#include "dcb_trace.h"

/* ------------------------------------------------------------------ */
/* Datapath                                                           */

/* &q->band[@band], one load rather than a multiply by the band's size */
static __always_inline struct dcb_band *dcb_band(struct dcb_sched *q,
						 unsigned int band)
{
	return q->bandp[band];
}

static unsigned int dcb_classify_vlan(const struct dcb_sched *q,
				      struct sk_buff *skb);

/* How dcb_classify_proto() classifies */
enum dcb_classify_how {
	DCB_CLASSIFY_OUTER,	/* the packet's protocol */
	DCB_CLASSIFY_INNER,	/* the protocol under its VLAN tags */
	DCB_CLASSIFY_FAST,	/* as OUTER, but calling nothing: a packet
				 * with VLAN tags, or whose IP header is not
				 * in its linear part, is DCB_CLASS_ANY
				 */
};

/*
 * Whether the network header of @skb has @len bytes in place: as
 * pskb_network_may_pull(), pulling nothing, but for DCB_CLASSIFY_FAST.
 */
static __always_inline bool dcb_network_header(struct sk_buff *skb,
					       unsigned int len,
					       enum dcb_classify_how how,
					       bool *any)
{
	if (how != DCB_CLASSIFY_FAST)
		return pskb_network_may_pull(skb, len);
	*any = skb_network_offset(skb) + len > skb_headlen(skb);
	return !*any;
}

/*
 * Class of @skb (DCB_CLASS_*), whose protocol is @proto (@how): an IP
 * packet's by its DS field (through ds_class[], the DSCP map and the ECN
 * bits in one lookup), or its priority's; anything not IP (ARP, ...) is
 * not ECN-capable and goes by its priority.  IPv4 and IPv6 are tested
 * before the VLAN types.
 */
static __always_inline unsigned int
dcb_classify_proto(const struct dcb_sched *q, struct sk_buff *skb,
		   __be16 proto, enum dcb_classify_how how)
{
	unsigned int class;
	bool any = false;

	switch (proto) {
	case htons(ETH_P_IP):
		if (!dcb_network_header(skb, sizeof(struct iphdr), how, &any))
			goto other;
		class = q->ds_class[ipv4_get_dsfield(ip_hdr(skb))];
		break;
	case htons(ETH_P_IPV6):
		if (!dcb_network_header(skb, sizeof(struct ipv6hdr), how, &any))
			goto other;
		class = q->ds_class[ipv6_get_dsfield(ipv6_hdr(skb))];
		break;
	default:
		if (how == DCB_CLASSIFY_INNER || likely(!eth_type_vlan(proto)))
			goto other;
		if (how == DCB_CLASSIFY_FAST)
			return DCB_CLASS_ANY;
		return dcb_classify_vlan(q, skb);
	}
	if (unlikely(q->cfg.classify == TC_DCB_CLASSIFY_PRIO))
		class |= skb->priority & DCB_CLASS_BAND;
	return class;
other:
	if (any)
		return DCB_CLASS_ANY;
	return skb->priority & DCB_CLASS_BAND;
}

/*
 * Class of a VLAN-tagged packet, by the protocol under its tags (out of
 * line: skb_protocol() reads them into a buffer on the stack, which a
 * protected stack frame would then charge to every packet).
 */
static noinline unsigned int dcb_classify_vlan(const struct dcb_sched *q,
					       struct sk_buff *skb)
{
	return dcb_classify_proto(q, skb, skb_protocol(skb, true),
				  DCB_CLASSIFY_INNER);
}

static unsigned int dcb_classify(const struct dcb_sched *q,
				 struct sk_buff *skb)
{
	return dcb_classify_proto(q, skb, skb->protocol, DCB_CLASSIFY_OUTER);
}

/*
 * Could the curve select a packet arriving at a band holding @qlen
 * bytes?  False where dcb_ecn_select() is false whatever its coin.
 */
static __always_inline bool dcb_ecn_may_select(const struct dcb_ecn *ecn,
					       u32 qlen)
{
	switch (ecn->mode) {
	case TC_DCB_ECN_RED:
		return qlen > ecn->kmin;
	case TC_DCB_ECN_STEP:
		return qlen >= ecn->kmin;
	default:
		return false;
	}
}

/* Should a packet arriving at a band holding @qlen bytes be selected? */
static bool dcb_ecn_select(const struct dcb_ecn *ecn, u32 qlen)
{
	u32 p;

	switch (ecn->mode) {
	case TC_DCB_ECN_RED:
		if (qlen <= ecn->kmin)
			return false;
		if (qlen >= ecn->kmax)
			return true;
		p = div_u64((u64)ecn->pmax * (qlen - ecn->kmin),
			    ecn->kmax - ecn->kmin);
		return get_random_u32() < p;
	case TC_DCB_ECN_STEP:
		return qlen >= ecn->kmin;
	default:
		return false;
	}
}

static void dcb_backlog_add(struct dcb_sched *q, struct dcb_band *b,
			    struct Qdisc *sch, unsigned int len)
{
	b->backlog += len;
	if (b->backlog > b->st.backlog_peak)
		b->st.backlog_peak = b->backlog;
	sch->qstats.backlog += len;
	if (sch->qstats.backlog > q->backlog_peak)
		q->backlog_peak = sch->qstats.backlog;
}

/*
 * The pause sequence number a packet queued in @b now carries (see
 * dcb_np_ecn()): the band's, or one less while the peer pauses the band,
 * so that the pause in force counts as waited through.  The receive path
 * writes a new pause's end time before its number, this reads the number
 * first: a number seen new comes with its pause in force, and a pause
 * not seen yet changes the number later, either way exempting the packet.
 */
static u32 dcb_pause_stamp(const struct dcb_band *b)
{
	u32 seq = READ_ONCE(b->pause_seq);
	u64 until;

	/* pairs with the smp_wmb() of dcb_pause_received() */
	smp_rmb();
	until = READ_ONCE(b->paused_until);
	if (until && until > ktime_get_ns())
		return seq - 1;
	return seq;
}

/* Drop @skb, which the admission refused (@admit), and count it. */
static noinline int dcb_refuse(struct sk_buff *skb, struct Qdisc *sch,
			       struct dcb_band *b, enum dcb_admit admit,
			       struct sk_buff **to_free)
{
	switch (admit) {
	case DCB_ADMIT_WRED:
		b->st.drops_wred++;
		break;
	case DCB_ADMIT_HEADROOM:
		b->st.drops_headroom++;
		break;
	default:		/* DCB_ADMIT_LIMIT, DCB_ADMIT_FULL */
		b->st.drops_tail++;
		break;
	}
	return qdisc_drop(skb, sch, to_free);
}

/* Would @len more bytes exceed the port's or band @b's limit? */
static __always_inline bool dcb_over_limit(struct Qdisc *sch,
					   const struct dcb_band *b,
					   unsigned int len)
{
	const struct dcb_sched *q = qdisc_priv(sch);

	return (u64)sch->qstats.backlog + len > q->cfg.limit ||
	       (b->limit && (u64)b->backlog + len > b->limit);
}

/* Queue @skb, of @len bytes, admitted and charged, on band @band, @b. */
static __always_inline int dcb_queue_tail(struct Qdisc *sch,
					  struct dcb_band *b,
					  unsigned int band,
					  struct sk_buff *skb,
					  unsigned int len)
{
	struct dcb_sched *q = qdisc_priv(sch);

	__qdisc_enqueue_tail(skb, &b->q);
	__set_bit(band, &q->backlogged);
	sch->q.qlen++;
	dcb_backlog_add(q, b, sch, len);
	b->st.enq_packets++;
	b->st.enq_bytes += len;
	return NET_XMIT_SUCCESS;
}

/*
 * Admission of one packet: the marking curve selects it or not; a
 * selected non-ECT packet (WRED) is dropped here if its band says so
 * (nonect drop), passed if its band or the port says so (nonect pass) or
 * if PFC is on for the band on this port, and otherwise dropped unless it
 * is lossless on its ingress port; then the port and band limits.  The
 * drops that only the ingress port can spare a packet go as flags to
 * dcb_pool_admit(), which states the rule and charges the packet; then a
 * selected ECT packet is CE-marked.  So ecn_marked and nonect_passed
 * count queued packets only, and drops_wred counts every non-ECT packet
 * the curve selected and dropped.
 */
static __always_inline int dcb_enqueue_one(struct sk_buff *skb,
					    struct Qdisc *sch,
					    unsigned int band, bool ect,
					    struct sk_buff **to_free)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_band *b = dcb_band(q, band);
	unsigned int len = qdisc_pkt_len(skb);
	bool selected = dcb_ecn_select(&b->ecn, b->backlog);
	unsigned int flags = 0;
	enum dcb_admit admit;

	if (unlikely(selected && !ect)) {
		if (b->nonect == TC_DCB_NONECT_DROP) {
			b->st.drops_wred++;
			return qdisc_drop(skb, sch, to_free);
		}
		if (b->nonect != TC_DCB_NONECT_PASS &&
		    !(q->cfg.pfc.mask & BIT(band)))
			flags |= DCB_ADMIT_F_WRED;
	}
	if (unlikely(dcb_over_limit(sch, b, len)))
		flags |= DCB_ADMIT_F_LIMIT;
	admit = dcb_pool_admit(q->pool, skb, band, len, flags);
	if (unlikely(admit != DCB_ADMIT_OK))
		return dcb_refuse(skb, sch, b, admit, to_free);
	if (unlikely(selected)) {
		if (!ect) {
			b->st.nonect_passed++;
		} else if (INET_ECN_set_ce(skb)) {
			b->st.ecn_marked++;
			trace_dcb_mark(qdisc_dev(sch), band, b->backlog, false);
		}
	}

	dcb_cb(skb)->pause_seq = dcb_pause_stamp(b);
	return dcb_queue_tail(sch, b, band, skb, len);
}

/* Queue the segments of a GSO packet one by one (marking and shaping
 * act per wire packet).
 */
static noinline int dcb_enqueue_gso(struct sk_buff *skb, struct Qdisc *sch,
				    unsigned int band, bool ect,
				    struct sk_buff **to_free)
{
	netdev_features_t features = netif_skb_features(skb);
	unsigned int prev_len = qdisc_pkt_len(skb), len = 0;
	struct dcb_sched *q = qdisc_priv(sch);
	struct sk_buff *segs, *seg, *next;
	int nb = 0;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs)) {
		q->band[band].st.drops_tail++;
		return qdisc_drop(skb, sch, to_free);
	}

	skb_list_walk_safe(segs, seg, next) {
		unsigned int seg_len = seg->len;

		skb_mark_not_on_list(seg);
		qdisc_skb_cb(seg)->pkt_len = seg_len;
		if (dcb_enqueue_one(seg, sch, band, ect, to_free) ==
		    NET_XMIT_SUCCESS) {
			nb++;
			len += seg_len;
		}
	}
	if (!nb) {
		consume_skb(skb);
		return NET_XMIT_DROP;
	}
	/* Our parents saw one packet of prev_len; tell them the truth. */
	qdisc_tree_reduce_backlog(sch, 1 - nb, prev_len - len);
	consume_skb(skb);
	return NET_XMIT_SUCCESS;
}

/* dcb_enqueue() of any packet */
static noinline int dcb_enqueue_any(struct sk_buff *skb, struct Qdisc *sch,
				    struct sk_buff **to_free)
{
	struct dcb_sched *q = qdisc_priv(sch);
	unsigned int class;

	/* An idle port earns no credit: the clock restarts at the first
	 * packet (unless the previous one is still "on the wire").
	 */
	if (q->cfg.rate && !sch->q.qlen) {
		u64 now = ktime_get_ns();

		if (q->t_next < now)
			q->t_next = now;
	}

	class = dcb_classify(q, skb);
	if (unlikely(skb_is_gso(skb)))
		return dcb_enqueue_gso(skb, sch, class & DCB_CLASS_BAND,
				       class & DCB_CLASS_ECT, to_free);
	return dcb_enqueue_one(skb, sch, class & DCB_CLASS_BAND,
			       class & DCB_CLASS_ECT, to_free);
}

/*
 * The enqueue of the common case, which calls nothing but the full path
 * (so gcc saves four registers, not six, and keeps no stack frame): a
 * packet of one segment, without VLAN tags, that no port of the pool
 * received, on a band whose curve cannot select it, within the limits,
 * not paused, and that the pool's shared part takes: the rule of
 * dcb_enqueue_one() and dcb_pool_admit() has nothing to decide for it but
 * the charge.  Anything else, and the first packet of an idle shaped
 * port, goes to dcb_enqueue_any() before anything has changed (a refused
 * charge has undone itself).
 */
static int dcb_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct dcb_sched *q = qdisc_priv(sch);
	unsigned int class, band, len;
	struct dcb_band *b;
	u32 seq;

	/* a switch port's packets were all received: to the full path
	 * before classifying, which dcb_enqueue_any() would do again
	 */
	if (unlikely((q->cfg.rate && !sch->q.qlen) || skb->skb_iif ||
		     skb_is_gso(skb)))
		goto any;
	class = dcb_classify_proto(q, skb, skb->protocol, DCB_CLASSIFY_FAST);
	if (unlikely(class & DCB_CLASS_ANY))
		goto any;
	band = class & DCB_CLASS_BAND;
	b = dcb_band(q, band);
	len = qdisc_pkt_len(skb);
	if (unlikely(dcb_ecn_may_select(&b->ecn, b->backlog) ||
		     dcb_over_limit(sch, b, len)))
		goto any;
	/* dcb_pause_stamp() of a band the peer has not paused */
	seq = READ_ONCE(b->pause_seq);
	/* pairs with the smp_wmb() of dcb_pause_received() */
	smp_rmb();
	if (unlikely(READ_ONCE(b->paused_until)))
		goto any;
	if (unlikely(!dcb_pool_take(q->pool, dcb_cb(skb), len)))
		goto any;
	dcb_cb(skb)->pause_seq = seq;
	return dcb_queue_tail(sch, b, band, skb, len);
any:
	return dcb_enqueue_any(skb, sch, to_free);
}

/*
 * The backlogged band that may send first: strict priority among those
 * the peer has not paused; -1 if the peer pauses all of them, with the
 * watchdog set for the first pause to expire.
 */
static int dcb_head_band(struct dcb_sched *q)
{
	unsigned long todo = q->backlogged;
	u64 until, now = 0, wake = U64_MAX;
	struct dcb_band *b;
	int i;

	/* the backlogged bands only, highest first */
	while (todo) {
		i = __fls(todo);
		todo &= ~BIT(i);
		b = dcb_band(q, i);
		until = READ_ONCE(b->paused_until);
		if (until) {
			if (!now)
				now = ktime_get_ns();
			if (until > now) {
				b->held = true;
				wake = min(wake, until);
				continue;
			}
		}
		if (b->held) {
			/* a pause earns no shaping credit */
			b->held = false;
			q->t_next = max(q->t_next, now ?: ktime_get_ns());
		}
		return i;
	}
	if (wake != U64_MAX)
		qdisc_watchdog_schedule_ns(&q->watchdog, wake);
	return -1;
}

/*
 * Take the head packet @skb of band @band, @b, off the queue, with the
 * queue's accounting; the pool's is the caller's.
 */
static __always_inline void dcb_band_unlink(struct Qdisc *sch,
					    struct dcb_band *b,
					    unsigned int band,
					    struct sk_buff *skb)
{
	struct dcb_sched *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);

	__qdisc_dequeue_head(&b->q);
	if (!b->q.qlen)
		__clear_bit(band, &q->backlogged);
	sch->q.qlen--;
	b->backlog -= len;
	sch->qstats.backlog -= len;
}

/*
 * Take the head packet of band @band, @b, off the queue, with all the
 * accounting.
 */
static __always_inline struct sk_buff *dcb_band_pop(struct Qdisc *sch,
						    struct dcb_band *b,
						    unsigned int band)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct sk_buff *skb = b->q.head;

	if (!skb)
		return NULL;
	dcb_band_unlink(sch, b, band, skb);
	dcb_pool_credit(q->pool, skb, qdisc_pkt_len(skb));
	return skb;
}

/*
 * The byte and packet counters of a departure, the band's (also its
 * deq_packets and deq_bytes, dcb_fill_stats()) and the qdisc's: one
 * packet each, as the enqueue segments GSO packets.
 */
static __always_inline void dcb_bstats_update(struct Qdisc *sch,
					      struct dcb_band *b,
					      unsigned int len)
{
	_bstats_update(&b->bstats, len, 1);
	_bstats_update(&sch->bstats, len, 1);
}

/*
 * NP-ECN (PCN): a packet that waited through a pause leaves unmarked; any
 * other is marked when it leaves the band with more than K (kmin) bytes
 * behind it.  Whether it waited is told by the band's pause sequence
 * number, which the receive path counts up at every pause the peer
 * starts: the packet carries the value it saw at its enqueue (one less if
 * the band was paused then), so it is exempted exactly when a pause was
 * in force at some time while it was queued, whether or not the dequeue
 * looked at the band during the pause (strict priority does not while a
 * higher band is backlogged).
 */
static void dcb_np_ecn(struct Qdisc *sch, unsigned int band,
		       struct sk_buff *skb)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_band *b = &q->band[band];

	if (dcb_cb(skb)->pause_seq != READ_ONCE(b->pause_seq)) {
		b->st.np_unmarked++;
	} else if (b->backlog > b->ecn.kmin && INET_ECN_set_ce(skb)) {
		b->st.ecn_marked++;
		trace_dcb_mark(qdisc_dev(sch), band, b->backlog, true);
	}
}

/* dcb_dequeue() of a port with packets queued, any case */
static noinline struct sk_buff *dcb_dequeue_busy(struct Qdisc *sch)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_band *b;
	struct sk_buff *skb;
	unsigned int len;
	int band;
	u64 now;

	band = dcb_head_band(q);
	if (band < 0)
		return NULL;
	b = dcb_band(q, band);

	if (q->cfg.rate) {
		now = ktime_get_ns();
		if (now < q->t_next) {
			qdisc_watchdog_schedule_ns(&q->watchdog, q->t_next);
			return NULL;
		}
		/* The port is backlogged: a late timer is caught up, up to
		 * burst_ns of line time, so the long-run rate stays exact.
		 * Line time beyond that is lost; count it (shaper_lag_us),
		 * so a rate measured while backlogged can be told from a
		 * dequeue that ran late (timers, a busy CPU, a stopped
		 * device queue).
		 */
		if (now - q->t_next > q->burst_ns) {
			if (q->t_next)
				q->lag_ns += now - q->t_next - q->burst_ns;
			q->t_next = now - q->burst_ns;
		}
	}

	skb = dcb_band_pop(sch, b, band);
	len = qdisc_pkt_len(skb);
	if (unlikely(b->ecn.mode == TC_DCB_ECN_NP_ECN))
		dcb_np_ecn(sch, band, skb);
	dcb_bstats_update(sch, b, len);

	if (q->cfg.rate)
		q->t_next += psched_l2t_ns(&q->rate, len);
	return skb;
}

/*
 * The dequeue of the common case, without a stack frame: the highest
 * backlogged band, neither paused nor resumed since its last dequeue, of
 * a port not shaped, leaves unmarked (no NP-ECN) its head packet, which
 * is charged to no port of the pool.  Anything else is dcb_dequeue_busy()'s
 * (the same accounting, with the rest of the rules).
 */
static struct sk_buff *dcb_dequeue(struct Qdisc *sch)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_band *b;
	struct sk_buff *skb;
	unsigned int band, len;

	/* an idle port's dequeue ends every run of the qdisc: kept short */
	if (!q->backlogged)
		return NULL;
	band = __fls(q->backlogged);
	b = dcb_band(q, band);
	skb = b->q.head;
	if (unlikely(q->cfg.rate || READ_ONCE(b->paused_until) || b->held ||
		     b->ecn.mode == TC_DCB_ECN_NP_ECN || dcb_cb(skb)->port))
		return dcb_dequeue_busy(sch);
	len = qdisc_pkt_len(skb);
	dcb_band_unlink(sch, b, band, skb);
	dcb_pool_credit_lossy(q->pool, len);
	dcb_bstats_update(sch, b, len);
	return skb;
}

/* Drop every queued packet, returning its pool charge. */
static void dcb_purge(struct Qdisc *sch)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	unsigned int i;

	/* ->reset runs in process context too (qdisc_destroy()): the pool
	 * lock, which the receive path also takes, wants BHs off
	 */
	local_bh_disable();
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		while ((skb = dcb_band_pop(sch, &q->band[i], i)))
			rtnl_kfree_skbs(skb, skb);
		q->band[i].held = false;
	}
	local_bh_enable();
}

static void dcb_reset(struct Qdisc *sch)
{
	struct dcb_sched *q = qdisc_priv(sch);

	dcb_purge(sch);
	q->t_next = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

static void dcb_destroy(struct Qdisc *sch)
{
	struct dcb_sched *q = qdisc_priv(sch);

	/* the core has reset the qdisc (its queues are empty) before */
	qdisc_watchdog_cancel(&q->watchdog);
	dcb_pool_leave(q->pool, q->port);
}

/* ------------------------------------------------------------------ */
/* PAUSE frames received by the device                                */

static struct Qdisc_ops dcb_qdisc_ops;

static struct Qdisc *dcb_root_qdisc(struct net_device *dev)
{
	struct Qdisc *sch = rcu_dereference(dev->qdisc);

	return sch && sch->ops == &dcb_qdisc_ops ? sch : NULL;
}

/**
 * dcb_root_rate - the shaping rate of a device's root sch_dcb
 * @dev: the device
 *
 * For rxe_cc, which derives its algorithms' defaults from the line rate
 * and finds this with symbol_get(), so that rdma_rxe does not depend on
 * this module.  Caller in an RCU read-side critical section.
 *
 * Return: the root qdisc's rate in bytes/s, 0 if it is not sch_dcb or is
 * not shaped.
 */
u64 dcb_root_rate(struct net_device *dev)
{
	struct Qdisc *sch = dcb_root_qdisc(dev);

	if (!sch)
		return 0;
	return READ_ONCE(((struct dcb_sched *)qdisc_priv(sch))->cfg.rate);
}
EXPORT_SYMBOL_GPL(dcb_root_rate);

/*
 * The rate (bytes/s) at which the link peer of @dev times the quanta of
 * our PAUSEs, for the refresh of dcb_pool.c, which gets this function at
 * module load (dcb_pool_init()) rather than calling into the qdisc: the
 * PAUSE rate of the root sch_dcb of a veth peer, 0 for a veth peer
 * without one (it honours no PAUSE), and for a device whose peer is
 * unknown the rate of an unshaped port (DCB_UNSHAPED_RATE), the fastest
 * this module assumes.
 */
static u64 dcb_peer_pause_rate(struct net_device *dev)
{
	const struct net_device_ops *ops = dev->netdev_ops;
	struct net_device *peer;
	struct Qdisc *sch;
	u64 rate = 0;

	if (!ops->ndo_get_peer_dev)
		return DCB_UNSHAPED_RATE;
	rcu_read_lock();
	peer = ops->ndo_get_peer_dev(dev);
	sch = peer ? dcb_root_qdisc(peer) : NULL;
	if (sch)
		rate = READ_ONCE(((struct dcb_sched *)qdisc_priv(sch))->pause_rate);
	rcu_read_unlock();
	return rate;
}

/*
 * Let @sch dequeue again after a RESUME.  @sch was found through
 * dev->qdisc and may be on its way out (replaced or deleted, ->destroy
 * done, memory freed after an RCU grace period): a destroyed qdisc must
 * never be put on the softnet output queue.  So schedule it only while it
 * is still what the device's queue transmits from: qdisc_graft()
 * deactivates the device first (the queue then points at noop_qdisc),
 * and dev_deactivate() waits out RCU readers like us and then any qdisc
 * we scheduled before that.  A device that is down has noop_qdisc there.
 */
static void dcb_kick(struct Qdisc *sch)
{
	struct netdev_queue *txq = netdev_get_tx_queue(qdisc_dev(sch), 0);

	if (rcu_dereference(txq->qdisc) == sch)
		__netif_schedule(sch);
}

static void dcb_pause_received(struct Qdisc *sch, u8 pause_mask,
			       u8 resume_mask, const u16 *quanta)
{
	struct dcb_sched *q = qdisc_priv(sch);
	u64 rate = READ_ONCE(q->pause_rate) ?: DCB_UNSHAPED_RATE;
	struct dcb_band *b;
	unsigned int i;
	u64 until, now;
	bool lapsed, started;

	spin_lock(&q->rx_lock);
	/* read under the lock: frames of one port received on two CPUs
	 * must not close a pause before the time it started
	 */
	now = ktime_get_ns();
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		if (!((pause_mask | resume_mask) & BIT(i)))
			continue;
		b = &q->band[i];
		until = b->paused_until;
		started = false;
		lapsed = until && until <= now;
		if (lapsed) {				/* expired meanwhile */
			b->paused_ns += until - b->pause_start;
			until = 0;
		}
		if (resume_mask & BIT(i)) {
			b->st.resume_rx++;
			if (until)
				b->paused_ns += now - b->pause_start;
			until = 0;
		} else {
			b->st.pause_rx++;
			/* the peer refreshes a pause it holds: one that
			 * expired before its refresh came has lapsed (the
			 * band sent in between), a RESUME ends one in time
			 */
			b->st.pause_lapses += lapsed;
			started = !until;
			if (started)
				b->pause_start = now;
			/* quanta of 512 bit times = 64 byte times */
			until = now + div64_u64((u64)quanta[i] * 64 *
						NSEC_PER_SEC, rate);
		}
		WRITE_ONCE(b->paused_until, until);
		if (started) {
			/* a new pause: its end time first, then its
			 * number (dcb_pause_stamp() reads the reverse)
			 */
			smp_wmb();
			WRITE_ONCE(b->pause_seq, b->pause_seq + 1);
		}
	}
	spin_unlock(&q->rx_lock);
	if (resume_mask)
		dcb_kick(sch);
}

static void dcb_pause_malformed(struct Qdisc *sch)
{
	struct dcb_sched *q = qdisc_priv(sch);

	spin_lock(&q->rx_lock);
	q->pfc_malformed++;
	spin_unlock(&q->rx_lock);
}

/*
 * The skb may be shared with other handlers of the frame (a packet socket
 * bound to ETH_P_PAUSE, ...): pulling the MAC control header may rewrite
 * it, so the handler works on its own copy (skb_share_check).  Frames
 * that are not well-formed Ethernet PFC/PAUSE frames are counted in the
 * port's pfc_malformed and otherwise ignored.
 */
static int dcb_pause_rcv(struct sk_buff *skb, struct net_device *dev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	u16 quanta[TC_DCB_NUM_BANDS] = {};
	const struct dcb_pfc_hdr *hdr;
	u8 pause = 0, resume = 0;
	struct Qdisc *sch;
	unsigned int i;
	u16 vector;

	sch = dcb_root_qdisc(dev);
	if (!sch)
		goto out;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (dev->type != ARPHRD_ETHER || !skb_mac_header_was_set(skb) ||
	    skb_mac_header_len(skb) < ETH_HLEN ||
	    !ether_addr_equal(eth_hdr(skb)->h_dest, dcb_pfc_dst) ||
	    !pskb_may_pull(skb, 2 * sizeof(__be16)))
		goto bad;
	hdr = (const struct dcb_pfc_hdr *)skb->data;
	switch (ntohs(hdr->opcode)) {
	case DCB_PAUSE_OPCODE:
		/* 802.3x: every band, the time in place of the vector */
		for (i = 0; i < TC_DCB_NUM_BANDS; i++)
			quanta[i] = ntohs(hdr->vector);
		vector = 0xff;
		break;
	case DCB_PFC_OPCODE:
		if (!pskb_may_pull(skb, sizeof(*hdr)))
			goto bad;
		hdr = (const struct dcb_pfc_hdr *)skb->data;
		vector = ntohs(hdr->vector);
		if (vector & 0xff00)
			goto bad;	/* reserved bits must be zero */
		for (i = 0; i < TC_DCB_NUM_BANDS; i++)
			quanta[i] = ntohs(hdr->time[i]);
		break;
	default:
		goto bad;
	}
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		if (!(vector & BIT(i)))
			continue;
		if (quanta[i])
			pause |= BIT(i);
		else
			resume |= BIT(i);
	}
	trace_dcb_pfc_rx(dev, pause, resume,
			 pause ? quanta[__ffs(pause)] : 0);
	dcb_pause_received(sch, pause, resume, quanta);
	goto out;
bad:
	dcb_pause_malformed(sch);
out:
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type dcb_pause_pt __read_mostly = {
	.type	= cpu_to_be16(ETH_P_PAUSE),
	.func	= dcb_pause_rcv,
};

static struct Qdisc_ops dcb_qdisc_ops __read_mostly = {
	.cl_ops		= &dcb_class_ops,
	.id		= "dcb",
	.priv_size	= sizeof(struct dcb_sched),
	.enqueue	= dcb_enqueue,
	.dequeue	= dcb_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= dcb_init,
	.attach		= dcb_attach,
	.reset		= dcb_reset,
	.destroy	= dcb_destroy,
	.change		= dcb_change,
	.dump		= dcb_dump,
	.dump_stats	= dcb_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init dcb_module_init(void)
{
	int err = dcb_pool_init(dcb_peer_pause_rate);

	if (err)
		return err;
	dev_add_pack(&dcb_pause_pt);
	err = register_qdisc(&dcb_qdisc_ops);
	if (err) {
		dev_remove_pack(&dcb_pause_pt);
		dcb_pool_exit();
	}
	return err;
}

static void __exit dcb_module_exit(void)
{
	unregister_qdisc(&dcb_qdisc_ops);
	dev_remove_pack(&dcb_pause_pt);
	dcb_pool_exit();
	rcu_barrier();		/* ports and pools freed with kfree_rcu() */
}

module_init(dcb_module_init);
module_exit(dcb_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("DCB lab switch port: strict priority, shaping, ECN/WRED, PFC");
DCB_MODULE_ALIAS_SCH("dcb");
