// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dcb: the switch's shared buffer pool and priority flow control.
 *
 * A pool (one per network namespace and pool id) is the buffer of one
 * emulated switch.  Each sch_dcb root qdisc of the pool is a port.  A
 * packet queued on any qdisc of the pool is charged to the pool and to
 * (its ingress port, band), the ingress port being the pool's port whose
 * device received it (skb->skb_iif).  Charges are returned when the
 * packet leaves the queue, whichever way.
 *
 * When the bytes charged to a lossless (port, band) exceed XOFF, the port
 * sends an 802.1Qbb PFC frame out of its device pausing the band; packets
 * arriving while paused go to the (port, band) headroom; below XON the
 * port resumes the band (quanta 0).  PAUSEs are refreshed at half their
 * lifetime as the peer times it while the band stays above XON.  Frames
 * are sent from a tasklet (never from the datapath, which holds another
 * qdisc's lock) straight to the driver, so they never wait behind paused
 * data (dcb_pfc.c).
 *
 * Pools are per network namespace (net_generic storage): the namespace's
 * pool list and pool membership are under its dcb_net->mutex.  A pool is
 * reference counted, one reference per qdisc that joined it, and freed
 * (after RCU readers) with the last one.  Charges, thresholds and counters
 * are under pool->lock, always taken inside the egress qdisc's lock (never
 * the reverse), except for a packet that no ingress port of the pool
 * received: it concerns no port, so it is charged with atomic operations
 * on the pool's byte count and peak alone (dcb_pool_charge() in dcb_pool.h,
 * which the qdisc inlines), and the size of the pool's shared part and
 * its headroom use, which that charge reads, are written with
 * WRITE_ONCE().  Ports are found by ifindex in an xarray under RCU and
 * freed with kfree_rcu() once their qdisc is gone and no queued packet is
 * charged to them any more: port->refs counts the qdisc's reference and
 * one per charged packet, and whoever drops the last one frees the port.
 *
 * Copyright (c) 2026 DCB lab
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/interrupt.h>
#include <linux/xarray.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/netlink.h>

#include "dcb_pool.h"
#include "dcb_pfc.h"
#include "dcb_frame.h"

/* The pools of one network namespace. */
struct dcb_net {
	struct mutex		mutex;		/* pools, membership */
	struct list_head	pools;
};

static unsigned int dcb_net_id __read_mostly;

static struct dcb_net *dcb_net(const struct net *net)
{
	return net_generic(net, dcb_net_id);
}

/* ------------------------------------------------------------------ */
/* Thresholds (pool->lock held)                                        */

static u64 dcb_port_reserve(const struct dcb_pfc_cfg *pfc)
{
	return (u64)pfc->headroom * hweight8(pfc->mask);
}

/* The pool's size or reservation changed: the size of its shared part. */
static void dcb_pool_resize(struct dcb_pool *pool)
{
	u64 size = pool->size;

	WRITE_ONCE(pool->shared,
		   size ? (s64)(size - min(size, pool->reserved)) : S64_MAX);
}

/*
 * XOFF with @used bytes in the pool: static, or beta * (B - R - s) / 8
 * (DCQCN paper, §4), where s is the occupancy of the shared part: the
 * bytes in headrooms are inside the reservation R already.
 */
static u64 dcb_xoff_at(const struct dcb_pool *pool, const struct dcb_port *p,
		       u64 used)
{
	u64 free, shared;

	if (!p->pfc.beta)
		return p->pfc.xoff;
	shared = used - pool->headroom_used;
	free = pool->size - min(pool->size, pool->reserved + shared);
	return div_u64(free * p->pfc.beta, 8);
}

/* XOFF now */
static u64 dcb_xoff(const struct dcb_pool *pool, const struct dcb_port *p)
{
	return dcb_xoff_at(pool, p, atomic64_read(&pool->used));
}

static u64 dcb_xon(const struct dcb_pool *pool, const struct dcb_port *p)
{
	u64 xoff;

	if (!p->pfc.beta && p->pfc.xon)
		return p->pfc.xon;
	xoff = dcb_xoff(pool, p);
	return xoff - min_t(u64, xoff, 2ULL * p->mtu);
}

/* ------------------------------------------------------------------ */
/* Announcing PFC changes (dcb_pfc.c sends them)                       */

