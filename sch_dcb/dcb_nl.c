// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dcb: its netlink side.  The attribute policies, which do most of
 * the validation before any of this code runs; `tc qdisc change` and `tc
 * class change` parsed into a copy of the configuration and checked as a
 * whole, against the device and the pool too, for dcb_qdisc.c to commit;
 * the dumps of the configuration in force and of the statistics.
 *
 * Copyright (c) 2026 DCB lab
 */

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "dcb_pool.h"
#include "dcb_sched.h"
#include "dcb_nl.h"

/* Upper bounds of the PFC figures: far above any switch, far below an
 * overflow of the u64 arithmetic they enter.
 */
#define DCB_PFC_BYTES_MAX	(1U << 30)		/* 1 GiB */
#define DCB_PFC_DELAY_MAX	(10 * USEC_PER_SEC)	/* 10 s */

static struct netlink_range_validation dcb_pfc_bytes_range = {
	.max = DCB_PFC_BYTES_MAX,
};

static struct netlink_range_validation dcb_pfc_delay_range = {
	.max = DCB_PFC_DELAY_MAX,
};

static struct netlink_range_validation dcb_overhead_range = {
	.max = U16_MAX,
};

static struct netlink_range_validation dcb_limit_range = {
	.min = 1,
	.max = U32_MAX,
};

static const struct nla_policy dcb_ecn_policy[TCA_DCB_ECN_MAX + 1] = {
	[TCA_DCB_ECN_MODE]	= NLA_POLICY_MAX(NLA_U8, __TC_DCB_ECN_MAX - 1),
	[TCA_DCB_ECN_KMIN]	= { .type = NLA_U32 },
	[TCA_DCB_ECN_KMAX]	= { .type = NLA_U32 },
	[TCA_DCB_ECN_PMAX]	= { .type = NLA_U32 },
};

static const struct nla_policy dcb_band_policy[TCA_DCB_BAND_MAX + 1] = {
	[TCA_DCB_BAND_INDEX]	= NLA_POLICY_MAX(NLA_U8, TC_DCB_NUM_BANDS - 1),
	[TCA_DCB_BAND_LIMIT]	= { .type = NLA_U32 },
	[TCA_DCB_BAND_RESERVED]	= { .type = NLA_REJECT,
				    .reject_message = "band: reserved attribute; the curve is TCA_DCB_BAND_ECN, a nest" },
	[TCA_DCB_BAND_ECN_DEFAULT] = { .type = NLA_FLAG },
	[TCA_DCB_BAND_NONECT]	= NLA_POLICY_MAX(NLA_U8, __TC_DCB_NONECT_MAX - 1),
	[TCA_DCB_BAND_ECN]	= NLA_POLICY_NESTED(dcb_ecn_policy),
};

static const struct nla_policy dcb_pfc_policy[TCA_DCB_PFC_MAX + 1] = {
	[TCA_DCB_PFC_PRIO_MASK]	= { .type = NLA_U8 },
	[TCA_DCB_PFC_XOFF]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dcb_pfc_bytes_range),
	[TCA_DCB_PFC_XON]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dcb_pfc_bytes_range),
	[TCA_DCB_PFC_BETA]	= NLA_POLICY_MAX(NLA_U32, 1000),
	[TCA_DCB_PFC_HEADROOM]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dcb_pfc_bytes_range),
	[TCA_DCB_PFC_QUANTA]	= { .type = NLA_U16 },
	[TCA_DCB_PFC_DELAY]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dcb_pfc_delay_range),
	[TCA_DCB_PFC_OVERFLOW]	= NLA_POLICY_MAX(NLA_U8,
						 __TC_DCB_OVERFLOW_MAX - 1),
};

