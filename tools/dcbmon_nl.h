/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dcbmon: its netlink reading (dcbmon_nl.c), as the sampler and the
 * snapshot (dcbmon.c) call it.
 */
#ifndef DCBMON_NL_H
#define DCBMON_NL_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/netlink.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>

#include "pkt_sched_dcb.h"
#include "dcb_xstats.h"

int netns_enter(const char *name, int *saved);
void netns_leave(const char *name, int saved);
int link_ifindex(struct nl_sock *sk, const char *dev);
const char *read_xstats(struct nlattr *app, struct dcb_xstats *xs,
			char *why, size_t size);
int band_stats(struct nlmsghdr *hdr, int ifindex, __u32 handle,
	       unsigned int nbands, unsigned int *band,
	       struct tc_dcb_stats *st);

#endif /* DCBMON_NL_H */
