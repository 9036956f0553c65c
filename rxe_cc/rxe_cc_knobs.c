// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_knobs.c: a device's knobs, /sys/class/infiniband/<dev>/cc/.
 *
 * The algorithm of new QPs (cc/algo, which loads its module), the device
 * knobs, the line rate and base RTT that the algorithms' defaults derive
 * from, and the engine's part of adding and deleting a device.
 */

#include <linux/ethtool.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "rxe_cc_loc.h"
#include "rxe_cc_compat.h"

/*
 * cc/base_rtt_us by default: the feedback round trip of the lab's
 * default network (100 Mbit/s ports, RED from 5 to 20 KB) in a
 * virtual-time guest: about 100 us idle, 2 x 82 us to serialise a 1 KB
 * packet over two shaped hops, and 1.6 ms of queue at the marking
 * threshold (Documentation/rxe_cc.rst, "Default parameters").
 */
#define RXE_CC_BASE_RTT_US	2000

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
u32 rxe_cc_dev_line(struct rxe_dev *rxe, u32 *port, u8 *src)
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
	return rxe_cc_algos_show(buf);
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

/* rxe's netdev notifier (RTNL held): the link came up or changed. */
void rxe_cc_netdev_event(struct rxe_dev *rxe, unsigned long event)
{
	if (event == NETDEV_UP || event == NETDEV_CHANGE)
		WRITE_ONCE(rxe->cc.port_kbps, rxe_cc_read_port_kbps(rxe));
}
