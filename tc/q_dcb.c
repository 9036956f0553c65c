// SPDX-License-Identifier: GPL-2.0
/*
 * The tc plugin of sch_dcb, the DCB lab switch-port qdisc.  Options go
 * straight from argv into netlink attributes and back to text and JSON
 * with the helpers tc exports (see tc_abi.h).  Only the options given are
 * sent, so `tc qdisc change` can set one of them; the kernel keeps the
 * rest (rate is required on creation only).
 */
#include <stddef.h>
#include <stdlib.h>
#include <assert.h>
#include <string.h>

#include "tc_abi.h"
#include "pkt_sched_dcb.h"
#include "dcb_xstats.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* addattr bound: tc's request buffer is larger, our options < 1 KB */
#define DCB_MAXLEN	4096

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... dcb [ rate RATE ] [ overhead BYTES ] [ burst SIZE ] [ limit SIZE ]\n"
		"               [ classify { dscp | prio } ] [ dscp-map { DSCP:BAND[,...] | default } ]\n"
		"               [ ecn ECN ] [ nonect NONECT ] [ pool ID ] [ buffer SIZE ] [ pfc PFC ]\n"
		"               [ band N [ limit SIZE ] [ ecn BAND_ECN ] [ nonect NONECT ] ]...\n"
		"       ... class change ... classid MAJ:N+1 dcb [ limit SIZE ] [ ecn BAND_ECN ] [ nonect NONECT ]\n"
		"ECN      := { off | red kmin SIZE kmax SIZE pmax PROB | step k SIZE | np-ecn [ k SIZE ] }\n"
		"BAND_ECN := { ECN | default }    NONECT := { pass | drop | default }\n"
		"PFC      := { off | [ prio-pfc { LIST | all | PRIO:{on|off} ... } ]\n"
		"              { xoff SIZE [ xon SIZE ] | beta 1..1000 } [ headroom SIZE ]\n"
		"              [ quanta 1..65535 ] [ delay TIME ] [ overflow { shared | drop } ] }\n"
		"RATE: 0 or unlimited = not shaped; PROB: 0..1 or a percentage (1%%); LIST: 3,6\n"
		"rate is required to create the qdisc; change sets what it is given.\n");
}

/* A one-line error; returns -1 for parse_qopt/parse_copt. */
static int dcb_err(const char *msg, const char *arg)
{
	fprintf(stderr, "dcb: %s%s%s%s\n", msg, arg ? " \"" : "",
		arg ? arg : "", arg ? "\"" : "");
	return -1;
}

/* Names in printed options; the index is the uAPI's value. */
static const char *const ecn_names[] = {
	[TC_DCB_ECN_OFF] = "off", [TC_DCB_ECN_RED] = "red",
	[TC_DCB_ECN_STEP] = "step", [TC_DCB_ECN_NP_ECN] = "np-ecn",
};
static const char *const nonect_names[] = {
	[TC_DCB_NONECT_AUTO] = "default", [TC_DCB_NONECT_PASS] = "pass",
	[TC_DCB_NONECT_DROP] = "drop",
};
static const char *const overflow_names[] = {
	[TC_DCB_OVERFLOW_SHARED] = "shared", [TC_DCB_OVERFLOW_DROP] = "drop",
};
static const char *const classify_names[] = {
	[TC_DCB_CLASSIFY_DSCP] = "dscp", [TC_DCB_CLASSIFY_PRIO] = "prio",
};

static const char *name_of(const char *const *names, unsigned int n, unsigned int i)
{
	return i < n && names[i] ? names[i] : "unknown";
}
#define NAME_OF(names, i)	name_of(names, ARRAY_SIZE(names), i)

/* "0.01" or "1%" -> fixed point, TC_DCB_PROB_ONE = 1.0 */
static int get_prob(__u32 *prob, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || (*end && strcmp(end, "%")))
		return -1;
	if (*end)
		v /= 100.;
	if (!(v >= 0. && v <= 1.))
		return -1;
	*prob = (__u32)(v * TC_DCB_PROB_ONE + 0.5);
	return 0;
}

static __u32 size_arg(const char *arg)
{
	__u32 v;

	if (*arg == '-' || get_size(&v, arg))
		invarg("expected a size: bytes, or with a unit b, kb, mb, gb", arg);
	return v;
}

/* a number 0..max-1 of @len characters at @s (a band, a DSCP) */
static int get_index(const char *s, size_t len, unsigned int max)
{
	char buf[8];
	__u8 v;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return get_u8(&v, buf, 10) || v >= max ? -1 : v;
}

/* The first time a keyword is given: refuses it the second time. */
static void once(bool *seen, int argc, char **argv)
{
	if (*seen)
		duparg(*argv, argc > 1 ? argv[1] : "");
	*seen = true;
}

/* A marking curve as given, for its TCA_DCB_ECN_* nest */
struct ecn_arg {
	__u8	mode;
	__u32	kmin, kmax, pmax;
};

