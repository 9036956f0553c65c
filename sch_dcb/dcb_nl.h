/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: its netlink side (dcb_nl.c), as the qdisc's operations
 * (dcb_qdisc.c) call it.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_NL_H
#define _SCH_DCB_NL_H

#include <linux/types.h>
#include <linux/netlink.h>
#include <net/sch_generic.h>

#include "dcb_sched.h"

/* Configuration: parsed into a copy, checked, then the qdisc commits it. */
int dcb_parse(struct nlattr *opt, struct dcb_cfg *cfg, s64 *buffer,
	      bool create, struct netlink_ext_ack *extack);
int dcb_check(struct Qdisc *sch, const struct dcb_cfg *cfg,
	      s64 buffer, struct netlink_ext_ack *extack);
/* @tb: TCA_DCB_BAND_MAX + 1 entries */
int dcb_parse_class(struct nlattr *opt, unsigned long cl, struct nlattr **tb,
		    struct netlink_ext_ack *extack);
int dcb_apply_class(struct nlattr **tb, unsigned long cl, struct dcb_cfg *cfg,
		    struct netlink_ext_ack *extack);

/* Dumps */
int dcb_dump(struct Qdisc *sch, struct sk_buff *skb);
int dcb_dump_stats(struct Qdisc *sch, struct gnet_dump *d);
int dcb_dump_class(struct Qdisc *sch, unsigned long cl,
		   struct sk_buff *skb, struct tcmsg *tcm);
int dcb_dump_class_stats(struct Qdisc *sch, unsigned long cl,
			 struct gnet_dump *d);

#endif /* _SCH_DCB_NL_H */
