// SPDX-License-Identifier: GPL-2.0
/*
 * dcbmon - sample the statistics of sch_dcb qdiscs into a CSV file.
 *
 *   dcbmon [-i MS] [-d SECONDS] [-c COUNT] [-o FILE] [-a] [-j] NETNS:DEV ...
 *
 * Every interval the root qdiscs of each network namespace are dumped
 * (RTM_GETQDISC) over one rtnetlink socket per namespace.  For each
 * requested device the root qdisc must be of kind "dcb"; its TCA_STATS2 ->
 * TCA_STATS_APP payload holds the port totals (pkt_sched_dcb.h, read with
 * include/dcb_xstats.h: a newer module's appended counters are left out,
 * an older module's missing ones read 0).  The bands are the qdisc's
 * classes, dumped next (RTM_GETTCLASS, one device at a time), each with
 * its counters.  One CSV row is written for the port totals (band "all")
 * and one per band that has seen traffic (or every band with -a); with
 * -j, one JSON object per line instead, with the same names.  t_ms counts from dcbmon's start
 * (CLOCK_MONOTONIC); t_unix_ms is the wall clock of the same sample, so
 * the samples line up with other tools' timestamps.
 *
 * Deadlines are absolute on CLOCK_MONOTONIC, so the sampling does not
 * drift; a sample that overruns skips the missed ticks.
 *
 *   dcbmon -s [LABEL=]NETNS[:DEV] ...
 *
 * One reading of every root sch_dcb of each namespace, with its bands,
 * pool and the drop counters of the namespace's devices, as "KEY VALUE"
 * lines (snap_target()): one process where a script would otherwise run
 * tc, ip and a JSON parser per namespace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "pkt_sched_dcb.h"
#include "dcb_xstats.h"
#include "dcbmon_nl.h"

/*
 * CSV columns, and the keys of -j: every member of struct tc_dcb_stats
 * in the struct's order (DCB_STATS_FIELDS: the row's band, or the port
 * totals), then the port-wide counters of struct dcb_xstats (the same
 * on every row of a sample).  A member appended to the struct becomes a
 * column before the port-wide ones, so scripts read the columns by
 * header name; only t_ms, netns, dev, band (first) and t_unix_ms (last,
 * added by write_row()) keep their places.
 */
struct column {
	const char *name;
	size_t off;
	int port;	/* off is in struct dcb_xstats */
};

#define COL(f)	{ #f, offsetof(struct tc_dcb_stats, f), 0 },
static const struct column columns[] = {
	DCB_STATS_FIELDS(COL)
	{ "pool_used", offsetof(struct dcb_xstats, pool.used), 1 },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

struct netns {
	char *name;		/* "" = namespace dcbmon was started in */
	struct nl_sock *sk;
};

struct target {
	struct netns *ns;
	char *dev;
	int ifindex;
	int found;		/* seen in the current dump */
	int warned;		/* a "not found / not dcb" warning printed */
	unsigned int bands_seen; /* bitmask: bands with traffic so far */
	__u32 handle;		/* of the dcb root qdisc in this sample */
	int have_xs;		/* xs holds this sample's port counters */
	struct dcb_xstats xs;
};

static struct netns *nss;
static int nnss;
static struct target *targets;
static int ntargets;

static FILE *out;
static int all_bands;
static int json;		/* -j: JSON lines instead of CSV */
static int snapshot;		/* -s: one "KEY VALUE" reading */
static volatile sig_atomic_t stop;
static struct timespec t0;
static uint64_t now_ms;		/* time of the sample being written */
static uint64_t now_unix_ms;	/* the same on the wall clock */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dcbmon [-i MS] [-d SECONDS] [-c COUNT] [-o FILE] [-a] [-j] NETNS:DEV [NETNS:DEV ...]\n"
		"       dcbmon -s [LABEL=]NETNS[:DEV] ...\n"
		"  -i MS       sampling interval in milliseconds (default 10)\n"
		"  -d SECONDS  stop after this many seconds (default: until SIGINT/SIGTERM)\n"
		"  -c COUNT    stop after COUNT samples (-c 1 -a -j: a snapshot)\n"
		"  -o FILE     write to FILE (default: standard output)\n"
		"  -a          write all 8 bands every sample (default: bands with traffic)\n"
		"  -j          JSON lines (one object per row) instead of CSV\n"
		"  NETNS:DEV   device DEV in network namespace NETNS (/run/netns/NETNS);\n"
		"              NETNS '-' or empty (or no ':') = current namespace\n"
		"  -s          one reading of every root sch_dcb of NETNS (or of DEV)\n"
		"              and of its devices' drops, as LABEL:DEV:NAME[:BAND] VALUE lines\n");
}

