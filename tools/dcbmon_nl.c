// SPDX-License-Identifier: GPL-2.0
/*
 * dcbmon: its netlink reading, which the sampler and the snapshot
 * (dcbmon.c) share: entering a network namespace and back, the ifindex
 * of a device, and the counters of a dcb qdisc and of its classes out of
 * their TCA_STATS_APP (include/dcb_xstats.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "pkt_sched_dcb.h"
#include "dcb_xstats.h"
#include "dcbmon_nl.h"

/*
 * Enter a named namespace (saving the current one in *saved), or do
 * nothing for the current namespace.  Returns 0 or -1 with a message.
 */
int netns_enter(const char *name, int *saved)
{
	char path[PATH_MAX];
	int fd;

	*saved = -1;
	if (!*name)
		return 0;
	*saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*saved < 0) {
		fprintf(stderr, "dcbmon: /proc/self/ns/net: %s\n", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "dcbmon: netns %s: %s: %s\n", name, path,
			strerror(errno));
		goto err;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "dcbmon: setns(%s): %s\n", name, strerror(errno));
		close(fd);
		goto err;
	}
	close(fd);
	return 0;
err:
	close(*saved);
	*saved = -1;
	return -1;
}

void netns_leave(const char *name, int saved)
{
	if (saved < 0)
		return;
	if (setns(saved, CLONE_NEWNET) < 0) {
		fprintf(stderr, "dcbmon: cannot return from netns %s: %s\n",
			name, strerror(errno));
		exit(1);
	}
	close(saved);
}

static int link_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *hdr = nlmsg_hdr(msg);
	int *ifindex = arg;

	if (hdr->nlmsg_type == RTM_NEWLINK &&
	    nlmsg_datalen(hdr) >= (int)sizeof(struct ifinfomsg))
		*ifindex = ((struct ifinfomsg *)nlmsg_data(hdr))->ifi_index;
	return NL_OK;
}

/*
 * The ifindex of device @dev, asked over @sk (RTM_GETLINK by name), or a
 * negative libnl error.
 */
int link_ifindex(struct nl_sock *sk, const char *dev)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_cb *cb;
	struct nl_msg *msg;
	int err, ifindex = -1;

	msg = nlmsg_alloc_simple(RTM_GETLINK, 0);
	if (!msg)
		return -NLE_NOMEM;
	err = nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	if (!err)
		err = nla_put_string(msg, IFLA_IFNAME, dev);
	if (!err)
		err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return err;
	cb = nl_cb_clone(nl_socket_get_cb(sk));
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, link_cb, &ifindex);
	err = nl_recvmsgs(sk, cb);	/* the RTM_NEWLINK, or the error */
	nl_cb_put(cb);
	if (err >= 0)
		err = nl_wait_for_ack(sk);	/* so no ACK is left for a dump */
	if (err < 0)
		return err;
	return ifindex >= 0 ? ifindex : -NLE_OBJ_NOTFOUND;
}

/*
 * The port counters of a dcb qdisc, its TCA_STATS_APP @app, into *@xs:
 * NULL, or why they cannot be read (in @why of @size bytes).
 */
const char *read_xstats(struct nlattr *app, struct dcb_xstats *xs,
			char *why, size_t size)
{
	if (dcb_xstats_read(nla_data(app), nla_len(app), xs, why, size))
		return why;
	if (!xs->port) {
		snprintf(why, size, "xstats without the port's counters");
		return why;
	}
	if (xs->nbands > TC_DCB_NUM_BANDS) {
		snprintf(why, size, "xstats nbands %u > %d", xs->nbands,
			 TC_DCB_NUM_BANDS);
		return why;
	}
	return NULL;
}

/*
 * The counters of a class message @hdr of the dcb qdisc @handle on
 * @ifindex (band N is class minor N + 1, below @nbands) into *@band and
 * *@st: 1; 0 when @hdr is no such class; -1 when it carries no xstats,
 * -2 when they cannot be read.  Of a newer module's counters, the ones
 * we know are taken; an older module's missing ones read 0.
 */
int band_stats(struct nlmsghdr *hdr, int ifindex, __u32 handle,
	       unsigned int nbands, unsigned int *band,
	       struct tc_dcb_stats *st)
{
	struct nlattr *tb[TCA_MAX + 1], *sb[TCA_STATS_MAX + 1];
	struct dcb_xstats x;
	struct tcmsg *tcm;
	char why[96];

	if (hdr->nlmsg_type != RTM_NEWTCLASS ||
	    nlmsg_datalen(hdr) < (int)sizeof(*tcm))
		return 0;
	tcm = nlmsg_data(hdr);
	if (tcm->tcm_ifindex != ifindex ||
	    TC_H_MAJ(tcm->tcm_handle) != TC_H_MAJ(handle))
		return 0;
	*band = TC_H_MIN(tcm->tcm_handle) - 1;
	if (*band >= nbands)
		return 0;
	if (nlmsg_parse(hdr, sizeof(*tcm), tb, TCA_MAX, NULL) < 0 ||
	    !tb[TCA_STATS2] ||
	    nla_parse_nested(sb, TCA_STATS_MAX, tb[TCA_STATS2], NULL) < 0 ||
	    !sb[TCA_STATS_APP])
		return -1;
	if (dcb_xstats_read(nla_data(sb[TCA_STATS_APP]),
			    nla_len(sb[TCA_STATS_APP]), &x, why, sizeof(why)) ||
	    x.port)
		return -2;
	*st = x.stats;
	return 1;
}
