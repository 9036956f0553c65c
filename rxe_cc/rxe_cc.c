// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc.c: the congestion-control engine of the DCB lab rdma_rxe.
 *
 * Registry of algorithms, per-QP pacer (an hrtimer re-schedules the
 * requester when the next packet may go), window, ECT marking, CE
 * counting, the DCQCN notification point and RoCEv2 CNP transmit and
 * receive.  Knobs live in /sys/class/infiniband/<dev>/cc/.
 */

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/hrtimer.h>
#include <linux/ipv6.h>
#include <linux/ip.h>
#include <linux/kmod.h>
#include <linux/kobject.h>
#include <linux/ethtool.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/dsfield.h>

#include "rxe_cc.h"
#include "rxe_cc_compat.h"
#include "rxe_loc.h"

#define CREATE_TRACE_POINTS
#include "rxe_cc_trace.h"

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
static struct rxe_cc_ops *rxe_cc_get(const char *name)
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

/* Limits of what an algorithm may ask for. */
#define RXE_CC_NAME_MAX		32	/* with the NUL; algo_store's %31s */
#define RXE_CC_PRIV_MAX		4096	/* per-QP state, bytes */
#define RXE_CC_PARAMS_MAX	64	/* knobs per algorithm */
#define RXE_CC_FLAGS		(RXE_CC_F_ECT | RXE_CC_F_NP | RXE_CC_F_BECN)

/*
 * cc/base_rtt_us by default: the feedback round trip of the lab's
 * default network (100 Mbit/s ports, RED from 5 to 20 KB) in a
 * virtual-time guest: about 100 us idle, 2 x 82 us to serialise a 1 KB
 * packet over two shaped hops, and 1.6 ms of queue at the marking
 * threshold (Documentation/rxe_cc.rst, "Default parameters").
 */
#define RXE_CC_BASE_RTT_US	2000

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

/* ------------------------------------------------------------------ */
/* sysfs: /sys/class/infiniband/<dev>/cc/                              */

/*
 * An algorithm's knobs on one device.  Kept when another algorithm is
 * selected, until the device goes, so that a value a user wrote stays
 * across re-selection; found again by the algorithm's name and layout.
 */
struct rxe_cc_params {
	struct list_head	list;		/* rxe->cc.algo_params */
	char			name[RXE_CC_NAME_MAX];
	size_t			size;		/* ops->params_size */
	unsigned int		nparams;
	DECLARE_BITMAP(set, RXE_CC_PARAMS_MAX);	/* written by a user */
	struct rxe_cc_env	env;		/* of the last derivation */
	u32			*autov;		/* derived, by knob index */
	u32			*userv;		/* written, by knob index */
	void			*scratch;	/* size bytes, for deriving */
	u8			vals[];		/* size bytes: rxe->cc.params */
};

/* Where the line rate of the defaults came from (rxe->cc.line_src). */
enum {
	RXE_CC_LINE_LINK,		/* ethtool link speed */
	RXE_CC_LINE_DCB,		/* root sch_dcb's shaping rate */
	RXE_CC_LINE_MAX_RATE,		/* cc/max_rate_mbps */
};

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

struct rxe_cc_sysfs {
	struct kobject			kobj;
	struct rxe_dev			*rxe;
	/* cc/<algo>/ of the selected algorithm */
	struct kobject			*algo_kobj;
	struct attribute_group		algo_group;
	struct attribute		**algo_attrs;
	struct rxe_cc_param_attr	*algo_pattrs;
};

static struct rxe_dev *kobj_to_rxe(struct kobject *kobj)
{
	return container_of(kobj, struct rxe_cc_sysfs, kobj)->rxe;
}

static void rxe_cc_sysfs_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct rxe_cc_sysfs, kobj));
}

static ssize_t algo_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	struct rxe_dev *rxe = kobj_to_rxe(kobj);
	ssize_t n;

	mutex_lock(&rxe->cc.lock);
	n = sysfs_emit(buf, "%s\n", rxe->cc.ops ? rxe->cc.ops->name : "none");
	mutex_unlock(&rxe->cc.lock);
	return n;
}

/* The netdev's link speed in kb/s (under RTNL), 10 Gb/s if unknown. */
static u32 rxe_cc_read_port_kbps(struct rxe_dev *rxe)
{
	struct net_device *ndev = rxe_cc_netdev_get(rxe);
	struct ethtool_link_ksettings lk;
	u32 mbps = 10000;

	ASSERT_RTNL();
	if (ndev && !__ethtool_get_link_ksettings(ndev, &lk) &&
	    lk.base.speed && lk.base.speed != (u32)SPEED_UNKNOWN &&
	    lk.base.speed <= 4000000)
		mbps = lk.base.speed;
	rxe_cc_netdev_put(ndev);
	return mbps * 1000;
}

/*
 * The device's port speed: read under RTNL when the device is added
 * (rxe_cc_dev_add()) and kept up to date by the netdev notifier
 * (rxe_cc_netdev_event()), so that no verb takes RTNL: a kernel consumer
 * may create a QP with RTNL held.
 */
static u32 rxe_cc_port_kbps(struct rxe_dev *rxe)
{
	return READ_ONCE(rxe->cc.port_kbps);
}

/* Exported by sch_dcb (sch_dcb/dcb.h), found with symbol_get(). */
u64 dcb_root_rate(struct net_device *dev);

/*
 * The shaping rate of sch_dcb when it is the root qdisc of the device's
 * netdev, in kb/s; 0 if it is not (or sch_dcb is not loaded).  Through
 * symbol_get(), so that rdma_rxe neither needs sch_dcb nor pins it.
 */
static u32 rxe_cc_dcb_kbps(struct rxe_dev *rxe)
{
	u64 (*rate)(struct net_device *dev);
	struct net_device *ndev;
	u64 bytes = 0;

	rate = symbol_get(dcb_root_rate);
	if (!rate)
		return 0;
	ndev = rxe_cc_netdev_get(rxe);
	rcu_read_lock();
	if (ndev)
		bytes = rate(ndev);
	rcu_read_unlock();
	rxe_cc_netdev_put(ndev);
	symbol_put(dcb_root_rate);
	/* bytes/s -> kb/s */
	return min_t(u64, div_u64(bytes, 125), U32_MAX);
}

/*
 * The line rate the defaults derive from, in kb/s, and where it came
 * from: the lowest of the root sch_dcb's rate, the link speed and
 * max_rate_mbps, each a ceiling on what the device sends.  Sets *@port
 * to the first two (what a QP created now keeps as its port rate).
 */
static u32 rxe_cc_dev_line(struct rxe_dev *rxe, u32 *port, u8 *src)
{
	u32 kbps = rxe_cc_port_kbps(rxe);
	u32 dcb = rxe_cc_dcb_kbps(rxe);
	u32 m = READ_ONCE(rxe->cc.max_rate_mbps) * 1000;

	*src = RXE_CC_LINE_LINK;
	if (dcb && dcb < kbps) {
		kbps = dcb;
		*src = RXE_CC_LINE_DCB;
	}
	*port = kbps;
	if (m && m < kbps) {
		kbps = m;
		*src = RXE_CC_LINE_MAX_RATE;
	}
	return kbps;
}

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
static void rxe_cc_derive(struct rxe_dev *rxe, u32 line, u8 src)
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

/* Derive again after a device knob that is an input changed. */
static void rxe_cc_rederive(struct rxe_dev *rxe)
{
	u32 line, port;
	u8 src;

	line = rxe_cc_dev_line(rxe, &port, &src);
	mutex_lock(&rxe->cc.lock);
	if (!rxe->cc.dead)
		rxe_cc_derive(rxe, line, src);
	mutex_unlock(&rxe->cc.lock);
}

static struct rxe_cc_params *rxe_cc_params_alloc(const struct rxe_cc_ops *ops)
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

