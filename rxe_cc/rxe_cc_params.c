// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_params.c: an algorithm's knobs on one device,
 * /sys/class/infiniband/<dev>/cc/<algo>/, and their defaults derived
 * from the line rate and the base RTT (Documentation/rxe_cc.rst,
 * "Default parameters").
 */

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "rxe_cc_loc.h"

static const char * const rxe_cc_line_srcs[] = {
	[RXE_CC_LINE_LINK]	= "link",
	[RXE_CC_LINE_DCB]	= "sch_dcb",
	[RXE_CC_LINE_MAX_RATE]	= "max_rate_mbps",
};

/* A file of cc/<algo>/: knob @idx, or "origin" (@p NULL). */
struct rxe_cc_param_attr {
	struct kobj_attribute		ka;
	const struct rxe_cc_param	*p;
	const struct rxe_cc_ops		*ops;
	struct rxe_dev			*rxe;
	struct rxe_cc_params		*cp;
	unsigned int			idx;
};

static u32 rxe_cc_dev_mtu(struct rxe_dev *rxe)
{
	int mtu = ib_mtu_enum_to_int(rxe->port.attr.active_mtu);

	return mtu > 0 ? mtu : 1024;
}

/* The inputs of the defaults as they are now. */
static void rxe_cc_env_get(struct rxe_dev *rxe, struct rxe_cc_env *env)
{
	env->line_kbps = READ_ONCE(rxe->cc.line_kbps);
	env->rtt_us = READ_ONCE(rxe->cc.base_rtt_us);
	env->cnp_us = READ_ONCE(rxe->cc.min_time_between_cnps);
	env->mtu = rxe_cc_dev_mtu(rxe);
}

static u32 *rxe_cc_knob(void *params, const struct rxe_cc_param *p)
{
	return (u32 *)((u8 *)params + p->offset);
}

/* Warn when the knobs in force break one of the algorithm's invariants. */
static void rxe_cc_check(struct rxe_dev *rxe, const struct rxe_cc_ops *ops,
			 const void *params)
{
	struct rxe_cc_env env;
	const char *why;

	if (!ops || !ops->check)
		return;
	rxe_cc_env_get(rxe, &env);
	why = ops->check(params, &env);
	if (why)
		dev_warn_ratelimited(&rxe->ib_dev.dev, "cc/%s: %s\n",
				     ops->name, why);
}

/*
 * Derive the defaults again (rxe->cc.lock held): the line rate @line
 * (from rxe_cc_dev_line()), the base RTT, the CNP interval N (base RTT
 * unless written), then every knob of the selected algorithm that no user
 * wrote.  Documentation/rxe_cc.rst, "Default parameters".
 */
void rxe_cc_derive(struct rxe_dev *rxe, u32 line, u8 src)
{
	const struct rxe_cc_ops *ops = rxe->cc.ops;
	struct rxe_cc_params *cp = rxe->cc.cur;
	struct rxe_cc_env env;
	unsigned int i;

	lockdep_assert_held(&rxe->cc.lock);
	WRITE_ONCE(rxe->cc.line_kbps, line);
	WRITE_ONCE(rxe->cc.line_src, src);
	if (!rxe->cc.cnp_set)
		WRITE_ONCE(rxe->cc.min_time_between_cnps,
			   READ_ONCE(rxe->cc.base_rtt_us));
	if (!ops || !cp)
		return;
	rxe_cc_env_get(rxe, &env);
	for (i = 0; i < ops->nparams; i++)
		*rxe_cc_knob(cp->scratch, &ops->params[i]) = ops->params[i].def;
	if (ops->defaults)
		ops->defaults(cp->scratch, &env);
	for (i = 0; i < ops->nparams; i++) {
		const struct rxe_cc_param *p = &ops->params[i];
		u32 v = clamp(*rxe_cc_knob(cp->scratch, p), p->min, p->max);

		WRITE_ONCE(cp->autov[i], v);
		if (test_bit(i, cp->set))
			continue;
		WRITE_ONCE(*rxe_cc_knob(cp->vals, p), v);
		/*
		 * param_store() (no lock) may have set the knob meanwhile:
		 * it sets the bit before the value, so either its value came
		 * last or the bit is seen here.
		 */
		smp_mb();
		if (test_bit(i, cp->set))
			WRITE_ONCE(*rxe_cc_knob(cp->vals, p),
				   READ_ONCE(cp->userv[i]));
	}
	cp->env = env;
	rxe_cc_check(rxe, ops, cp->vals);
}