static void add_ecn(struct nlmsghdr *n, int type, const struct ecn_arg *e)
{
	struct rtattr *nest = addattr_nest(n, DCB_MAXLEN, type | NLA_F_NESTED);

	addattr8(n, DCB_MAXLEN, TCA_DCB_ECN_MODE, e->mode);
	addattr32(n, DCB_MAXLEN, TCA_DCB_ECN_KMIN, e->kmin);
	addattr32(n, DCB_MAXLEN, TCA_DCB_ECN_KMAX, e->kmax);
	addattr32(n, DCB_MAXLEN, TCA_DCB_ECN_PMAX, e->pmax);
	addattr_nest_end(n, nest);
}

/* "red kmin SIZE kmax SIZE pmax PROB", with *argvp at "red" */
static int parse_red(int *argcp, char ***argvp, struct ecn_arg *e)
{
	bool kmin = false, kmax = false, pmax = false;
	int argc = *argcp;
	char **argv = *argvp;

	e->mode = TC_DCB_ECN_RED;
	while (NEXT_ARG_OK()) {
		NEXT_ARG();
		if (strcmp(*argv, "kmin") == 0) {
			NEXT_ARG();
			if (kmin)
				duparg("kmin", *argv);
			kmin = true;
			e->kmin = size_arg(*argv);
		} else if (strcmp(*argv, "kmax") == 0) {
			NEXT_ARG();
			if (kmax)
				duparg("kmax", *argv);
			kmax = true;
			e->kmax = size_arg(*argv);
		} else if (strcmp(*argv, "pmax") == 0) {
			NEXT_ARG();
			if (pmax)
				duparg("pmax", *argv);
			pmax = true;
			if (get_prob(&e->pmax, *argv))
				invarg("\"pmax\" is 0..1 or a percentage", *argv);
		} else {
			PREV_ARG();
			break;
		}
	}
	if (!kmin || !kmax || !pmax)
		return dcb_err("\"ecn red\" needs kmin, kmax and pmax; missing",
			       !kmin ? "kmin" : !kmax ? "kmax" : "pmax");
	if (e->kmin > e->kmax)
		return dcb_err("kmin is greater than kmax", NULL);
	if (e->kmin == e->kmax)
		return dcb_err("kmin equals kmax: use \"ecn step k SIZE\"", NULL);
	*argcp = argc;
	*argvp = argv;
	return 0;
}

/*
 * "ecn MODE ..." with *argvp at "ecn"; leaves it at the last word used.
 * Returns 1 for "default" (a band's, when allowed), 0 for a curve in @e.
 */
static int parse_ecn(int *argcp, char ***argvp, struct ecn_arg *e, bool band)
{
	int argc = *argcp, ret = 0;
	char **argv = *argvp;

	memset(e, 0, sizeof(*e));
	NEXT_ARG();
	if (band && strcmp(*argv, "default") == 0) {
		ret = 1;
	} else if (strcmp(*argv, "off") == 0) {
		e->mode = TC_DCB_ECN_OFF;
	} else if (strcmp(*argv, "red") == 0) {
		if (parse_red(&argc, &argv, e))
			return -1;
	} else if (strcmp(*argv, "step") == 0) {
		e->mode = TC_DCB_ECN_STEP;
		if (!NEXT_ARG_OK() || strcmp(argv[1], "k"))
			return dcb_err("\"ecn step\" needs \"k SIZE\"", NULL);
		NEXT_ARG();
		NEXT_ARG();
		e->kmin = e->kmax = size_arg(*argv);
		e->pmax = TC_DCB_PROB_ONE;
	} else if (strcmp(*argv, "np-ecn") == 0) {
		/* K travels as kmin; kmax and pmax stay 0 */
		e->mode = TC_DCB_ECN_NP_ECN;
		e->kmin = TC_DCB_NP_ECN_K_DEFAULT;
		if (NEXT_ARG_OK() && (strcmp(argv[1], "kmin") == 0 ||
				      strcmp(argv[1], "kmax") == 0 ||
				      strcmp(argv[1], "pmax") == 0))
			return dcb_err("\"ecn np-ecn\" takes only \"k SIZE\", not", argv[1]);
		if (NEXT_ARG_OK() && strcmp(argv[1], "k") == 0) {
			NEXT_ARG();
			NEXT_ARG();
			e->kmin = size_arg(*argv);
		}
	} else {
		return dcb_err("ecn is off, red, step, np-ecn or (a band's) default, not", *argv);
	}
	*argcp = argc;
	*argvp = argv;
	return ret;
}

static __u8 nonect_arg(const char *arg)
{
	if (strcmp(arg, "default") == 0)
		return TC_DCB_NONECT_AUTO;
	if (strcmp(arg, "pass") == 0)
		return TC_DCB_NONECT_PASS;
	if (strcmp(arg, "drop") == 0)
		return TC_DCB_NONECT_DROP;
	invarg("\"nonect\" is pass, drop or default", arg);
}

/* The options of one band given so far */
struct band_seen {
	bool	limit, ecn, nonect;
};

/*
 * limit / ecn / nonect of a band (inside its TCA_DCB_BAND nest) or of a
 * class (TCA_OPTIONS).  Returns 1 if *argvp is none of them.
 */
static int parse_band_opt(int *argcp, char ***argvp, struct nlmsghdr *n,
			  struct band_seen *seen)
{
	int argc = *argcp, r;
	char **argv = *argvp;
	struct ecn_arg e;