/* Band @band of @p changed state; pool->lock held. */
static void dcb_port_announce(struct dcb_port *p, unsigned int band)
{
	p->changed |= BIT(band);
	if (!p->dead)
		tasklet_schedule(&p->tx);
}

/* ------------------------------------------------------------------ */
/* Datapath                                                            */

/* What an overflow of a (port, band) headroom tells the operator. */
struct dcb_overflow {
	u64	headroom;	/* in force */
	u64	need;		/* bytes arrived since the PAUSE */
	u64	react_us;	/* since the PAUSE */
	u64	delay_us;	/* delay whose auto headroom holds need;
				 * 0: not shaped, no delay would
				 */
	u32	delay_now;
};

static void dcb_overflow_warn(const struct dcb_port *p, unsigned int band,
			      const struct dcb_overflow *o, bool dropped)
{
	const char *fate = dropped ? "dropped" : "queued in the shared buffer";

	if (o->delay_us)
		net_warn_ratelimited("%s: sch_dcb band %u headroom overflow (%s): headroom %llu B (delay %u us) in force, %llu B arrived in %llu us after PAUSE; headroom %llu B or delay %llu us would have held them\n",
				     netdev_name(p->dev), band, fate,
				     o->headroom, o->delay_now, o->need,
				     o->react_us, o->need, o->delay_us);
	else
		net_warn_ratelimited("%s: sch_dcb band %u headroom overflow (%s): headroom %llu B in force, %llu B arrived in %llu us after PAUSE; headroom %llu B would have held them\n",
				     netdev_name(p->dev), band, fate,
				     o->headroom, o->need, o->react_us,
				     o->need);
}

/*
 * Account an arrival at paused @pb of @p (pool->lock held); fill @o and
 * return true if it overflows the headroom.
 */
static bool dcb_pause_arrival(struct dcb_port *p, struct dcb_port_band *pb,
			      unsigned int len, struct dcb_overflow *o)
{
	u64 now = ktime_get_ns(), inflight;

	pb->pause_bytes += len;
	pb->inflight_peak = max(pb->inflight_peak, pb->pause_bytes);
	pb->react_ns = max(pb->react_ns, now - pb->pause_t0);
	if (pb->headroom + len <= p->pfc.headroom)
		return false;

	o->headroom = p->pfc.headroom;
	o->need = pb->pause_bytes;
	o->react_us = div_u64(now - pb->pause_t0, NSEC_PER_USEC);
	o->delay_now = p->pfc.delay_us;
	o->delay_us = 0;
	/* auto headroom is 2 MTU + rate * delay: the delay that holds need */
	inflight = o->need - min_t(u64, o->need, 2ULL * p->mtu);
	if (p->rate)
		o->delay_us = max_t(u64, 1,
				    div64_u64(inflight * USEC_PER_SEC +
					      p->rate - 1, p->rate));
	return true;
}

/* A lossy packet that no port received found the shared part full. */
enum dcb_admit dcb_pool_full(struct dcb_pool *pool)
{
	spin_lock(&pool->lock);
	pool->drops_full++;
	spin_unlock(&pool->lock);
	return DCB_ADMIT_FULL;
}

/*
 * dcb_pool_admit() of a packet that a device received: the whole rule,
 * with the one port lookup and, for a packet of a port, the one lock.
 */