static const struct nla_policy dcb_policy[TCA_DCB_MAX + 1] = {
	[TCA_DCB_RATE64]	= { .type = NLA_U64 },
	[TCA_DCB_OVERHEAD]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dcb_overhead_range),
	[TCA_DCB_BURST]		= { .type = NLA_U32 },
	[TCA_DCB_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32,
							&dcb_limit_range),
	[TCA_DCB_CLASSIFY]	= NLA_POLICY_MAX(NLA_U8,
						 __TC_DCB_CLASSIFY_MAX - 1),
	[TCA_DCB_DSCP_MAP]	= NLA_POLICY_EXACT_LEN(TC_DCB_NUM_DSCP),
	[TCA_DCB_RESERVED]	= { .type = NLA_REJECT,
				    .reject_message = "dcb: reserved attribute; the curve is TCA_DCB_ECN, a nest" },
	[TCA_DCB_BANDS]		= NLA_POLICY_NESTED_ARRAY(dcb_band_policy),
	[TCA_DCB_POOL]		= { .type = NLA_U32 },
	[TCA_DCB_BUFFER]	= { .type = NLA_U32 },
	[TCA_DCB_PFC]		= NLA_POLICY_NESTED(dcb_pfc_policy),
	[TCA_DCB_NONECT]	= NLA_POLICY_MAX(NLA_U8, __TC_DCB_NONECT_MAX - 1),
	[TCA_DCB_ECN]		= NLA_POLICY_NESTED(dcb_ecn_policy),
};

/* ------------------------------------------------------------------ */
/* Configuration                                                      */

/*
 * A curve from its nest @attr into *@ecn: it replaces the curve as a
 * whole, a member left out is 0.  The policy has checked each member.
 */
static int dcb_parse_ecn(const struct nlattr *attr, struct dcb_ecn *ecn,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_DCB_ECN_MAX + 1];
	int err;

	err = nla_parse_nested(tb, TCA_DCB_ECN_MAX, attr, dcb_ecn_policy,
			       extack);
	if (err)
		return err;
	if (!tb[TCA_DCB_ECN_MODE]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "ecn: mode missing");
		return -EINVAL;
	}
	memset(ecn, 0, sizeof(*ecn));
	ecn->mode = nla_get_u8(tb[TCA_DCB_ECN_MODE]);
	if (tb[TCA_DCB_ECN_KMIN])
		ecn->kmin = nla_get_u32(tb[TCA_DCB_ECN_KMIN]);
	if (tb[TCA_DCB_ECN_KMAX])
		ecn->kmax = nla_get_u32(tb[TCA_DCB_ECN_KMAX]);
	if (tb[TCA_DCB_ECN_PMAX])
		ecn->pmax = nla_get_u32(tb[TCA_DCB_ECN_PMAX]);

	switch (ecn->mode) {
	case TC_DCB_ECN_RED:
		if (ecn->kmin >= ecn->kmax) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DCB_ECN_KMIN] ?: attr,
					    "red: kmin must be below kmax");
			return -EINVAL;
		}
		return 0;
	case TC_DCB_ECN_NP_ECN:
		if (ecn->kmax || ecn->pmax) {
			NL_SET_ERR_MSG_ATTR(extack, ecn->kmax ? tb[TCA_DCB_ECN_KMAX] :
					    tb[TCA_DCB_ECN_PMAX],
					    "np-ecn: kmax and pmax must be 0 (K is kmin)");
			return -EINVAL;
		}
		return 0;
	default:
		return 0;
	}
}

/*
 * NP-ECN marks what leaves a band holding more than K bytes; a K the
 * band can never hold would mark nothing.  Checked on the configuration
 * as a whole, as a limit may change in the same message.
 */
static int dcb_check_np_ecn(const struct dcb_cfg *cfg,
			    struct netlink_ext_ack *extack)
{
	const struct dcb_ecn *ecn;
	unsigned int i;
	u32 limit;

	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		ecn = cfg->band[i].ecn_own ? &cfg->band[i].ecn : &cfg->ecn;
		limit = cfg->band[i].limit ? min(cfg->band[i].limit, cfg->limit) :
					     cfg->limit;
		if (ecn->mode == TC_DCB_ECN_NP_ECN && ecn->kmin >= limit) {
			NL_SET_ERR_MSG(extack,
				       "np-ecn: K must be below the band's limit (its own, else the port's)");
			return -EINVAL;
		}
	}
	return 0;
}