	if (strcmp(*argv, "limit") == 0) {
		once(&seen->limit, argc, argv);
		NEXT_ARG();
		addattr32(n, DCB_MAXLEN, TCA_DCB_BAND_LIMIT, size_arg(*argv));
	} else if (strcmp(*argv, "ecn") == 0) {
		once(&seen->ecn, argc, argv);
		r = parse_ecn(&argc, &argv, &e, true);
		if (r < 0)
			return -1;
		if (r)
			addattr(n, DCB_MAXLEN, TCA_DCB_BAND_ECN_DEFAULT);
		else
			add_ecn(n, TCA_DCB_BAND_ECN, &e);
	} else if (strcmp(*argv, "nonect") == 0) {
		once(&seen->nonect, argc, argv);
		NEXT_ARG();
		addattr8(n, DCB_MAXLEN, TCA_DCB_BAND_NONECT, nonect_arg(*argv));
	} else {
		return 1;
	}
	*argcp = argc;
	*argvp = argv;
	return 0;
}

/* "PRIO:on" or "PRIO:off" (PRIO 0..7 or all) on top of *@mask */
static void prio_onoff(const char *arg, __u8 *mask)
{
	const char *c = strchr(arg, ':');
	int b;
	__u8 bits;

	if (strncmp(arg, "all:", 4) == 0) {
		bits = 0xff;
	} else {
		b = get_index(arg, c - arg, TC_DCB_NUM_BANDS);
		if (b < 0)
			invarg("expected PRIO:on or PRIO:off, PRIO 0..7 or all", arg);
		bits = 1u << b;
	}
	if (strcmp(c, ":on") == 0)
		*mask |= bits;
	else if (strcmp(c, ":off") == 0)
		*mask &= ~bits;
	else
		invarg("expected PRIO:on or PRIO:off, PRIO 0..7 or all", arg);
}

/* "3,6" | "all" | dcb(8)'s "3:on 6:on" (a word per priority, "all:on") */
static void parse_prio_pfc(int *argcp, char ***argvp, __u8 *mask)
{
	int argc = *argcp, b;
	char **argv = *argvp;
	const char *p, *c;

	NEXT_ARG();
	*mask = 0;
	if (strcmp(*argv, "all") == 0) {
		*mask = 0xff;
	} else if (strchr(*argv, ':')) {
		prio_onoff(*argv, mask);
		while (NEXT_ARG_OK() && strchr(argv[1], ':')) {
			NEXT_ARG();
			prio_onoff(*argv, mask);
		}
	} else {
		for (p = *argv; ; p = c + 1) {
			c = p + strcspn(p, ",");
			b = get_index(p, c - p, TC_DCB_NUM_BANDS);
			if (b < 0 || (*mask & (1u << b)))
				invarg("expected bands 0..7 like 3,6, each once, or all", *argv);
			*mask |= 1u << b;
			if (!*c)
				break;
		}
	}
	*argcp = argc;
	*argvp = argv;
}

static bool is_pfc_opt(const char *s)
{
	return strcmp(s, "prio-pfc") == 0 || strcmp(s, "xoff") == 0 ||
	       strcmp(s, "xon") == 0 || strcmp(s, "beta") == 0 ||
	       strcmp(s, "headroom") == 0 || strcmp(s, "quanta") == 0 ||
	       strcmp(s, "delay") == 0 || strcmp(s, "overflow") == 0;
}