static void rxe_cc_params_free(struct rxe_cc_params *cp)
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
static struct rxe_cc_params *rxe_cc_params_get(struct rxe_dev *rxe,
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

static void rxe_cc_algo_dir_del(struct rxe_dev *rxe)
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

static int rxe_cc_algo_dir_add(struct rxe_dev *rxe)
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

/*
 * Drop the device's algorithm (caller holds rxe->cc.lock).  Its knobs
 * stay in rxe->cc.algo_params.
 */
static void rxe_cc_dev_put_algo(struct rxe_dev *rxe)
{
	rxe_cc_algo_dir_del(rxe);
	if (rxe->cc.ops)
		module_put(rxe->cc.ops->owner);
	rxe->cc.ops = NULL;
	rxe->cc.cur = NULL;
	rxe->cc.params = NULL;
}

/* algo_store() for a device that stays registered meanwhile */
static ssize_t rxe_cc_algo_select(struct rxe_dev *rxe, const char *buf,
				  size_t count)
{
	struct rxe_cc_params *fresh = NULL, *cp;
	struct rxe_cc_ops *ops = NULL;
	char name[RXE_CC_NAME_MAX];
	u32 line, port;
	int err = 0;
	u8 src;

	if (sscanf(buf, "%31s", name) != 1)
		return -EINVAL;
	if (strcmp(name, "none")) {
		ops = rxe_cc_get(name);
		if (!ops)
			return -ENOENT;
		fresh = rxe_cc_params_alloc(ops);
		if (!fresh) {
			module_put(ops->owner);
			return -ENOMEM;
		}
	}
	line = rxe_cc_dev_line(rxe, &port, &src);

	mutex_lock(&rxe->cc.lock);
	/* QPs read the params of their algorithm: switch only when idle */
	if (rxe->cc.dead) {
		err = -ENODEV;
	} else if (atomic_read(&rxe->cc.nqps)) {
		err = -EBUSY;
	} else {
		rxe_cc_dev_put_algo(rxe);
		if (ops) {
			cp = rxe_cc_params_get(rxe, ops, &fresh);
			rxe->cc.ops = ops;
			rxe->cc.cur = cp;
			rxe->cc.params = cp->vals;
		}
		rxe_cc_derive(rxe, line, src);
		err = rxe_cc_algo_dir_add(rxe);
		if (err)
			rxe_cc_dev_put_algo(rxe);
	}
	mutex_unlock(&rxe->cc.lock);
	if (fresh) {
		kfree(fresh->autov);
		kfree(fresh->scratch);
		kfree(fresh);
	}
	if ((err == -EBUSY || err == -ENODEV) && ops)
		module_put(ops->owner);
	return err ? err : count;
}

/*
 * Selecting an algorithm derives its defaults (rxe_cc_derive()) from the
 * line rate and base RTT of the moment; knobs a user wrote keep their
 * values.
 *
 * The store replaces cc/<algo>/, a sibling of its own file, so it holds
 * a reference on the ib_device while it runs: the device's unregistration
 * waits for it (disable_device()) before device_del() removes the sysfs
 * tree.  The active reference kernfs holds on cc/algo alone does not
 * protect the new directory: device_del()'s removal can unlink and free
 * it between its creation and the kobject's own reference on it (an oops
 * in kobject_add_internal() seen under test_68).
 */
static ssize_t algo_store(struct kobject *kobj, struct kobj_attribute *a,
			  const char *buf, size_t count)
{
	struct rxe_dev *rxe = kobj_to_rxe(kobj);
	ssize_t ret;

	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	ret = rxe_cc_algo_select(rxe, buf, count);
	ib_device_put(&rxe->ib_dev);
	return ret;
}

static ssize_t available_algos_show(struct kobject *kobj,
				    struct kobj_attribute *a, char *buf)
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

/* The value of a u32/u8 device knob, as its sysfs file shows it */
#define RXE_CC_DEV_SHOW(_name)						\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *a, char *buf)	\
{									\
	return sysfs_emit(buf, "%u\n",					\
			  (u32)READ_ONCE(kobj_to_rxe(kobj)->cc._name));	\
}

/* u32/u8 device knobs: name, field, maximum */
#define RXE_CC_DEV_KNOB(_name, _max)					\
RXE_CC_DEV_SHOW(_name)							\
static ssize_t _name##_store(struct kobject *kobj,			\
			     struct kobj_attribute *a,			\
			     const char *buf, size_t count)		\
{									\
	u32 v;								\
	int err = kstrtou32(buf, 0, &v);				\
									\
	if (err)							\
		return err;						\
	if (v > (_max))							\
		return -ERANGE;						\
	WRITE_ONCE(kobj_to_rxe(kobj)->cc._name, v);			\
	return count;							\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RW(_name)

RXE_CC_DEV_KNOB(pacer_slack_us, 1000000);
RXE_CC_DEV_KNOB(pacer_catchup_us, 10000000);
RXE_CC_DEV_KNOB(roce_dscp, 63);
RXE_CC_DEV_KNOB(cnp_dscp, 63);
RXE_CC_DEV_KNOB(cnp_802p_prio, 7);
RXE_CC_DEV_KNOB(ecn, 1);
RXE_CC_DEV_KNOB(paced_ack, 1);
RXE_CC_DEV_KNOB(np_cnp_window_end, 1);

static void rxe_cc_dev_retime(struct rxe_dev *rxe);

/*
 * Device knobs the defaults derive from: a write derives them again.
 * A knob that is itself derived until written (@set not NULL: N, the
 * base RTT by default) takes "auto", which gives it back to the rule.
 *
 * Deriving reads the netdev (rxe_cc_dev_line()), which the device's
 * unregistration releases (free_netdevs()) before device_del() waits for
 * this store to end; it releases it only after disable_device() has
 * waited for the ib_device references, so the store holds one, as
 * algo_store() does.
 */
static ssize_t rxe_cc_input_store(struct rxe_dev *rxe, u32 *field, bool *set,
				  const char *buf, u32 lo, u32 hi)
{
	bool is_auto = set && sysfs_streq(buf, "auto");
	u32 v = 0;
	int err;

	if (!is_auto) {
		err = kstrtou32(buf, 0, &v);
		if (err)
			return err;
		if (v < lo || v > hi)
			return -ERANGE;
	}
	if (!ib_device_try_get(&rxe->ib_dev))
		return -ENODEV;
	if (set)
		WRITE_ONCE(*set, !is_auto);
	if (!is_auto)
		WRITE_ONCE(*field, v);
	rxe_cc_rederive(rxe);
	/* a QP's pacer may wait out a gap of the old ceiling */
	if (field == &rxe->cc.max_rate_mbps)
		rxe_cc_dev_retime(rxe);
	ib_device_put(&rxe->ib_dev);
	return 0;
}

/*
 * name, "written" flag (NULL: never derived; the expression may name the
 * device rxe), minimum, maximum
 */
#define RXE_CC_INPUT_KNOB(_name, _set, _lo, _hi)			\
RXE_CC_DEV_SHOW(_name)							\
static ssize_t _name##_store(struct kobject *kobj,			\
			     struct kobj_attribute *a,			\
			     const char *buf, size_t count)		\
{									\
	struct rxe_dev *rxe = kobj_to_rxe(kobj);			\
									\
	return rxe_cc_input_store(rxe, &rxe->cc._name, _set, buf,	\
				  _lo, _hi) ?: count;			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RW(_name)

#define RXE_CC_BASE_RTT_US_MAX	1000000

RXE_CC_INPUT_KNOB(max_rate_mbps, NULL, 0, 4000000);
RXE_CC_INPUT_KNOB(base_rtt_us, NULL, 1, RXE_CC_BASE_RTT_US_MAX);
RXE_CC_INPUT_KNOB(min_time_between_cnps, &rxe->cc.cnp_set, 0, 1000000);

static struct kobj_attribute algo_attr = __ATTR_RW(algo);
static struct kobj_attribute available_algos_attr =
	__ATTR_RO(available_algos);

static struct attribute *rxe_cc_attrs[] = {
	&algo_attr.attr,
	&available_algos_attr.attr,
	&max_rate_mbps_attr.attr,
	&base_rtt_us_attr.attr,
	&pacer_slack_us_attr.attr,
	&pacer_catchup_us_attr.attr,
	&min_time_between_cnps_attr.attr,
	&roce_dscp_attr.attr,
	&cnp_dscp_attr.attr,
	&cnp_802p_prio_attr.attr,
	&ecn_attr.attr,
	&paced_ack_attr.attr,
	&np_cnp_window_end_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rxe_cc);

static struct kobj_type rxe_cc_ktype = {
	.release = rxe_cc_sysfs_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = rxe_cc_groups,
};

/*
 * Remove cc/ and what a write to cc/algo selected.  A failed
 * kobject_add() has removed the directory, and the removal waited for
 * the writes in progress, so the same teardown serves both callers.
 */
static void rxe_cc_sysfs_del(struct rxe_dev *rxe)
{
	mutex_lock(&rxe->cc.lock);
	/* an algo_store waiting for the lock must not select a new one */
	rxe->cc.dead = true;
	rxe_cc_dev_put_algo(rxe);
	mutex_unlock(&rxe->cc.lock);
	kobject_put(&rxe->cc.sysfs->kobj);
	rxe->cc.sysfs = NULL;
	/* the knob directories are gone: no reader of the params is left */
	while (!list_empty(&rxe->cc.algo_params))
		rxe_cc_params_free(list_first_entry(&rxe->cc.algo_params,
						    struct rxe_cc_params,
						    list));
}

/* enable_driver: the device is registered and in sysfs */
int rxe_cc_dev_add(struct rxe_dev *rxe)
{
	struct rxe_cc_sysfs *s;
	int err;

	mutex_init(&rxe->cc.lock);
	rxe->cc.dead = false;
	atomic_set(&rxe->cc.nqps, 0);
	rxe->cc.ops = NULL;
	rxe->cc.params = NULL;
	rxe->cc.max_rate_mbps = 0;
	rxe->cc.pacer_slack_us = 1000;
	rxe->cc.pacer_catchup_us = 100000;
	INIT_LIST_HEAD(&rxe->cc.algo_params);
	rxe->cc.cur = NULL;
	rxe->cc.base_rtt_us = RXE_CC_BASE_RTT_US;
	rxe->cc.min_time_between_cnps = RXE_CC_BASE_RTT_US;
	rxe->cc.cnp_set = false;
	rxe->cc.line_kbps = 0;
	rxe->cc.line_src = RXE_CC_LINE_LINK;
	rxe->cc.roce_dscp = 26;
	rxe->cc.cnp_dscp = 48;
	rxe->cc.cnp_802p_prio = 6;
	rxe->cc.ecn = 1;
	rxe->cc.paced_ack = 1;
	rxe->cc.np_cnp_window_end = 1;

	/*
	 * ib_core calls enable_driver without RTNL, holding its devices
	 * lock, the order its own RoCE GID code takes the two in.
	 */
	rtnl_lock();
	WRITE_ONCE(rxe->cc.port_kbps, rxe_cc_read_port_kbps(rxe));
	rtnl_unlock();

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->rxe = rxe;
	kobject_init(&s->kobj, &rxe_cc_ktype);
	/*
	 * Published before kobject_add() creates cc/: a write to cc/algo
	 * can run as soon as the file exists, and it adds cc/<algo>/ to
	 * this directory.
	 */
	rxe->cc.sysfs = s;
	err = kobject_add(&s->kobj, &rxe->ib_dev.dev.kobj, "cc");
	if (err)
		rxe_cc_sysfs_del(rxe);
	return err;
}

/* dealloc_driver: no QP is left */
void rxe_cc_dev_del(struct rxe_dev *rxe)
{
	if (!rxe->cc.sysfs)
		return;
	rxe_cc_sysfs_del(rxe);
	mutex_destroy(&rxe->cc.lock);
}

/* ------------------------------------------------------------------ */
/* Per QP: serialisation, algorithm, pacer, window                     */

static int rxe_cc_xmit_cnp(struct rxe_qp *qp, const u8 *rsvd);

/*
 * One QP's callbacks run under its cc lock.  The callers are the
 * requester (process context or tasklet), the receive softirq, the
 * algorithm's soft hrtimer and modify/destroy (process context), never a
 * hard interrupt, so the lock is BH-safe only.
 */
static void rxe_cc_lock(struct rxe_qp *qp)
	__acquires(&qp->cc.lock)
{
	spin_lock_bh(&qp->cc.lock);
}

/*
 * A CNP asked for under the lock leaves after it is dropped: rxe's
 * transmit path may deliver it at once (loopback) to a QP whose lock
 * would then nest in this one.
 */
static void rxe_cc_unlock(struct rxe_qp *qp)
	__releases(&qp->cc.lock)
{
	u8 rsvd[RXE_CC_CNP_RSVD_BYTES];
	bool cnp = qp->cc.cnp_pending;

	if (cnp) {
		memcpy(rsvd, qp->cc.cnp_rsvd, sizeof(rsvd));
		qp->cc.cnp_pending = false;
	}
	spin_unlock_bh(&qp->cc.lock);
	if (cnp)
		rxe_cc_xmit_cnp(qp, rsvd);
}

/*
 * The algorithm's timer.  A callback may re-arm it (rxe_cc_timer_arm())
 * while this waits for the lock: the hrtimer is queued again and
 * timer_ns tells that this expiry is stale.
 */
static enum hrtimer_restart rxe_cc_timer_fire(struct hrtimer *t)
{
	struct rxe_qp *qp = container_of(t, struct rxe_qp, cc.timer);
	u64 due;

	rxe_cc_lock(qp);
	due = qp->cc.timer_ns;
	if (due && !qp->cc.stopped && (s64)(ktime_get_ns() - due) >= 0) {
		qp->cc.timer_ns = 0;
		qp->cc.ops->on_timer(qp);
	}
	rxe_cc_unlock(qp);
	return HRTIMER_NORESTART;
}

/*
 * From a callback: call ops->on_timer at @expires_ns (CLOCK_MONOTONIC,
 * ktime_get_ns()), replacing any earlier request; 0 cancels it.
 */
void rxe_cc_timer_arm(struct rxe_qp *qp, u64 expires_ns)
{
	lockdep_assert_held(&qp->cc.lock);
	if (qp->cc.stopped || !qp->cc.ops->on_timer ||
	    expires_ns == qp->cc.timer_ns)
		return;
	qp->cc.timer_ns = expires_ns;
	/* a stale expiry that fires finds timer_ns 0 and does nothing */
	if (expires_ns)
		hrtimer_start(&qp->cc.timer, ns_to_ktime(expires_ns),
			      HRTIMER_MODE_ABS_SOFT);
}
EXPORT_SYMBOL_GPL(rxe_cc_timer_arm);

/*
 * Stop the algorithm's timer for good (destroy) or until the algorithm
 * starts again (reset): no callback may arm it once this returns.
 */
static void rxe_cc_timer_stop(struct rxe_qp *qp, bool destroy)
{
	rxe_cc_lock(qp);
	qp->cc.timer_ns = 0;
	qp->cc.np_ce_pending = false;
	if (destroy)
		WRITE_ONCE(qp->cc.stopped, true);
	rxe_cc_unlock(qp);
	hrtimer_cancel(&qp->cc.timer);
	hrtimer_cancel(&qp->cc.np_timer);
}

/*
 * The notification point's window ended with a CE packet inside it that
 * got no CNP (rxe_cc_np_rcv()): send it now, and the next window starts.
 * np_ce_pending is cleared under the lock wherever the QP stops or
 * resets, so an expiry after that sends nothing.
 */
static enum hrtimer_restart rxe_cc_np_timer_fire(struct hrtimer *t)
{
	struct rxe_qp *qp = container_of(t, struct rxe_qp, cc.np_timer);
	u64 gap, now;

	rxe_cc_lock(qp);
	now = ktime_get_ns();
	gap = (u64)READ_ONCE(rxe_cc_qp_dev(qp)->cc.min_time_between_cnps) *
	      NSEC_PER_USEC;
	/*
	 * An expiry that waited for the lock while a CE after the window
	 * sent a CNP and another CE re-armed the timer for the new window
	 * finds that window still open: its own expiry sends then.
	 */
	if (qp->cc.np_ce_pending && !qp->cc.stopped &&
	    now - qp->cc.last_cnp_ns >= gap) {
		qp->cc.np_ce_pending = false;
		qp->cc.last_cnp_ns = now;
		rxe_cc_send_cnp(qp, NULL);
	}
	rxe_cc_unlock(qp);
	return HRTIMER_NORESTART;
}

/*
 * The pacer's time has come: run the requester again, and the responder
 * if it holds a READ response.  rxe_cc_qp_stop() runs only once the QP's
 * last reference is gone (rxe_qp_do_cleanup()), and 6.12's
 * rxe_sched_task() must not be called on such a QP (it warns, and its
 * task would take and drop a reference of a count at zero), so the tasks
 * are scheduled only under a reference of our own.  An expiry that
 * clears the responder's bit as it waits again (for a later time, the
 * timer re-armed) runs it early: it finds it must wait and sets the bit
 * again.
 */
static enum hrtimer_restart rxe_cc_pacer_fire(struct hrtimer *t)
{
	struct rxe_qp *qp = container_of(t, struct rxe_qp, cc.pacer);

	/* see rxe_cc_qp_stop() */
	if (READ_ONCE(qp->cc.stopped) || !rxe_get(qp))
		return HRTIMER_NORESTART;
	rxe_sched_task(rxe_cc_req_task(qp));
	if (test_and_clear_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait))
		rxe_sched_task(rxe_cc_resp_task(qp));
	rxe_put(qp);
	return HRTIMER_NORESTART;
}