struct rxe_cc_params *rxe_cc_params_alloc(const struct rxe_cc_ops *ops)
{
	size_t size = max_t(size_t, ops->params_size, 4);
	struct rxe_cc_params *cp;

	cp = kzalloc(struct_size(cp, vals, size), GFP_KERNEL);
	if (!cp)
		return NULL;
	/* autov, then userv */
	cp->autov = kcalloc(max(ops->nparams, 1U), 2 * sizeof(u32),
			    GFP_KERNEL);
	cp->scratch = kzalloc(size, GFP_KERNEL);
	if (!cp->autov || !cp->scratch) {
		kfree(cp->autov);
		kfree(cp->scratch);
		kfree(cp);
		return NULL;
	}
	cp->userv = cp->autov + max(ops->nparams, 1U);
	strscpy(cp->name, ops->name, sizeof(cp->name));
	cp->size = ops->params_size;
	cp->nparams = ops->nparams;
	INIT_LIST_HEAD(&cp->list);
	return cp;
}

void rxe_cc_params_free(struct rxe_cc_params *cp)
{
	list_del(&cp->list);
	kfree(cp->autov);
	kfree(cp->scratch);
	kfree(cp);
}

/*
 * The knobs @ops had on this device when last selected, or @fresh
 * (rxe->cc.lock held, no algorithm selected).  Those of an algorithm of
 * the same name with another layout (a different module) are dropped.
 */
struct rxe_cc_params *rxe_cc_params_get(struct rxe_dev *rxe,
					       const struct rxe_cc_ops *ops,
					       struct rxe_cc_params **fresh)
{
	struct rxe_cc_params *cp, *tmp;

	list_for_each_entry_safe(cp, tmp, &rxe->cc.algo_params, list) {
		if (strcmp(cp->name, ops->name))
			continue;
		if (cp->size == ops->params_size &&
		    cp->nparams == ops->nparams)
			return cp;
		rxe_cc_params_free(cp);
	}
	cp = *fresh;
	*fresh = NULL;
	list_add_tail(&cp->list, &rxe->cc.algo_params);
	return cp;
}

void rxe_cc_algo_dir_del(struct rxe_dev *rxe)
{
	struct rxe_cc_sysfs *s = rxe->cc.sysfs;

	if (!s || !s->algo_kobj)
		return;
	sysfs_remove_group(s->algo_kobj, &s->algo_group);
	kobject_put(s->algo_kobj);
	s->algo_kobj = NULL;
	kfree(s->algo_attrs);
	kfree(s->algo_pattrs);
	s->algo_attrs = NULL;
	s->algo_pattrs = NULL;
}

/*
 * cc/<algo>/<param>.  No lock: the selection lock is held while this
 * directory is removed, and the removal waits for the show and store
 * calls in progress (kernfs active references), so taking the lock here
 * would deadlock.  None is needed: the params block is freed only after
 * the directory is gone, and a knob is one u32 read and written once.
 */
static ssize_t param_show(struct kobject *kobj, struct kobj_attribute *a,
			  char *buf)
{
	struct rxe_cc_param_attr *pa = container_of(a, typeof(*pa), ka);

	return sysfs_emit(buf, "%u\n",
			  READ_ONCE(*rxe_cc_knob(pa->cp->vals, pa->p)));
}

/*
 * A value is the user's from now on, kept when the defaults are derived
 * again and across re-selection of the algorithm; "auto" gives the knob
 * back to the derivation (its last derived value).
 */
