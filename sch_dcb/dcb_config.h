/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: the qdisc's configuration and classes (dcb_config.c), as its
 * Qdisc_ops (dcb_qdisc.c) name them.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_CONFIG_H
#define _SCH_DCB_CONFIG_H

#include <linux/netlink.h>
#include <net/sch_generic.h>

int dcb_init(struct Qdisc *sch, struct nlattr *opt,
	     struct netlink_ext_ack *extack);
int dcb_change(struct Qdisc *sch, struct nlattr *opt,
	       struct netlink_ext_ack *extack);
void dcb_attach(struct Qdisc *sch);

extern const struct Qdisc_class_ops dcb_class_ops;

#endif /* _SCH_DCB_CONFIG_H */
