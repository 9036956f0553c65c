// SPDX-License-Identifier: GPL-2.0
/*
 * dcqcn.c: DCQCN's reaction point as an rxe_cc algorithm ("dcqcn").
 *
 * A module of its own (rxe_cc_dcqcn.ko, loaded after rdma_rxe) that
 * registers with the engine.  The engine sends CNPs on CE (RXE_CC_F_NP)
 * and marks data ECT(0) (RXE_CC_F_ECT); this file feeds CNPs, sent bytes
 * and the engine's per-QP timer to the state machine of dcqcn_sm.c and
 * passes every new R_C to rxe_cc_set_rate().  The engine serialises the
 * callbacks of a QP: no locking here.  Knobs: cc/dcqcn/<mlx5 name>, read
 * once per QP at its creation; the engine derives their defaults from
 * the line rate and the base RTT through dcqcn_defaults().  See
 * Documentation/dcqcn.rst.
 */

#include <linux/ktime.h>

#include "rxe_cc.h"
#include "dcqcn_sm.h"

#define CREATE_TRACE_POINTS
#include "dcqcn_trace.h"

/* without a device ceiling or rpg_max_rate: the line rate we start from */
#define DCQCN_DEFAULT_LINE_KBPS	10000000U

struct dcqcn_knobs {
	u32 rpg_time_reset;		/* us, up to 4 s (ns in a u32) */
	u32 rpg_byte_reset;		/* bytes */
	u32 rpg_threshold;
	u32 rpg_ai_rate;		/* kb/s */
	u32 rpg_hai_rate;		/* kb/s */
	u32 rpg_min_rate;		/* kb/s */
	u32 rpg_max_rate;		/* kb/s, 0 = device line rate */
	u32 rpg_min_dec_fac;		/* % */
	u32 rate_to_set_on_first_cnp;	/* kb/s, 0 = off */
	u32 clamp_tgt_rate;
	u32 dce_tcp_g;			/* /1024 */
	u32 dce_tcp_rtt;		/* us */
	u32 initial_alpha_value;	/* /1024 */
};

/*
 * Defaults: the paper's deployment (Fig. 14) at 40 Gb/s, scaled to the
 * device's line rate and base RTT by dcqcn_defaults(); dcqcn.rst.
 */
static const struct rxe_cc_param dcqcn_knobs[] = {
	RXE_CC_KNOB_AUTO(struct dcqcn_knobs, rpg_time_reset, 55, 0, 4000000),
	RXE_CC_KNOB_AUTO(struct dcqcn_knobs, rpg_byte_reset, 10485760, 0,
			 U32_MAX),
	RXE_CC_KNOB(struct dcqcn_knobs, rpg_threshold, 5, 1, 1000),
	RXE_CC_KNOB_AUTO(struct dcqcn_knobs, rpg_ai_rate, 40000, 0, 100000000),
	RXE_CC_KNOB_AUTO(struct dcqcn_knobs, rpg_hai_rate, 50000, 0, 100000000),
	RXE_CC_KNOB_AUTO(struct dcqcn_knobs, rpg_min_rate, 1000, 1, 100000000),
	RXE_CC_KNOB(struct dcqcn_knobs, rpg_max_rate, 0, 0, 4000000000U),
	RXE_CC_KNOB(struct dcqcn_knobs, rpg_min_dec_fac, 50, 0, 100),
	RXE_CC_KNOB(struct dcqcn_knobs, rate_to_set_on_first_cnp, 0, 0,
		    4000000000U),
	RXE_CC_KNOB(struct dcqcn_knobs, clamp_tgt_rate, 1, 0, 1),
	RXE_CC_KNOB(struct dcqcn_knobs, dce_tcp_g, 1020, 0, 1024),
	RXE_CC_KNOB_AUTO(struct dcqcn_knobs, dce_tcp_rtt, 55, 0, 4000000),
	RXE_CC_KNOB(struct dcqcn_knobs, initial_alpha_value, 1024, 0, 1024),
};

struct dcqcn_qp {
	struct rxe_qp		*qp;
	struct dcqcn_params	p;
	struct dcqcn_sm		sm;
	u32			rate;	/* last rate given to the engine */
};

/* After a state-machine call: rate, trace, the alpha and increase timer. */
static void dcqcn_apply(struct dcqcn_qp *d, bool trace)
{
	struct dcqcn_sm *s = &d->sm;
	u32 rate = s->rc >= d->p.line_rate ? 0 : s->rc;
	u64 next = dcqcn_sm_next_event(s);

	if (rate != d->rate) {
		d->rate = rate;
		rxe_cc_set_rate(d->qp, rate);
	}
	if (trace)
		trace_rxe_cc_dcqcn(d->qp->ibqp.device->name, qp_num(d->qp),
				   s->rc, s->rt, s->alpha, s->t, s->bc,
				   s->last_event);
	/* a timer left armed when nothing is due just finds nothing */
	if (next)
		rxe_cc_timer_arm(d->qp, next);
}

static void dcqcn_on_timer(struct rxe_qp *qp)
{
	struct dcqcn_qp *d = rxe_cc_priv(qp);

	dcqcn_apply(d, dcqcn_sm_on_timer(&d->sm, &d->p, ktime_get_ns()));
}