static ssize_t param_store(struct kobject *kobj, struct kobj_attribute *a,
			   const char *buf, size_t count)
{
	struct rxe_cc_param_attr *pa = container_of(a, typeof(*pa), ka);
	u32 *knob = rxe_cc_knob(pa->cp->vals, pa->p);
	u32 v;
	int err;

	if (sysfs_streq(buf, "auto")) {
		clear_bit(pa->idx, pa->cp->set);
		WRITE_ONCE(*knob, READ_ONCE(pa->cp->autov[pa->idx]));
		return count;
	}
	err = kstrtou32(buf, 0, &v);
	if (err)
		return err;
	if (v < pa->p->min || v > pa->p->max)
		return -ERANGE;
	WRITE_ONCE(pa->cp->userv[pa->idx], v);
	/* userv before the bit: rxe_cc_derive() reads it once it sees the bit */
	smp_mb__before_atomic();
	set_bit(pa->idx, pa->cp->set);
	/* the bit before the knob: rxe_cc_derive() may overwrite it otherwise */
	smp_mb__after_atomic();
	WRITE_ONCE(*knob, v);
	rxe_cc_check(pa->rxe, pa->ops, pa->cp->vals);
	return count;
}

/*
 * cc/<algo>/origin: what the defaults derived from, then one line per
 * knob: name, value, and "set" (written by a user), "auto" (derived from
 * the line rate and the base RTT) or "default" (the algorithm's constant).
 * Lock-free like the knobs: a line may mix two derivations.
 */
static ssize_t origin_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	struct rxe_cc_param_attr *pa = container_of(a, typeof(*pa), ka);
	struct rxe_cc_params *cp = pa->cp;
	struct rxe_dev *rxe = pa->rxe;
	u8 src = READ_ONCE(rxe->cc.line_src);
	unsigned int i;
	ssize_t n;

	n = sysfs_emit(buf,
		       "# line %u kb/s (%s), base_rtt_us %u, min_time_between_cnps %u (%s), mtu %u\n",
		       cp->env.line_kbps,
		       src < ARRAY_SIZE(rxe_cc_line_srcs) ?
		       rxe_cc_line_srcs[src] : "?",
		       cp->env.rtt_us, cp->env.cnp_us,
		       READ_ONCE(rxe->cc.cnp_set) ? "set" : "auto",
		       cp->env.mtu);
	for (i = 0; i < pa->ops->nparams; i++) {
		const struct rxe_cc_param *p = &pa->ops->params[i];

		n += sysfs_emit_at(buf, n, "%s %u %s\n", p->name,
				   READ_ONCE(*rxe_cc_knob(cp->vals, p)),
				   test_bit(i, cp->set) ? "set" :
				   p->derived ? "auto" : "default");
	}
	return n;
}

int rxe_cc_algo_dir_add(struct rxe_dev *rxe)
{
	const struct rxe_cc_ops *ops = rxe->cc.ops;
	struct rxe_cc_sysfs *s = rxe->cc.sysfs;
	unsigned int i;
	int err;

	if (!ops || !ops->nparams)
		return 0;
	s->algo_attrs = kcalloc(ops->nparams + 2, sizeof(*s->algo_attrs),
				GFP_KERNEL);
	s->algo_pattrs = kcalloc(ops->nparams + 1, sizeof(*s->algo_pattrs),
				 GFP_KERNEL);
	if (!s->algo_attrs || !s->algo_pattrs)
		goto nomem;
	for (i = 0; i <= ops->nparams; i++) {
		struct rxe_cc_param_attr *pa = &s->algo_pattrs[i];

		sysfs_attr_init(&pa->ka.attr);
		pa->ops = ops;
		pa->rxe = rxe;
		pa->cp = rxe->cc.cur;
		pa->idx = i;
		if (i == ops->nparams) {
			pa->ka.attr.name = "origin";
			pa->ka.attr.mode = 0444;
			pa->ka.show = origin_show;
		} else {
			pa->ka.attr.name = ops->params[i].name;
			pa->ka.attr.mode = 0644;
			pa->ka.show = param_show;
			pa->ka.store = param_store;
			pa->p = &ops->params[i];
		}
		s->algo_attrs[i] = &pa->ka.attr;
	}
	s->algo_group.attrs = s->algo_attrs;
	s->algo_kobj = kobject_create_and_add(ops->name, &s->kobj);
	if (!s->algo_kobj)
		goto nomem;
	err = sysfs_create_group(s->algo_kobj, &s->algo_group);
	if (err) {
		kobject_put(s->algo_kobj);
		s->algo_kobj = NULL;
		goto fail;
	}
	return 0;
nomem:
	err = -ENOMEM;
fail:
	kfree(s->algo_attrs);
	kfree(s->algo_pattrs);
	s->algo_attrs = NULL;
	s->algo_pattrs = NULL;
	return err;
}