/* "pfc off" | "pfc [prio-pfc ...] {xoff SIZE [xon SIZE] | beta N} ..." */
static int parse_pfc(int *argcp, char ***argvp, struct nlmsghdr *n)
{
	bool prio_pfc = false, has_xoff = false, has_xon = false, has_beta = false;
	bool has_headroom = false, has_quanta = false, has_delay = false;
	bool has_overflow = false;
	__u32 xoff = 0, xon = 0, beta = 0, headroom = 0, delay = 0;
	__u8 mask = 0xff, overflow = TC_DCB_OVERFLOW_SHARED;
	int argc = *argcp;
	char **argv = *argvp;
	struct rtattr *nest;
	__u16 quanta = 0;

	NEXT_ARG();
	if (strcmp(*argv, "off") == 0) {
		mask = 0;
		if (NEXT_ARG_OK() && is_pfc_opt(argv[1]))
			return dcb_err("\"pfc off\" takes no", argv[1]);
	} else {
		PREV_ARG();
		while (NEXT_ARG_OK()) {
			NEXT_ARG();
			if (strcmp(*argv, "prio-pfc") == 0) {
				once(&prio_pfc, argc, argv);
				parse_prio_pfc(&argc, &argv, &mask);
			} else if (strcmp(*argv, "xoff") == 0) {
				once(&has_xoff, argc, argv);
				NEXT_ARG();
				xoff = size_arg(*argv);
				if (!xoff)
					invarg("\"xoff\" must be above 0", *argv);
			} else if (strcmp(*argv, "xon") == 0) {
				once(&has_xon, argc, argv);
				NEXT_ARG();
				xon = size_arg(*argv);
			} else if (strcmp(*argv, "beta") == 0) {
				once(&has_beta, argc, argv);
				NEXT_ARG();
				if (get_u32(&beta, *argv, 10) || !beta || beta > 1000)
					invarg("\"beta\" is 1..1000", *argv);
			} else if (strcmp(*argv, "headroom") == 0) {
				once(&has_headroom, argc, argv);
				NEXT_ARG();
				headroom = size_arg(*argv);
			} else if (strcmp(*argv, "quanta") == 0) {
				once(&has_quanta, argc, argv);
				NEXT_ARG();
				if (get_u16(&quanta, *argv, 0) || !quanta)
					invarg("\"quanta\" is 1..65535", *argv);
			} else if (strcmp(*argv, "delay") == 0) {
				once(&has_delay, argc, argv);
				NEXT_ARG();
				if (**argv == '-' || get_time(&delay, *argv))
					invarg("\"delay\" is a time (us, ms, s)", *argv);
			} else if (strcmp(*argv, "overflow") == 0) {
				once(&has_overflow, argc, argv);
				NEXT_ARG();
				if (strcmp(*argv, "shared") == 0)
					overflow = TC_DCB_OVERFLOW_SHARED;
				else if (strcmp(*argv, "drop") == 0)
					overflow = TC_DCB_OVERFLOW_DROP;
				else
					invarg("\"overflow\" is shared or drop", *argv);
			} else {
				PREV_ARG();
				break;
			}
		}
		if (xoff && beta)
			return dcb_err("pfc: \"xoff\" (static) or \"beta\" (dynamic XOFF), not both", NULL);
		if (has_xon && !xoff)
			return dcb_err("pfc: \"xon\" needs \"xoff\"", NULL);
		if (!xoff && !beta)
			return dcb_err("pfc: needs \"xoff SIZE\" or \"beta N\" (or \"pfc off\")", NULL);
		if (has_xon && xon >= xoff)
			return dcb_err("pfc: xon must be below xoff", NULL);
	}
	/* the nest replaces the port's PFC as a whole: 0 = default */
	nest = addattr_nest(n, DCB_MAXLEN, TCA_DCB_PFC | NLA_F_NESTED);
	addattr8(n, DCB_MAXLEN, TCA_DCB_PFC_PRIO_MASK, mask);
	addattr32(n, DCB_MAXLEN, TCA_DCB_PFC_XOFF, xoff);
	addattr32(n, DCB_MAXLEN, TCA_DCB_PFC_XON, xon);
	addattr32(n, DCB_MAXLEN, TCA_DCB_PFC_BETA, beta);
	addattr32(n, DCB_MAXLEN, TCA_DCB_PFC_HEADROOM, headroom);
	addattr16(n, DCB_MAXLEN, TCA_DCB_PFC_QUANTA, quanta);
	addattr32(n, DCB_MAXLEN, TCA_DCB_PFC_DELAY, delay);
	addattr8(n, DCB_MAXLEN, TCA_DCB_PFC_OVERFLOW, overflow);
	addattr_nest_end(n, nest);
	*argcp = argc;
	*argvp = argv;
	return 0;
}

/* "DSCP:BAND[,DSCP:BAND...]" on top of the default map, or "default" */
static void get_dscp_map(__u8 *map, const char *arg)
{
	bool seen[TC_DCB_NUM_DSCP] = { false };
	const char *p, *c, *colon;
	int dscp, band;

	for (dscp = 0; dscp < TC_DCB_NUM_DSCP; dscp++)
		map[dscp] = dscp >> 3;
	if (strcmp(arg, "default") == 0)
		return;
	for (p = arg; ; p = c + 1) {
		c = p + strcspn(p, ",");
		colon = memchr(p, ':', c - p);
		dscp = colon ? get_index(p, colon - p, TC_DCB_NUM_DSCP) : -1;
		band = colon ? get_index(colon + 1, c - colon - 1, TC_DCB_NUM_BANDS) : -1;
		if (dscp < 0 || band < 0 || seen[dscp])
			invarg("expected DSCP:BAND[,...], DSCP 0..63 once each, BAND 0..7", arg);
		seen[dscp] = true;
		map[dscp] = band;
		if (!*c)
			break;
	}
}

/* The port options given so far */
struct port_seen {
	bool	rate, overhead, burst, limit, classify, dscp_map, ecn, nonect;
	bool	pool, buffer, pfc;
};

/*
 * A port option: once, and before the first band (@band >= 0 while the
 * options of a band are being read).  Returns -1 after a message.
 */
static int port_opt(bool *seen, int band, int argc, char **argv)
{
	if (band >= 0)
		return dcb_err("must come before the first \"band\":", *argv);
	once(seen, argc, argv);
	return 0;
}