/* rxe's netdev notifier (RTNL held): the link came up or changed. */
void rxe_cc_netdev_event(struct rxe_dev *rxe, unsigned long event)
{
	if (event == NETDEV_UP || event == NETDEV_CHANGE)
		WRITE_ONCE(rxe->cc.port_kbps, rxe_cc_read_port_kbps(rxe));
}

/*
 * QP creation.  An RC QP gets the device's algorithm; if its state cannot
 * be set up the creation fails (a QP silently without congestion control
 * would look like one with it).
 */
int rxe_cc_qp_init(struct rxe_dev *rxe, struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops;
	u32 line = 0;
	int err = 0;
	u8 src = 0;

	hrtimer_init(&qp->cc.pacer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	qp->cc.pacer.function = rxe_cc_pacer_fire;
	hrtimer_init(&qp->cc.timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->cc.timer.function = rxe_cc_timer_fire;
	hrtimer_init(&qp->cc.np_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->cc.np_timer.function = rxe_cc_np_timer_fire;
	spin_lock_init(&qp->cc.lock);
	/* RC only: QP1 is created while the device registers */
	if (qp->ibqp.qp_type == IB_QPT_RC)
		line = rxe_cc_dev_line(rxe, &qp->cc.port_kbps, &src);
	qp->cc.initialized = true;

	mutex_lock(&rxe->cc.lock);
	ops = rxe->cc.ops;
	if (ops && qp->ibqp.qp_type == IB_QPT_RC) {
		/*
		 * The first QP of an idle device derives the defaults again:
		 * the port's rate (its sch_dcb, its link) may have changed
		 * since the algorithm was selected.
		 */
		if (!atomic_read(&rxe->cc.nqps))
			rxe_cc_derive(rxe, line, src);
		__module_get(ops->owner);
		qp->cc.priv = kzalloc(max_t(size_t, ops->priv_size, 1),
				      GFP_KERNEL);
		qp->cc.ops = ops;
		if (!qp->cc.priv) {
			err = -ENOMEM;
		} else if (ops->init) {
			rxe_cc_lock(qp);
			err = ops->init(qp);
			rxe_cc_unlock(qp);
		}
		if (err) {
			rxe_cc_timer_stop(qp, true);
			kfree(qp->cc.priv);
			qp->cc.priv = NULL;
			qp->cc.ops = NULL;
			module_put(ops->owner);
		} else {
			atomic_inc(&rxe->cc.nqps);
		}
	}
	mutex_unlock(&rxe->cc.lock);
	return err;
}

/*
 * QP destroy (rxe_qp_do_cleanup(), after the QP's last reference was
 * dropped), before its tasks are cleaned up: from here on the engine's
 * timers schedule nothing.  A requester tasklet scheduled after
 * rxe_cleanup_task() has killed it would run again on the freed QP.
 * A pacer callback that read stopped == false has finished when
 * hrtimer_cancel() returns, so its tasklet is flushed by the task
 * cleanup that follows; a requester running on another CPU may still
 * arm the pacer, whose callback then does nothing, and
 * rxe_cc_qp_cleanup() cancels it for good.  The algorithm's timer cannot
 * be armed again once stopped is set under the lock.
 */
void rxe_cc_qp_stop(struct rxe_qp *qp)
{
	if (!qp->cc.initialized)
		return;
	rxe_cc_timer_stop(qp, true);
	hrtimer_cancel(&qp->cc.pacer);
}

/*
 * destroy_qp, before rxe waits (up to 50 s, then it warns) for the QP's
 * last references to go.  The request packets queued for its responder
 * hold some, and a responder paced at a low rate can take longer than
 * that to answer the RDMA READs among them.  So from here the responder
 * sends unpaced, and runs now if it was waiting for the pacer.  Nobody
 * reads the answers any more: the requester that asked is gone or going.
 */
void rxe_cc_qp_destroying(struct rxe_qp *qp)
{
	if (!qp->cc.initialized)
		return;
	rxe_cc_lock(qp);
	qp->cc.resp_unpaced = true;
	rxe_cc_unlock(qp);
	if (test_and_clear_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait))
		rxe_sched_task(rxe_cc_resp_task(qp));
}

/* Give the QP's algorithm up (its timer is stopped). */
static void rxe_cc_qp_put_algo(struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	kfree(qp->cc.priv);
	qp->cc.priv = NULL;
	qp->cc.ops = NULL;
	atomic_dec(&rxe_cc_qp_dev(qp)->cc.nqps);
	module_put(ops->owner);
}

/* QP cleanup, after its tasks are cleaned up (rxe_cc_qp_stop() ran) */
void rxe_cc_qp_cleanup(struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	if (!qp->cc.initialized)
		return;
	rxe_cc_timer_stop(qp, true);
	hrtimer_cancel(&qp->cc.pacer);
	if (ops) {
		if (ops->release) {
			rxe_cc_lock(qp);
			ops->release(qp);
			rxe_cc_unlock(qp);
		}
		rxe_cc_qp_put_algo(qp);
	}
	qp->cc.initialized = false;
}

/*
 * modify_qp to RESET, with the QP's tasks stopped and drained: forget
 * everything about the packets sent and received so far and start the
 * algorithm afresh, as a new QP.  The QP's states are already RESET, so
 * the receive path drops its packets; synchronize_net() waits for those
 * that passed that check (the receive path runs under RCU), so that no
 * callback but the algorithm's timer, stopped here, can run.  If the
 * algorithm cannot start again the QP continues without it (warned).
 */
void rxe_cc_qp_reset(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);
	const struct rxe_cc_ops *ops = qp->cc.ops;
	int err = 0;

	if (!qp->cc.initialized)
		return;
	hrtimer_cancel(&qp->cc.pacer);
	/* only an algorithm's state is not safe against those callbacks */
	if (ops) {
		synchronize_net();
		rxe_cc_timer_stop(qp, false);
	}
	rxe_cc_lock(qp);
	qp->cc.acked_valid = false;
	qp->cc.acked_psn = 0;
	qp->cc.snd_max = 0;
	qp->cc.ce_unacked = false;
	qp->cc.last_cnp_ns = 0;
	qp->cc.np_ce_pending = false;
	qp->cc.cnp_pending = false;
	qp->cc.next_send_ns = 0;
	qp->cc.pace_kbps = 0;
	qp->cc.behind = false;
	qp->cc.held = false;
	clear_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait);
	qp->cc.noack_ns = 0;
	qp->cc.undo.valid = false;
	if (ops) {
		if (ops->release)
			ops->release(qp);
		memset(qp->cc.priv, 0, ops->priv_size);
		rxe_cc_set_rate(qp, 0);
		rxe_cc_set_window(qp, 0);
		if (ops->init)
			err = ops->init(qp);
	}
	rxe_cc_unlock(qp);
	if (err) {
		dev_warn_ratelimited(&rxe->ib_dev.dev,
				     "qp#%d: %s cannot restart after RESET (%d), continuing without congestion control\n",
				     qp_num(qp), ops->name, err);
		rxe_cc_timer_stop(qp, false);
		rxe_cc_qp_put_algo(qp);
	}
}