/* Apply one set of per-band attributes (already parsed) to @bc. */
static int dcb_apply_band(struct nlattr **tb, struct dcb_band_cfg *bc,
			  struct netlink_ext_ack *extack)
{
	struct dcb_ecn ecn;
	int err;

	if (tb[TCA_DCB_BAND_ECN] && tb[TCA_DCB_BAND_ECN_DEFAULT]) {
		NL_SET_ERR_MSG(extack,
			       "band: ecn and ecn default are mutually exclusive");
		return -EINVAL;
	}
	if (tb[TCA_DCB_BAND_ECN]) {
		err = dcb_parse_ecn(tb[TCA_DCB_BAND_ECN], &ecn, extack);
		if (err)
			return err;
		bc->ecn = ecn;
		bc->ecn_own = true;
	}
	if (tb[TCA_DCB_BAND_ECN_DEFAULT]) {
		memset(&bc->ecn, 0, sizeof(bc->ecn));
		bc->ecn_own = false;
	}
	if (tb[TCA_DCB_BAND_LIMIT])
		bc->limit = nla_get_u32(tb[TCA_DCB_BAND_LIMIT]);
	if (tb[TCA_DCB_BAND_NONECT])
		bc->nonect = nla_get_u8(tb[TCA_DCB_BAND_NONECT]);
	return 0;
}

static int dcb_parse_bands(struct nlattr *nest, struct dcb_cfg *cfg,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_DCB_BAND_MAX + 1];
	struct nlattr *attr;
	int rem, err;

	nla_for_each_nested(attr, nest, rem) {
		if (nla_type(attr) != TCA_DCB_BAND) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "unexpected attribute in bands");
			return -EINVAL;
		}
		err = nla_parse_nested(tb, TCA_DCB_BAND_MAX, attr,
				       dcb_band_policy, extack);
		if (err)
			return err;
		if (!tb[TCA_DCB_BAND_INDEX]) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "band index missing");
			return -EINVAL;
		}
		err = dcb_apply_band(tb,
				     &cfg->band[nla_get_u8(tb[TCA_DCB_BAND_INDEX])],
				     extack);
		if (err)
			return err;
	}
	return 0;
}

/* The PFC nest replaces the port's PFC settings as a whole. */
static int dcb_parse_pfc(struct nlattr *nest, struct dcb_pfc_cfg *pfc,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_DCB_PFC_MAX + 1];
	int err;

	err = nla_parse_nested(tb, TCA_DCB_PFC_MAX, nest, dcb_pfc_policy,
			       extack);
	if (err)
		return err;
	memset(pfc, 0, sizeof(*pfc));
	if (tb[TCA_DCB_PFC_PRIO_MASK])
		pfc->mask = nla_get_u8(tb[TCA_DCB_PFC_PRIO_MASK]);
	if (tb[TCA_DCB_PFC_XOFF])
		pfc->xoff = nla_get_u32(tb[TCA_DCB_PFC_XOFF]);
	if (tb[TCA_DCB_PFC_XON])
		pfc->xon = nla_get_u32(tb[TCA_DCB_PFC_XON]);
	if (tb[TCA_DCB_PFC_BETA])
		pfc->beta = nla_get_u32(tb[TCA_DCB_PFC_BETA]);
	if (tb[TCA_DCB_PFC_HEADROOM])
		pfc->headroom = nla_get_u32(tb[TCA_DCB_PFC_HEADROOM]);
	if (tb[TCA_DCB_PFC_QUANTA])
		pfc->quanta = nla_get_u16(tb[TCA_DCB_PFC_QUANTA]);
	if (tb[TCA_DCB_PFC_DELAY])
		pfc->delay_us = nla_get_u32(tb[TCA_DCB_PFC_DELAY]);
	if (tb[TCA_DCB_PFC_OVERFLOW])
		pfc->overflow = nla_get_u8(tb[TCA_DCB_PFC_OVERFLOW]);
	return 0;
}

/*
 * Parse @opt on top of @cfg.  On error @cfg may be partly written.
 * *@buffer: the pool size asked for (0 = unlimited), or DCB_BUFFER_KEEP;
 * a one-shot request to the pool, not part of the configuration.
 */