static uint64_t ts_ms(const struct timespec *a, const struct timespec *b)
{
	int64_t ns = (int64_t)(a->tv_sec - b->tv_sec) * 1000000000LL +
		     (a->tv_nsec - b->tv_nsec);
	return ns < 0 ? 0 : (uint64_t)ns / 1000000;
}

static void ts_add_ns(struct timespec *t, uint64_t ns)
{
	t->tv_sec += ns / 1000000000ULL;
	t->tv_nsec += ns % 1000000000ULL;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Find or create the namespace entry (does not open the socket yet). */
static struct netns *netns_get(const char *name)
{
	struct netns *n;
	int i;

	for (i = 0; i < nnss; i++)
		if (!strcmp(nss[i].name, name))
			return &nss[i];
	n = realloc(nss, (nnss + 1) * sizeof(*nss));
	if (!n) {
		perror("dcbmon: realloc");
		exit(1);
	}
	nss = n;
	n = &nss[nnss++];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	return n;
}

/* Open the namespace's socket and resolve the ifindex of its targets. */
static int netns_open(struct netns *n)
{
	int saved, i, err, ret = 0;

	if (netns_enter(n->name, &saved) < 0)
		return -1;

	n->sk = nl_socket_alloc();
	if (!n->sk) {
		fprintf(stderr, "dcbmon: nl_socket_alloc failed\n");
		ret = -1;
		goto out;
	}
	err = nl_connect(n->sk, NETLINK_ROUTE);
	if (err < 0) {
		fprintf(stderr, "dcbmon: netlink connect (netns %s): %s\n",
			*n->name ? n->name : "-", nl_geterror(err));
		ret = -1;
		goto out;
	}
	/* The dump can be large with many devices; avoid ENOBUFS. */
	nl_socket_set_buffer_size(n->sk, 1 << 20, 0);

	for (i = 0; i < ntargets; i++) {
		if (targets[i].ns != n)
			continue;
		err = link_ifindex(n->sk, targets[i].dev);
		if (err < 0) {
			fprintf(stderr, "dcbmon: device %s not found in netns %s: %s\n",
				targets[i].dev, *n->name ? n->name : "-",
				nl_geterror(err));
			ret = -1;
			continue;
		}
		targets[i].ifindex = err;
	}
out:
	netns_leave(n->name, saved);
	return ret;
}

static void write_header(void)
{
	size_t c;

	if (json)
		return;
	fputs("t_ms,netns,dev,band", out);
	for (c = 0; c < NCOLUMNS; c++)
		fprintf(out, ",%s", columns[c].name);
	fputs(",t_unix_ms\n", out);
}

/* A namespace or device name as a JSON string (they hold no '"' or '\\'
 * in practice; escape them and control characters anyway).
 */
static void json_str(const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void write_row(const struct target *t, int band,
		      const struct dcb_xstats *xs,
		      const struct tc_dcb_stats *st)
{
	const char *ns = *t->ns->name ? t->ns->name : "-";
	size_t c;

	if (json) {
		fprintf(out, "{\"t_ms\":%" PRIu64 ",\"t_unix_ms\":%" PRIu64
			",\"netns\":", now_ms, now_unix_ms);
		json_str(ns);
		fputs(",\"dev\":", out);
		json_str(t->dev);
		if (band < 0)
			fputs(",\"band\":\"all\"", out);
		else
			fprintf(out, ",\"band\":%d", band);
	} else {
		fprintf(out, "%" PRIu64 ",%s,%s,", now_ms, ns, t->dev);
		if (band < 0)
			fputs("all", out);
		else
			fprintf(out, "%d", band);
	}
	for (c = 0; c < NCOLUMNS; c++) {
		const char *base = columns[c].port ? (const char *)xs :
						     (const char *)st;
		uint64_t v;

		memcpy(&v, base + columns[c].off, sizeof(v));
		if (json)
			fprintf(out, ",\"%s\":%" PRIu64, columns[c].name, v);
		else
			fprintf(out, ",%" PRIu64, v);
	}
	if (json)
		fputs("}\n", out);
	else
		fprintf(out, ",%" PRIu64 "\n", now_unix_ms);
}

static int band_has_traffic(const struct tc_dcb_stats *st)
{
	return st->enq_packets || st->drops_tail || st->drops_wred ||
	       st->backlog_packets || st->drops_headroom || st->pause_rx ||
	       st->in_bytes;
}

/* The tcmsg of a dump's message about a root qdisc; NULL for any other */
static struct tcmsg *root_qdisc(struct nlmsghdr *hdr)
{
	struct tcmsg *tcm;

	if (hdr->nlmsg_type != RTM_NEWQDISC ||
	    nlmsg_datalen(hdr) < (int)sizeof(*tcm))
		return NULL;
	tcm = nlmsg_data(hdr);
	return tcm->tcm_parent == TC_H_ROOT ? tcm : NULL;
}

static void warn_target(struct target *t, const char *what)
{
	if (t->warned)
		return;
	t->warned = 1;
	fprintf(stderr, "dcbmon: %s:%s: %s\n",
		*t->ns->name ? t->ns->name : "-", t->dev, what);
}

static int dump_cb(struct nl_msg *msg, void *arg)
{
	struct netns *n = arg;
	struct nlmsghdr *hdr = nlmsg_hdr(msg);
	struct nlattr *tb[TCA_MAX + 1], *sb[TCA_STATS_MAX + 1];
	struct dcb_xstats xs;
	struct tcmsg *tcm;
	struct target *t = NULL;
	const char *why;
	char what[96];
	int i;

	tcm = root_qdisc(hdr);
	if (!tcm)
		return NL_OK;
	for (i = 0; i < ntargets; i++)
		if (targets[i].ns == n && targets[i].ifindex == tcm->tcm_ifindex) {
			t = &targets[i];
			break;
		}
	if (!t)
		return NL_OK;
	t->found = 1;

	if (nlmsg_parse(hdr, sizeof(*tcm), tb, TCA_MAX, NULL) < 0) {
		warn_target(t, "cannot parse qdisc message");
		return NL_OK;
	}
	if (!tb[TCA_KIND] || strcmp(nla_get_string(tb[TCA_KIND]), "dcb")) {
		snprintf(what, sizeof(what), "root qdisc is %s, not dcb",
			 tb[TCA_KIND] ? nla_get_string(tb[TCA_KIND]) : "?");
		warn_target(t, what);
		return NL_OK;
	}
	if (!tb[TCA_STATS2] ||
	    nla_parse_nested(sb, TCA_STATS_MAX, tb[TCA_STATS2], NULL) < 0 ||
	    !sb[TCA_STATS_APP]) {
		warn_target(t, "dcb qdisc without xstats (TCA_STATS_APP)");
		return NL_OK;
	}
	why = read_xstats(sb[TCA_STATS_APP], &xs, what, sizeof(what));
	if (why) {
		warn_target(t, why);
		return NL_OK;
	}
	t->warned = 0;
	t->xs = xs;
	t->handle = tcm->tcm_handle;
	t->have_xs = 1;
	return NL_OK;
}

/* A class of the dcb qdisc of target @arg: one band's row. */
static int class_cb(struct nl_msg *msg, void *arg)
{
	struct target *t = arg;
	struct tc_dcb_stats st;
	unsigned int b;

	switch (band_stats(nlmsg_hdr(msg), t->ifindex, t->handle,
			   t->xs.nbands, &b, &st)) {
	case 1:
		break;
	case -1:
		warn_target(t, "dcb class without xstats (TCA_STATS_APP)");
		return NL_OK;
	case -2:
		warn_target(t, "class xstats unreadable");
		return NL_OK;
	default:
		return NL_OK;
	}
	if (band_has_traffic(&st))
		t->bands_seen |= 1u << b;
	if (all_bands || (t->bands_seen & (1u << b)))
		write_row(t, (int)b, &t->xs, &st);
	return NL_OK;
}

/* The band rows of @t: a class dump of its device, after the qdiscs'. */
static int sample_bands(struct target *t)
{
	struct tcmsg tcm;
	struct nl_cb *cb;
	int err;

	memset(&tcm, 0, sizeof(tcm));
	tcm.tcm_family = AF_UNSPEC;
	tcm.tcm_ifindex = t->ifindex;
	err = nl_send_simple(t->ns->sk, RTM_GETTCLASS, NLM_F_DUMP, &tcm,
			     sizeof(tcm));
	if (err < 0)
		return err;
	cb = nl_cb_clone(nl_socket_get_cb(t->ns->sk));
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, class_cb, t);
	err = nl_recvmsgs(t->ns->sk, cb);
	nl_cb_put(cb);
	return err;
}

static int sample_netns(struct netns *n)
{
	struct tcmsg tcm;
	int err;

	memset(&tcm, 0, sizeof(tcm));
	tcm.tcm_family = AF_UNSPEC;
	err = nl_send_simple(n->sk, RTM_GETQDISC, NLM_F_DUMP, &tcm, sizeof(tcm));
	if (err < 0)
		return err;
	return nl_recvmsgs_default(n->sk);
}

static void sample(void)
{
	struct timespec now, wall;
	int i, err;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ms = ts_ms(&now, &t0);
	clock_gettime(CLOCK_REALTIME, &wall);
	now_unix_ms = (uint64_t)wall.tv_sec * 1000 + wall.tv_nsec / 1000000;
	for (i = 0; i < ntargets; i++)
		targets[i].found = targets[i].have_xs = 0;
	for (i = 0; i < nnss; i++) {
		err = sample_netns(&nss[i]);
		if (err < 0)
			fprintf(stderr, "dcbmon: qdisc dump (netns %s): %s\n",
				*nss[i].name ? nss[i].name : "-",
				nl_geterror(err));
	}
	for (i = 0; i < ntargets; i++) {
		if (!targets[i].have_xs)
			continue;
		write_row(&targets[i], -1, &targets[i].xs, &targets[i].xs.stats);
		err = sample_bands(&targets[i]);
		if (err < 0)
			fprintf(stderr, "dcbmon: class dump of %s: %s\n",
				targets[i].dev, nl_geterror(err));
	}
	for (i = 0; i < ntargets; i++)
		if (!targets[i].found)
			warn_target(&targets[i], "no root qdisc (device gone?)");
}


/*
 * Snapshot mode (-s): one reading of every root sch_dcb qdisc of a
 * namespace (or of one device) and of the drop counters of its devices,
 * as "KEY VALUE" lines, for scripts that read many counters at once:
 *
 *   LABEL:DEV:NAME VALUE        port totals (struct tc_dcb_stats), rate_in_force
 *                               (bytes/s), pfc_malformed, pool.NAME (struct
 *                               tc_dcb_pool_stats) and tc's generic bytes,
 *                               packets, drops, overlimits, requeues, backlog, qlen
 *   LABEL:DEV:NAME:BAND VALUE   the band's counters
 *   LABEL:DEV:rx_dropped VALUE  every device of the namespace (and
 *                               tx_dropped), from its 64-bit link statistics
 *
 * Targets are [LABEL=]NETNS[:DEV]; LABEL defaults to NETNS.  With DEV, only
 * that device, and its root qdisc must be sch_dcb.  The names are those of
 * tc's JSON and of -j.
 */
struct snap_link {
	int ifindex;
	char name[IFNAMSIZ];
	uint64_t rx_dropped, tx_dropped;
};

struct snap_port {
	int ifindex;
	__u32 handle;
	struct dcb_xstats xs;
	struct gnet_stats_basic basic;
	struct gnet_stats_queue queue;
	uint64_t packets;
};

struct snap_ns {
	struct snap_link *links;
	int nlinks;
	struct snap_port *ports;
	int nports;
	const char *label;
	const char *netns;
	const char *dev;	/* NULL: every root sch_dcb */
	int bad;		/* a dump message could not be read */
	/* the port whose classes are being dumped */
	const struct snap_port *cur;
	const char *cur_dev;
};

static void *snap_grow(void *p, int n, size_t size)
{
	p = realloc(p, (size_t)(n + 1) * size);
	if (!p) {
		perror("dcbmon: realloc");
		exit(1);
	}
	return p;
}

static int snap_link_cb(struct nl_msg *msg, void *arg)
{
	struct snap_ns *s = arg;
	struct nlmsghdr *hdr = nlmsg_hdr(msg);
	struct nlattr *tb[IFLA_MAX + 1];
	struct rtnl_link_stats64 st;
	struct snap_link *l;

	if (hdr->nlmsg_type != RTM_NEWLINK ||
	    nlmsg_parse(hdr, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) < 0 ||
	    !tb[IFLA_IFNAME])
		return NL_OK;
	s->links = snap_grow(s->links, s->nlinks, sizeof(*s->links));
	l = &s->links[s->nlinks++];
	memset(l, 0, sizeof(*l));
	l->ifindex = ((struct ifinfomsg *)nlmsg_data(hdr))->ifi_index;
	nla_strlcpy(l->name, tb[IFLA_IFNAME], sizeof(l->name));
	if (tb[IFLA_STATS64] && nla_len(tb[IFLA_STATS64]) >=
	    (int)offsetof(struct rtnl_link_stats64, tx_dropped) + 8) {
		memset(&st, 0, sizeof(st));
		memcpy(&st, nla_data(tb[IFLA_STATS64]),
		       nla_len(tb[IFLA_STATS64]) < (int)sizeof(st) ?
		       (size_t)nla_len(tb[IFLA_STATS64]) : sizeof(st));
		l->rx_dropped = st.rx_dropped;
		l->tx_dropped = st.tx_dropped;
	}
	return NL_OK;
}

static const char *snap_name(const struct snap_ns *s, int ifindex)
{
	int i;

	for (i = 0; i < s->nlinks; i++)
		if (s->links[i].ifindex == ifindex)
			return s->links[i].name;
	return NULL;
}

static int snap_qdisc_cb(struct nl_msg *msg, void *arg)
{
	struct snap_ns *s = arg;
	struct nlmsghdr *hdr = nlmsg_hdr(msg);
	struct nlattr *tb[TCA_MAX + 1], *sb[TCA_STATS_MAX + 1];
	struct snap_port *p;
	struct tcmsg *tcm;
	const char *name, *why;
	char what[96];

	tcm = root_qdisc(hdr);
	if (!tcm)
		return NL_OK;
	name = snap_name(s, tcm->tcm_ifindex);
	if (s->dev && (!name || strcmp(name, s->dev)))
		return NL_OK;
	if (nlmsg_parse(hdr, sizeof(*tcm), tb, TCA_MAX, NULL) < 0 ||
	    !tb[TCA_KIND] || strcmp(nla_get_string(tb[TCA_KIND]), "dcb"))
		return NL_OK;
	if (!tb[TCA_STATS2] ||
	    nla_parse_nested(sb, TCA_STATS_MAX, tb[TCA_STATS2], NULL) < 0 ||
	    !sb[TCA_STATS_APP]) {
		fprintf(stderr, "dcbmon: %s:%s: dcb qdisc without xstats\n",
			s->netns, name ? name : "?");
		s->bad = 1;
		return NL_OK;
	}
	s->ports = snap_grow(s->ports, s->nports, sizeof(*s->ports));
	p = &s->ports[s->nports];
	memset(p, 0, sizeof(*p));
	why = read_xstats(sb[TCA_STATS_APP], &p->xs, what, sizeof(what));
	if (why) {
		fprintf(stderr, "dcbmon: %s:%s: %s\n", s->netns,
			name ? name : "?", why);
		s->bad = 1;
		return NL_OK;
	}
	if (sb[TCA_STATS_BASIC])
		memcpy(&p->basic, nla_data(sb[TCA_STATS_BASIC]),
		       nla_len(sb[TCA_STATS_BASIC]) < (int)sizeof(p->basic) ?
		       (size_t)nla_len(sb[TCA_STATS_BASIC]) : sizeof(p->basic));
	p->packets = p->basic.packets;
	if (sb[TCA_STATS_PKT64] && nla_len(sb[TCA_STATS_PKT64]) >= 8)
		p->packets = nla_get_u64(sb[TCA_STATS_PKT64]);
	if (sb[TCA_STATS_QUEUE])
		memcpy(&p->queue, nla_data(sb[TCA_STATS_QUEUE]),
		       nla_len(sb[TCA_STATS_QUEUE]) < (int)sizeof(p->queue) ?
		       (size_t)nla_len(sb[TCA_STATS_QUEUE]) : sizeof(p->queue));
	p->ifindex = tcm->tcm_ifindex;
	p->handle = tcm->tcm_handle;
	s->nports++;
	return NL_OK;
}

static void snap_print_stats(const struct snap_ns *s, const char *dev,
			     const struct tc_dcb_stats *st, int band)
{
	char b[16] = "";
	size_t c;

	if (band >= 0)
		snprintf(b, sizeof(b), ":%d", band);
	for (c = 0; c < NCOLUMNS; c++) {
		uint64_t v;

		if (columns[c].port)
			continue;
		memcpy(&v, (const char *)st + columns[c].off, sizeof(v));
		fprintf(out, "%s:%s:%s%s %" PRIu64 "\n", s->label, dev,
			columns[c].name, b, v);
	}
}

static int snap_class_cb(struct nl_msg *msg, void *arg)
{
	struct snap_ns *s = arg;
	struct tc_dcb_stats st;
	unsigned int b;
	int r;

	r = band_stats(nlmsg_hdr(msg), s->cur->ifindex, s->cur->handle,
		       s->cur->xs.nbands, &b, &st);
	if (r < 0) {
		fprintf(stderr, "dcbmon: %s:%s: band %u without xstats\n",
			s->netns, s->cur_dev, b);
		s->bad = 1;
	} else if (r > 0) {
		snap_print_stats(s, s->cur_dev, &st, (int)b);
	}
	return NL_OK;
}

/* Dump @type over @sk into @fn; @ifindex limits a class dump. */
static int snap_dump(struct nl_sock *sk, int type, int ifindex,
		     nl_recvmsg_msg_cb_t fn, struct snap_ns *s)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex };
	struct nl_cb *cb;
	int err;

	if (type == RTM_GETLINK)
		err = nl_send_simple(sk, type, NLM_F_DUMP, &ifi, sizeof(ifi));
	else
		err = nl_send_simple(sk, type, NLM_F_DUMP, &tcm, sizeof(tcm));
	if (err < 0)
		return err;
	cb = nl_cb_clone(nl_socket_get_cb(sk));
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, fn, s);
	err = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	return err;
}