static u32 rxe_cc_qp_rate(struct rxe_qp *qp);

/*
 * The QP's pacing rate went up or its last limit went away (under the cc
 * lock).  The pacer's gap was timed at the rate the last packet was
 * charged at: shorten what is left of it in the ratio of the two rates,
 * or end it when no rate is left, and move an armed pacer to the new
 * time.  Otherwise a QP that waits out the gap of a low limit (a 4 KB
 * packet at 1 kb/s: 32 s) keeps waiting after the limit is raised or
 * gone.  A lower rate changes nothing here: it applies from the next
 * packet on.
 */
static void rxe_cc_pace_retime(struct rxe_qp *qp)
{
	u32 kbps = rxe_cc_qp_rate(qp), old = qp->cc.pace_kbps;
	u64 next = qp->cc.next_send_ns, now;

	lockdep_assert_held(&qp->cc.lock);
	if (!next || !old || (kbps && kbps <= old))
		return;
	now = ktime_get_ns();
	if ((s64)(next - now) <= 0)
		return;
	qp->cc.pace_kbps = kbps;
	if (kbps) {
		next = now + mul_u64_u32_div(next - now, old, kbps);
		qp->cc.next_send_ns = next;
	} else {
		next = now;
		qp->cc.next_send_ns = 0;
		qp->cc.behind = false;
	}
	/* queued: the requester or the responder waits for it */
	if (!qp->cc.stopped && hrtimer_is_queued(&qp->cc.pacer))
		hrtimer_start(&qp->cc.pacer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS);
}