int dcb_parse(struct nlattr *opt, struct dcb_cfg *cfg, s64 *buffer,
	      bool create, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_DCB_MAX + 1];
	struct dcb_ecn ecn;
	unsigned int i;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "dcb: options are required (rate)");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_DCB_MAX, opt, dcb_policy, extack);
	if (err)
		return err;

	if (!tb[TCA_DCB_RATE64] && create) {
		NL_SET_ERR_MSG(extack, "dcb: rate is required (0 = not shaped)");
		return -EINVAL;
	}
	if (tb[TCA_DCB_RATE64])
		cfg->rate = nla_get_u64(tb[TCA_DCB_RATE64]);
	if (tb[TCA_DCB_OVERHEAD])
		cfg->overhead = nla_get_u32(tb[TCA_DCB_OVERHEAD]);
	if (tb[TCA_DCB_BURST])
		cfg->burst = nla_get_u32(tb[TCA_DCB_BURST]);
	if (tb[TCA_DCB_LIMIT])
		cfg->limit = nla_get_u32(tb[TCA_DCB_LIMIT]);
	if (tb[TCA_DCB_CLASSIFY])
		cfg->classify = nla_get_u8(tb[TCA_DCB_CLASSIFY]);
	if (tb[TCA_DCB_DSCP_MAP]) {
		const u8 *map = nla_data(tb[TCA_DCB_DSCP_MAP]);

		for (i = 0; i < TC_DCB_NUM_DSCP; i++) {
			if (map[i] >= TC_DCB_NUM_BANDS) {
				NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DCB_DSCP_MAP],
						    "dscp map: band out of range 0-7");
				return -EINVAL;
			}
		}
		memcpy(cfg->dscp_map, map, TC_DCB_NUM_DSCP);
	}
	if (tb[TCA_DCB_ECN]) {
		err = dcb_parse_ecn(tb[TCA_DCB_ECN], &ecn, extack);
		if (err)
			return err;
		cfg->ecn = ecn;
	}
	if (tb[TCA_DCB_NONECT])
		cfg->nonect = nla_get_u8(tb[TCA_DCB_NONECT]);
	if (tb[TCA_DCB_BANDS]) {
		err = dcb_parse_bands(tb[TCA_DCB_BANDS], cfg, extack);
		if (err)
			return err;
	}
	if (tb[TCA_DCB_POOL]) {
		if (!create && nla_get_u32(tb[TCA_DCB_POOL]) != cfg->pool) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_DCB_POOL],
					    "pool cannot be changed; replace the qdisc");
			return -EINVAL;
		}
		cfg->pool = nla_get_u32(tb[TCA_DCB_POOL]);
	}
	*buffer = tb[TCA_DCB_BUFFER] ? nla_get_u32(tb[TCA_DCB_BUFFER]) :
				       DCB_BUFFER_KEEP;
	if (tb[TCA_DCB_PFC]) {
		err = dcb_parse_pfc(tb[TCA_DCB_PFC], &cfg->pfc, extack);
		if (err)
			return err;
	}
	return dcb_check_np_ecn(cfg, extack);
}

/*
 * Check @cfg against the device and the pool (headroom, reserves).  PFC
 * frames are Ethernet MAC control frames: a port sends them with an
 * Ethernet header and only an Ethernet device delivers them to
 * dcb_pause_rcv(), so a device of any other type (tun, ipip, gre, ...)
 * can neither pause its peer nor be paused.
 */
int dcb_check(struct Qdisc *sch, const struct dcb_cfg *cfg,
	      s64 buffer, struct netlink_ext_ack *extack)
{
	const struct net_device *dev = qdisc_dev(sch);
	struct dcb_sched *q = qdisc_priv(sch);

	if (cfg->pfc.mask &&
	    (dev->type != ARPHRD_ETHER || dev->addr_len != ETH_ALEN)) {
		NL_SET_ERR_MSG(extack,
			       "pfc: the device is not Ethernet (PFC frames are Ethernet MAC control frames)");
		return -EOPNOTSUPP;
	}
	return dcb_pool_check(q->pool, q->port, &cfg->pfc, buffer,
			      cfg->rate, psched_mtu(qdisc_dev(sch)), extack);
}