static int dcb_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail, *bands = NULL, *band = NULL;
	struct band_seen bs = { false };
	struct port_seen ps = { false };
	unsigned int bands_given = 0;
	__u8 map[TC_DCB_NUM_DSCP];
	struct ecn_arg e;
	int r, cur = -1;
	__u64 rate;
	__u32 u32;

	tail = addattr_nest(n, DCB_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	while (argc > 0) {
		/* after "band N": its limit, ecn or nonect */
		if (cur >= 0) {
			r = parse_band_opt(&argc, &argv, n, &bs);
			if (r < 0)
				return -1;
			if (r == 0) {
				argc--;
				argv++;
				continue;
			}
		}
		if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		} else if (strcmp(*argv, "band") == 0) {
			if (cur >= 0 && !bs.limit && !bs.ecn && !bs.nonect)
				return dcb_err("a band needs limit, ecn or nonect", NULL);
			NEXT_ARG();
			cur = get_index(*argv, strlen(*argv), TC_DCB_NUM_BANDS);
			if (cur < 0)
				invarg("\"band\" is 0..7", *argv);
			if (bands_given & (1u << cur))
				return dcb_err("band given twice:", *argv);
			bands_given |= 1u << cur;
			memset(&bs, 0, sizeof(bs));
			if (band)
				addattr_nest_end(n, band);
			if (!bands)
				bands = addattr_nest(n, DCB_MAXLEN, TCA_DCB_BANDS | NLA_F_NESTED);
			band = addattr_nest(n, DCB_MAXLEN, TCA_DCB_BAND | NLA_F_NESTED);
			addattr8(n, DCB_MAXLEN, TCA_DCB_BAND_INDEX, cur);
		} else if (strcmp(*argv, "rate") == 0) {
			if (port_opt(&ps.rate, cur, argc, argv))
				return -1;
			NEXT_ARG();
			rate = 0;
			if (strcmp(*argv, "unlimited") &&
			    (**argv == '-' || get_rate64(&rate, *argv)))
				invarg("\"rate\" is a tc rate (50mbit, 1gbit), 0 or unlimited", *argv);
			addattr64(n, DCB_MAXLEN, TCA_DCB_RATE64, rate);
		} else if (strcmp(*argv, "overhead") == 0) {
			if (port_opt(&ps.overhead, cur, argc, argv))
				return -1;
			NEXT_ARG();
			if (get_u32(&u32, *argv, 10))
				invarg("expected a number, 0..4294967295", *argv);
			addattr32(n, DCB_MAXLEN, TCA_DCB_OVERHEAD, u32);
		} else if (strcmp(*argv, "burst") == 0) {
			if (port_opt(&ps.burst, cur, argc, argv))
				return -1;
			NEXT_ARG();
			addattr32(n, DCB_MAXLEN, TCA_DCB_BURST, size_arg(*argv));
		} else if (strcmp(*argv, "limit") == 0) {
			if (port_opt(&ps.limit, cur, argc, argv))
				return -1;
			NEXT_ARG();
			addattr32(n, DCB_MAXLEN, TCA_DCB_LIMIT, size_arg(*argv));
		} else if (strcmp(*argv, "classify") == 0) {
			if (port_opt(&ps.classify, cur, argc, argv))
				return -1;
			NEXT_ARG();
			if (strcmp(*argv, "dscp") == 0)
				addattr8(n, DCB_MAXLEN, TCA_DCB_CLASSIFY, TC_DCB_CLASSIFY_DSCP);
			else if (strcmp(*argv, "prio") == 0)
				addattr8(n, DCB_MAXLEN, TCA_DCB_CLASSIFY, TC_DCB_CLASSIFY_PRIO);
			else
				invarg("\"classify\" is dscp or prio", *argv);
		} else if (strcmp(*argv, "dscp-map") == 0) {
			if (port_opt(&ps.dscp_map, cur, argc, argv))
				return -1;
			NEXT_ARG();
			get_dscp_map(map, *argv);
			addattr_l(n, DCB_MAXLEN, TCA_DCB_DSCP_MAP, map, sizeof(map));
		} else if (strcmp(*argv, "ecn") == 0) {
			if (port_opt(&ps.ecn, cur, argc, argv) ||
			    parse_ecn(&argc, &argv, &e, false) < 0)
				return -1;
			add_ecn(n, TCA_DCB_ECN, &e);
		} else if (strcmp(*argv, "nonect") == 0) {
			if (port_opt(&ps.nonect, cur, argc, argv))
				return -1;
			NEXT_ARG();
			addattr8(n, DCB_MAXLEN, TCA_DCB_NONECT, nonect_arg(*argv));
		} else if (strcmp(*argv, "pool") == 0) {
			if (port_opt(&ps.pool, cur, argc, argv))
				return -1;
			NEXT_ARG();
			if (get_u32(&u32, *argv, 10))
				invarg("expected a number, 0..4294967295", *argv);
			addattr32(n, DCB_MAXLEN, TCA_DCB_POOL, u32);
		} else if (strcmp(*argv, "buffer") == 0) {
			if (port_opt(&ps.buffer, cur, argc, argv))
				return -1;
			NEXT_ARG();
			addattr32(n, DCB_MAXLEN, TCA_DCB_BUFFER, size_arg(*argv));
		} else if (strcmp(*argv, "pfc") == 0) {
			if (port_opt(&ps.pfc, cur, argc, argv) ||
			    parse_pfc(&argc, &argv, n))
				return -1;
		} else {
			fprintf(stderr, "dcb: unknown option \"%s\"%s\n", *argv,
				cur >= 0 ? " for a band (limit, ecn, nonect)" : "");
			explain();
			return -1;
		}
		argc--;
		argv++;
	}
	if (cur >= 0 && !bs.limit && !bs.ecn && !bs.nonect)
		return dcb_err("a band needs limit, ecn or nonect", NULL);
	if (band)
		addattr_nest_end(n, band);
	if (bands)
		addattr_nest_end(n, bands);
	addattr_nest_end(n, tail);
	return 0;
}