/* Every QP of the device: the ceiling max_rate_mbps changed. */
static void rxe_cc_dev_retime(struct rxe_dev *rxe)
{
	unsigned long index = 0;
	struct rxe_qp *qp;

	while (xa_find(&rxe->qp_pool.xa, &index, U32_MAX, XA_PRESENT)) {
		/* a reference: the QP is not destroyed meanwhile */
		qp = rxe_pool_get_index(&rxe->qp_pool, index);
		if (qp) {
			if (qp->cc.initialized) {
				rxe_cc_lock(qp);
				rxe_cc_pace_retime(qp);
				rxe_cc_unlock(qp);
			}
			rxe_put(qp);
		}
		if (index >= U32_MAX)
			break;
		index++;
	}
}

void rxe_cc_set_rate(struct rxe_qp *qp, u32 kbps)
{
	if (READ_ONCE(qp->cc.rate_kbps) == kbps)
		return;
	WRITE_ONCE(qp->cc.rate_kbps, kbps);
	trace_rxe_cc_rate(qp_num(qp), kbps);
	rxe_cc_pace_retime(qp);
}
EXPORT_SYMBOL_GPL(rxe_cc_set_rate);

void rxe_cc_set_window(struct rxe_qp *qp, u32 pkts)
{
	WRITE_ONCE(qp->cc.cwnd, min_t(u32, pkts, RXE_MAX_UNACKED_PSNS));
}
EXPORT_SYMBOL_GPL(rxe_cc_set_window);

/* An algorithm knob of the QP's device, by offset in its params. */
u32 rxe_cc_param_get(struct rxe_qp *qp, size_t offset)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);

	/* params cannot change while the QP holds its algorithm (nqps) */
	return READ_ONCE(*(u32 *)((u8 *)rxe->cc.params + offset));
}
EXPORT_SYMBOL_GPL(rxe_cc_param_get);

/*
 * IB_QP_RATE_LIMIT (kb/s, 0 removes the limit) in a modify_qp, checked
 * after rxe checked the other attributes: accepted where mlx5 takes it,
 * on a transition into RTS from RTR, RTS or SQD.
 */
int rxe_cc_chk_rate_limit(struct rxe_qp *qp, struct ib_qp_attr *attr,
			  int mask)
{
	enum ib_qp_state cur = (mask & IB_QP_CUR_STATE) ?
			       attr->cur_qp_state : qp->attr.qp_state;
	enum ib_qp_state new = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	if (!(mask & IB_QP_RATE_LIMIT))
		return 0;
	if (new != IB_QPS_RTS ||
	    (cur != IB_QPS_RTR && cur != IB_QPS_RTS && cur != IB_QPS_SQD))
		return -EINVAL;
	return 0;
}

/*
 * ... and applied once the rest of the modify_qp succeeded.  A QP that
 * goes to RESET or ERR loses its limit, as an mlx5 send queue that
 * leaves the ready state does: the limit is part of the transmit state
 * that RESET clears, and is set again on the way back to RTS.
 */
void rxe_cc_set_rate_limit(struct rxe_qp *qp, struct ib_qp_attr *attr,
			   int mask)
{
	u32 kbps;

	if (mask & IB_QP_RATE_LIMIT)
		kbps = attr->rate_limit;
	else if ((mask & IB_QP_STATE) && (attr->qp_state == IB_QPS_RESET ||
					  attr->qp_state == IB_QPS_ERR))
		kbps = 0;
	else
		return;
	if (READ_ONCE(qp->cc.limit_kbps) == kbps &&
	    !(mask & IB_QP_RATE_LIMIT))
		return;
	WRITE_ONCE(qp->cc.limit_kbps, kbps);
	trace_rxe_cc_rate(qp_num(qp), kbps);
	rxe_cc_lock(qp);
	rxe_cc_pace_retime(qp);
	rxe_cc_unlock(qp);
}

/* query_qp: report the rate limit. */
void rxe_cc_query_qp(struct rxe_qp *qp, struct ib_qp_attr *attr)
{
	attr->rate_limit = READ_ONCE(qp->cc.limit_kbps);
}

/* The QP's pacing rate in kb/s: the lowest of its limits, 0 = none. */
static u32 rxe_cc_qp_rate(struct rxe_qp *qp)
{
	u32 r = READ_ONCE(rxe_cc_qp_dev(qp)->cc.max_rate_mbps) * 1000;
	u32 l = READ_ONCE(qp->cc.limit_kbps);
	u32 a = READ_ONCE(qp->cc.rate_kbps);

	if (l && (!r || l < r))
		r = l;
	if (a && (!r || a < r))
		r = a;
	return r;
}

/*
 * May a paced packet go now?  If not, arm the pacer for when it may and
 * tell the caller to stop; the pacer runs the requester again, and the
 * responder when @resp.  Under the cc lock: the requester and the
 * responder share the pacer and run in tasks of their own.
 */
static bool rxe_cc_pace_wait_locked(struct rxe_qp *qp, bool resp)
{
	u64 now, next = qp->cc.next_send_ns;

	if (!next)
		return false;
	now = ktime_get_ns();
	if ((s64)(next - now) <= 0)
		return false;
	if (!rxe_cc_qp_rate(qp)) {
		/* limits removed since the last packet */
		qp->cc.next_send_ns = 0;
		return false;
	}
	/*
	 * The QP is being destroyed.  Its requester is held: nothing it has
	 * not sent holds a reference.  Its responder is not: the request
	 * packets it has still to answer hold references that the destroy
	 * waits for (rxe_cc_qp_destroying()).
	 */
	if (resp && qp->cc.resp_unpaced)
		return false;
	if (qp->cc.stopped)
		return true;
	qp->cc.behind = true;
	if (resp)
		set_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait);
	hrtimer_start(&qp->cc.pacer, ns_to_ktime(next), HRTIMER_MODE_ABS);
	rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_PACER_DELAYS);
	return true;
}

/*
 * May the next packet of the requester (or of the responder: @resp) go
 * now?  A QP that was never paced, or no longer is, takes no lock.
 */
static bool rxe_cc_pace_wait_one(struct rxe_qp *qp, bool resp)
{
	bool wait;

	if (!READ_ONCE(qp->cc.next_send_ns))
		return false;
	rxe_cc_lock(qp);
	wait = rxe_cc_pace_wait_locked(qp, resp);
	rxe_cc_unlock(qp);
	return wait;
}

/* Requester: may the next packet go now? */
bool rxe_cc_pace_wait(struct rxe_qp *qp)
{
	return rxe_cc_pace_wait_one(qp, false);
}

/*
 * Responder: may the next RDMA READ response packet go now?  If not, the
 * responder stops with the response where it is; the pacer runs it again.
 */
bool rxe_cc_resp_pace_wait(struct rxe_qp *qp)
{
	return rxe_cc_pace_wait_one(qp, true);
}

/*
 * A window (the algorithm's, or rxe's unacknowledged PSNs) or rxe's skb
 * limit stops the requester, whatever the pacer says.  The time it is
 * held is not the pacer's to make up: what holds it is congestion (ACKs
 * that do not come back, a qdisc paused or slow to send), and a QP that
 * caught up afterwards would send up to pacer_catchup_us of its rate
 * back to back just when its path is slowest.  So the packet after the
 * hold may make up only what the QP was late when the hold began (a late
 * pacer timer's debt, which a QP catching up often runs into its skb
 * limit with), at least pacer_slack_us as after idle time
 * (rxe_cc_pace_charge()).  @why is the counter of the reason.
 */