/*
 * Parse the options of `tc class change` of band @cl - 1 into @tb, for
 * dcb_apply_class() to apply to a copy of the configuration.
 */
int dcb_parse_class(struct nlattr *opt, unsigned long cl, struct nlattr **tb,
		    struct netlink_ext_ack *extack)
{
	int err;

	if (!opt) {
		NL_SET_ERR_MSG(extack, "dcb: band options are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_DCB_BAND_MAX, opt, dcb_band_policy,
			       extack);
	if (err)
		return err;
	if (tb[TCA_DCB_BAND_INDEX] &&
	    nla_get_u8(tb[TCA_DCB_BAND_INDEX]) != cl - 1) {
		NL_SET_ERR_MSG(extack, "dcb: band index does not match classid");
		return -EINVAL;
	}
	return 0;
}

/* Apply the class options @tb of band @cl - 1 to @cfg, and check it. */
int dcb_apply_class(struct nlattr **tb, unsigned long cl, struct dcb_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	int err;

	err = dcb_apply_band(tb, &cfg->band[cl - 1], extack);
	if (!err)
		err = dcb_check_np_ecn(cfg, extack);
	return err;
}

/* ------------------------------------------------------------------ */
/* Dumps                                                              */

/* Every member, so a reader sees the curve whole. */
static int dcb_put_ecn(struct sk_buff *skb, int type, const struct dcb_ecn *ecn)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest ||
	    nla_put_u8(skb, TCA_DCB_ECN_MODE, ecn->mode) ||
	    nla_put_u32(skb, TCA_DCB_ECN_KMIN, ecn->kmin) ||
	    nla_put_u32(skb, TCA_DCB_ECN_KMAX, ecn->kmax) ||
	    nla_put_u32(skb, TCA_DCB_ECN_PMAX, ecn->pmax))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int dcb_put_band(struct sk_buff *skb, const struct dcb_band_cfg *bc)
{
	if (nla_put_u32(skb, TCA_DCB_BAND_LIMIT, bc->limit))
		return -EMSGSIZE;
	if (bc->nonect && nla_put_u8(skb, TCA_DCB_BAND_NONECT, bc->nonect))
		return -EMSGSIZE;
	if (bc->ecn_own && dcb_put_ecn(skb, TCA_DCB_BAND_ECN, &bc->ecn))
		return -EMSGSIZE;
	return 0;
}

