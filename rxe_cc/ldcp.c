// SPDX-License-Identifier: GPL-2.0
/*
 * ldcp.c: LDCP's sender as an rxe_cc algorithm ("ldcp").
 *
 * A module of its own (rxe_cc_ldcp.ko, loaded after rdma_rxe) that
 * registers with the engine.  The engine marks request packets ECT(0)
 * unless pkt_prep says otherwise (RXE_CC_F_ECT), and the responder sets
 * BECN in the next ACK after a CE-marked request (RXE_CC_F_BECN); no
 * CNPs.  pkt_prep (requester) asks for ACKs and applies the fast start,
 * on_ack (receive softirq) runs the window rule of ldcp_sm.c and hands
 * the window to rxe_cc_set_window().  The engine serialises the
 * callbacks of a QP: no locking here.  Knobs: cc/ldcp/<name>, read once
 * per QP at its creation.  See Documentation/ldcp.rst.
 */

#include "rxe_cc.h"
#include "ldcp_sm.h"

#define CREATE_TRACE_POINTS
#include "ldcp_trace.h"

struct ldcp_knobs {
	u32 alpha;		/* /1024 packets per RTT */
	u32 beta;		/* /1024 packets per ECE-acked packet */
	u32 min_cwnd_pkts;
	u32 max_cwnd_pkts;
	u32 init_window_pkts;	/* 0 = no fast start */
	u32 ack_every;		/* packets */
};

/* Defaults and their reasons: Documentation/ldcp.rst. */
static const struct rxe_cc_param ldcp_knobs[] = {
	RXE_CC_KNOB(struct ldcp_knobs, alpha, 1024, 1, LDCP_FRAC_ONE),
	RXE_CC_KNOB(struct ldcp_knobs, beta, 128, 1, LDCP_FRAC_ONE),
	RXE_CC_KNOB(struct ldcp_knobs, min_cwnd_pkts, 1, 1, LDCP_MAX_CWND),
	RXE_CC_KNOB(struct ldcp_knobs, max_cwnd_pkts, LDCP_MAX_CWND, 1,
		    LDCP_MAX_CWND),
	RXE_CC_KNOB_AUTO(struct ldcp_knobs, init_window_pkts, 16, 0,
			 LDCP_MAX_CWND),
	RXE_CC_KNOB(struct ldcp_knobs, ack_every, 1, 1, 64),
};

struct ldcp_qp {
	struct rxe_qp		*qp;
	struct ldcp_params	p;
	struct ldcp_sm		sm;
	u32			window;	/* last window given to the engine */
};

/* Give a changed window to the engine, trace. */
static void ldcp_apply(struct ldcp_qp *d, u32 n, bool ece)
{
	u32 w = ldcp_sm_window(&d->sm, &d->p);

	if (w != d->window) {
		d->window = w;
		rxe_cc_set_window(d->qp, w);
	}
	trace_rxe_cc_ldcp(qp_num(d->qp), d->sm.cwnd, w, n, ece);
}

static int ldcp_init(struct rxe_qp *qp)
{
	struct ldcp_qp *d = rxe_cc_priv(qp);
	const struct ldcp_knobs *k = rxe_cc_params(qp);
	struct ldcp_params *p = &d->p;

	BUILD_BUG_ON(LDCP_MAX_CWND > RXE_MAX_UNACKED_PSNS);
	p->alpha = rxe_cc_knob_get(k, alpha);
	p->beta = rxe_cc_knob_get(k, beta);
	p->min_cwnd = rxe_cc_knob_get(k, min_cwnd_pkts);
	p->max_cwnd = rxe_cc_knob_get(k, max_cwnd_pkts);
	p->init_window = rxe_cc_knob_get(k, init_window_pkts);
	p->ack_every = rxe_cc_knob_get(k, ack_every);
	ldcp_params_sanitize(p);

	d->qp = qp;
	ldcp_sm_init(&d->sm, p);
	d->window = ldcp_sm_window(&d->sm, p);
	rxe_cc_set_window(qp, d->window);
	/* window-based: no pacing below the device's own limits */
	rxe_cc_set_rate(qp, 0);
	return 0;
}

static void ldcp_pkt_prep(struct rxe_qp *qp, struct rxe_cc_pkt *p)
{
	struct ldcp_qp *d = rxe_cc_priv(qp);
	struct ldcp_pkt pkt = {
		.first = p->first,
		.last = p->last,
		.retry = p->retry,
		.npsn = p->npsn,
		.ackreq = p->ackreq,
	};

	if (ldcp_sm_pkt_prep(&d->sm, &d->p, &pkt))
		ldcp_apply(d, 0, false);
	p->ect = pkt.ect;
	p->ackreq = pkt.ackreq;
}

static void ldcp_pkt_unsent(struct rxe_qp *qp, const struct rxe_cc_pkt *p)
{
	struct ldcp_qp *d = rxe_cc_priv(qp);

	ldcp_sm_pkt_unsent(&d->sm);
}

static void ldcp_on_ack(struct rxe_qp *qp, u32 npkts, bool becn)
{
	struct ldcp_qp *d = rxe_cc_priv(qp);

	if (ldcp_sm_on_ack(&d->sm, &d->p, npkts, becn))
		ldcp_apply(d, npkts, becn);
}

/* The fast-start window: one BDP (ldcp_sm_auto_init_window()). */
static void ldcp_defaults(void *params, const struct rxe_cc_env *env)
{
	struct ldcp_knobs *k = params;

	k->init_window_pkts = ldcp_sm_auto_init_window(env->line_kbps,
						       env->rtt_us, env->mtu);
}

static struct rxe_cc_ops ldcp_ops = {
	.name = "ldcp",
	.owner = THIS_MODULE,
	.flags = RXE_CC_F_ECT | RXE_CC_F_BECN,
	.priv_size = sizeof(struct ldcp_qp),
	.params_size = sizeof(struct ldcp_knobs),
	.params = ldcp_knobs,
	.nparams = ARRAY_SIZE(ldcp_knobs),
	.init = ldcp_init,
	.pkt_prep = ldcp_pkt_prep,
	.pkt_unsent = ldcp_pkt_unsent,
	.on_ack = ldcp_on_ack,
	.defaults = ldcp_defaults,
};

static int __init ldcp_module_init(void)
{
	return rxe_cc_register(&ldcp_ops);
}

static void __exit ldcp_module_exit(void)
{
	rxe_cc_unregister(&ldcp_ops);
}

module_init(ldcp_module_init);
module_exit(ldcp_module_exit);

MODULE_DESCRIPTION("LDCP window congestion control for the rxe_cc engine");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RXE_CC("ldcp");