void rxe_cc_held(struct rxe_qp *qp, enum rxe_counters why)
{
	u64 now;

	if (READ_ONCE(qp->cc.next_send_ns)) {
		rxe_cc_lock(qp);
		if (qp->cc.next_send_ns && !qp->cc.held) {
			now = ktime_get_ns();
			qp->cc.held = true;
			qp->cc.held_lag_ns = qp->cc.behind &&
				(s64)(now - qp->cc.next_send_ns) > 0 ?
				now - qp->cc.next_send_ns : 0;
			qp->cc.behind = false;
		}
		rxe_cc_unlock(qp);
	}
	rxe_counter_inc(rxe_cc_qp_dev(qp), why);
}

/* Held by the window (an algorithm's, or rxe's unacknowledged PSNs). */
void rxe_cc_window_stall(struct rxe_qp *qp)
{
	rxe_cc_held(qp, RXE_CNT_CC_WINDOW_STALLS);
}

/* Held by rxe's limit of skbs in flight per QP (not yet taken by the stack). */
void rxe_cc_skb_stall(struct rxe_qp *qp)
{
	rxe_cc_held(qp, RXE_CNT_CC_SKB_STALLS);
}

/* Wire size of a packet of @qp's path: Ethernet to ICRC. */
static u32 rxe_cc_wire_bytes(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	return ETH_HLEN + sizeof(struct udphdr) + pkt->paylen +
	       (qp->pri_av.network_type == RXE_NETWORK_TYPE_IPV6 ?
		sizeof(struct ipv6hdr) : sizeof(struct iphdr));
}

/* Pacing time a waiting QP could not catch up, in us (a counter). */
static void rxe_cc_count_lost(struct rxe_qp *qp, u64 ns)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);

	atomic64_add(div_u64(ns, NSEC_PER_USEC),
		     &rxe->stats_counters[RXE_CNT_CC_PACER_LOST_US]);
}

/*
 * A paced QP must be acknowledged before its transport timeout although
 * it sends slowly (cc/paced_ack).  Two things in rxe make it time out
 * and go back N with nothing lost:
 *  - rxe asks for an ACK at the end of a message and every
 *    RXE_MAX_PKT_PER_ACK packets, and only ACKs restart the retransmission
 *    timer; at a low pacing rate those packets take longer than the
 *    timeout (64 KB at 0.5 Mb/s: 1 s; perftest's -u 17: 537 ms).  A paced
 *    QP asks once the packets sent since its last AckReq took a quarter
 *    of its timeout at its pacing rate (rxe_cc_paced_ackreq());
 *  - the requester arms the timer only when it is not pending, and an ACK
 *    that acknowledges everything does not re-arm it, so a timer armed
 *    for packets acknowledged long ago keeps running and expires within
 *    the next packets of a slow QP.  A paced QP restarts it when it sends
 *    a packet with nothing older unacknowledged (rxe_cc_paced_timer()).
 */
static void rxe_cc_paced_timer(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	unsigned long tmo = qp->qp_timeout_jiffies;

	if (tmo && READ_ONCE(rxe_cc_qp_dev(qp)->cc.paced_ack) &&
	    psn_compare(pkt->psn, READ_ONCE(qp->comp.psn)) <= 0)
		mod_timer(&qp->retrans_timer, jiffies + tmo);
}

/*
 * A data packet of @bytes left: tell the algorithm, and charge its wire
 * time at @kbps, the QP's rate (0: none), to the pacer; returns that time
 * (ns, 0: not paced).  Under the cc lock.
 */
static u64 rxe_cc_pace_charge(struct rxe_qp *qp, u32 bytes, u32 kbps)
{
	u64 now, debt, catchup, wire_ns;

	if (qp->cc.ops && qp->cc.ops->on_sent)
		qp->cc.ops->on_sent(qp, bytes);
	qp->cc.pace_kbps = kbps;
	if (!kbps) {
		qp->cc.next_send_ns = 0;
		qp->cc.behind = false;
		qp->cc.held = false;
		return 0;
	}
	/*
	 * A QP that was waiting for its pacer and got the CPU late (timer
	 * latency, a stalled vCPU) catches up to pacer_catchup_us: the rate
	 * is an average.  Otherwise time the QP spent idle earns at most
	 * pacer_slack_us of credit (the burst after idle), and time it
	 * spent held by a window or the skb limit nothing beyond what it
	 * was late when the hold began (rxe_cc_held()).
	 */
	now = ktime_get_ns();
	catchup = (u64)READ_ONCE(rxe_cc_qp_dev(qp)->cc.pacer_catchup_us) *
		  NSEC_PER_USEC;
	debt = qp->cc.behind ? catchup :
	       (u64)READ_ONCE(rxe_cc_qp_dev(qp)->cc.pacer_slack_us) *
	       NSEC_PER_USEC;
	if (qp->cc.held) {
		qp->cc.held = false;
		debt = max(debt, min(qp->cc.held_lag_ns, catchup));
	}
	if (qp->cc.next_send_ns + debt < now) {
		/* a waiting QP got the CPU later than it can catch up */
		if (qp->cc.behind)
			rxe_cc_count_lost(qp, now - debt - qp->cc.next_send_ns);
		qp->cc.next_send_ns = now - debt;
	}
	/* bits / (kbit/s) = ms; * 1e6 -> ns */
	wire_ns = div_u64((u64)bytes * 8 * NSEC_PER_MSEC, kbps);
	qp->cc.next_send_ns += wire_ns;
	qp->cc.behind = qp->cc.behind && (s64)(qp->cc.next_send_ns - now) < 0;
	return wire_ns ?: 1;
}

/*
 * A data packet of @qp left: charge it (rxe_cc_pace_charge()); returns
 * its wire time, 0 when the QP is not paced.  A QP with no algorithm, no
 * rate and no pacing left over takes no lock: stock rxe's traffic.
 */
static u64 rxe_cc_charge_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u32 kbps = rxe_cc_qp_rate(qp);
	u64 wire_ns;

	if (!qp->cc.ops && !kbps && !READ_ONCE(qp->cc.next_send_ns))
		return 0;
	rxe_cc_lock(qp);
	wire_ns = rxe_cc_pace_charge(qp, rxe_cc_wire_bytes(qp, pkt), kbps);
	rxe_cc_unlock(qp);
	return wire_ns;
}

/* Requester: a packet left; charge its wire size to the pacer. */
void rxe_cc_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt, int payload)
{
	u64 wire_ns = rxe_cc_charge_sent(qp, pkt);

	if (!wire_ns) {
		qp->cc.noack_ns = 0;
		return;
	}
	rxe_cc_paced_timer(qp, pkt);
	qp->cc.noack_ns += wire_ns;
}

/*
 * Responder: an RDMA READ response packet left.  The QP's rate covers
 * everything it sends, so its responses are paced and counted as its
 * requests are.
 */
void rxe_cc_resp_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	rxe_cc_charge_sent(qp, pkt);
}

/*
 * Requester: should this packet of a paced QP ask for an ACK (see above)?
 * noack_ns is the pacing time of the packets sent since the last AckReq,
 * summed by rxe_cc_sent(); it stays 0 while the QP is not paced.
 */
static bool rxe_cc_paced_ackreq(struct rxe_qp *qp)
{
	unsigned long tmo = qp->qp_timeout_jiffies;

	if (!tmo || !READ_ONCE(rxe_cc_qp_dev(qp)->cc.paced_ack) ||
	    qp->cc.noack_ns < jiffies_to_nsecs(tmo) / 4)
		return false;
	rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_ACKREQ_ADDED);
	return true;
}

/*
 * Requester, under the cc lock: the algorithm sees the packet, may change
 * AckReq and ECT.
 */