enum dcb_admit dcb_pool_admit_rx(struct dcb_pool *pool, struct sk_buff *skb,
				 unsigned int band, unsigned int len,
				 unsigned int flags)
{
	struct dcb_port *p = xa_load(&pool->ports, skb->skb_iif);
	struct dcb_skb_cb *cb = dcb_cb(skb);
	bool lossless, full, over = false;
	struct dcb_port_band *pb = NULL;
	struct dcb_overflow o;
	enum dcb_admit ret;
	s64 used;

	if (!p)		/* not received by a port of the pool */
		return dcb_pool_admit_lossy(pool, cb, len, flags);

	spin_lock(&pool->lock);
	if (p->dead)	/* its qdisc is going: lossy, charged to no port */
		p = NULL;
	else
		pb = &p->band[band];
	lossless = p && (p->pfc.mask & BIT(band));

	/* 1. WRED and 2. the limits */
	if (unlikely(flags) && !lossless) {
		ret = dcb_admit_drop(flags);
		goto unlock;
	}
	if (unlikely(flags & DCB_ADMIT_F_LIMIT) && !pool->size) {
		ret = DCB_ADMIT_LIMIT;
		goto unlock;
	}

	/* 3. the pool */
	full = !dcb_pool_charge(pool, len, &used);
	if (!lossless) {
		if (full) {
			pool->drops_full++;
			ret = DCB_ADMIT_FULL;
			goto unlock;
		}
		goto charged;
	}
	/* XOFF as the pool stood before this packet's charge */
	if (!pb->paused &&
	    (full || pb->bytes + len > dcb_xoff_at(pool, p, used - len))) {
		pb->paused = true;
		pb->pause_t0 = ktime_get_ns();
		pb->pause_bytes = 0;
		dcb_port_announce(p, band);
	}
	if (pb->paused) {
		over = dcb_pause_arrival(p, pb, len, &o);
		if (over && (full || p->pfc.overflow == TC_DCB_OVERFLOW_DROP)) {
			pb->in_drops++;
			/* with nothing charged here no departure will resume
			 * the band (dcb_pool_credit()): a packet larger than
			 * the headroom (an MTU raised after the headroom was
			 * resolved) must not leave the peer paused for good
			 */
			if (!pb->bytes) {
				pb->paused = false;
				dcb_port_announce(p, band);
			}
			if (!full)
				atomic64_sub(len, &pool->used);
			ret = DCB_ADMIT_HEADROOM;
			goto unlock;
		}
		/* a full shared part refused the bytes, which the headroom
		 * holds: they join the pool's bytes before its headroom
		 * use, so that a lockless charge (dcb_pool_charge()) never
		 * sees the shared part emptier than it is
		 */
		if (full)
			used = atomic64_add_return(len, &pool->used);
		/* beyond the headroom, the shared part of the pool takes
		 * it: charged like a lossy packet, so no other (port, band)
		 * loses headroom to it
		 */
		if (over) {
			pb->in_borrowed++;
		} else {
			pb->headroom += len;
			WRITE_ONCE(pool->headroom_used,
				   pool->headroom_used + len);
		}
	}

charged:
	dcb_pool_peak(pool, used);
	cb->port = p;
	cb->band = band;
	if (p) {
		pb->bytes += len;
		pb->peak = max(pb->peak, pb->bytes);
		p->refs++;
	}
	ret = DCB_ADMIT_OK;
unlock:
	spin_unlock(&pool->lock);
	if (over)
		dcb_overflow_warn(p, band, &o, ret != DCB_ADMIT_OK);
	return ret;
}

/* The part of dcb_pool_credit() for a packet charged to a port. */
void dcb_pool_credit_port(struct dcb_pool *pool, const struct dcb_skb_cb *cb,
			  unsigned int len)
{
	struct dcb_port *p = cb->port;
	struct dcb_port_band *pb;
	bool release;
	u64 h;

	/* BHs are off: the dequeue runs in them or under the root lock,
	 * and ->reset's purge turns them off itself
	 */
	spin_lock(&pool->lock);
	/* as in switch ASICs, a departure empties the headroom first: it
	 * holds what is above XOFF, not given packets.  The headroom
	 * shrinks before the pool: a lockless charge (dcb_pool_charge())
	 * may see the shared part fuller than it is, never emptier.
	 */
	pb = &p->band[cb->band];
	h = min_t(u64, pb->headroom, len);
	pb->headroom -= h;
	WRITE_ONCE(pool->headroom_used, pool->headroom_used - h);
	atomic64_sub(len, &pool->used);
	pb->bytes -= len;
	if (pb->paused && !p->dead &&
	    (!pb->bytes || pb->bytes < dcb_xon(pool, p))) {
		pb->paused = false;
		dcb_port_announce(p, cb->band);
	}
	release = !--p->refs;
	spin_unlock(&pool->lock);
	if (release)
		kfree_rcu(p, rcu);
}

/* ------------------------------------------------------------------ */
/* Configuration                                                       */

u64 dcb_pool_size(const struct dcb_pool *pool)
{
	return READ_ONCE(pool->size);
}

/* The port's PFC settings, defaults resolved (RTNL held). */
void dcb_port_pfc(const struct dcb_port *port, struct dcb_pfc_cfg *pfc)
{
	*pfc = port->pfc;
}

/* Bytes a port of @rate bytes/s sends in @delay_us; false on overflow. */
static bool dcb_inflight(u64 rate, u32 delay_us, u64 *inflight)
{
	u64 bytes;

	if (check_mul_overflow(rate, (u64)delay_us, &bytes))
		return false;
	*inflight = div_u64(bytes, USEC_PER_SEC);
	return true;
}

