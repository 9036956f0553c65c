// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dcb: the qdisc's configuration and its classes.
 *
 * ->init, ->change and ->attach get a configuration parsed and checked by
 * dcb_nl.c and commit it to the qdisc's state (dcb_sched.h) and to its
 * pool (dcb_pool.c); the class operations do the same for one band's
 * settings.  The datapath and the PAUSE frames received are in
 * dcb_qdisc.c, which names these in its Qdisc_ops.
 *
 * Copyright (c) 2026 DCB lab
 */

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/inet_ecn.h>

#include "dcb_pool.h"
#include "dcb_sched.h"
#include "dcb_nl.h"
#include "dcb_config.h"

#define DCB_BURST_AUTO_NS	(20 * NSEC_PER_MSEC) /* auto catch-up: 20 ms */
#define DCB_DEFAULT_LIMIT_MTUS	1000		/* default port limit */

/* ------------------------------------------------------------------ */
/* Configuration                                                      */

/* Install @cfg; caller holds the tree lock (or the qdisc is not live). */
static void dcb_commit(struct Qdisc *sch, const struct dcb_cfg *cfg)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct tc_ratespec spec = {
		.linklayer = TC_LINKLAYER_ETHERNET,
		.overhead = cfg->overhead,
	};
	bool restart;
	unsigned int i;
	u64 burst_ns;

	/* A new rate or overhead restarts the shaper's clock, as tbf does:
	 * the next departure was timed at the old rate (after a very low
	 * one, minutes ahead) and would hold the port that long.
	 */
	restart = cfg->rate != q->cfg.rate || cfg->overhead != q->cfg.overhead;
	q->cfg = *cfg;
	/* read by the PAUSE receive path without the qdisc lock */
	WRITE_ONCE(q->pause_rate, cfg->rate ?: DCB_UNSHAPED_RATE);
	for (i = 0; i < ARRAY_SIZE(q->ds_class); i++) {
		q->ds_class[i] = (i & INET_ECN_MASK) != INET_ECN_NOT_ECT ?
				 DCB_CLASS_ECT : 0;
		if (cfg->classify != TC_DCB_CLASSIFY_PRIO)
			q->ds_class[i] |= cfg->dscp_map[i >> 2];
	}
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		const struct dcb_band_cfg *bc = &cfg->band[i];
		const struct dcb_ecn *ecn = bc->ecn_own ? &bc->ecn : &cfg->ecn;

		q->band[i].ecn = *ecn;
		q->band[i].nonect = bc->nonect ?: cfg->nonect;
		q->band[i].limit = bc->limit;
	}

	if (!cfg->rate) {
		q->burst_ns = 0;
	} else {
		psched_ratecfg_precompute(&q->rate, &spec, cfg->rate);
		if (cfg->burst) {
			burst_ns = psched_l2t_ns(&q->rate, cfg->burst);
		} else {
			burst_ns = max_t(u64, DCB_BURST_AUTO_NS,
					 2 * psched_l2t_ns(&q->rate,
							   psched_mtu(qdisc_dev(sch))));
		}
		q->burst_ns = burst_ns;
	}
	if (!restart)
		return;
	/* no credit for the time at the old rate; queued packets go at
	 * the new one from now, the watchdog armed for the old departure
	 * fires now
	 */
	q->t_next = ktime_get_ns();
	if (sch->q.qlen)
		qdisc_watchdog_schedule_ns(&q->watchdog, q->t_next);
}

/* The pool's share of a validated configuration. */
static void dcb_commit_pool(struct Qdisc *sch, const struct dcb_cfg *cfg,
			    s64 buffer)
{
	struct dcb_sched *q = qdisc_priv(sch);

	dcb_pool_apply(q->pool, q->port, &cfg->pfc, buffer, cfg->rate,
		       psched_mtu(qdisc_dev(sch)));
}

/* Install a validated configuration on a live qdisc. */
static void dcb_install(struct Qdisc *sch, const struct dcb_cfg *cfg,
			s64 buffer)
{
	sch_tree_lock(sch);
	dcb_commit(sch, cfg);
	sch_tree_unlock(sch);
	dcb_commit_pool(sch, cfg, buffer);
}

int dcb_change(struct Qdisc *sch, struct nlattr *opt,
	       struct netlink_ext_ack *extack)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_cfg *cfg;
	s64 buffer;
	int err;

	cfg = kmemdup(&q->cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	err = dcb_parse(opt, cfg, &buffer, false, extack);
	if (!err)
		err = dcb_check(sch, cfg, buffer, extack);
	if (!err)
		dcb_install(sch, cfg, buffer);
	kfree(cfg);
	return err;
}