static void rxe_cc_algo_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;
	struct rxe_cc_pkt p;
	u32 npsn = 1;

	/* a READ request takes the PSNs of its response packets */
	if ((pkt->mask & RXE_READ_MASK) && pkt->wqe)
		npsn = rxe_cc_read_pkts(qp, pkt->wqe);
	if (!qp->cc.acked_valid) {
		/* the first packet: ACKs count from here */
		qp->cc.acked_psn = pkt->psn;
		qp->cc.snd_max = pkt->psn;
		qp->cc.acked_valid = true;
	}
	p.retry = psn_compare(pkt->psn, qp->cc.snd_max) < 0;
	if (!p.retry)
		qp->cc.snd_max = (pkt->psn + npsn) & BTH_PSN_MASK;
	if (!ops->pkt_prep)
		return;
	qp->cc.undo.prepped = true;
	p.psn = pkt->psn;
	p.npsn = npsn;
	p.payload = pkt->paylen - rxe_opcode[pkt->opcode].length -
		    bth_pad(pkt) - RXE_ICRC_SIZE;
	p.first = pkt->mask & RXE_START_MASK;
	p.last = pkt->mask & RXE_END_MASK;
	p.ect = true;
	p.ackreq = bth_ack(pkt);
	ops->pkt_prep(qp, &p);
	qp->cc.undo.pkt = p;
	bth_set_ack(pkt, p.ackreq);
	if (!p.ect)
		pkt->mask |= RXE_CC_NOECT_MASK;
}

/*
 * Requester: a request packet's BTH is written; choose its AckReq bit
 * (a paced QP's, then the algorithm's) and whether it carries ECT(0).
 */
void rxe_cc_req_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	/* what rxe_cc_req_unsent() restores if the packet does not go */
	qp->cc.undo.valid = true;
	qp->cc.undo.prepped = false;
	qp->cc.undo.noack_ns = qp->cc.noack_ns;
	if (!bth_ack(pkt) && rxe_cc_paced_ackreq(qp))
		bth_set_ack(pkt, 1);
	if (qp->cc.ops) {
		rxe_cc_lock(qp);
		qp->cc.undo.acked_valid = qp->cc.acked_valid;
		qp->cc.undo.snd_max = qp->cc.snd_max;
		rxe_cc_algo_pkt(qp, pkt);
		rxe_cc_unlock(qp);
	}
	/* whoever asked, the time to the next AckReq counts from here */
	if (bth_ack(pkt))
		qp->cc.noack_ns = 0;
}

/*
 * Requester: the packet last built was not sent (rxe_xmit_packet() said
 * -EAGAIN) and rxe rolled its state back to send it again: roll back
 * what rxe_cc_req_pkt() changed, and let the algorithm undo its pkt_prep.
 * Otherwise the retry would pass for a go-back-N retransmission and an
 * algorithm that counts packets in flight would count this one twice.
 */
void rxe_cc_req_unsent(struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	if (!qp->cc.undo.valid)
		return;
	qp->cc.undo.valid = false;
	qp->cc.noack_ns = qp->cc.undo.noack_ns;
	if (!ops)
		return;
	rxe_cc_lock(qp);
	qp->cc.snd_max = qp->cc.undo.snd_max;
	qp->cc.acked_valid = qp->cc.undo.acked_valid;
	if (qp->cc.undo.prepped && ops->pkt_unsent)
		ops->pkt_unsent(qp, &qp->cc.undo.pkt);
	rxe_cc_unlock(qp);
}

/*
 * Responder: it executes the request @pkt (new requests only, in PSN
 * order, each before the ACK that covers it).  CE is noted here rather
 * than on receive: 6.12's responder runs from a work queue, behind
 * packets already received, and a flag set on receive was taken by the
 * ACK of an earlier request (one BECN for a batch of marked packets).
 */
void rxe_cc_resp_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	if (!ops || !(ops->flags & RXE_CC_F_BECN) ||
	    !(pkt->mask & RXE_CC_CE_MASK))
		return;
	rxe_cc_lock(qp);
	qp->cc.ce_unacked = true;
	rxe_cc_unlock(qp);
}

/*
 * Responder: an ACK or read response is built; carry BECN if CE was seen.
 * NAKs do not carry it (the requester does not take them as ACKs): the
 * next positive ACK does.
 */
void rxe_cc_ack_prep(struct rxe_qp *qp, struct rxe_pkt_info *ack, u8 syndrome)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	bool becn;

	if (!ops || !(ops->flags & RXE_CC_F_BECN))
		return;
	if ((ack->mask & RXE_AETH_MASK) &&
	    (syndrome & AETH_TYPE_MASK) != AETH_ACK)
		return;
	rxe_cc_lock(qp);
	becn = qp->cc.ce_unacked;
	qp->cc.ce_unacked = false;
	rxe_cc_unlock(qp);
	if (!becn)
		return;
	bth_set_becn(ack, 1);
	rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_BECN_SENT);
}

/*
 * Requester, receive path (softirq, before the completer): an ACK or read
 * response for @qp passed rxe's header checks.  Tell the algorithm how
 * many packets it acknowledges for the first time.  Duplicates, NAKs and
 * PSNs outside what was sent are not acknowledgements.
 *
 * The echo passed along is the BTH BECN bit, which the responder sets on
 * the ACK that covers a CE-marked request.  A read response is itself the
 * data of the READ: for an algorithm that takes BECN its own CE mark is
 * the echo, since the window it marks (the READ's response PSNs) is this
 * requester's.  LDCP's slides add ACKs for read responses so that the
 * responder learns of the marks; here the requester, which holds the
 * window, sees them directly, and the responder needs no algorithm.
 */
void rxe_cc_ack_rcv(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;
	bool ece = bth_becn(pkt);
	u32 next, n;

	if (!ops || !ops->on_ack || !(pkt->mask & RXE_ACK_MASK))
		return;
	if ((pkt->mask & RXE_AETH_MASK) &&
	    (aeth_syn(pkt) & AETH_TYPE_MASK) != AETH_ACK)
		return;
	if (ece)
		rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_BECN_RCVD);
	if ((ops->flags & RXE_CC_F_BECN) && rxe_cc_data_pkt(pkt) &&
	    (pkt->mask & RXE_CC_CE_MASK))
		ece = true;
	next = (pkt->psn + 1) & BTH_PSN_MASK;
	rxe_cc_lock(qp);
	if (qp->cc.acked_valid && psn_compare(next, qp->cc.acked_psn) > 0 &&
	    psn_compare(next, qp->cc.snd_max) <= 0) {
		n = (next - qp->cc.acked_psn) & BTH_PSN_MASK;
		qp->cc.acked_psn = next;
		ops->on_ack(qp, n, ece);
	}
	rxe_cc_unlock(qp);
}

/* ------------------------------------------------------------------ */
/* ECN and CNPs                                                        */

/* Receive: note and count CE (the IP header is still in front). */
void rxe_cc_rx_ecn(struct rxe_dev *rxe, struct sk_buff *skb,
		   struct rxe_pkt_info *pkt)
{
	u8 ds;

	if (skb->protocol == htons(ETH_P_IP))
		ds = ipv4_get_dsfield(ip_hdr(skb));
	else if (skb->protocol == htons(ETH_P_IPV6))
		ds = ipv6_get_dsfield(ipv6_hdr(skb));
	else
		return;
	if (INET_ECN_is_ce(ds)) {
		pkt->mask |= RXE_CC_CE_MASK;
		rxe_counter_inc(rxe, RXE_CNT_NP_ECN_MARKED);
	}
}

/*
 * Send a CNP to the sender of @qp (its peer, DestQP = the peer's QPN),
 * with @rsvd (16 bytes) in the reserved field.  Not under the cc lock.
 */
static int rxe_cc_xmit_cnp(struct rxe_qp *qp, const u8 *rsvd)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);
	struct rxe_pkt_info pkt = {};
	struct rxe_av *av = &qp->pri_av;
	struct rxe_bth *bth;
	struct sk_buff *skb;
	u32 paylen;
	int err;

	/*
	 * The receive path may get here while the QP is being destroyed:
	 * its last reference gone, its cleanup (which releases the socket
	 * rxe_send() uses) about to run.  Send only while holding a
	 * reference of our own, which keeps that cleanup waiting.  The peer
	 * learns nothing from a QP whose responder is not ready.
	 */
	if (!qp->valid || !rxe_cc_resp_ready(qp))
		return -ENOENT;
	if (!rxe_get(qp))
		return -ENOENT;
	paylen = RXE_BTH_BYTES + RXE_CC_CNP_RSVD_BYTES + RXE_ICRC_SIZE;
	pkt.qp = qp;
	pkt.opcode = RXE_CC_OPCODE_CNP;
	skb = rxe_init_packet(rxe, av, paylen, &pkt);
	if (!skb) {
		err = -ENOMEM;
		goto out;
	}
	pkt.paylen = paylen;
	pkt.mask |= RXE_BTH_MASK;

	bth = (struct rxe_bth *)pkt.hdr;
	memset(bth, 0, paylen);
	bth->opcode = RXE_CC_OPCODE_CNP;
	bth->pkey = htons(IB_DEFAULT_PKEY_FULL);
	bth->qpn = cpu_to_be32(BTH_BECN_MASK |
			       (qp->attr.dest_qp_num & BTH_QPN_MASK));
	memcpy(pkt.hdr + RXE_BTH_BYTES, rsvd, RXE_CC_CNP_RSVD_BYTES);

	err = rxe_prepare(av, &pkt, skb);
	if (err) {
		kfree_skb(skb);
		goto out;
	}
	skb->priority = READ_ONCE(rxe->cc.cnp_802p_prio);
	err = rxe_xmit_packet(qp, &pkt, skb);
	if (err)
		goto out;
	rxe_counter_inc(rxe, RXE_CNT_NP_CNP_SENT);
	trace_rxe_cc_cnp_sent(qp_num(qp), qp->attr.dest_qp_num);
