// SPDX-License-Identifier: GPL-2.0
/*
 * pcn.c: PCN (NSDI'20) as an rxe_cc algorithm ("pcn").
 *
 * A module of its own (rxe_cc_pcn.ko, loaded after rdma_rxe) that
 * registers with the engine.  Data packets are ECT(0) (RXE_CC_F_ECT); the
 * engine's CE-triggered CNPs are off (no RXE_CC_F_NP) because PCN's
 * notification point sends its own: at the end of each period (the
 * engine's per-QP timer) it sends one CNP carrying the ECN flag and the
 * receiving rate of what arrived (pcn_sm.h).  The engine serialises the
 * callbacks of a QP: no locking here.  The reaction point feeds every valid CNP to
 * Algorithm 1 and passes the new rate to rxe_cc_set_rate().  Knobs:
 * cc/pcn/<name>, read once per QP at its creation.  See
 * Documentation/pcn.rst.
 */

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>

#include "rxe_cc.h"
#include "pcn_sm.h"

#define CREATE_TRACE_POINTS
#include "pcn_trace.h"

/* when the engine reports no line rate */
#define PCN_DEFAULT_LINE_KBPS	10000000U

struct pcn_knobs {
	u32 period_us;		/* NP period T, us */
	u32 ecn_threshold_pct;	/* ECN flag when CE/packets > this % */
	u32 w_min;		/* 1/65536 */
	u32 w_max;		/* 1/65536 */
	u32 min_rate_kbps;	/* rate floor, kb/s */
};

/*
 * Defaults: the paper's (section 5, 6) at 40 Gb/s, scaled to the device's
 * line rate and base RTT by pcn_defaults(); pcn.rst.
 */
static const struct rxe_cc_param pcn_knobs[] = {
	RXE_CC_KNOB_AUTO(struct pcn_knobs, period_us, 50, 1, 1000000),
	RXE_CC_KNOB(struct pcn_knobs, ecn_threshold_pct, 95, 0, 100),
	RXE_CC_KNOB(struct pcn_knobs, w_min, PCN_W_KNOB_ONE / 128, 1,
		    PCN_W_KNOB_ONE - 1),
	RXE_CC_KNOB(struct pcn_knobs, w_max, PCN_W_KNOB_ONE / 2, 1,
		    PCN_W_KNOB_ONE - 1),
	RXE_CC_KNOB_AUTO(struct pcn_knobs, min_rate_kbps, 1000, 1, 100000000),
};

/* cc/pcn/ knobs from the line rate and the base RTT (pcn_sm_auto()). */
static void pcn_defaults(void *params, const struct rxe_cc_env *env)
{
	struct pcn_knobs *k = params;
	struct pcn_auto a;

	pcn_sm_auto(&a, env->line_kbps, env->rtt_us, env->mtu);
	k->period_us = a.period_us;
	k->min_rate_kbps = a.min_rate;
}

struct pcn_qp {
	struct pcn_rp_params	rp_p;
	struct pcn_np_params	np_p;
	struct pcn_rp		rp;
	struct pcn_np		np;
	u64			period_end;	/* NP: timer expiry, ns */
};

/* Read-only module parameters counting CNPs over every QP. */
static atomic_long_t pcn_bad_cnps = ATOMIC_LONG_INIT(0);
static atomic_long_t pcn_clamped_cnps = ATOMIC_LONG_INIT(0);

static int pcn_counter_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(kp->arg));
}

static const struct kernel_param_ops pcn_counter_ops = {
	.get = pcn_counter_get,
};

module_param_cb(bad_cnps, &pcn_counter_ops, &pcn_bad_cnps, 0444);
MODULE_PARM_DESC(bad_cnps, "CNPs ignored for a malformed PCN payload");
module_param_cb(clamped_cnps, &pcn_counter_ops, &pcn_clamped_cnps, 0444);
MODULE_PARM_DESC(clamped_cnps,
		 "CNPs whose recRate was outside [min_rate_kbps, line rate], clamped");

/* NP: end of a period. */
static void pcn_on_timer(struct rxe_qp *qp)
{
	struct pcn_qp *d = rxe_cc_priv(qp);
	u8 rsvd[RXE_CC_CNP_RSVD_BYTES];
	u64 now = ktime_get_ns();
	struct pcn_cnp cnp;

	if (pcn_np_period_end(&d->np, &d->np_p, now, &cnp)) {
		pcn_cnp_encode(&cnp, rsvd);
		rxe_cc_send_cnp(qp, rsvd);
		trace_rxe_cc_pcn_cnp_sent(qp->ibqp.device->name, qp_num(qp),
					  cnp.rec_rate, cnp.ecn);
	}
	if (d->np.running) {
		/* the next period ends one period after this one did */
		d->period_end += d->np_p.period_ns;
		if ((s64)(d->period_end - now) <= 0)
			d->period_end = now + d->np_p.period_ns;
		rxe_cc_timer_arm(qp, d->period_end);
	}
}