/*
 * Resolve the defaults of @pfc for a port of @rate bytes/s; false when
 * the automatic headroom does not fit (dcb_pool_check() refuses that).
 */
static bool dcb_pfc_resolve(struct dcb_pfc_cfg *pfc, u64 rate,
			    unsigned int mtu)
{
	u64 inflight, headroom;

	if (!pfc->delay_us)
		pfc->delay_us = TC_DCB_PFC_DELAY_DEFAULT;
	if (!pfc->quanta)
		pfc->quanta = TC_DCB_PFC_QUANTA_DEFAULT;
	if (!dcb_inflight(rate, pfc->delay_us, &inflight))
		return false;
	if (!pfc->headroom) {
		headroom = 2ULL * mtu + inflight;
		if (headroom > U32_MAX)
			return false;
		pfc->headroom = headroom;
	}
	return true;
}

/*
 * Would @cfg (and a pool size request @buffer: bytes, 0 = unlimited, or
 * DCB_BUFFER_KEEP) be valid for @port (NULL: not a root qdisc) of @pool?
 */
int dcb_pool_check(struct dcb_pool *pool, struct dcb_port *port,
		   const struct dcb_pfc_cfg *cfg, s64 buffer, u64 rate,
		   unsigned int mtu, struct netlink_ext_ack *extack)
{
	struct dcb_pfc_cfg pfc = *cfg;
	u64 reserved, size, inflight;
	struct dcb_port *cur;
	unsigned long idx;
	bool beta = false;

	if (pfc.mask && !port) {
		NL_SET_ERR_MSG(extack, "pfc: only a root qdisc is a switch port");
		return -EINVAL;
	}
	/* A root qdisc applies its buffer once the core has installed it
	 * (->attach); a child has no such hook, and a child's ->init may
	 * still be undone by the core: so only ports size the pool.
	 */
	if (buffer != DCB_BUFFER_KEEP && !port) {
		NL_SET_ERR_MSG(extack,
			       "buffer: only a root qdisc (a switch port) sizes the pool");
		return -EINVAL;
	}
	if (pfc.mask) {
		if (!dcb_pfc_resolve(&pfc, rate, mtu) ||
		    !dcb_inflight(rate, pfc.delay_us, &inflight)) {
			NL_SET_ERR_MSG(extack,
				       "pfc: rate x delay overflows the headroom");
			return -EOVERFLOW;
		}
		if (!pfc.beta && !pfc.xoff) {
			NL_SET_ERR_MSG(extack,
				       "pfc: xoff (static) or beta (dynamic) is required");
			return -EINVAL;
		}
		if (pfc.beta && (pfc.xoff || pfc.xon)) {
			NL_SET_ERR_MSG(extack,
				       "pfc: xoff/xon are static thresholds, beta the dynamic one");
			return -EINVAL;
		}
		if (pfc.xon && pfc.xon >= pfc.xoff) {
			NL_SET_ERR_MSG(extack, "pfc: xon must be below xoff");
			return -EINVAL;
		}
		if (pfc.headroom < mtu + inflight) {
			NL_SET_ERR_MSG(extack,
				       "pfc: headroom below one MTU plus the bytes in flight at the port's rate over delay");
			return -EINVAL;
		}
	}

	mutex_lock(&pool->dn->mutex);
	reserved = pool->reserved;
	if (port) {
		/* a replacement takes over the reservation of the port in
		 * place, which still counts until then
		 */
		cur = xa_load(&pool->ports, port->ifindex);
		if (cur && cur != port)
			reserved -= cur->reserve;
		reserved += dcb_port_reserve(&pfc) - port->reserve;
	}
	size = buffer == DCB_BUFFER_KEEP ? pool->size : buffer;
	/* an unlimited pool leaves the dynamic thresholds undefined */
	xa_for_each(&pool->ports, idx, cur)
		if ((!port || cur->ifindex != port->ifindex) &&
		    cur->pfc.mask && cur->pfc.beta)
			beta = true;
	mutex_unlock(&pool->dn->mutex);
	if (size && size < reserved) {
		NL_SET_ERR_MSG(extack,
			       "buffer: pool smaller than the headroom its ports reserve");
		return -EINVAL;
	}
	if (!size && pfc.mask && pfc.beta) {
		NL_SET_ERR_MSG(extack, "pfc: beta needs a pool size (buffer)");
		return -EINVAL;
	}
	if (!size && beta) {
		NL_SET_ERR_MSG(extack,
			       "buffer: a port of the pool uses beta, which needs a pool size");
		return -EINVAL;
	}
	return 0;
}