out:
	rxe_put(qp);
	return err;
}

/*
 * From a callback: send a CNP with @rsvd (16 bytes, NULL: zeros) to the
 * QP's peer once the callback returned (rxe_cc_unlock()).  A second call
 * in the same callback replaces the first.
 */
void rxe_cc_send_cnp(struct rxe_qp *qp, const u8 *rsvd)
{
	BUILD_BUG_ON(sizeof(qp->cc.cnp_rsvd) != RXE_CC_CNP_RSVD_BYTES);
	lockdep_assert_held(&qp->cc.lock);
	if (rsvd)
		memcpy(qp->cc.cnp_rsvd, rsvd, RXE_CC_CNP_RSVD_BYTES);
	else
		memset(qp->cc.cnp_rsvd, 0, RXE_CC_CNP_RSVD_BYTES);
	qp->cc.cnp_pending = true;
}
EXPORT_SYMBOL_GPL(rxe_cc_send_cnp);

/*
 * Notification point, for every valid data packet of a QP (a request, or
 * a response to its RDMA READ: the peer's reaction point paces both): on
 * CE send a CNP to the QP's peer unless one went less than
 * min_time_between_cnps (N) ago.  Inside that window, the DCQCN paper's
 * NP (its Fig. 6: at most one CNP every N for a flow, if any packet of
 * the window was marked) sends one when the window ends (np_timer); with
 * cc/np_cnp_window_end 0 such a CE is forgotten, as mlx5 does, until a
 * CE after the window.
 */
void rxe_cc_np_rcv(struct rxe_pkt_info *pkt)
{
	struct rxe_qp *qp = pkt->qp;
	const struct rxe_cc_ops *ops;
	bool ce = pkt->mask & RXE_CC_CE_MASK;
	u64 now, last, gap;

	if (!qp || !rxe_cc_data_pkt(pkt))
		return;
	ops = qp->cc.ops;
	if (!ops)
		return;
	rxe_cc_lock(qp);
	if (ops->on_rx)
		ops->on_rx(qp, rxe_cc_wire_bytes(qp, pkt), ce);
	if (ce && (ops->flags & RXE_CC_F_NP)) {
		now = ktime_get_ns();
		gap = (u64)READ_ONCE(pkt->rxe->cc.min_time_between_cnps) *
		      NSEC_PER_USEC;
		last = qp->cc.last_cnp_ns;
		if (!last || now - last >= gap) {
			qp->cc.last_cnp_ns = now;
			qp->cc.np_ce_pending = false;
			rxe_cc_send_cnp(qp, NULL);
		} else if (!qp->cc.np_ce_pending && !qp->cc.stopped &&
			   READ_ONCE(pkt->rxe->cc.np_cnp_window_end)) {
			qp->cc.np_ce_pending = true;
			hrtimer_start(&qp->cc.np_timer,
				      ns_to_ktime(last + gap),
				      HRTIMER_MODE_ABS_SOFT);
		}
	}
	rxe_cc_unlock(qp);
}

/*
 * May the QP send data its reaction point paces?  From RTR on its
 * responder sends RDMA READ responses (a QP that only serves READs, like
 * perftest's ib_read_bw server, never leaves RTR), from RTS on its
 * requester sends requests; SQD and SQE still respond.
 */
static bool rxe_cc_qp_may_send(struct rxe_qp *qp)
{
	enum ib_qp_state s = READ_ONCE(qp->attr.qp_state);

	return s >= IB_QPS_RTR && s <= IB_QPS_SQE;
}

/* Does the CNP come from the QP's peer? */
static bool rxe_cc_cnp_from_peer(struct sk_buff *skb, struct rxe_qp *qp)
{
	struct rxe_av *av = &qp->pri_av;

	if (skb->protocol == htons(ETH_P_IP))
		return av->network_type == RXE_NETWORK_TYPE_IPV4 &&
		       ip_hdr(skb)->saddr ==
		       av->dgid_addr._sockaddr_in.sin_addr.s_addr;
	if (skb->protocol == htons(ETH_P_IPV6))
		return av->network_type == RXE_NETWORK_TYPE_IPV6 &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
				       &av->dgid_addr._sockaddr_in6.sin6_addr);
	return false;
}

/*
 * Reaction point: a packet with BTH opcode CNP.  Consumes the skb and
 * the device reference of the receive path.
 */
void rxe_cc_cnp_rcv(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);
	struct rxe_dev *rxe = pkt->rxe;
	struct rxe_qp *qp = NULL;
	struct rxe_cc_cnp cnp;
	u32 qpn = bth_qpn(pkt);
	int err;

	if (pkt->paylen != RXE_BTH_BYTES + RXE_CC_CNP_RSVD_BYTES +
	    RXE_ICRC_SIZE || skb->len < pkt->paylen || bth_pad(pkt) ||
	    !bth_becn(pkt))
		goto ignore;
	if (rxe_icrc_check(skb, pkt))
		goto ignore;
	qp = rxe_pool_get_index(&rxe->qp_pool, qpn);
	if (!qp)
		goto ignore;
	if (qp_type(qp) != IB_QPT_RC || !qp->valid ||
	    !rxe_cc_qp_may_send(qp) || !rxe_cc_cnp_from_peer(skb, qp))
		goto ignore;

	if (qp->cc.ops && qp->cc.ops->on_cnp) {
		memcpy(cnp.rsvd, pkt->hdr + RXE_BTH_BYTES, sizeof(cnp.rsvd));
		rxe_cc_lock(qp);
		err = qp->cc.ops->on_cnp(qp, &cnp);
		rxe_cc_unlock(qp);
		if (err)
			goto ignore;
	}
	rxe_counter_inc(rxe, RXE_CNT_RP_CNP_HANDLED);
	trace_rxe_cc_cnp_rcvd(qpn);
	goto out;
ignore:
	rxe_counter_inc(rxe, RXE_CNT_RP_CNP_IGNORED);
out:
	if (qp)
		rxe_put(qp);
	kfree_skb(skb);
	ib_device_put(&rxe->ib_dev);
}

/* ------------------------------------------------------------------ */
/* Module                                                              */

int rxe_cc_init(void)
{
	/* teach rxe's opcode table the CNP (for the ICRC helpers) */
	rxe_opcode[RXE_CC_OPCODE_CNP].name = "IB_OPCODE_CNP";
	rxe_opcode[RXE_CC_OPCODE_CNP].mask = RXE_BTH_MASK;
	rxe_opcode[RXE_CC_OPCODE_CNP].length = RXE_BTH_BYTES +
					       RXE_CC_CNP_RSVD_BYTES;
	rxe_opcode[RXE_CC_OPCODE_CNP].offset[RXE_BTH] = 0;
	/* no payload: the ICRC covers BTH and the reserved bytes once */
	rxe_opcode[RXE_CC_OPCODE_CNP].offset[RXE_PAYLOAD] = RXE_BTH_BYTES +
		RXE_CC_CNP_RSVD_BYTES;

	return rxe_cc_fixed_init();
}

void rxe_cc_exit(void)
{
	rxe_cc_fixed_exit();
}

/*
 * The distribution's rdma_rxe has no version; DKMS installs a module over
 * an original of the same (empty) version only with --force.  This one
 * names the DCB lab release (dkms.conf's PACKAGE_VERSION).
 */
MODULE_VERSION("0.1");