static int snap_target(char *spec)
{
	const char *arg = strdupa(spec);
	struct snap_ns s = { 0 };
	struct nl_sock *sk;
	char *eq, *colon;
	int saved, err, i, ret = 0;

	eq = strchr(spec, '=');
	if (eq) {
		*eq = '\0';
		s.label = spec;
		spec = eq + 1;
	}
	colon = strchr(spec, ':');
	if (colon) {
		*colon = '\0';
		s.dev = *(colon + 1) ? colon + 1 : NULL;
	}
	s.netns = strcmp(spec, "-") ? spec : "";
	if (!s.label)
		s.label = *s.netns ? s.netns : "-";
	if (!*s.label || strpbrk(s.label, ": \t\n") || strchr(s.netns, '/')) {
		fprintf(stderr, "dcbmon: bad snapshot target '%s' (want [LABEL=]NETNS[:DEV], LABEL without ':')\n",
			arg);
		return 2;
	}
	if (netns_enter(s.netns, &saved) < 0)
		return 1;
	sk = nl_socket_alloc();
	err = sk ? nl_connect(sk, NETLINK_ROUTE) : -NLE_NOMEM;
	netns_leave(s.netns, saved);
	if (err < 0) {
		fprintf(stderr, "dcbmon: netlink (netns %s): %s\n",
			*s.netns ? s.netns : "-", nl_geterror(err));
		nl_socket_free(sk);
		return 1;
	}
	nl_socket_set_buffer_size(sk, 1 << 20, 0);
	nl_socket_disable_seq_check(sk);
	err = snap_dump(sk, RTM_GETLINK, 0, snap_link_cb, &s);
	if (err >= 0)
		err = snap_dump(sk, RTM_GETQDISC, 0, snap_qdisc_cb, &s);
	if (err < 0) {
		fprintf(stderr, "dcbmon: dump (netns %s): %s\n",
			*s.netns ? s.netns : "-", nl_geterror(err));
		ret = 1;
		goto out;
	}
	if (s.dev && !s.nports && !s.bad) {
		for (i = 0; i < s.nlinks && strcmp(s.links[i].name, s.dev); i++)
			;
		fprintf(stderr, "dcbmon: %s:%s: %s\n", *s.netns ? s.netns : "-",
			s.dev, i < s.nlinks ? "root qdisc is not sch_dcb" :
			"no such device");
		ret = 1;
		goto out;
	}
	for (i = 0; i < s.nports; i++) {
		const struct snap_port *p = &s.ports[i];
		const char *dev = snap_name(&s, p->ifindex);

		if (!dev)
			continue;
		snap_print_stats(&s, dev, &p->xs.stats, -1);
#define SNAP_PUT(name, v) \
		fprintf(out, "%s:%s:%s %" PRIu64 "\n", s.label, dev, name, (uint64_t)(v))
		SNAP_PUT("rate_in_force", p->xs.port_stats.rate);
		SNAP_PUT("pfc_malformed", p->xs.port_stats.pfc_malformed);
		SNAP_PUT("pool.id", p->xs.pool.id);
		SNAP_PUT("pool.ports", p->xs.pool.ports);
		SNAP_PUT("pool.size", p->xs.pool.size);
		SNAP_PUT("pool.reserved", p->xs.pool.reserved);
		SNAP_PUT("pool.used", p->xs.pool.used);
		SNAP_PUT("pool.peak", p->xs.pool.peak);
		SNAP_PUT("pool.headroom_used", p->xs.pool.headroom_used);
		SNAP_PUT("pool.drops_full", p->xs.pool.drops_full);
		SNAP_PUT("bytes", p->basic.bytes);
		SNAP_PUT("packets", p->packets);
		SNAP_PUT("drops", p->queue.drops);
		SNAP_PUT("overlimits", p->queue.overlimits);
		SNAP_PUT("requeues", p->queue.requeues);
		SNAP_PUT("backlog", p->queue.backlog);
		SNAP_PUT("qlen", p->queue.qlen);
#undef SNAP_PUT
		s.cur = p;
		s.cur_dev = dev;
		err = snap_dump(sk, RTM_GETTCLASS, p->ifindex, snap_class_cb, &s);
		if (err < 0) {
			fprintf(stderr, "dcbmon: class dump of %s: %s\n", dev,
				nl_geterror(err));
			ret = 1;
		}
	}
	for (i = 0; i < s.nlinks; i++) {
		const struct snap_link *l = &s.links[i];

		if (s.dev && strcmp(l->name, s.dev))
			continue;
		fprintf(out, "%s:%s:rx_dropped %" PRIu64 "\n%s:%s:tx_dropped %"
			PRIu64 "\n", s.label, l->name, l->rx_dropped, s.label,
			l->name, l->tx_dropped);
	}
out:
	if (s.bad)
		ret = 1;
	free(s.links);
	free(s.ports);
	nl_socket_free(sk);
	return ret;
}