void dcb_pool_apply(struct dcb_pool *pool, struct dcb_port *port,
		    const struct dcb_pfc_cfg *cfg, s64 buffer, u64 rate,
		    unsigned int mtu)
{
	struct dcb_pfc_cfg pfc = *cfg;
	unsigned int i;

	dcb_pfc_resolve(&pfc, rate, mtu);
	mutex_lock(&pool->dn->mutex);
	spin_lock_bh(&pool->lock);
	if (buffer != DCB_BUFFER_KEEP)
		WRITE_ONCE(pool->size, buffer);
	if (port) {
		WRITE_ONCE(pool->reserved, pool->reserved - port->reserve +
			   dcb_port_reserve(&pfc));
		port->reserve = dcb_port_reserve(&pfc);
		port->pfc = pfc;
		port->mtu = mtu;
		port->rate = rate;
		for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
			struct dcb_port_band *pb = &port->band[i];

			if (pb->paused && (!(pfc.mask & BIT(i)) ||
					   pb->bytes < dcb_xon(pool, port))) {
				pb->paused = false;
				dcb_port_announce(port, i);
			}
		}
	}
	dcb_pool_resize(pool);
	spin_unlock_bh(&pool->lock);
	mutex_unlock(&pool->dn->mutex);
}

static void dcb_port_init(struct dcb_port *p, struct dcb_pool *pool,
			  struct net_device *dev)
{
	p->pool = pool;
	p->dev = dev;
	p->ifindex = dev->ifindex;
	p->mtu = dev->mtu;
	p->refs = 1;
	tasklet_setup(&p->tx, dcb_port_tx);
	hrtimer_init(&p->refresh, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	p->refresh.function = dcb_port_refresh;
}

/* Drop a qdisc's reference to @pool; the last one frees it. */
static void dcb_pool_put(struct dcb_pool *pool)
{
	struct dcb_net *dn = pool->dn;

	if (!refcount_dec_and_mutex_lock(&pool->ref, &dn->mutex))
		return;
	list_del(&pool->node);
	mutex_unlock(&dn->mutex);
	WARN_ON_ONCE(pool->nports || !xa_empty(&pool->ports));
	xa_destroy(&pool->ports);
	/* the PAUSE receive path and datapath readers may still see it */
	kfree_rcu(pool, rcu);
}

/*
 * Join (creating it if needed) pool @id of the namespace of @dev, the
 * qdisc's device, taking a reference to it; a root qdisc (@root) also
 * gets a port, which dcb_pool_activate() makes the pool's port of its
 * device once the qdisc is installed.
 */
int dcb_pool_join(struct net_device *dev, bool root, u32 id,
		  struct dcb_pool **poolp, struct dcb_port **portp,
		  struct netlink_ext_ack *extack)
{
	struct dcb_net *dn = dcb_net(dev_net(dev));
	struct dcb_port *port = NULL;
	struct dcb_pool *pool;