/* PFC as in force: the port's settings with the defaults resolved. */
static int dcb_put_pfc(struct sk_buff *skb, const struct dcb_sched *q)
{
	struct dcb_pfc_cfg pfc = q->cfg.pfc;
	struct nlattr *nest;

	if (q->port)
		dcb_port_pfc(q->port, &pfc);
	nest = nla_nest_start(skb, TCA_DCB_PFC);
	if (!nest ||
	    nla_put_u8(skb, TCA_DCB_PFC_PRIO_MASK, pfc.mask) ||
	    nla_put_u32(skb, TCA_DCB_PFC_XOFF, pfc.xoff) ||
	    nla_put_u32(skb, TCA_DCB_PFC_XON, pfc.xon) ||
	    nla_put_u32(skb, TCA_DCB_PFC_BETA, pfc.beta) ||
	    nla_put_u32(skb, TCA_DCB_PFC_HEADROOM, pfc.headroom) ||
	    nla_put_u16(skb, TCA_DCB_PFC_QUANTA, pfc.quanta) ||
	    nla_put_u32(skb, TCA_DCB_PFC_DELAY, pfc.delay_us) ||
	    nla_put_u8(skb, TCA_DCB_PFC_OVERFLOW, pfc.overflow))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int dcb_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct dcb_sched *q = qdisc_priv(sch);
	const struct dcb_cfg *cfg = &q->cfg;
	struct nlattr *opts, *bands, *band;
	unsigned int i;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u64_64bit(skb, TCA_DCB_RATE64, cfg->rate, TCA_DCB_PAD) ||
	    nla_put_u32(skb, TCA_DCB_OVERHEAD, cfg->overhead) ||
	    nla_put_u32(skb, TCA_DCB_BURST, cfg->burst) ||
	    nla_put_u32(skb, TCA_DCB_LIMIT, cfg->limit) ||
	    nla_put_u8(skb, TCA_DCB_CLASSIFY, cfg->classify) ||
	    nla_put(skb, TCA_DCB_DSCP_MAP, TC_DCB_NUM_DSCP, cfg->dscp_map) ||
	    dcb_put_ecn(skb, TCA_DCB_ECN, &cfg->ecn) ||
	    nla_put_u8(skb, TCA_DCB_NONECT, cfg->nonect))
		goto nla_put_failure;

	bands = nla_nest_start(skb, TCA_DCB_BANDS);
	if (!bands)
		goto nla_put_failure;
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		const struct dcb_band_cfg *bc = &cfg->band[i];

		if (!bc->ecn_own && !bc->limit && !bc->nonect)
			continue;
		band = nla_nest_start(skb, TCA_DCB_BAND);
		if (!band || nla_put_u8(skb, TCA_DCB_BAND_INDEX, i) ||
		    dcb_put_band(skb, bc))
			goto nla_put_failure;
		nla_nest_end(skb, band);
	}
	nla_nest_end(skb, bands);
	if (nla_put_u32(skb, TCA_DCB_POOL, cfg->pool) ||
	    nla_put_u32(skb, TCA_DCB_BUFFER, dcb_pool_size(q->pool)) ||
	    dcb_put_pfc(skb, q))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

/* Time band @b has been held by the peer's PAUSEs, in us; rx_lock held. */
static u64 dcb_paused_us(const struct dcb_band *b, u64 now)
{
	u64 ns = b->paused_ns;

	if (b->paused_until)
		ns += min(now, b->paused_until) - b->pause_start;
	return div_u64(ns, NSEC_PER_USEC);
}

static void dcb_fill_stats(struct dcb_sched *q, unsigned int band,
			   struct tc_dcb_stats *st)
{
	const struct dcb_band *b = &q->band[band];
	struct dcb_port_stats ps;

	*st = b->st;
	st->deq_packets = u64_stats_read(&b->bstats.packets);
	st->deq_bytes = u64_stats_read(&b->bstats.bytes);
	st->backlog_bytes = b->backlog;
	st->backlog_packets = b->q.qlen;

	spin_lock_bh(&q->rx_lock);
	st->paused_us = dcb_paused_us(b, ktime_get_ns());
	spin_unlock_bh(&q->rx_lock);

	if (!q->port)
		return;
	dcb_port_stats(q->pool, q->port, band, &ps);
	st->pause_tx = ps.pause_tx;
	st->resume_tx = ps.resume_tx;
	st->in_bytes = ps.in_bytes;
	st->in_peak = ps.in_peak;
	st->in_headroom = ps.in_headroom;
	st->in_drops = ps.in_drops;
	st->in_borrowed = ps.in_borrowed;
	st->xoff = ps.xoff;
	st->pause_inflight_peak = ps.inflight_peak;
	st->pause_react_us = ps.react_us;
}

/* Totals: sums, except peaks and thresholds (maxima). */
static void dcb_stats_add(struct tc_dcb_stats *sum,
			  const struct tc_dcb_stats *st)
{
	const u64 *from = (const u64 *)st;
	u64 peak = sum->in_peak, xoff = sum->xoff;
	u64 inflight = sum->pause_inflight_peak;
	u64 react = sum->pause_react_us;
	u64 *to = (u64 *)sum;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*st) % sizeof(u64));
	for (i = 0; i < sizeof(*st) / sizeof(u64); i++)
		to[i] += from[i];
	sum->in_peak = max(peak, st->in_peak);
	sum->xoff = max(xoff, st->xoff);
	sum->pause_inflight_peak = max(inflight, st->pause_inflight_peak);
	sum->pause_react_us = max(react, st->pause_react_us);
}