static int dcqcn_init(struct rxe_qp *qp)
{
	struct dcqcn_qp *d = rxe_cc_priv(qp);
	const struct dcqcn_knobs *k = rxe_cc_params(qp);
	struct dcqcn_params *p = &d->p;
	u32 line = rxe_cc_knob_get(k, rpg_max_rate);

	if (!line)
		line = rxe_cc_line_rate_kbps(qp);
	if (!line)
		line = DCQCN_DEFAULT_LINE_KBPS;
	p->line_rate = line;
	p->min_rate = rxe_cc_knob_get(k, rpg_min_rate);
	p->ai_rate = rxe_cc_knob_get(k, rpg_ai_rate);
	p->hai_rate = rxe_cc_knob_get(k, rpg_hai_rate);
	p->first_cnp_rate = rxe_cc_knob_get(k, rate_to_set_on_first_cnp);
	p->min_dec_fac = rxe_cc_knob_get(k, rpg_min_dec_fac);
	p->threshold = rxe_cc_knob_get(k, rpg_threshold);
	p->byte_reset = rxe_cc_knob_get(k, rpg_byte_reset);
	p->time_reset_ns = rxe_cc_knob_get(k, rpg_time_reset) * NSEC_PER_USEC;
	p->alpha_period_ns = rxe_cc_knob_get(k, dce_tcp_rtt) * NSEC_PER_USEC;
	p->g = rxe_cc_knob_get(k, dce_tcp_g);
	p->initial_alpha = rxe_cc_knob_get(k, initial_alpha_value);
	p->clamp_tgt_rate = rxe_cc_knob_get(k, clamp_tgt_rate);

	d->qp = qp;
	dcqcn_sm_init(&d->sm, p);
	/* flows start at line rate: no limit below the device's own */
	rxe_cc_set_rate(qp, 0);
	return 0;
}

static int dcqcn_on_cnp(struct rxe_qp *qp, const struct rxe_cc_cnp *cnp)
{
	struct dcqcn_qp *d = rxe_cc_priv(qp);

	dcqcn_sm_on_cnp(&d->sm, &d->p, ktime_get_ns());
	dcqcn_apply(d, true);
	return 0;
}

static void dcqcn_on_sent(struct rxe_qp *qp, u32 bytes)
{
	struct dcqcn_qp *d = rxe_cc_priv(qp);

	/* at line rate (no CNP yet) the byte counter does not run */
	if (!d->sm.cnps || !d->p.byte_reset)
		return;
	if (dcqcn_sm_on_sent(&d->sm, &d->p, bytes))
		dcqcn_apply(d, true);
}

/* cc/dcqcn/ knobs from the line rate and the base RTT (dcqcn_sm_auto()). */
static void dcqcn_defaults(void *params, const struct rxe_cc_env *env)
{
	struct dcqcn_knobs *k = params;
	struct dcqcn_auto a;

	dcqcn_sm_auto(&a, env->line_kbps, env->rtt_us, env->cnp_us, env->mtu);
	k->rpg_time_reset = a.time_reset_us;
	k->dce_tcp_rtt = a.alpha_period_us;
	k->rpg_byte_reset = a.byte_reset;
	k->rpg_ai_rate = a.ai_rate;
	k->rpg_hai_rate = a.hai_rate;
	k->rpg_min_rate = a.min_rate;
}

/*
 * The paper (section 3.1): the alpha timer K must be larger than the CNP
 * interval N, or alpha decays between two CNPs of a flow that is still
 * marked.  N is the NP's, on the receiving device; this compares with
 * this device's, the same when both ends are configured alike.
 */
static const char *dcqcn_check(const void *params,
			       const struct rxe_cc_env *env)
{
	const struct dcqcn_knobs *k = params;
	u32 alpha_us = rxe_cc_knob_get(k, dce_tcp_rtt);

	if (alpha_us && alpha_us <= env->cnp_us)
		return "dce_tcp_rtt (K) is not larger than min_time_between_cnps (N): alpha decays between CNPs (the paper requires K > N)";
	return NULL;
}

static struct rxe_cc_ops dcqcn_ops = {
	.name = "dcqcn",
	.owner = THIS_MODULE,
	.flags = RXE_CC_F_ECT | RXE_CC_F_NP,
	.priv_size = sizeof(struct dcqcn_qp),
	.params_size = sizeof(struct dcqcn_knobs),
	.params = dcqcn_knobs,
	.nparams = ARRAY_SIZE(dcqcn_knobs),
	.init = dcqcn_init,
	.on_sent = dcqcn_on_sent,
	.on_cnp = dcqcn_on_cnp,
	.on_timer = dcqcn_on_timer,
	.defaults = dcqcn_defaults,
	.check = dcqcn_check,
};

static int __init dcqcn_module_init(void)
{
	return rxe_cc_register(&dcqcn_ops);
}

static void __exit dcqcn_module_exit(void)
{
	rxe_cc_unregister(&dcqcn_ops);
}

module_init(dcqcn_module_init);
module_exit(dcqcn_module_exit);

MODULE_DESCRIPTION("DCQCN reaction point for the rxe_cc engine");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RXE_CC("dcqcn");