static int dcb_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct band_seen seen = { false };
	struct rtattr *tail;
	int r;

	tail = addattr_nest(n, DCB_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	while (argc > 0) {
		if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		}
		r = parse_band_opt(&argc, &argv, n, &seen);
		if (r < 0)
			return -1;
		if (r) {
			fprintf(stderr, "dcb: unknown class option \"%s\" (limit, ecn, nonect)\n",
				*argv);
			explain();
			return -1;
		}
		argc--;
		argv++;
	}
	addattr_nest_end(n, tail);
	return 0;
}

/* ---- printing --------------------------------------------------------- */

/* An unsigned attribute of 1, 2 or 4 bytes; 0 when absent */
static __u32 attr_u(struct rtattr *tb[], int type)
{
	const void *d = tb[type] ? RTA_DATA(tb[type]) : NULL;

	switch (d ? RTA_PAYLOAD(tb[type]) : 0) {
	case 1:
		return *(const __u8 *)d;
	case 2:
		return *(const __u16 *)d;
	case 4:
		return *(const __u32 *)d;
	}
	return 0;
}

/* The attribute's payload if it holds at least @len bytes */
static const void *attr(struct rtattr *tb[], int type, size_t len)
{
	return tb[type] && RTA_PAYLOAD(tb[type]) >= len ? RTA_DATA(tb[type]) : NULL;
}

/* 0 is "unlimited" in text; JSON in bytes per second as every qdisc */
static void print_dcb_rate(const char *key, const char *fmt, __u64 rate)
{
	if (rate) {
		tc_print_rate(PRINT_ANY, key, fmt, rate);
		return;
	}
	print_lluint(PRINT_JSON, key, NULL, 0);
	print_string(PRINT_FP, NULL, fmt, "unlimited");
}

/* A curve's nest: JSON every member, text in the syntax parse_ecn takes */
static void print_ecn(struct rtattr *opt)
{
	struct rtattr *tb[TCA_DCB_ECN_MAX + 1];
	unsigned int mode, kmin, kmax;
	char buf[32];
	__u32 back, pmax;
	double p;
	int prec;

	parse_rtattr_nested(tb, TCA_DCB_ECN_MAX, opt);
	mode = attr_u(tb, TCA_DCB_ECN_MODE);
	kmin = attr_u(tb, TCA_DCB_ECN_KMIN);
	kmax = attr_u(tb, TCA_DCB_ECN_KMAX);
	pmax = attr_u(tb, TCA_DCB_ECN_PMAX);
	p = (double)pmax / TC_DCB_PROB_ONE;
	open_json_object("ecn");
	print_string(PRINT_ANY, "mode", "ecn %s ", NAME_OF(ecn_names, mode));
	print_uint(PRINT_JSON, "kmin", NULL, kmin);
	print_uint(PRINT_JSON, "kmax", NULL, kmax);
	print_float(PRINT_JSON, "pmax", NULL, p);
	if (mode == TC_DCB_ECN_STEP || mode == TC_DCB_ECN_NP_ECN)
		print_size(PRINT_FP, NULL, "k %s ", kmin);
	if (mode == TC_DCB_ECN_RED) {
		print_size(PRINT_FP, NULL, "kmin %s ", kmin);
		print_size(PRINT_FP, NULL, "kmax %s ", kmax);
		/* the shortest decimal that parses back to the same pmax */
		for (prec = 1; prec < 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, p);
			if (!get_prob(&back, buf) && back == pmax)
				break;
		}
		print_string(PRINT_FP, NULL, "pmax %s ", buf);
	}
	close_json_object();
}

/* A band's settings; a class (@cls) states every field */
static void print_band(struct rtattr *opt, bool cls)
{
	struct rtattr *tb[TCA_DCB_BAND_MAX + 1];

	parse_rtattr_nested(tb, TCA_DCB_BAND_MAX, opt);
	if (tb[TCA_DCB_BAND_INDEX])
		print_uint(PRINT_ANY, "band", "band %u ", attr_u(tb, TCA_DCB_BAND_INDEX));
	if (cls || tb[TCA_DCB_BAND_LIMIT])
		print_size(PRINT_ANY, "limit", "limit %s ", attr_u(tb, TCA_DCB_BAND_LIMIT));
	if (tb[TCA_DCB_BAND_ECN])
		print_ecn(tb[TCA_DCB_BAND_ECN]);
	else if (cls || tb[TCA_DCB_BAND_ECN_DEFAULT])
		print_string(PRINT_FP, NULL, "ecn %s ", "default");
	if (cls || tb[TCA_DCB_BAND_NONECT])
		print_string(PRINT_ANY, "nonect", "nonect %s ",
			     NAME_OF(nonect_names, attr_u(tb, TCA_DCB_BAND_NONECT)));
}