/*
 * The header of a TCA_STATS_APP (pkt_sched_dcb.h): the size of each
 * block that follows it, the port's and the pool's only for the port.
 */
static void dcb_xstats_hdr(struct tc_dcb_xstats *hdr, bool port)
{
	/* the blocks follow each other: each a multiple of 8 bytes */
	BUILD_BUG_ON(sizeof(struct tc_dcb_xstats) % 8 ||
		     sizeof(struct tc_dcb_port_stats) % 8 ||
		     sizeof(struct tc_dcb_stats) % 8 ||
		     sizeof(struct tc_dcb_pool_stats) % 8);
	hdr->version = TC_DCB_XSTATS_VERSION;
	hdr->nbands = TC_DCB_NUM_BANDS;
	hdr->size = sizeof(*hdr);
	hdr->port_size = port ? sizeof(struct tc_dcb_port_stats) : 0;
	hdr->stats_size = sizeof(struct tc_dcb_stats);
	hdr->pool_size = port ? sizeof(struct tc_dcb_pool_stats) : 0;
}

/* The port's statistics: header, port, totals, pool. */
int dcb_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_xstats *xs = &q->xstats;
	struct tc_dcb_stats st;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*xs) != sizeof(xs->hdr) + sizeof(xs->port) +
		     sizeof(xs->total) + sizeof(xs->pool));
	memset(xs, 0, sizeof(*xs));
	dcb_xstats_hdr(&xs->hdr, true);
	xs->port.rate = q->cfg.rate;
	/* the core dumps without the qdisc lock: the queues need it */
	sch_tree_lock(sch);
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		dcb_fill_stats(q, i, &st);
		dcb_stats_add(&xs->total, &st);
	}
	xs->total.backlog_peak = q->backlog_peak;
	xs->total.shaper_lag_us = div_u64(q->lag_ns, NSEC_PER_USEC);
	sch_tree_unlock(sch);
	dcb_pool_stats(q->pool, &xs->pool);
	spin_lock_bh(&q->rx_lock);
	xs->port.pfc_malformed = q->pfc_malformed;
	spin_unlock_bh(&q->rx_lock);
	return gnet_stats_copy_app(d, xs, sizeof(*xs));
}

int dcb_dump_class(struct Qdisc *sch, unsigned long cl,
		   struct sk_buff *skb, struct tcmsg *tcm)
{
	struct dcb_sched *q = qdisc_priv(sch);
	const struct dcb_band *b = &q->band[cl - 1];
	struct dcb_band_cfg bc = q->cfg.band[cl - 1];
	struct nlattr *opts;

	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = sch->handle | cl;
	tcm->tcm_info = 0;

	/* Classes show the curve in force, whether own or inherited. */
	bc.ecn = b->ecn;
	bc.ecn_own = true;
	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		return -EMSGSIZE;
	if (dcb_put_band(skb, &bc)) {
		nla_nest_cancel(skb, opts);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, opts);
	return skb->len;
}

/* A band's statistics: header, the band's counters. */
int dcb_dump_class_stats(struct Qdisc *sch, unsigned long cl,
			 struct gnet_dump *d)
{
	struct dcb_sched *q = qdisc_priv(sch);
	struct dcb_band *b = &q->band[cl - 1];
	struct gnet_stats_queue qs = {};
	struct {
		struct tc_dcb_xstats	hdr;
		struct tc_dcb_stats	st;
	} xs;

	BUILD_BUG_ON(sizeof(xs) != sizeof(xs.hdr) + sizeof(xs.st));
	dcb_xstats_hdr(&xs.hdr, false);
	sch_tree_lock(sch);
	qs.qlen = b->q.qlen;
	qs.backlog = b->backlog;
	qs.drops = b->st.drops_tail + b->st.drops_wred + b->st.drops_headroom;
	dcb_fill_stats(q, cl - 1, &xs.st);
	sch_tree_unlock(sch);
	if (gnet_stats_copy_basic(d, NULL, &b->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, qs.qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &xs, sizeof(xs));
}