	if (root) {
		port = kzalloc(sizeof(*port), GFP_KERNEL_ACCOUNT);
		if (!port)
			goto nomem;
	}
	mutex_lock(&dn->mutex);
	list_for_each_entry(pool, &dn->pools, node) {
		if (pool->id == id) {
			refcount_inc(&pool->ref);
			goto found;
		}
	}
	pool = kzalloc(sizeof(*pool), GFP_KERNEL_ACCOUNT);
	if (!pool) {
		mutex_unlock(&dn->mutex);
		kfree(port);
		goto nomem;
	}
	pool->dn = dn;
	pool->id = id;
	refcount_set(&pool->ref, 1);
	pool->shared = S64_MAX;
	spin_lock_init(&pool->lock);
	xa_init(&pool->ports);
	list_add(&pool->node, &dn->pools);
found:
	if (port) {
		dcb_port_init(port, pool, dev);
		pool->nports++;
	}
	mutex_unlock(&dn->mutex);
	*poolp = pool;
	*portp = port;
	return 0;

nomem:
	NL_SET_ERR_MSG(extack, "dcb: cannot join the buffer pool");
	return -ENOMEM;
}

/*
 * @port starts receiving the charges of its device's packets, in place
 * of the port of the qdisc being replaced, whose headroom reservation it
 * takes over.
 *
 * That qdisc is normally destroyed by now (dcb_pool_leave() took its port
 * out), but a reference held elsewhere (an unlocked filter change on it)
 * defers its destroy.  From here on only @port speaks for the device:
 * the old port goes dead (no more PAUSEs, refreshes or RESUMEs, which
 * could cancel the new port's PAUSE), and @port resumes the bands the old
 * one had paused or was about to announce, unless it pauses them itself.
 */
int dcb_pool_activate(struct dcb_pool *pool, struct dcb_port *port)
{
	struct dcb_port *old;
	unsigned int i;
	u8 handover;
	int err;

	if (!port)
		return 0;
	mutex_lock(&pool->dn->mutex);
	old = xa_store(&pool->ports, port->ifindex, port, GFP_KERNEL_ACCOUNT);
	err = xa_err(old);
	if (!err && old) {
		spin_lock_bh(&pool->lock);
		WRITE_ONCE(pool->reserved, pool->reserved - old->reserve);
		old->reserve = 0;
		dcb_pool_resize(pool);
		if (!old->dead) {
			handover = old->changed;
			for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
				if (old->band[i].paused)
					handover |= BIT(i);
				old->band[i].paused = false;
			}
			old->changed = 0;
			old->dead = true;
			old->replaced = true;
			if (handover) {
				port->changed |= handover;
				tasklet_schedule(&port->tx);
			}
		}
		spin_unlock_bh(&pool->lock);
	}
	mutex_unlock(&pool->dn->mutex);
	/* The peer's PAUSE and PFC frames go to 01:80:C2:00:00:01, a
	 * multicast group: a NIC that filters multicast (virtio-net, many
	 * hardware NICs) drops them before dcb_pause_rcv() unless the port
	 * joins it.  The address list counts references, so a successor
	 * joining before this port's predecessor leaves keeps the group.
	 * Only an Ethernet device has that address (dcb_pause_rcv() takes
	 * frames of no other).
	 */
	if (!err && port->dev->type == ARPHRD_ETHER) {
		if (dev_mc_add(port->dev, dcb_pfc_dst))
			netdev_warn(port->dev,
				    "sch_dcb: cannot join 01:80:c2:00:00:01: the peer's PAUSE frames may be filtered\n");
		else
			port->joined = true;
	}
	return err;
}

/*
 * The qdisc of @port is going away (its queues already purged and
 * credited).  Resume what the port had paused or was about to resume,
 * stop its timers; the port itself lives on while packets queued
 * elsewhere are charged to it.  Then
 * the qdisc's references to the port and to the pool go.  The port's goes
 * last: until then a departure elsewhere that credits its last charged
 * packet must not free what this function still uses.
 */
void dcb_pool_leave(struct dcb_pool *pool, struct dcb_port *port)
{
	bool release = false;
	u8 resume = 0;
	unsigned int i;

	if (!pool)
		return;
	if (port) {
		mutex_lock(&pool->dn->mutex);
		xa_cmpxchg(&pool->ports, port->ifindex, port, NULL, GFP_KERNEL);
		spin_lock_bh(&pool->lock);
		port->dead = true;
		for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
			if (port->band[i].paused)
				resume |= BIT(i);
			port->band[i].paused = false;
		}
		WRITE_ONCE(pool->reserved, pool->reserved - port->reserve);
		port->reserve = 0;
		dcb_pool_resize(pool);
		spin_unlock_bh(&pool->lock);
		hrtimer_cancel(&port->refresh);
		tasklet_kill(&port->tx);
		/* Bands announced but not sent yet (the tasklet had not run,
		 * or its frame failed and waits for a retry or the link) get
		 * their RESUME now too.  Read once the tasklet is gone: a
		 * failed send puts its bands back into port->changed.
		 */
		spin_lock_bh(&pool->lock);
		resume |= port->changed;
		port->changed = 0;
		/* a successor took the bands over (dcb_pool_activate()): a
		 * frame its tasklet failed to send since is not ours to send
		 */
		if (port->replaced)
			resume = 0;
		spin_unlock_bh(&pool->lock);
		if (resume && netif_running(port->dev)) {
			rcu_read_lock();
			dcb_send_pfc(port->dev, 0, resume, 0);
			rcu_read_unlock();
		}
		if (port->joined) {
			dev_mc_del(port->dev, dcb_pfc_dst);
			port->joined = false;
		}
		pool->nports--;
		spin_lock_bh(&pool->lock);
		release = !--port->refs;
		spin_unlock_bh(&pool->lock);
		mutex_unlock(&pool->dn->mutex);
		if (release)
			kfree_rcu(port, rcu);
	}
	dcb_pool_put(pool);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */

void dcb_pool_stats(struct dcb_pool *pool, struct tc_dcb_pool_stats *ps)
{
	spin_lock_bh(&pool->lock);
	ps->id = pool->id;
	ps->ports = pool->nports;
	ps->size = pool->size;
	ps->reserved = pool->reserved;
	ps->used = atomic64_read(&pool->used);
	ps->peak = atomic64_read(&pool->peak);
	ps->headroom_used = pool->headroom_used;
	ps->drops_full = pool->drops_full;
	spin_unlock_bh(&pool->lock);
}

void dcb_port_stats(struct dcb_pool *pool, struct dcb_port *port,
		    unsigned int band, struct dcb_port_stats *st)
{
	const struct dcb_port_band *pb = &port->band[band];

	spin_lock_bh(&pool->lock);
	st->pause_tx = pb->pause_tx;
	st->resume_tx = pb->resume_tx;
	st->in_bytes = pb->bytes;
	st->in_peak = pb->peak;
	st->in_headroom = pb->headroom;
	st->in_drops = pb->in_drops;
	st->in_borrowed = pb->in_borrowed;
	st->inflight_peak = pb->inflight_peak;
	st->react_us = div_u64(pb->react_ns, NSEC_PER_USEC);
	st->xoff = port->pfc.mask & BIT(band) ? dcb_xoff(pool, port) : 0;
	spin_unlock_bh(&pool->lock);
}

/*
 * A port stops sending while its link is down (dcb_port_tx()); when the
 * carrier comes back, it announces what is pending and resumes its
 * refreshes.
 */
static int dcb_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct dcb_net *dn;
	struct dcb_pool *pool;
	struct dcb_port *p;
	unsigned int i;
	bool kick;

	if (event != NETDEV_UP && event != NETDEV_CHANGE)
		return NOTIFY_DONE;
	if (!netif_running(dev) || !netif_carrier_ok(dev))
		return NOTIFY_DONE;
	dn = dcb_net(dev_net(dev));
	mutex_lock(&dn->mutex);
	list_for_each_entry(pool, &dn->pools, node) {
		p = xa_load(&pool->ports, dev->ifindex);
		if (!p)
			continue;
		spin_lock_bh(&pool->lock);
		kick = p->changed;
		for (i = 0; i < TC_DCB_NUM_BANDS; i++)
			kick |= p->band[i].paused;
		p->failures = 0;
		if (kick && !p->dead)
			tasklet_schedule(&p->tx);
		spin_unlock_bh(&pool->lock);
	}
	mutex_unlock(&dn->mutex);
	return NOTIFY_DONE;
}

static struct notifier_block dcb_netdev_nb = {
	.notifier_call = dcb_netdev_event,
};

static __net_init int dcb_net_init(struct net *net)
{
	struct dcb_net *dn = dcb_net(net);

	mutex_init(&dn->mutex);
	INIT_LIST_HEAD(&dn->pools);
	return 0;
}

/*
 * Subsystem pernet operations exit after the device ones, which have
 * unregistered (or moved out) every device of the namespace and so
 * destroyed every qdisc: no pool is left.
 */
static __net_exit void dcb_net_exit(struct net *net)
{
	WARN_ON_ONCE(!list_empty(&dcb_net(net)->pools));
}

static struct pernet_operations dcb_net_ops = {
	.init	= dcb_net_init,
	.exit	= dcb_net_exit,
	.id	= &dcb_net_id,
	.size	= sizeof(struct dcb_net),
};

int dcb_pool_init(u64 (*peer_pause_rate)(struct net_device *dev))
{
	int err;

	dcb_peer_rate = peer_pause_rate;
	err = register_pernet_subsys(&dcb_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&dcb_netdev_nb);
	if (err) {
		unregister_pernet_subsys(&dcb_net_ops);
		return err;
	}
	return 0;
}

void dcb_pool_exit(void)
{
	unregister_netdevice_notifier(&dcb_netdev_nb);
	unregister_pernet_subsys(&dcb_net_ops);
}