/* JSON: every member; text: what is set, in the syntax parse_pfc takes */
static void print_pfc(struct rtattr *opt)
{
	struct rtattr *tb[TCA_DCB_PFC_MAX + 1];
	unsigned int i, len = 0, mask, beta, over, v;
	char buf[SPRINT_BSIZE];

	parse_rtattr_nested(tb, TCA_DCB_PFC_MAX, opt);
	mask = attr_u(tb, TCA_DCB_PFC_PRIO_MASK);
	beta = attr_u(tb, TCA_DCB_PFC_BETA);
#define SHOW(type)	(mask && (v = attr_u(tb, type)) ? PRINT_ANY : PRINT_JSON)
	open_json_object("pfc");
	open_json_array(PRINT_JSON, "prio_pfc");
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		if (!(mask & (1u << i)))
			continue;
		print_uint(PRINT_JSON, NULL, NULL, i);
		len += snprintf(buf + len, sizeof(buf) - len, "%s%u", len ? "," : "", i);
	}
	close_json_array(PRINT_JSON, NULL);
	if (mask)
		print_string(PRINT_FP, NULL, "pfc prio-pfc %s ", mask == 0xff ? "all" : buf);
	/* with beta, XOFF and XON are the kernel's, not settings */
	print_size(beta ? PRINT_JSON : SHOW(TCA_DCB_PFC_XOFF), "xoff", "xoff %s ",
		   attr_u(tb, TCA_DCB_PFC_XOFF));
	print_size(beta ? PRINT_JSON : SHOW(TCA_DCB_PFC_XON), "xon", "xon %s ",
		   attr_u(tb, TCA_DCB_PFC_XON));
	print_uint(SHOW(TCA_DCB_PFC_BETA), "beta", "beta %u ", beta);
	print_size(SHOW(TCA_DCB_PFC_HEADROOM), "headroom", "headroom %s ",
		   attr_u(tb, TCA_DCB_PFC_HEADROOM));
	print_uint(SHOW(TCA_DCB_PFC_QUANTA), "quanta", "quanta %u ",
		   attr_u(tb, TCA_DCB_PFC_QUANTA));
	v = attr_u(tb, TCA_DCB_PFC_DELAY);
	print_uint(PRINT_JSON, "delay_us", NULL, v);
	if (SHOW(TCA_DCB_PFC_DELAY) == PRINT_ANY)
		print_string(PRINT_FP, NULL, "delay %s ", sprint_time(v, buf));
	/* text: only the non-default; a module without it reads "shared" */
	over = attr_u(tb, TCA_DCB_PFC_OVERFLOW);
	print_string(SHOW(TCA_DCB_PFC_OVERFLOW), "overflow", "overflow %s ",
		     NAME_OF(overflow_names, over));
#undef SHOW
	close_json_object();
}

static int dcb_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_DCB_MAX + 1], *b;
	char buf[TC_DCB_NUM_DSCP * 6];
	unsigned int i, len = 0;
	const __u64 *rate;
	const __u8 *map;
	int rem;

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_DCB_MAX, opt);
	rate = attr(tb, TCA_DCB_RATE64, sizeof(*rate));
	print_dcb_rate("rate", "rate %s ", rate ? *rate : 0);
	if (tb[TCA_DCB_OVERHEAD])
		print_uint(PRINT_ANY, "overhead", "overhead %u ", attr_u(tb, TCA_DCB_OVERHEAD));
	if (tb[TCA_DCB_BURST])
		print_size(PRINT_ANY, "burst", "burst %s ", attr_u(tb, TCA_DCB_BURST));
	if (tb[TCA_DCB_LIMIT])
		print_size(PRINT_ANY, "limit", "limit %s ", attr_u(tb, TCA_DCB_LIMIT));
	if (tb[TCA_DCB_CLASSIFY])
		print_string(PRINT_ANY, "classify", "classify %s ",
			     NAME_OF(classify_names, attr_u(tb, TCA_DCB_CLASSIFY)));
	/* JSON: the whole map (index = DSCP) unless default; text: changes */
	map = attr(tb, TCA_DCB_DSCP_MAP, TC_DCB_NUM_DSCP);
	for (i = 0; map && i < TC_DCB_NUM_DSCP; i++)
		if (map[i] != i >> 3)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%u:%u",
					len ? "," : "", i, map[i]);
	if (len) {
		open_json_array(PRINT_JSON, "dscp_map");
		for (i = 0; i < TC_DCB_NUM_DSCP; i++)
			print_uint(PRINT_JSON, NULL, NULL, map[i]);
		close_json_array(PRINT_JSON, NULL);
		print_string(PRINT_FP, NULL, "dscp-map %s ", buf);
	}
	if (tb[TCA_DCB_ECN])
		print_ecn(tb[TCA_DCB_ECN]);
	if (tb[TCA_DCB_NONECT])	/* text: only when not the default */
		print_string(attr_u(tb, TCA_DCB_NONECT) ? PRINT_ANY : PRINT_JSON,
			     "nonect", "nonect %s ",
			     NAME_OF(nonect_names, attr_u(tb, TCA_DCB_NONECT)));
	if (tb[TCA_DCB_POOL])
		print_uint(PRINT_ANY, "pool", "pool %u ", attr_u(tb, TCA_DCB_POOL));
	if (tb[TCA_DCB_BUFFER])
		print_size(attr_u(tb, TCA_DCB_BUFFER) ? PRINT_ANY : PRINT_JSON,
			   "buffer", "buffer %s ", attr_u(tb, TCA_DCB_BUFFER));
	if (tb[TCA_DCB_PFC])
		print_pfc(tb[TCA_DCB_PFC]);
	open_json_array(PRINT_JSON, "bands");
	rem = tb[TCA_DCB_BANDS] ? (int)RTA_PAYLOAD(tb[TCA_DCB_BANDS]) : 0;
	for (b = rem ? RTA_DATA(tb[TCA_DCB_BANDS]) : NULL; RTA_OK(b, rem);
	     b = RTA_NEXT(b, rem)) {
		open_json_object(NULL);
		print_band(b, false);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	return 0;
}