static int pcn_init(struct rxe_qp *qp)
{
	struct pcn_qp *d = rxe_cc_priv(qp);
	const struct pcn_knobs *k = rxe_cc_params(qp);
	struct pcn_rp_params *p = &d->rp_p;
	u32 line = rxe_cc_line_rate_kbps(qp);

	BUILD_BUG_ON(PCN_CNP_BYTES != RXE_CC_CNP_RSVD_BYTES);
	if (!line)
		line = PCN_DEFAULT_LINE_KBPS;
	p->line_rate = line;
	p->min_rate = min(rxe_cc_knob_get(k, min_rate_kbps), line);
	/* knobs in 1/65536, the machine in 1/2^20 */
	p->w_max = rxe_cc_knob_get(k, w_max) << (PCN_W_SHIFT - PCN_W_KNOB_SHIFT);
	p->w_min = rxe_cc_knob_get(k, w_min) << (PCN_W_SHIFT - PCN_W_KNOB_SHIFT);
	if (p->w_min > p->w_max)
		p->w_min = p->w_max;
	d->np_p.period_ns = rxe_cc_knob_get(k, period_us) * NSEC_PER_USEC;
	d->np_p.ecn_threshold_pct = rxe_cc_knob_get(k, ecn_threshold_pct);

	pcn_rp_init(&d->rp, p);
	pcn_np_init(&d->np);
	/* flows start at the line rate */
	rxe_cc_set_rate(qp, line);
	return 0;
}

/* NP: a request packet arrived; the first of a run opens a period. */
static void pcn_on_rx(struct rxe_qp *qp, u32 bytes, bool ce)
{
	struct pcn_qp *d = rxe_cc_priv(qp);
	u64 now = ktime_get_ns();

	if (pcn_np_on_rx(&d->np, bytes, ce, now)) {
		d->period_end = now + d->np_p.period_ns;
		rxe_cc_timer_arm(qp, d->period_end);
	}
}

/* RP: a CNP from the peer; its payload is checked before any use. */
static int pcn_on_cnp(struct rxe_qp *qp, const struct rxe_cc_cnp *cnp)
{
	struct pcn_qp *d = rxe_cc_priv(qp);
	u32 clamped = d->rp.clamped;
	enum pcn_cnp_err err;
	struct pcn_cnp c;

	err = pcn_cnp_decode(cnp->rsvd, &c);
	if (err != PCN_CNP_OK) {
		atomic_long_inc(&pcn_bad_cnps);
		trace_rxe_cc_pcn_bad_cnp(qp_num(qp), err, cnp->rsvd[0],
					 cnp->rsvd[1]);
		return -EINVAL;
	}
	if (pcn_rp_on_cnp(&d->rp, &d->rp_p, c.ecn, c.rec_rate))
		rxe_cc_set_rate(qp, d->rp.rate);
	if (d->rp.clamped != clamped)
		atomic_long_inc(&pcn_clamped_cnps);
	trace_rxe_cc_pcn_rate(qp->ibqp.device->name, qp_num(qp), d->rp.rate,
			      d->rp.w, c.rec_rate, c.ecn);
	return 0;
}

static struct rxe_cc_ops pcn_ops = {
	.name = "pcn",
	.owner = THIS_MODULE,
	.flags = RXE_CC_F_ECT,
	.priv_size = sizeof(struct pcn_qp),
	.params_size = sizeof(struct pcn_knobs),
	.params = pcn_knobs,
	.nparams = ARRAY_SIZE(pcn_knobs),
	.init = pcn_init,
	.on_rx = pcn_on_rx,
	.on_cnp = pcn_on_cnp,
	.on_timer = pcn_on_timer,
	.defaults = pcn_defaults,
};

static int __init pcn_module_init(void)
{
	return rxe_cc_register(&pcn_ops);
}

static void __exit pcn_module_exit(void)
{
	rxe_cc_unregister(&pcn_ops);
}

module_init(pcn_module_init);
module_exit(pcn_module_exit);

MODULE_DESCRIPTION("PCN reaction and notification points for the rxe_cc engine");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RXE_CC("pcn");
