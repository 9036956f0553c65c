// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_fixed.c: "fixed", the engine's reference algorithm.
 *
 * Every QP is paced at cc/fixed/rate_mbps (0: only the device ceiling),
 * data carries ECT(0), the notification point sends CNPs on CE, and
 * received CNPs are counted but do not change the rate.  It exercises
 * every hook without reacting, which makes it the baseline for tests and
 * the smallest example of an algorithm.
 */

#include "rxe_cc.h"

struct rxe_cc_fixed_params {
	u32 rate_mbps;
};

struct rxe_cc_fixed_qp {
	u32 cnps;
};

static const struct rxe_cc_param rxe_cc_fixed_params[] = {
	{
		.name = "rate_mbps",
		.offset = offsetof(struct rxe_cc_fixed_params, rate_mbps),
		.def = 0,
		.min = 0,
		.max = 4000000,
	},
};

static int rxe_cc_fixed_qp_init(struct rxe_qp *qp)
{
	u32 mbps = rxe_cc_param_get(qp, offsetof(struct rxe_cc_fixed_params,
						 rate_mbps));

	rxe_cc_set_rate(qp, mbps * 1000);
	return 0;
}

static int rxe_cc_fixed_on_cnp(struct rxe_qp *qp,
			       const struct rxe_cc_cnp *cnp)
{
	struct rxe_cc_fixed_qp *p = rxe_cc_priv(qp);

	p->cnps++;
	return 0;
}

static struct rxe_cc_ops rxe_cc_fixed_ops = {
	.name = "fixed",
	/*
	 * No owner: built into rdma_rxe, whose devices (and so their
	 * selection) are gone before it can be unloaded.  THIS_MODULE would
	 * make every device that selects fixed pin rdma_rxe itself.
	 */
	.flags = RXE_CC_F_ECT | RXE_CC_F_NP,
	.priv_size = sizeof(struct rxe_cc_fixed_qp),
	.params_size = sizeof(struct rxe_cc_fixed_params),
	.params = rxe_cc_fixed_params,
	.nparams = ARRAY_SIZE(rxe_cc_fixed_params),
	.init = rxe_cc_fixed_qp_init,
	.on_cnp = rxe_cc_fixed_on_cnp,
};

int rxe_cc_fixed_init(void)
{
	return rxe_cc_register(&rxe_cc_fixed_ops);
}

void rxe_cc_fixed_exit(void)
{
	rxe_cc_unregister(&rxe_cc_fixed_ops);
}
