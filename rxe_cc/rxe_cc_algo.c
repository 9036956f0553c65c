// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_algo.c: the registry of rxe_cc algorithms, like tcp_cong.c.
 *
 * Algorithms register by name (modules load by their alias when a
 * device selects one), the engine checks what each asks for, and the
 * built-in "fixed" algorithm is registered when rdma_rxe loads.
 */

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "rxe_cc_loc.h"

static LIST_HEAD(rxe_cc_list);
static DEFINE_SPINLOCK(rxe_cc_list_lock);

static struct rxe_cc_ops *rxe_cc_find(const char *name)
{
	struct rxe_cc_ops *ops;

	list_for_each_entry(ops, &rxe_cc_list, list)
		if (!strcmp(ops->name, name))
			return ops;
	return NULL;
}

/*
 * The algorithm @name with a reference on its module, or NULL.  One not
 * registered yet is loaded as the module alias "rxe-cc-<name>" (each
 * algorithm module declares it with MODULE_ALIAS_RXE_CC), as TCP loads
 * "tcp_<name>" for its congestion control; only for a caller with
 * CAP_NET_ADMIN and a name of lower-case letters, digits and '_', so a
 * write cannot make modprobe look for anything else.
 */
struct rxe_cc_ops *rxe_cc_get(const char *name)
{
	struct rxe_cc_ops *ops;
	const char *c;
	bool tried = false;

again:
	spin_lock(&rxe_cc_list_lock);
	ops = rxe_cc_find(name);
	if (ops && !try_module_get(ops->owner))
		ops = NULL;
	spin_unlock(&rxe_cc_list_lock);
	if (ops || tried || !capable(CAP_NET_ADMIN))
		return ops;
	for (c = name; *c; c++)
		if (!islower(*c) && !isdigit(*c) && *c != '_')
			return NULL;
	tried = true;
	if (request_module("rxe-cc-%s", name))
		return NULL;
	goto again;
}

/* The knobs become u32 files of cc/<algo>/ reading @params_size bytes. */
static int rxe_cc_check_params(const struct rxe_cc_ops *ops)
{
	unsigned int i, j;

	if (!ops->nparams)
		return 0;
	if (!ops->params || ops->nparams > RXE_CC_PARAMS_MAX)
		return -EINVAL;
	for (i = 0; i < ops->nparams; i++) {
		const struct rxe_cc_param *p = &ops->params[i];

		if (!p->name || !p->name[0] || strchr(p->name, '/') ||
		    !strcmp(p->name, "origin") ||
		    !IS_ALIGNED(p->offset, sizeof(u32)) ||
		    p->offset > ops->params_size ||
		    ops->params_size - p->offset < sizeof(u32) ||
		    p->min > p->max || p->def < p->min || p->def > p->max)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (!strcmp(p->name, ops->params[j].name))
				return -EINVAL;
	}
	return 0;
}

/* Validates what the engine relies on, like tcp_register_congestion_control. */
int rxe_cc_register(struct rxe_cc_ops *ops)
{
	int err = 0;

	if (!ops->name || !ops->name[0] || !strcmp(ops->name, "none") ||
	    strnlen(ops->name, RXE_CC_NAME_MAX) >= RXE_CC_NAME_MAX ||
	    strchr(ops->name, '/') || (ops->flags & ~RXE_CC_FLAGS) ||
	    ops->priv_size > RXE_CC_PRIV_MAX || rxe_cc_check_params(ops)) {
		pr_err("rxe_cc: algorithm %s: invalid ops\n",
		       ops->name ? ops->name : "(null)");
		return -EINVAL;
	}
	spin_lock(&rxe_cc_list_lock);
	if (rxe_cc_find(ops->name))
		err = -EEXIST;
	else
		list_add_tail(&ops->list, &rxe_cc_list);
	spin_unlock(&rxe_cc_list_lock);
	return err;
}
EXPORT_SYMBOL_GPL(rxe_cc_register);

/*
 * The owner's module reference, taken by every device that selected the
 * algorithm, keeps this from being called while it is in use.
 */
void rxe_cc_unregister(struct rxe_cc_ops *ops)
{
	spin_lock(&rxe_cc_list_lock);
	list_del(&ops->list);
	spin_unlock(&rxe_cc_list_lock);
}
EXPORT_SYMBOL_GPL(rxe_cc_unregister);

/* cc/available_algos: "none" and the registered algorithms */
ssize_t rxe_cc_algos_show(char *buf)
{
	struct rxe_cc_ops *ops;
	ssize_t n;

	n = sysfs_emit(buf, "none");
	spin_lock(&rxe_cc_list_lock);
	list_for_each_entry(ops, &rxe_cc_list, list)
		n += sysfs_emit_at(buf, n, " %s", ops->name);
	spin_unlock(&rxe_cc_list_lock);
	n += sysfs_emit_at(buf, n, "\n");
	return n;
}

/*
 * "fixed", the engine's reference algorithm.
 *
 * Every QP is paced at cc/fixed/rate_mbps (0: only the device ceiling),
 * data carries ECT(0), the notification point sends CNPs on CE, and
 * received CNPs are counted but do not change the rate.  It exercises
 * every hook without reacting, which makes it the baseline for tests and
 * the smallest example of an algorithm.
 */

struct rxe_cc_fixed_params {
	u32 rate_mbps;
};

struct rxe_cc_fixed_qp {
	u32 cnps;
};

static const struct rxe_cc_param rxe_cc_fixed_params[] = {
	RXE_CC_KNOB(struct rxe_cc_fixed_params, rate_mbps, 0, 0, 4000000),
};

static int rxe_cc_fixed_qp_init(struct rxe_qp *qp)
{
	const struct rxe_cc_fixed_params *k = rxe_cc_params(qp);

	rxe_cc_set_rate(qp, rxe_cc_knob_get(k, rate_mbps) * 1000);
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

/* rdma_rxe's module init: the CNP opcode, then the built-in algorithm */
int rxe_cc_init(void)
{
	rxe_cc_cnp_init();
	return rxe_cc_register(&rxe_cc_fixed_ops);
}

void rxe_cc_exit(void)
{
	rxe_cc_unregister(&rxe_cc_fixed_ops);
}

/*
 * The distribution's rdma_rxe has no version; DKMS installs a module over
 * an original of the same (empty) version only with --force.  This one
 * names the DCB lab release (dkms.conf's PACKAGE_VERSION).
 */
MODULE_VERSION("0.1");