static int dcb_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	if (opt)
		print_band(opt, true);
	return 0;
}

/* ---- statistics ------------------------------------------------------- */

/* The JSON keys: every member of struct tc_dcb_stats (all __u64), in order */
#define STAT_NAME(f)	#f,
static const char *const stats_names[] = { DCB_STATS_FIELDS(STAT_NAME) };
#define STAT(s, i)	(((const __u64 *)(s))[i])

/* Text: the members up to drops_wred always, in this order; the rest when not 0 */
#define TEXT(f, fmt)	{ DCB_STAT_##f, fmt }
static const struct { int i; const char *fmt; } stats_text[] = {
	TEXT(enq_packets, " enq %llup"), TEXT(enq_bytes, " %llub"),
	TEXT(deq_packets, " deq %llup"), TEXT(deq_bytes, " %llub"),
	TEXT(backlog_packets, " backlog %llup"), TEXT(backlog_bytes, " %llub"),
	TEXT(backlog_peak, " peak %llub"), TEXT(ecn_marked, " ecn_marked %llu"),
	TEXT(drops_tail, " drops_tail %llu"), TEXT(drops_wred, " drops_wred %llu"),
};
static_assert(ARRAY_SIZE(stats_text) == DCB_STAT_drops_wred + 1, "stats_text");

/* The @num counters the module sent (this build knows no more) */
static void print_stats(const struct tc_dcb_stats *s, unsigned int num)
{
	char fmt[40];
	unsigned int i;

	for (i = 0; i < num; i++)
		print_lluint(PRINT_JSON, stats_names[i], NULL, STAT(s, i));
	for (i = 0; i < ARRAY_SIZE(stats_text); i++)
		if (stats_text[i].i < (int)num)
			print_lluint(PRINT_FP, NULL, stats_text[i].fmt,
				     STAT(s, stats_text[i].i));
	for (i = ARRAY_SIZE(stats_text); i < num; i++) {
		snprintf(fmt, sizeof(fmt), " %s %%llu", stats_names[i]);
		if (STAT(s, i))
			print_lluint(PRINT_FP, NULL, fmt, STAT(s, i));
	}
}

static void print_pool(const struct tc_dcb_pool_stats *p)
{
	open_json_object("pool");
	print_uint(PRINT_ANY, "id", " pool %u", p->id);
	print_lluint(PRINT_ANY, "used", " used %llu", p->used);
	print_lluint(PRINT_ANY, "size", "/%llu", p->size);
	print_lluint(PRINT_ANY, "peak", " peak %llu", p->peak);
	print_lluint(PRINT_ANY, "headroom_used", " headroom %llu", p->headroom_used);
	print_lluint(PRINT_ANY, "drops_full", " drops_full %llu", p->drops_full);
	print_uint(PRINT_ANY, "ports", " ports %u", p->ports);
	print_lluint(PRINT_JSON, "reserved", NULL, p->reserved);
	close_json_object();
}

/*
 * TCA_STATS_APP: a qdisc's (the port: totals, pool) or a class's (a
 * band's counters), read as far as this build knows them (dcb_xstats.h).
 */
static int dcb_print_xstats(struct qdisc_util *qu, FILE *f, struct rtattr *xstats)
{
	struct dcb_xstats x;
	const char *why;
	char buf[128];

	if (!xstats)
		return 0;
	why = dcb_xstats_read(RTA_DATA(xstats), RTA_PAYLOAD(xstats), &x, buf,
			      sizeof(buf));
	if (why) {
		fprintf(stderr, "dcb: %s\n", why);
		return -1;
	}
	if (!x.port) {
		print_stats(&x.stats, x.stats_num);
		return 0;
	}
	print_dcb_rate("rate_in_force", " total: rate %s", x.port_stats.rate);
	print_stats(&x.stats, x.stats_num);
	print_nl();
	print_pool(&x.pool);
	print_lluint(x.port_stats.pfc_malformed ? PRINT_ANY : PRINT_JSON,
		     "pfc_malformed", " pfc_malformed %llu",
		     x.port_stats.pfc_malformed);
	return 0;
}

struct qdisc_util dcb_qdisc_util = {
	.id		= "dcb",
	.parse_qopt	= dcb_parse_qopt,
	.print_qopt	= dcb_print_qopt,
	.print_xstats	= dcb_print_xstats,
	.parse_copt	= dcb_parse_copt,
	.print_copt	= dcb_print_copt,
};