int main(int argc, char **argv)
{
	const char *outfile = NULL;
	long interval_ms = 10;
	double duration = -1;
	struct timespec next, end;
	struct sigaction sa;
	uint64_t period_ns, last_flush = 0;
	char *endp;
	long count = 0, samples = 0;
	int opt, i, ret = 0, first = 1;

	while ((opt = getopt(argc, argv, "i:d:c:o:ajsh")) != -1) {
		switch (opt) {
		case 'i':
			interval_ms = strtol(optarg, &endp, 10);
			if (*endp || interval_ms <= 0 || interval_ms > 3600000) {
				fprintf(stderr, "dcbmon: bad interval '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			duration = strtod(optarg, &endp);
			if (*endp || duration <= 0) {
				fprintf(stderr, "dcbmon: bad duration '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			count = strtol(optarg, &endp, 10);
			if (*endp || count <= 0) {
				fprintf(stderr, "dcbmon: bad count '%s'\n", optarg);
				return 2;
			}
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'a':
			all_bands = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 's':
			snapshot = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}

	if (snapshot) {
		out = stdout;
		for (i = optind; i < argc; i++) {
			int r = snap_target(argv[i]);

			if (r > ret)
				ret = r;
		}
		if (fflush(out)) {
			fprintf(stderr, "dcbmon: write error: %s\n", strerror(errno));
			ret = 1;
		}
		return ret;
	}

	ntargets = argc - optind;
	targets = calloc(ntargets, sizeof(*targets));
	if (!targets) {
		perror("dcbmon: calloc");
		return 1;
	}
	for (i = 0; i < ntargets; i++) {
		char *spec = argv[optind + i];
		char *colon = strrchr(spec, ':');
		const char *ns = "";

		if (colon) {
			*colon = '\0';
			ns = strcmp(spec, "-") ? spec : "";
			spec = colon + 1;
		}
		if (!*spec) {
			fprintf(stderr, "dcbmon: empty device name in '%s'\n",
				argv[optind + i]);
			return 2;
		}
		if (strchr(ns, '/')) {
			fprintf(stderr, "dcbmon: bad netns name '%s'\n", ns);
			return 2;
		}
		targets[i].dev = spec;
		targets[i].ifindex = -1;
		/* pointers into nss are fixed up after all are created */
		targets[i].ns = (struct netns *)(intptr_t)(netns_get(ns) - nss);
	}
	for (i = 0; i < ntargets; i++)
		targets[i].ns = &nss[(intptr_t)targets[i].ns];

	for (i = 0; i < nnss; i++)
		if (netns_open(&nss[i]) < 0)
			ret = 1;
	if (ret)
		return 1;
	for (i = 0; i < nnss; i++) {
		nl_socket_disable_seq_check(nss[i].sk);
		nl_socket_modify_cb(nss[i].sk, NL_CB_VALID, NL_CB_CUSTOM,
				    dump_cb, &nss[i]);
	}

	if (outfile) {
		out = fopen(outfile, "w");
		if (!out) {
			fprintf(stderr, "dcbmon: %s: %s\n", outfile, strerror(errno));
			return 1;
		}
	} else {
		out = stdout;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the sleep */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	write_header();
	period_ns = (uint64_t)interval_ms * 1000000ULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	next = t0;
	end = t0;
	if (duration > 0)
		ts_add_ns(&end, (uint64_t)(duration * 1e9));

	while (!stop) {
		struct timespec now;

		sample();
		if (first) {
			/* a wrong setup at start is an error, later a warning */
			first = 0;
			for (i = 0; i < ntargets; i++)
				if (targets[i].warned)
					ret = 1;
			if (ret)
				break;
		}
		if (ferror(out)) {
			fprintf(stderr, "dcbmon: write error\n");
			ret = 1;
			break;
		}
		if (now_ms - last_flush >= 1000) {
			fflush(out);
			last_flush = now_ms;
		}
		if (count && ++samples >= count)
			break;

		/* next absolute deadline; skip ticks we already missed */
		clock_gettime(CLOCK_MONOTONIC, &now);
		do
			ts_add_ns(&next, period_ns);
		while (ts_before(&next, &now));
		if (duration > 0 && !ts_before(&next, &end))
			break;
		while (!stop) {
			int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
						  &next, NULL);
			if (err != EINTR)
				break;
		}
	}

	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr, "dcbmon: write error: %s\n", strerror(errno));
		ret = 1;
	}
	for (i = 0; i < nnss; i++)
		nl_socket_free(nss[i].sk);
	return ret;
}