int dcb_init(struct Qdisc *sch, struct nlattr *opt,
	     struct netlink_ext_ack *extack)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_cfg *cfg;
	unsigned int i;
	int err;

	/* The watchdog first: destroy() runs even when init fails.  The
	 * private area comes zeroed, so the band queues are empty lists.
	 */
	qdisc_watchdog_init(&q->watchdog, sch);
	spin_lock_init(&q->rx_lock);
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		gnet_stats_basic_sync_init(&q->band[i].bstats);
		q->bandp[i] = &q->band[i];
	}

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	cfg->limit = min_t(u64, U32_MAX, (u64)DCB_DEFAULT_LIMIT_MTUS *
					 psched_mtu(qdisc_dev(sch)));
	for (i = 0; i < TC_DCB_NUM_DSCP; i++)
		cfg->dscp_map[i] = i >> 3;

	err = dcb_parse(opt, cfg, &q->init_buffer, true, extack);
	if (!err)
		err = dcb_pool_join(qdisc_dev(sch), sch->parent == TC_H_ROOT,
				    cfg->pool, &q->pool, &q->port, extack);
	if (!err)
		err = dcb_check(sch, cfg, q->init_buffer, extack);
	/* ->init changes nothing in the pool: qdisc_create() may still fail
	 * after it.  A root qdisc (a port) applies its pool settings in
	 * ->attach, once the core has installed it; a child qdisc has none
	 * to apply (dcb_pool_check() refuses buffer and pfc there).
	 */
	if (!err)
		dcb_commit(sch, cfg);
	kfree(cfg);
	return err;
}

/*
 * The core installs a root qdisc with ->attach instead of grafting it on
 * the transmit queues itself: do what it would have done (one reference
 * per queue), then publish the port, whose predecessor on this device was
 * destroyed by now (its last reference went with the grafting).
 */
void dcb_attach(struct Qdisc *sch)
{
	struct net_device *dev = qdisc_dev(sch);
	struct dcb_sched *q = qdisc_priv(sch);
	struct Qdisc *old;
	unsigned int i;

	for (i = 0; i < dev->num_tx_queues; i++) {
		qdisc_refcount_inc(sch);
		old = dev_graft_qdisc(netdev_get_tx_queue(dev, i), sch);
		qdisc_put(old);
	}
	if (!q->port)
		return;
	dcb_commit_pool(sch, &q->cfg, q->init_buffer);
	if (dcb_pool_activate(q->pool, q->port))
		netdev_warn(dev, "sch_dcb: no memory to publish the port: PFC off\n");
}

/* ------------------------------------------------------------------ */
/* Classes: band N is minor N + 1                                      */

static struct Qdisc *dcb_leaf(struct Qdisc *sch, unsigned long cl)
{
	return NULL;
}

static unsigned long dcb_find(struct Qdisc *sch, u32 classid)
{
	unsigned long band = TC_H_MIN(classid);

	return band >= 1 && band <= TC_DCB_NUM_BANDS ? band : 0;
}

static int dcb_class_change(struct Qdisc *sch, u32 classid, u32 parentid,
			    struct nlattr **tca, unsigned long *arg,
			    struct netlink_ext_ack *extack)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_DCB_BAND_MAX + 1];
	unsigned long cl = *arg;
	struct dcb_cfg *cfg;
	int err;

	if (!cl) {
		NL_SET_ERR_MSG(extack, "dcb: classes are fixed, 1..8 (bands 0..7)");
		return -EOPNOTSUPP;
	}
	err = dcb_parse_class(tca[TCA_OPTIONS], cl, tb, extack);
	if (err)
		return err;

	cfg = kmemdup(&q->cfg, sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	err = dcb_apply_class(tb, cl, cfg, extack);
	if (!err) {
		/* band settings only: the pool and PFC stay as they are */
		sch_tree_lock(sch);
		dcb_commit(sch, cfg);
		sch_tree_unlock(sch);
	}
	kfree(cfg);
	return err;
}

static void dcb_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	unsigned int i;

	if (arg->stop)
		return;
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		if (!tc_qdisc_stats_dump(sch, i + 1, arg))
			break;
	}
}

const struct Qdisc_class_ops dcb_class_ops = {
	.leaf		= dcb_leaf,
	.find		= dcb_find,
	.change		= dcb_class_change,
	.walk		= dcb_walk,
	.dump		= dcb_dump_class,
	.dump_stats	= dcb_dump_class_stats,
};
