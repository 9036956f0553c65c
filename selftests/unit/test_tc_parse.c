// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the sch_dcb tc plugin's option handling (tc/dcb_opts.c):
 * value conversions, argv parsing and validation, the netlink attributes
 * produced, decoding of kernel-style dumps, and print -> parse round trips.
 *
 *   test_tc_parse                      run the tests (TAP output)
 *   test_tc_parse --format OPTS...     print the canonical text of OPTS
 *   test_tc_parse --gen-nlmsg FILE OPTS...
 *        write RTM_NEWQDISC + RTM_NEWTCLASS messages, as the kernel would
 *        dump them for a dcb qdisc configured with OPTS, to FILE (for
 *        "tc -s monitor file FILE"; see test_tc_cli.sh)
 *   test_tc_parse --gen-nlmsg-v1 FILE OPTS...
 *        the same with the qdisc xstats of a version 1 module
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "dcb_opts.h"

static int n_tests, n_failed;

static void ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	n_tests++;
	if (!cond)
		n_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", n_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- helpers ------------------------------------------------------------ */

struct args {
	int	argc;
	char	*argv[128];
	char	buf[2048];
};

static void split(struct args *a, const char *line)
{
	char *p;

	snprintf(a->buf, sizeof(a->buf), "%s", line);
	a->argc = 0;
	for (p = strtok(a->buf, " "); p && a->argc < 127; p = strtok(NULL, " "))
		a->argv[a->argc++] = p;
	a->argv[a->argc] = NULL;
}

static int parse_line(const char *line, struct dcb_opts *o, char *err)
{
	struct args a;

	split(&a, line);
	return dcb_parse_qdisc(a.argc, a.argv, o, err, DCB_ERRLEN);
}

static int parse_class_line(const char *line, struct dcb_band_opts *b,
			    char *err)
{
	struct args a;

	split(&a, line);
	return dcb_parse_class(a.argc, a.argv, b, err, DCB_ERRLEN);
}

/* find attribute type in a flat attribute list */
static const struct nlattr *find(const void *data, size_t len, int type)
{
	const unsigned char *p = data;
	size_t off = 0;

	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const void *)(p + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static int count_attrs(const void *data, size_t len)
{
	size_t off = 0;
	int n = 0;

	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const void *)((const char *)data + off);

		if (a->nla_len < NLA_HDRLEN)
			return -1;
		n++;
		off += NLA_ALIGN(a->nla_len);
	}
	return n;
}

#define PAYLOAD(a)	((const void *)((const char *)(a) + NLA_HDRLEN))
#define PLEN(a)		((size_t)((a)->nla_len - NLA_HDRLEN))

static uint32_t get32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, PAYLOAD(a), 4);
	return v;
}

static uint64_t get64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, PAYLOAD(a), 8);
	return v;
}

static bool band_eq(const struct dcb_band_opts *a, const struct dcb_band_opts *b)
{
	bool pa = a->has_limit || a->ecn_state != DCB_BAND_ECN_UNSET;
	bool pb = b->has_limit || b->ecn_state != DCB_BAND_ECN_UNSET;

	if (pa != pb)
		return false;
	if (a->has_limit != b->has_limit || a->ecn_state != b->ecn_state)
		return false;
	if (a->has_limit && a->limit != b->limit)
		return false;
	if (a->ecn_state == DCB_BAND_ECN_SET &&
	    memcmp(&a->ecn, &b->ecn, sizeof(a->ecn)))
		return false;
	return true;
}

static bool ecn_eq(const struct tc_dcb_ecn *a, const struct tc_dcb_ecn *b)
{
	if (a->mode != b->mode)
		return false;
	if (a->mode == TC_DCB_ECN_OFF)
		return true;
	if (a->mode == TC_DCB_ECN_STEP)
		return a->kmin == b->kmin;
	return !memcmp(a, b, sizeof(*a));
}

static bool pfc_eq(const struct dcb_pfc *a, const struct dcb_pfc *b)
{
	size_t i;

	for (i = 0; i < dcb_pfc_nfields; i++)
		if (dcb_pfc_get(a, i) != dcb_pfc_get(b, i))
			return false;
	return true;
}

/* Same configuration? A default dscp-map counts as absent. */
static bool opts_eq(const struct dcb_opts *a, const struct dcb_opts *b)
{
	uint32_t mask = ~(uint32_t)DCB_HAS_DSCP_MAP;
	unsigned int i;

	if ((a->has & mask) != (b->has & mask))
		return false;
	if (a->rate != b->rate)
		return false;
	if ((a->has & DCB_HAS_OVERHEAD) && a->overhead != b->overhead)
		return false;
	if ((a->has & DCB_HAS_BURST) && a->burst != b->burst)
		return false;
	if ((a->has & DCB_HAS_LIMIT) && a->limit != b->limit)
		return false;
	if ((a->has & DCB_HAS_CLASSIFY) && a->classify != b->classify)
		return false;
	if (memcmp(a->dscp_map, b->dscp_map, sizeof(a->dscp_map)))
		return false;
	if ((a->has & DCB_HAS_ECN) && !ecn_eq(&a->ecn, &b->ecn))
		return false;
	if ((a->has & DCB_HAS_POOL) && a->pool != b->pool)
		return false;
	if ((a->has & DCB_HAS_BUFFER) && a->buffer != b->buffer)
		return false;
	if ((a->has & DCB_HAS_PFC) && !pfc_eq(&a->pfc, &b->pfc))
		return false;
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		if (!band_eq(&a->band[i], &b->band[i]))
			return false;
		if (a->band[i].ecn_state == DCB_BAND_ECN_SET &&
		    !ecn_eq(&a->band[i].ecn, &b->band[i].ecn))
			return false;
	}
	return true;
}

/* ---- value conversions -------------------------------------------------- */

static void test_time_and_lists(void)
{
	static const struct { const char *s; uint32_t v; } times[] = {
		{ "1ms", 1000 }, { "1000", 1000 }, { "500us", 500 },
		{ "1s", 1000000 }, { "2sec", 2000000 }, { "3secs", 3000000 },
		{ "1.5ms", 1500 }, { "10msec", 10000 }, { "7usec", 7 },
		{ "7usecs", 7 }, { "2MS", 2000 }, { "0", 0 }, { "0.5s", 500000 },
		{ "4294967295", 4294967295u },
	};
	static const char *const bad_times[] = {
		"", "ms", "1m", "1h", "-1ms", "1 ms", "0x10", "4295s", "1mss",
		"inf",
	};
	static const uint32_t time_samples[] = {
		0, 1, 999, 1000, 1500, 1000000, 2500000, 4294967295u,
	};
	static const struct { const char *s; uint8_t m; } lists[] = {
		{ "all", 0xff }, { "3", 0x08 }, { "3,6", 0x48 }, { "6,3", 0x48 },
		{ "0,1,2,3,4,5,6,7", 0xff }, { "0", 0x01 }, { "7", 0x80 },
	};
	static const struct { const char *s; const char *msg; } bad_lists[] = {
		{ "", "invalid band list" }, { "8", "band 8 out of range" },
		{ "3,", "invalid band list" }, { ",3", "invalid band list" },
		{ "3,,6", "invalid band list" }, { "3,3", "band 3 listed twice" },
		{ "x", "invalid band list" }, { "-1", "invalid band list" },
		{ "3;6", "invalid band list" }, { "ALL", "invalid band list" },
		{ "100000000000", "invalid band list" },
	};
	static const uint8_t list_samples[] = { 0x01, 0x48, 0x80, 0xfe, 0xff };
	char buf[64], err[DCB_ERRLEN];
	size_t i;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		uint32_t v = 12345;
		int r = dcb_get_time(times[i].s, &v);

		ok(r == 0 && v == times[i].v, "time \"%s\" = %u us (got %u)",
		   times[i].s, times[i].v, v);
	}
	for (i = 0; i < sizeof(bad_times) / sizeof(bad_times[0]); i++) {
		uint32_t v;

		ok(dcb_get_time(bad_times[i], &v) != 0,
		   "time \"%s\" rejected", bad_times[i]);
	}
	for (i = 0; i < sizeof(time_samples) / sizeof(time_samples[0]); i++) {
		uint32_t back = 12345;

		dcb_fmt_time(time_samples[i], buf, sizeof(buf));
		ok(dcb_get_time(buf, &back) == 0 && back == time_samples[i],
		   "time %u us prints as \"%s\" and parses back",
		   time_samples[i], buf);
	}
	ok(!strcmp(dcb_fmt_time(1000, buf, sizeof(buf)), "1ms"),
	   "1000 us prints as 1ms (%s)", buf);
	ok(!strcmp(dcb_fmt_time(1500, buf, sizeof(buf)), "1500us"),
	   "1500 us prints as 1500us (%s)", buf);
	ok(!strcmp(dcb_fmt_time(2000000, buf, sizeof(buf)), "2s"),
	   "2000000 us prints as 2s (%s)", buf);

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		uint8_t m = 0x5a;
		int r = dcb_get_band_list(lists[i].s, &m, err, sizeof(err));

		ok(r == 0 && m == lists[i].m, "band list \"%s\" = 0x%02x (got 0x%02x)",
		   lists[i].s, lists[i].m, m);
	}
	for (i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
		uint8_t m;

		err[0] = '\0';
		ok(dcb_get_band_list(bad_lists[i].s, &m, err, sizeof(err)) != 0 &&
		   strstr(err, bad_lists[i].msg),
		   "band list \"%s\" rejected: %s (%s)", bad_lists[i].s,
		   bad_lists[i].msg, err);
	}
	for (i = 0; i < sizeof(list_samples) / sizeof(list_samples[0]); i++) {
		uint8_t back = 0;

		dcb_fmt_band_list(list_samples[i], buf, sizeof(buf));
		ok(dcb_get_band_list(buf, &back, err, sizeof(err)) == 0 &&
		   back == list_samples[i],
		   "band mask 0x%02x prints as \"%s\" and parses back",
		   list_samples[i], buf);
	}
	ok(!strcmp(dcb_fmt_band_list(0x48, buf, sizeof(buf)), "3,6"),
	   "band mask 0x48 prints as 3,6 (%s)", buf);
}

static void test_values(void)
{
	static const struct { const char *s; uint64_t v; } rates[] = {
		{ "50mbit", 6250000 }, { "1gbit", 125000000 },
		{ "10Mbit", 1250000 }, { "1000kbit", 125000 },
		{ "1Gbit", 125000000 }, { "100gbit", 12500000000ULL },
		{ "8bit", 1 }, { "8", 1 }, { "800", 100 },
		{ "1kibit", 128 }, { "1mibit", 131072 },
		{ "1bps", 1 }, { "10Bps", 10 }, { "1kbps", 1000 },
		{ "1KBps", 1000 }, { "10MBps", 10000000 }, { "1mbps", 1000000 },
		{ "1kibps", 1024 }, { "0.3mbit", 37500 }, { "2.5gbit", 312500000 },
		{ "1tbit", 125000000000ULL },
		{ "0", 0 }, { "0bit", 0 }, { "unlimited", 0 },
	};
	static const char *const bad_rates[] = {
		"", "x", "mbit", "-5mbit", "5xbit", "0x10", "inf", "nan",
		"1e30tbit", "5 mbit", "+5mbit", "5mbitx",
	};
	static const struct { const char *s; uint32_t v; } sizes[] = {
		{ "1500", 1500 }, { "1500b", 1500 }, { "30kb", 30720 },
		{ "30k", 30720 }, { "30K", 30720 }, { "30Kb", 30720 },
		{ "1m", 1048576 }, { "1mb", 1048576 }, { "1Mb", 1048576 },
		{ "1g", 1073741824 }, { "3gb", 3221225472u }, { "1kbit", 128 },
		{ "1mbit", 131072 }, { "1.5k", 1536 }, { "0", 0 },
		{ "4294967295", 4294967295u },
	};
	static const char *const bad_sizes[] = {
		"", "k", "5q", "-1", "4g", "4294967296", "1.5kq", "0x10",
		"1 k", "inf",
	};
	static const struct { const char *s; uint32_t v; } probs[] = {
		{ "0", 0 }, { "1", 0xffffffffu }, { "1.0", 0xffffffffu },
		{ "0.5", 2147483648u }, { "0.01", 42949673u }, { "1%", 42949673u },
		{ "100%", 0xffffffffu }, { "50%", 2147483648u },
		{ ".25", 1073741824u }, { "0.1", 429496730u },
	};
	static const char *const bad_probs[] = {
		"", "1.1", "-0.1", "101%", "abc", "0.5x", "2", "%", "1%%",
		"nan", "inf", "0x1",
	};
	static const uint32_t prob_samples[] = {
		0, 1, 2, 3, 1000, 42949673u, 429496730u, 2147483647u,
		2147483648u, 3000000000u, 0xfffffffeu, 0xffffffffu,
	};
	static const uint64_t rate_samples[] = {
		1, 7, 125, 1000, 6250000, 125000000, 12500000000ULL,
		123456789, 125000000000ULL, 999999,
	};
	static const uint32_t size_samples[] = {
		1, 1500, 1024, 30720, 1048576, 1073741824u, 3221225472u,
		4294967295u, 1025, 1049600,
	};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		uint64_t v = 12345;
		int r = dcb_get_rate(rates[i].s, &v);

		ok(r == 0 && v == rates[i].v, "rate \"%s\" = %llu bytes/s (got %llu)",
		   rates[i].s, (unsigned long long)rates[i].v,
		   (unsigned long long)v);
	}
	for (i = 0; i < sizeof(bad_rates) / sizeof(bad_rates[0]); i++) {
		uint64_t v;

		ok(dcb_get_rate(bad_rates[i], &v) != 0,
		   "rate \"%s\" rejected", bad_rates[i]);
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t v = 12345;
		int r = dcb_get_size(sizes[i].s, &v);

		ok(r == 0 && v == sizes[i].v, "size \"%s\" = %u bytes (got %u)",
		   sizes[i].s, sizes[i].v, v);
	}
	for (i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		uint32_t v;

		ok(dcb_get_size(bad_sizes[i], &v) != 0,
		   "size \"%s\" rejected", bad_sizes[i]);
	}
	for (i = 0; i < sizeof(probs) / sizeof(probs[0]); i++) {
		uint32_t v = 12345;
		int r = dcb_get_prob(probs[i].s, &v);

		ok(r == 0 && v == probs[i].v, "prob \"%s\" = %u (got %u)",
		   probs[i].s, probs[i].v, v);
	}
	for (i = 0; i < sizeof(bad_probs) / sizeof(bad_probs[0]); i++) {
		uint32_t v;

		ok(dcb_get_prob(bad_probs[i], &v) != 0,
		   "prob \"%s\" rejected", bad_probs[i]);
	}

	/* formatters round-trip exactly */
	for (i = 0; i < sizeof(prob_samples) / sizeof(prob_samples[0]); i++) {
		uint32_t back = 0;

		dcb_fmt_prob(prob_samples[i], buf, sizeof(buf));
		ok(dcb_get_prob(buf, &back) == 0 && back == prob_samples[i],
		   "prob %u prints as \"%s\" and parses back", prob_samples[i],
		   buf);
	}
	for (i = 0; i < sizeof(rate_samples) / sizeof(rate_samples[0]); i++) {
		uint64_t back = 0;

		dcb_fmt_rate(rate_samples[i], buf, sizeof(buf));
		ok(dcb_get_rate(buf, &back) == 0 && back == rate_samples[i],
		   "rate %llu B/s prints as \"%s\" and parses back",
		   (unsigned long long)rate_samples[i], buf);
	}
	for (i = 0; i < sizeof(size_samples) / sizeof(size_samples[0]); i++) {
		uint32_t back = 0;

		dcb_fmt_size(size_samples[i], buf, sizeof(buf));
		ok(dcb_get_size(buf, &back) == 0 && back == size_samples[i],
		   "size %u prints as \"%s\" and parses back", size_samples[i],
		   buf);
	}
	ok(!strcmp(dcb_fmt_rate(6250000, buf, sizeof(buf)), "50Mbit"),
	   "6250000 B/s prints as 50Mbit (%s)", buf);
	ok(!strcmp(dcb_fmt_rate(0, buf, sizeof(buf)), "unlimited"),
	   "0 B/s prints as unlimited");
	ok(!strcmp(dcb_fmt_rate(123456789, buf, sizeof(buf)), "987654312bit"),
	   "inexact rate prints in bit (%s)", buf);
	ok(!strcmp(dcb_fmt_size(30720, buf, sizeof(buf)), "30Kb"),
	   "30720 prints as 30Kb (%s)", buf);
	ok(!strcmp(dcb_fmt_size(1500, buf, sizeof(buf)), "1500b"),
	   "1500 prints as 1500b (%s)", buf);
	ok(!strcmp(dcb_fmt_prob(42949673u, buf, sizeof(buf)), "0.01"),
	   "pmax 0.01 prints as 0.01 (%s)", buf);
	ok(!strcmp(dcb_fmt_prob(0xffffffffu, buf, sizeof(buf)), "1"),
	   "pmax 1 prints as 1 (%s)", buf);

	test_time_and_lists();
}

/* ---- valid command lines and the attributes they produce ---------------- */

static void encode(const struct dcb_opts *o, struct dcb_nlbuf *b, void *mem,
		   size_t cap)
{
	dcb_nl_init(b, mem, cap);
	ok(dcb_encode_qdisc(o, b) == 0, "encode fits in %zu bytes (%zu)", cap,
	   b->len);
}

static void test_valid(void)
{
	char err[DCB_ERRLEN];
	struct dcb_band_opts cb;
	struct dcb_nlbuf b;
	struct dcb_opts o;
	unsigned char mem[1024];
	const struct nlattr *a, *bands;
	struct tc_dcb_ecn e;
	unsigned int i;
	int bad;

	/* minimal: only the rate goes out */
	ok(parse_line("rate 50mbit", &o, err) == 0, "rate 50mbit parses (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_RATE64);
	ok(a && PLEN(a) == 8 && get64(a) == 6250000, "RATE64 = 6250000");
	ok(count_attrs(b.data, b.len) == 1, "only RATE64 sent for \"rate 50mbit\"");

	ok(parse_line("rate 0", &o, err) == 0, "rate 0 parses");
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_RATE64);
	ok(a && get64(a) == 0, "rate 0 -> RATE64 = 0 (unshaped)");
	ok(parse_line("rate unlimited", &o, err) == 0 && o.rate == 0,
	   "rate unlimited -> 0");

	/* everything at once */
	ok(parse_line("rate 1gbit overhead 24 burst 64k limit 1mb classify prio "
		      "dscp-map 46:5,48:6,0:1 ecn red kmin 30kb kmax 90kb pmax 0.1",
		      &o, err) == 0, "full qdisc line parses (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_RATE64);
	ok(a && get64(a) == 125000000, "rate 1gbit -> 125000000 B/s");
	a = find(b.data, b.len, TCA_DCB_OVERHEAD);
	ok(a && PLEN(a) == 4 && get32(a) == 24, "OVERHEAD 24");
	a = find(b.data, b.len, TCA_DCB_BURST);
	ok(a && PLEN(a) == 4 && get32(a) == 65536, "BURST 64k = 65536");
	a = find(b.data, b.len, TCA_DCB_LIMIT);
	ok(a && PLEN(a) == 4 && get32(a) == 1048576, "LIMIT 1mb = 1048576");
	a = find(b.data, b.len, TCA_DCB_CLASSIFY);
	ok(a && PLEN(a) == 1 && *(const unsigned char *)PAYLOAD(a) ==
	   TC_DCB_CLASSIFY_PRIO, "CLASSIFY u8 prio");
	a = find(b.data, b.len, TCA_DCB_DSCP_MAP);
	ok(a && PLEN(a) == TC_DCB_NUM_DSCP, "DSCP_MAP is 64 bytes");
	if (a) {
		const unsigned char *m = PAYLOAD(a);

		bad = 0;
		for (i = 0; i < TC_DCB_NUM_DSCP; i++) {
			unsigned int want = i >> 3;

			if (i == 46)
				want = 5;
			else if (i == 48)
				want = 6;
			else if (i == 0)
				want = 1;
			bad += m[i] != want;
		}
		ok(!bad, "dscp-map: 46->5, 48->6, 0->1, the rest dscp>>3");
	}
	a = find(b.data, b.len, TCA_DCB_ECN);
	ok(a && PLEN(a) == sizeof(e), "ECN is a struct tc_dcb_ecn");
	if (a) {
		memcpy(&e, PAYLOAD(a), sizeof(e));
		ok(e.mode == TC_DCB_ECN_RED && e.kmin == 30720 &&
		   e.kmax == 92160 && e.pmax == 429496730u,
		   "ECN red kmin 30720 kmax 92160 pmax 0.1 (%u %u %u %u)",
		   e.mode, e.kmin, e.kmax, e.pmax);
	}
	ok(!find(b.data, b.len, TCA_DCB_BANDS), "no BANDS without band options");

	ok(parse_line("rate 10Mbit classify dscp ecn step k 20k", &o, err) == 0,
	   "step line parses (%s)", err);
	ok(o.ecn.mode == TC_DCB_ECN_STEP && o.ecn.kmin == 20480 &&
	   o.ecn.kmax == 20480 && o.ecn.pmax == TC_DCB_PROB_ONE,
	   "step k 20k -> mode STEP kmin=kmax=20480 pmax=1");
	ok(o.classify == TC_DCB_CLASSIFY_DSCP && (o.has & DCB_HAS_CLASSIFY),
	   "classify dscp");

	ok(parse_line("rate 1000kbit ecn off", &o, err) == 0 &&
	   (o.has & DCB_HAS_ECN) && o.ecn.mode == TC_DCB_ECN_OFF,
	   "ecn off -> mode OFF");
	ok(parse_line("rate 1gbit ecn red pmax 1% kmax 2mb kmin 1mb", &o, err) == 0 &&
	   o.ecn.kmin == 1048576 && o.ecn.kmax == 2097152 &&
	   o.ecn.pmax == 42949673u, "red parameters in any order, pmax 1%%");
	ok(parse_line("rate 1gbit ecn red kmin 0 kmax 1 pmax 0", &o, err) == 0,
	   "red kmin 0 kmax 1 pmax 0 is valid");
	ok(parse_line("rate 1gbit dscp-map default", &o, err) == 0 &&
	   dcb_dscp_map_is_default(o.dscp_map) && (o.has & DCB_HAS_DSCP_MAP),
	   "dscp-map default sends the default map");

	/* defaults */
	ok(parse_line("rate 1gbit", &o, err) == 0 && o.has == DCB_HAS_RATE &&
	   dcb_dscp_map_is_default(o.dscp_map), "only the rate is marked present");

	/* band overrides */
	ok(parse_line("rate 1gbit ecn step k 100k band 3 limit 64k band 5 ecn red "
		      "kmin 10k kmax 20k pmax 0.5 band 7 ecn default limit 0",
		      &o, err) == 0, "band line parses (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	bands = find(b.data, b.len, TCA_DCB_BANDS);
	ok(bands && (bands->nla_type & NLA_F_NESTED), "BANDS nest with NLA_F_NESTED");
	if (bands) {
		const unsigned char *p = PAYLOAD(bands);
		size_t off = 0, l = PLEN(bands);
		int seen = 0;

		while (off + NLA_HDRLEN <= l) {
			const struct nlattr *band = (const void *)(p + off);
			const struct nlattr *idx, *lim, *ecn, *dfl;
			unsigned int n;

			ok((band->nla_type & NLA_TYPE_MASK) == TCA_DCB_BAND &&
			   (band->nla_type & NLA_F_NESTED),
			   "BANDS holds TCA_DCB_BAND nests");
			idx = find(PAYLOAD(band), PLEN(band), TCA_DCB_BAND_INDEX);
			lim = find(PAYLOAD(band), PLEN(band), TCA_DCB_BAND_LIMIT);
			ecn = find(PAYLOAD(band), PLEN(band), TCA_DCB_BAND_ECN);
			dfl = find(PAYLOAD(band), PLEN(band),
				   TCA_DCB_BAND_ECN_DEFAULT);
			ok(idx && PLEN(idx) == 1, "band has a u8 INDEX");
			n = idx ? *(const unsigned char *)PAYLOAD(idx) : 99;
			if (n == 3) {
				ok(lim && get32(lim) == 65536 && !ecn && !dfl,
				   "band 3: LIMIT 65536 only");
			} else if (n == 5) {
				memcpy(&e, ecn ? PAYLOAD(ecn) : (void *)mem, sizeof(e));
				ok(!lim && ecn && !dfl && e.mode == TC_DCB_ECN_RED &&
				   e.kmin == 10240 && e.kmax == 20480 &&
				   e.pmax == 2147483648u,
				   "band 5: ECN red 10240/20480/0.5 only");
			} else if (n == 7) {
				ok(lim && get32(lim) == 0 && !ecn && dfl &&
				   PLEN(dfl) == 0,
				   "band 7: LIMIT 0 and zero-length ECN_DEFAULT");
			} else {
				ok(0, "unexpected band index %u", n);
			}
			seen++;
			off += NLA_ALIGN(band->nla_len);
		}
		ok(seen == 3, "3 band entries (%d)", seen);
	}
	ok(o.ecn.mode == TC_DCB_ECN_STEP, "qdisc ecn before band kept");

	/* class change */
	ok(parse_class_line("limit 10k ecn red kmin 1k kmax 2k pmax 50%", &cb,
			    err) == 0, "class line parses (%s)", err);
	dcb_nl_init(&b, mem, sizeof(mem));
	ok(dcb_encode_class(&cb, &b) == 0, "class encodes");
	ok(!find(b.data, b.len, TCA_DCB_BAND_INDEX), "class: no BAND_INDEX");
	a = find(b.data, b.len, TCA_DCB_BAND_LIMIT);
	ok(a && get32(a) == 10240, "class: BAND_LIMIT 10240");
	a = find(b.data, b.len, TCA_DCB_BAND_ECN);
	ok(a && PLEN(a) == sizeof(e), "class: BAND_ECN");
	ok(count_attrs(b.data, b.len) == 2, "class: exactly 2 attributes");

	ok(parse_class_line("ecn default", &cb, err) == 0, "class ecn default");
	dcb_nl_init(&b, mem, sizeof(mem));
	dcb_encode_class(&cb, &b);
	a = find(b.data, b.len, TCA_DCB_BAND_ECN_DEFAULT);
	ok(a && PLEN(a) == 0 && count_attrs(b.data, b.len) == 1,
	   "class: only a zero-length ECN_DEFAULT");
	ok(parse_class_line("ecn step k 5k", &cb, err) == 0 &&
	   cb.ecn.mode == TC_DCB_ECN_STEP && cb.ecn.kmin == 5120,
	   "class ecn step");
	ok(parse_class_line("", &cb, err) == 0, "class with no options parses");

	/* help */
	ok(parse_line("help", &o, err) == DCB_PARSE_HELP, "help -> HELP");
	ok(parse_line("rate 1gbit help", &o, err) == DCB_PARSE_HELP,
	   "help anywhere -> HELP");
	ok(parse_class_line("help", &cb, err) == DCB_PARSE_HELP, "class help");

	/* overflow of a too small buffer is detected */
	ok(parse_line("rate 1gbit dscp-map 1:1", &o, err) == 0, "small buf setup");
	dcb_nl_init(&b, mem, 40);
	ok(dcb_encode_qdisc(&o, &b) != 0, "encode into a too small buffer fails");
}

/* ---- pool, buffer, PFC, NP-ECN ------------------------------------------- */

/* the PFC nest of an encoded qdisc: attributes found, values into *p */
static int pfc_nest(const struct dcb_nlbuf *b, struct dcb_pfc *p, int *nattrs,
		    bool *sizes_ok)
{
	const struct nlattr *nest = find(b->data, b->len, TCA_DCB_PFC);
	size_t i;

	memset(p, 0xee, sizeof(*p));
	*nattrs = -1;
	*sizes_ok = false;
	if (!nest || !(nest->nla_type & NLA_F_NESTED))
		return -1;
	*nattrs = count_attrs(PAYLOAD(nest), PLEN(nest));
	*sizes_ok = true;
	for (i = 0; i < dcb_pfc_nfields; i++) {
		const struct dcb_pfc_field *f = &dcb_pfc_fields[i];
		const struct nlattr *a = find(PAYLOAD(nest), PLEN(nest), f->type);

		if (!a || PLEN(a) != f->size) {
			*sizes_ok = false;
			continue;
		}
		memcpy((char *)p + f->off, PAYLOAD(a), f->size);
	}
	return 0;
}

static void test_pfc_valid(void)
{
	unsigned char mem[1024];
	char err[DCB_ERRLEN];
	struct dcb_band_opts cb;
	struct dcb_nlbuf b;
	struct dcb_opts o;
	struct dcb_pfc p;
	struct tc_dcb_ecn e;
	const struct nlattr *a;
	bool sizes_ok;
	int n;

	ok(parse_line("rate 1gbit pool 3 buffer 1mb pfc prio-pfc 3,6 xoff 60k "
		      "xon 57k headroom 20k quanta 0xffff delay 1ms", &o, err) == 0,
	   "pool/buffer/pfc line parses (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_POOL);
	ok(a && PLEN(a) == 4 && get32(a) == 3, "POOL u32 3");
	a = find(b.data, b.len, TCA_DCB_BUFFER);
	ok(a && PLEN(a) == 4 && get32(a) == 1048576, "BUFFER u32 1048576");
	pfc_nest(&b, &p, &n, &sizes_ok);
	ok(n == 7 && sizes_ok, "PFC nest (NLA_F_NESTED) with all 7 attributes, "
	   "u8 mask, u16 quanta, u32 others (%d)", n);
	ok(p.prio_mask == 0x48 && p.xoff == 61440 && p.xon == 58368 &&
	   p.beta == 0 && p.headroom == 20480 && p.quanta == 65535 &&
	   p.delay == 1000,
	   "PFC mask 0x48 xoff 61440 xon 58368 beta 0 headroom 20480 quanta 65535 delay 1000us");
	ok(count_attrs(b.data, b.len) == 4, "RATE64, POOL, BUFFER, PFC only");

	ok(parse_line("rate 1gbit pfc beta 8", &o, err) == 0,
	   "pfc beta 8 parses (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	pfc_nest(&b, &p, &n, &sizes_ok);
	ok(n == 7 && sizes_ok && p.prio_mask == 0xff && p.beta == 8 &&
	   !p.xoff && !p.xon && !p.headroom && !p.quanta && !p.delay,
	   "pfc beta 8: mask 0xff (default all), beta 8, the rest sent as 0");
	ok(!find(b.data, b.len, TCA_DCB_POOL) && !find(b.data, b.len, TCA_DCB_BUFFER),
	   "no POOL/BUFFER unless given");

	ok(parse_line("rate 1gbit pfc off", &o, err) == 0, "pfc off parses (%s)",
	   err);
	encode(&o, &b, mem, sizeof(mem));
	pfc_nest(&b, &p, &n, &sizes_ok);
	ok(n == 7 && sizes_ok && !p.prio_mask && !p.xoff && !p.beta &&
	   !p.quanta && !p.delay, "pfc off: whole nest, PRIO_MASK 0");

	ok(parse_line("rate 1gbit pool 0", &o, err) == 0, "pool 0 parses");
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_POOL);
	ok(a && get32(a) == 0 && !find(b.data, b.len, TCA_DCB_PFC),
	   "pool 0 given: POOL 0 sent, no PFC");
	ok(parse_line("rate 1gbit buffer 0", &o, err) == 0 && (o.has & DCB_HAS_BUFFER) &&
	   o.buffer == 0, "buffer 0 (unlimited) parses");

	ok(parse_line("rate 1gbit pfc delay 500us quanta 100 prio-pfc 7,0 xoff 1500b "
		      "band 3 limit 1k", &o, err) == 0 &&
	   o.pfc.delay == 500 && o.pfc.quanta == 100 && o.pfc.prio_mask == 0x81 &&
	   o.pfc.xoff == 1500 && o.band[3].has_limit,
	   "pfc options in any order, then a band (%s)", err);
	ok(parse_line("rate 1gbit pfc xoff 10k quanta 0x10 delay 2s", &o, err) == 0 &&
	   o.pfc.quanta == 16 && o.pfc.delay == 2000000 && o.pfc.xon == 0,
	   "quanta 0x10 = 16, delay 2s = 2000000us, xon optional");
	ok(parse_line("rate 1gbit pfc xoff 10k xon 0", &o, err) == 0,
	   "xon 0 (kernel default) is below xoff");
	ok(parse_line("rate 1gbit pfc prio-pfc all beta 1000 headroom 0", &o, err) == 0 &&
	   o.pfc.prio_mask == 0xff && o.pfc.beta == 1000,
	   "prio-pfc all, beta 1000, headroom 0 (auto)");
	ok(parse_line("rate 1gbit pfc beta 1 limit 1m", &o, err) == 0 &&
	   o.pfc.beta == 1 && o.limit == 1048576,
	   "port options go on after pfc");

	/* NP-ECN */
	ok(parse_line("rate 1gbit ecn np-ecn band 2 ecn np-ecn", &o, err) == 0,
	   "ecn np-ecn for the port and a band (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_ECN);
	memset(&e, 0xee, sizeof(e));
	if (a)
		memcpy(&e, PAYLOAD(a), sizeof(e));
	ok(a && PLEN(a) == sizeof(e) && e.mode == TC_DCB_ECN_NP_ECN &&
	   e.kmin == 10240 && e.kmin == TC_DCB_NP_ECN_K_DEFAULT &&
	   !e.kmax && !e.pmax, "ECN {NP_ECN, K 10240 (default), 0, 0}");
	ok(o.band[2].ecn_state == DCB_BAND_ECN_SET &&
	   o.band[2].ecn.mode == TC_DCB_ECN_NP_ECN &&
	   o.band[2].ecn.kmin == TC_DCB_NP_ECN_K_DEFAULT,
	   "band 2 ecn np-ecn, default K");
	ok(parse_class_line("ecn np-ecn limit 10k", &cb, err) == 0 &&
	   cb.ecn.mode == TC_DCB_ECN_NP_ECN && cb.limit == 10240 &&
	   cb.ecn.kmin == TC_DCB_NP_ECN_K_DEFAULT,
	   "class ecn np-ecn (%s)", err);
	/* K given: "k SIZE", as for step; k 0 is the paper's threshold */
	ok(parse_line("rate 1gbit ecn np-ecn k 3kb band 2 ecn np-ecn k 0", &o, err) == 0 &&
	   o.ecn.mode == TC_DCB_ECN_NP_ECN && o.ecn.kmin == 3072 &&
	   !o.ecn.kmax && !o.ecn.pmax &&
	   o.band[2].ecn.mode == TC_DCB_ECN_NP_ECN && o.band[2].ecn.kmin == 0,
	   "ecn np-ecn k 3kb (3072), band 2 k 0 (%s)", err);
	encode(&o, &b, mem, sizeof(mem));
	a = find(b.data, b.len, TCA_DCB_ECN);
	memset(&e, 0xee, sizeof(e));
	if (a)
		memcpy(&e, PAYLOAD(a), sizeof(e));
	ok(a && e.mode == TC_DCB_ECN_NP_ECN && e.kmin == 3072 && !e.kmax &&
	   !e.pmax, "ECN {NP_ECN, 3072, 0, 0} on the wire");
	ok(parse_class_line("ecn np-ecn k 8000 limit 10k", &cb, err) == 0 &&
	   cb.ecn.mode == TC_DCB_ECN_NP_ECN && cb.ecn.kmin == 8000 &&
	   cb.limit == 10240, "class ecn np-ecn k 8000 (%s)", err);
}

/* ---- invalid command lines ---------------------------------------------- */

static void test_invalid(void)
{
	static const struct { const char *line; const char *msg; } bad[] = {
		{ "", "rate is required" },
		{ "limit 1m", "rate is required" },
		{ "ecn off", "rate is required" },
		{ "rate", "missing value after \"rate\"" },
		{ "rate 1gbit limit", "missing value after \"limit\"" },
		{ "rate 1gbit burst", "missing value after \"burst\"" },
		{ "rate 1gbit overhead", "missing value after \"overhead\"" },
		{ "rate 1gbit classify", "missing value after \"classify\"" },
		{ "rate 1gbit dscp-map", "missing value after \"dscp-map\"" },
		{ "rate 1gbit ecn", "missing value after \"ecn\"" },
		{ "rate 1gbit band", "missing value after \"band\"" },
		{ "rate 1gbit ecn step k", "missing value after \"k\"" },
		{ "rate 1gbit ecn red kmin", "missing value after \"kmin\"" },
		{ "rate 1gbit ecn red kmin 1k kmax 2k pmax", "missing value after \"pmax\"" },
		{ "rate 1gbit foo", "unknown option \"foo\"" },
		{ "rate 1gbit Rate 2gbit", "unknown option \"Rate\"" },
		{ "rate 1gbit rate 2gbit", "duplicate \"rate\"" },
		{ "rate 1gbit limit 1k limit 2k", "duplicate \"limit\"" },
		{ "rate 1gbit ecn off ecn off", "duplicate \"ecn\"" },
		{ "rate 1gbit classify dscp classify prio", "duplicate \"classify\"" },
		{ "rate 1gbit dscp-map 1:1 dscp-map 2:2", "duplicate \"dscp-map\"" },
		{ "rate 5xbit", "invalid rate \"5xbit\"" },
		{ "rate -1mbit", "invalid rate" },
		{ "rate 1gbit limit 12q", "invalid limit \"12q\"" },
		{ "rate 1gbit limit 5g", "invalid limit" },
		{ "rate 1gbit burst 1.2.3", "invalid burst" },
		{ "rate 1gbit overhead -1", "invalid overhead" },
		{ "rate 1gbit overhead 1k", "invalid overhead" },
		{ "rate 1gbit overhead 4294967296", "invalid overhead" },
		{ "rate 1gbit classify pcp", "invalid classify \"pcp\"" },
		{ "rate 1gbit ecn red kmin 90k kmax 30k pmax 0.1", "kmin (92160) is greater than kmax (30720)" },
		{ "rate 1gbit ecn red kmin 30k kmax 30k pmax 0.1", "kmin and kmax are equal" },
		{ "rate 1gbit ecn red kmin 1k kmax 2k pmax 1.5", "invalid pmax \"1.5\"" },
		{ "rate 1gbit ecn red kmin 1k kmax 2k pmax -0.1", "invalid pmax" },
		{ "rate 1gbit ecn red kmin 1k kmax 2k pmax 101%", "invalid pmax" },
		{ "rate 1gbit ecn red kmin 1k kmax 2k pmax x", "invalid pmax" },
		{ "rate 1gbit ecn red kmin 1k kmax 2k", "missing pmax" },
		{ "rate 1gbit ecn red kmax 2k pmax 1", "missing kmin" },
		{ "rate 1gbit ecn red kmin 1k pmax 1", "missing kmax" },
		{ "rate 1gbit ecn red kmin 1k kmin 1k kmax 2k pmax 1", "duplicate \"kmin\"" },
		{ "rate 1gbit ecn step", "needs \"k SIZE\"" },
		{ "rate 1gbit ecn step kmin 1k", "needs \"k SIZE\"" },
		{ "rate 1gbit ecn step k 1x", "invalid k" },
		{ "rate 1gbit ecn bogus", "unknown ecn mode \"bogus\"" },
		{ "rate 1gbit ecn default", "only valid for a band or class" },
		{ "rate 1gbit nonect maybe", "invalid nonect \"maybe\" (expected pass, drop or default)" },
		{ "rate 1gbit nonect", "missing value after \"nonect\"" },
		{ "rate 1gbit nonect pass nonect drop", "duplicate \"nonect\"" },
		{ "rate 1gbit band 3 nonect pass nonect drop", "duplicate \"nonect\" for band 3" },
		{ "rate 1gbit band 3 nonect 1", "invalid nonect \"1\"" },
		{ "rate 1gbit band 8 limit 1k", "band 8 out of range (0..7)" },
		{ "rate 1gbit band 100 limit 1k", "out of range" },
		{ "rate 1gbit band -1 limit 1k", "invalid band \"-1\"" },
		{ "rate 1gbit band 3x limit 1k", "invalid band \"3x\"" },
		{ "rate 1gbit band 3", "band 3: nothing to set" },
		{ "rate 1gbit band 3 band 4 limit 1k", "band 3: nothing to set" },
		{ "rate 1gbit band 3 limit 1k band 3 ecn off", "band 3 given twice" },
		{ "rate 1gbit band 3 limit 1k limit 2k", "duplicate \"limit\" for band 3" },
		{ "rate 1gbit band 3 ecn off ecn default", "duplicate \"ecn\" for band 3" },
		{ "rate 1gbit band 3 limit 1k rate 5mbit", "\"rate\" must come before the first \"band\"" },
		{ "rate 1gbit band 3 limit 1k foo", "unknown option \"foo\" for band 3" },
		{ "rate 1gbit band 3 ecn red kmin 2k kmax 1k pmax 1", "is greater than kmax" },
		{ "rate 1gbit dscp-map 64:1", "dscp 64 out of range (0..63)" },
		{ "rate 1gbit dscp-map 10:8", "band 8 of dscp 10 out of range" },
		{ "rate 1gbit dscp-map 10:1,10:2", "dscp 10 mapped twice" },
		{ "rate 1gbit dscp-map 10", "invalid dscp-map entry \"10\"" },
		{ "rate 1gbit dscp-map 1:2,", "invalid dscp-map" },
		{ "rate 1gbit dscp-map 1:2,,3:4", "invalid dscp-map" },
		{ "rate 1gbit dscp-map a:b", "invalid dscp-map entry" },
		{ "rate 1gbit dscp-map 1:-2", "invalid dscp-map entry" },
		{ "rate 1gbit dscp-map 1:2:3", "invalid dscp-map entry" },
		/* pool, buffer */
		{ "rate 1gbit pool", "missing value after \"pool\"" },
		{ "rate 1gbit pool x", "invalid pool \"x\" (expected a pool id" },
		{ "rate 1gbit pool -1", "invalid pool" },
		{ "rate 1gbit pool 4294967296", "invalid pool" },
		{ "rate 1gbit pool 1k", "invalid pool" },
		{ "rate 1gbit pool 1 pool 2", "duplicate \"pool\"" },
		{ "rate 1gbit buffer", "missing value after \"buffer\"" },
		{ "rate 1gbit buffer 1q", "invalid buffer \"1q\"" },
		{ "rate 1gbit buffer 5g", "invalid buffer" },
		{ "rate 1gbit buffer 1m buffer 2m", "duplicate \"buffer\"" },
		{ "rate 1gbit band 3 limit 1k pool 1", "\"pool\" must come before the first \"band\"" },
		{ "rate 1gbit band 3 limit 1k buffer 1m", "\"buffer\" must come before the first \"band\"" },
		{ "rate 1gbit band 3 limit 1k pfc off", "\"pfc\" must come before the first \"band\"" },
		/* pfc */
		{ "rate 1gbit pfc", "pfc: needs \"xoff SIZE\" (static threshold) or \"beta N\"" },
		{ "rate 1gbit pfc prio-pfc 3", "pfc: needs \"xoff SIZE\"" },
		{ "rate 1gbit pfc headroom 10k quanta 5 delay 1ms", "pfc: needs" },
		{ "rate 1gbit pfc off pfc off", "duplicate \"pfc\"" },
		{ "rate 1gbit pfc xoff 1k pfc off", "duplicate \"pfc\"" },
		{ "rate 1gbit pfc off xoff 1k", "\"pfc off\" takes no \"xoff\"" },
		{ "rate 1gbit pfc prio-pfc", "missing value after \"prio-pfc\"" },
		{ "rate 1gbit pfc prio-pfc 8 xoff 10k", "prio-pfc: band 8 out of range (0..7)" },
		{ "rate 1gbit pfc prio-pfc 3,9 xoff 10k", "band 9 out of range" },
		{ "rate 1gbit pfc prio-pfc 3,3 xoff 10k", "prio-pfc: band 3 listed twice" },
		{ "rate 1gbit pfc prio-pfc 3, xoff 10k", "prio-pfc: invalid band list \"3,\"" },
		{ "rate 1gbit pfc prio-pfc none xoff 10k", "invalid band list" },
		{ "rate 1gbit pfc prio-pfc 3 prio-pfc 4 xoff 1k", "duplicate \"prio-pfc\"" },
		{ "rate 1gbit pfc xon 5k", "pfc: \"xon\" requires \"xoff\"" },
		{ "rate 1gbit pfc beta 8 xon 5k", "pfc: \"xon\" requires \"xoff\"" },
		{ "rate 1gbit pfc xoff 10k xon 10k", "pfc: xon (10240) must be below xoff (10240)" },
		{ "rate 1gbit pfc xon 20k xoff 10k", "xon (20480) must be below xoff (10240)" },
		{ "rate 1gbit pfc xoff 10k beta 8", "pfc: \"xoff\" and \"beta\" are mutually exclusive (xoff for a static threshold, beta for the dynamic one)" },
		{ "rate 1gbit pfc beta 8 xoff 10k xon 5k", "mutually exclusive" },
		{ "rate 1gbit pfc xoff", "missing value after \"xoff\"" },
		{ "rate 1gbit pfc xoff 0", "invalid xoff \"0\" (expected a size above 0" },
		{ "rate 1gbit pfc xoff 1q", "invalid xoff \"1q\"" },
		{ "rate 1gbit pfc xoff 1k xoff 2k", "duplicate \"xoff\"" },
		{ "rate 1gbit pfc xoff 10k xon x", "invalid xon \"x\"" },
		{ "rate 1gbit pfc xoff 10k headroom 5g", "invalid headroom" },
		{ "rate 1gbit pfc beta 0", "invalid beta \"0\" (expected 1..1000)" },
		{ "rate 1gbit pfc beta 1001", "invalid beta \"1001\" (expected 1..1000)" },
		{ "rate 1gbit pfc beta 0x10", "invalid beta \"0x10\"" },
		{ "rate 1gbit pfc beta 1.5", "invalid beta" },
		{ "rate 1gbit pfc xoff 1k quanta 0", "invalid quanta \"0\" (expected 1..65535, decimal or 0x hex)" },
		{ "rate 1gbit pfc xoff 1k quanta 65536", "invalid quanta \"65536\"" },
		{ "rate 1gbit pfc xoff 1k quanta 0x10000", "invalid quanta" },
		{ "rate 1gbit pfc xoff 1k quanta 0x", "invalid quanta" },
		{ "rate 1gbit pfc xoff 1k quanta 0x0", "invalid quanta" },
		{ "rate 1gbit pfc xoff 1k quanta -1", "invalid quanta" },
		{ "rate 1gbit pfc xoff 1k quanta 1k", "invalid quanta" },
		{ "rate 1gbit pfc xoff 1k delay 1h", "invalid delay \"1h\" (expected a time" },
		{ "rate 1gbit pfc xoff 1k delay 1m", "invalid delay" },
		{ "rate 1gbit pfc xoff 1k delay -1ms", "invalid delay" },
		{ "rate 1gbit pfc xoff 1k delay 5000s", "invalid delay" },
		{ "rate 1gbit pfc xoff 1k delay", "missing value after \"delay\"" },
		/* np-ecn has no curve */
		{ "rate 1gbit ecn np-ecn kmin 10k", "\"ecn np-ecn\" takes no \"kmin\"" },
		{ "rate 1gbit band 1 ecn np-ecn pmax 1", "\"ecn np-ecn\" takes no \"pmax\"" },
		{ "rate 1gbit ecn np-ecn k", "missing value after \"k\"" },
		{ "rate 1gbit ecn np-ecn k 5q", "invalid k \"5q\"" },
		{ "rate 1gbit ecn np-ecn k -1", "invalid k" },
		{ "rate 1gbit ecn np-ecn k 5g", "invalid k" },
		{ "rate 1gbit ecn np-ecn k 1k k 2k", "unknown" },
		{ "rate 1gbit ecn bogus", "expected off, red, step, np-ecn)" },
	};
	static const struct { const char *line; const char *msg; } cbad[] = {
		{ "foo", "unknown class option \"foo\"" },
		{ "limit", "missing value after \"limit\"" },
		{ "limit 1q", "invalid limit" },
		{ "limit 1k limit 2k", "duplicate \"limit\"" },
		{ "ecn red kmin 5k kmax 1k pmax 1", "is greater than kmax" },
		{ "ecn red kmin 1k kmax 5k pmax 2", "invalid pmax" },
		{ "ecn", "missing value after \"ecn\"" },
		{ "ecn off ecn default", "duplicate \"ecn\"" },
		{ "rate 1gbit", "unknown class option \"rate\"" },
		{ "band 3 limit 1k", "unknown class option \"band\"" },
		{ "ecn np-ecn kmax 1k", "\"ecn np-ecn\" takes no \"kmax\"" },
		{ "ecn np-ecn k x", "invalid k \"x\"" },
		{ "pfc off", "unknown class option \"pfc\"" },
		{ "pool 1", "unknown class option \"pool\"" },
		{ "ecn bogus", "expected off, red, step, np-ecn or default" },
		{ "nonect wred", "invalid nonect \"wred\"" },
		{ "nonect pass nonect pass", "duplicate \"nonect\"" },
	};
	char err[DCB_ERRLEN];
	struct dcb_band_opts cb;
	struct dcb_opts o;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r;

		err[0] = '\0';
		r = parse_line(bad[i].line, &o, err);
		ok(r == DCB_PARSE_ERR && strstr(err, bad[i].msg),
		   "qdisc \"%s\" -> error \"%s\" (got %d \"%s\")", bad[i].line,
		   bad[i].msg, r, err);
	}
	for (i = 0; i < sizeof(cbad) / sizeof(cbad[0]); i++) {
		int r;

		err[0] = '\0';
		r = parse_class_line(cbad[i].line, &cb, err);
		ok(r == DCB_PARSE_ERR && strstr(err, cbad[i].msg),
		   "class \"%s\" -> error \"%s\" (got %d \"%s\")", cbad[i].line,
		   cbad[i].msg, r, err);
	}
}

/* ---- round trips --------------------------------------------------------- */

static void test_roundtrip(void)
{
	static const char *const lines[] = {
		"rate 50mbit",
		"rate 0",
		"rate 1gbit overhead 24 burst 64k limit 1mb classify prio",
		"rate 10Mbit classify dscp dscp-map 46:5,48:6,0:1,63:0",
		"rate 123456789bit burst 1500 limit 1000000",
		"rate 1000kbit ecn red kmin 30kb kmax 90kb pmax 0.1",
		"rate 1gbit ecn red kmin 1 kmax 3 pmax 0.333333",
		"rate 1gbit ecn red kmin 1k kmax 2k pmax 1%",
		"rate 1gbit ecn step k 20k",
		"rate 1gbit ecn off",
		"rate 25gbit ecn np-ecn",
		"rate 25gbit ecn step k 20k band 3 ecn np-ecn band 4 ecn np-ecn limit 1m",
		"rate 1gbit pool 3 buffer 1mb pfc prio-pfc 3,6 xoff 60k xon 57k "
			"headroom 20k quanta 65535 delay 1ms",
		"rate 1gbit pool 0 pfc beta 8 band 3 ecn np-ecn",
		"rate 1gbit pfc prio-pfc all xoff 1500 quanta 0x100 delay 1500us",
		"rate 1gbit pfc xoff 100k delay 2s limit 4m",
		"rate 1gbit buffer 12345 pfc prio-pfc 0,7 beta 1000 headroom 1",
		"rate 1gbit pool 4294967295 buffer 4294967295 pfc prio-pfc 5 xoff 4294967295 "
			"xon 4294967294 headroom 4294967295 quanta 1 delay 4294967295",
		"rate 1gbit ecn step k 100k band 0 limit 10k band 3 limit 64k "
			"ecn red kmin 10k kmax 20k pmax 0.5 band 7 ecn off",
		"rate 100gbit overhead 4 burst 1g limit 4294967295 classify dscp "
			"dscp-map 8:7,16:7 ecn red kmin 1000 kmax 1001 pmax 0.000001 "
			"band 1 ecn step k 1500 band 2 limit 0",
		"rate 2.5gbit dscp-map default",
	};
	char err[DCB_ERRLEN], text[2048], text2[2048];
	unsigned char mem[1024];
	struct dcb_opts o, d, r;
	struct dcb_nlbuf b;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		bool good;

		if (parse_line(lines[i], &o, err)) {
			ok(0, "round trip: \"%s\" parses (%s)", lines[i], err);
			continue;
		}
		dcb_nl_init(&b, mem, sizeof(mem));
		good = dcb_encode_qdisc(&o, &b) == 0 &&
		       dcb_decode_qdisc(b.data, b.len, &d, err, sizeof(err)) == 0;
		ok(good && opts_eq(&o, &d), "round trip: encode/decode \"%s\"",
		   lines[i]);
		if (!good)
			continue;
		dcb_format_qdisc(&d, text, sizeof(text));
		good = parse_line(text, &r, err) == 0;
		ok(good && opts_eq(&d, &r),
		   "round trip: \"%s\" -> \"%s\" -> same config%s%s", lines[i],
		   text, good ? "" : ": ", good ? "" : err);
		dcb_format_qdisc(&r, text2, sizeof(text2));
		ok(!strcmp(text, text2), "round trip: text is a fixed point (\"%s\")",
		   text2);
	}

	/* the canonical text of a full config, checked literally */
	parse_line("rate 1gbit overhead 24 burst 64k limit 1mb classify dscp "
		   "dscp-map 46:7 ecn red kmin 30kb kmax 90kb pmax 0.1 "
		   "band 3 limit 65536 ecn step k 20k", &o, err);
	dcb_format_qdisc(&o, text, sizeof(text));
	ok(!strcmp(text, "rate 1Gbit overhead 24 burst 64Kb limit 1Mb classify dscp "
		   "dscp-map 46:7 ecn red kmin 30Kb kmax 90Kb pmax 0.1 "
		   "band 3 limit 64Kb ecn step k 20Kb"),
	   "canonical text: \"%s\"", text);
	{
		static const struct { const char *in, *out; } canon[] = {
			{ "rate 1gbit pool 3 buffer 1mb pfc prio-pfc 6,3 xoff 60k "
			  "xon 57k headroom 20k quanta 0xffff delay 1000",
			  "rate 1Gbit pool 3 buffer 1Mb pfc prio-pfc 3,6 xoff 60Kb "
			  "xon 57Kb headroom 20Kb quanta 65535 delay 1ms" },
			{ "rate 1gbit pfc beta 8",
			  "rate 1Gbit pfc prio-pfc all beta 8" },
			{ "rate 1gbit ecn step k 10k nonect drop pfc prio-pfc 3 "
			  "xoff 16k band 3 nonect default band 0 nonect pass",
			  "rate 1Gbit ecn step k 10Kb nonect drop pfc prio-pfc 3 "
			  "xoff 16Kb band 0 nonect pass band 3 nonect default" },
			{ "rate 1gbit ecn np-ecn band 1 ecn np-ecn",
			  "rate 1Gbit ecn np-ecn k 10Kb band 1 ecn np-ecn k 10Kb" },
			{ "rate 1gbit ecn np-ecn k 0 band 1 ecn np-ecn k 1500",
			  "rate 1Gbit ecn np-ecn k 0 band 1 ecn np-ecn k 1500b" },
			/* not printed: pfc off, buffer 0 (unlimited) */
			{ "rate 1gbit pool 2 buffer 0 pfc off", "rate 1Gbit pool 2" },
		};
		size_t k;

		for (k = 0; k < sizeof(canon) / sizeof(canon[0]); k++) {
			text[0] = '\0';
			if (parse_line(canon[k].in, &o, err) == 0) {
				dcb_nl_init(&b, mem, sizeof(mem));
				dcb_encode_qdisc(&o, &b);
				dcb_decode_qdisc(b.data, b.len, &d, err,
						 sizeof(err));
				dcb_format_qdisc(&d, text, sizeof(text));
			}
			ok(!strcmp(text, canon[k].out),
			   "canonical text of \"%s\": \"%s\" (got \"%s\")",
			   canon[k].in, canon[k].out, text);
		}
	}

	/* class text states the whole class config */
	{
		struct dcb_band_opts cb, cr;
		int idx;

		parse_class_line("limit 10k ecn red kmin 1k kmax 2k pmax 50%", &cb, err);
		dcb_nl_init(&b, mem, sizeof(mem));
		dcb_encode_class(&cb, &b);
		dcb_decode_band(b.data, b.len, &cr, &idx, err, sizeof(err));
		dcb_format_band(&cr, true, text, sizeof(text));
		ok(!strcmp(text, "limit 10Kb ecn red kmin 1Kb kmax 2Kb pmax 0.5 nonect default") &&
		   idx == -1, "class text \"%s\"", text);
		memset(&cr, 0, sizeof(cr));
		dcb_format_band(&cr, true, text, sizeof(text));
		ok(!strcmp(text, "limit 0 ecn default nonect default"),
		   "class without settings prints \"%s\"", text);
		ok(parse_class_line(text, &cb, err) == 0, "... and parses back");
	}
}

/* ---- decoding a kernel-style dump --------------------------------------- */

/* pool, buffer and a PFC nest as a kernel could dump them */
static void test_decode_pfc_dump(void)
{
	struct tc_dcb_ecn e = { TC_DCB_ECN_NP_ECN, 1000, 0, 0 };
	unsigned char mem[1024];
	char err[DCB_ERRLEN], text[1024];
	uint64_t rate = 125000000;
	uint32_t u32, beta = 8;
	uint16_t u16 = 100;
	uint8_t u8 = 0x48;
	struct dcb_nlbuf b;
	struct dcb_opts o;
	size_t pfc;

	/* only some PFC members; an unknown one; np-ecn with K 1000 */
	dcb_nl_init(&b, mem, sizeof(mem));
	dcb_nl_put(&b, TCA_DCB_RATE64, &rate, sizeof(rate));
	dcb_nl_put(&b, TCA_DCB_ECN, &e, sizeof(e));
	u32 = 7;
	dcb_nl_put(&b, TCA_DCB_POOL, &u32, 4);
	u32 = 0;
	dcb_nl_put(&b, TCA_DCB_BUFFER, &u32, 4);
	pfc = dcb_nl_nest_start(&b, TCA_DCB_PFC);
	dcb_nl_put(&b, TCA_DCB_PFC_PRIO_MASK, &u8, 1);
	dcb_nl_put(&b, TCA_DCB_PFC_BETA, &beta, 4);
	u32 = 61440;	/* a kernel reporting xoff too: beta wins in text */
	dcb_nl_put(&b, TCA_DCB_PFC_XOFF, &u32, 4);
	dcb_nl_put(&b, TCA_DCB_PFC_QUANTA, &u16, 2);
	dcb_nl_put(&b, 77, "junk", 4);
	dcb_nl_nest_end(&b, pfc);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) == 0 &&
	   (o.has & (DCB_HAS_POOL | DCB_HAS_BUFFER | DCB_HAS_PFC)) ==
	   (DCB_HAS_POOL | DCB_HAS_BUFFER | DCB_HAS_PFC),
	   "dump with pool, buffer, pfc decodes (%s)", err);
	ok(o.pool == 7 && o.buffer == 0 && o.pfc.prio_mask == 0x48 &&
	   o.pfc.beta == 8 && o.pfc.quanta == 100 && o.pfc.xon == 0 &&
	   o.pfc.delay == 0, "absent PFC members decode as 0");
	dcb_format_qdisc(&o, text, sizeof(text));
	ok(!strcmp(text, "rate 1Gbit ecn np-ecn k 1000b pool 7 pfc prio-pfc 3,6 beta 8 quanta 100"),
	   "pfc dump prints as \"%s\"", text);
	{
		struct dcb_opts r;

		ok(parse_line(text, &r, err) == 0, "... and parses (%s)", err);
	}

	/* pfc off is not printed */
	dcb_nl_init(&b, mem, sizeof(mem));
	dcb_nl_put(&b, TCA_DCB_RATE64, &rate, sizeof(rate));
	pfc = dcb_nl_nest_start(&b, TCA_DCB_PFC);
	u8 = 0;
	dcb_nl_put(&b, TCA_DCB_PFC_PRIO_MASK, &u8, 1);
	dcb_nl_put(&b, TCA_DCB_PFC_XOFF, &u32, 4);
	dcb_nl_nest_end(&b, pfc);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) == 0 &&
	   (o.has & DCB_HAS_PFC) && !o.pfc.prio_mask,
	   "pfc off dump decodes (%s)", err);
	dcb_format_qdisc(&o, text, sizeof(text));
	ok(!strcmp(text, "rate 1Gbit"), "pfc off not printed (\"%s\")", text);

	/* short members are reported */
	dcb_nl_init(&b, mem, sizeof(mem));
	pfc = dcb_nl_nest_start(&b, TCA_DCB_PFC);
	dcb_nl_put(&b, TCA_DCB_PFC_XOFF, &u16, 2);
	dcb_nl_nest_end(&b, pfc);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) != 0 &&
	   strstr(err, "xoff too short"), "short PFC_XOFF rejected (%s)", err);
	dcb_nl_init(&b, mem, sizeof(mem));
	dcb_nl_put(&b, TCA_DCB_POOL, &u16, 2);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) != 0 &&
	   strstr(err, "pool too short"), "short POOL rejected (%s)", err);
	dcb_nl_init(&b, mem, sizeof(mem));
	pfc = dcb_nl_nest_start(&b, TCA_DCB_PFC);
	u32 = 0xffff;
	dcb_nl_put(&b, TCA_DCB_PFC_QUANTA, &u32, 4);	/* longer: prefix */
	dcb_nl_nest_end(&b, pfc);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) == 0 &&
	   o.pfc.quanta == 0xffff, "longer PFC_QUANTA: known prefix read");
	memset(mem, 0, 16);
	mem[0] = 12;
	mem[2] = TCA_DCB_PFC;
	mem[4] = 200;	/* inner nla_len beyond the nest */
	ok(dcb_decode_qdisc(mem, 12, &o, err, sizeof(err)) != 0,
	   "malformed PFC nest rejected (%s)", err);
}

static void test_decode_dump(void)
{
	unsigned char mem[1024];
	struct tc_dcb_ecn e = { TC_DCB_ECN_RED, 30720, 92160, 429496730u };
	unsigned char ecn_long[sizeof(e) + 8];
	uint64_t rate = 6250000;
	uint32_t u32;
	uint8_t u8, map[TC_DCB_NUM_DSCP];
	char err[DCB_ERRLEN], text[1024];
	struct dcb_nlbuf b;
	struct dcb_opts o;
	size_t bands, band;
	unsigned int i;

	dcb_nl_init(&b, mem, sizeof(mem));
	dcb_nl_put(&b, TCA_DCB_PAD, NULL, 0);		/* 64-bit alignment pad */
	dcb_nl_put(&b, TCA_DCB_RATE64, &rate, sizeof(rate));
	u32 = 0;
	dcb_nl_put(&b, TCA_DCB_OVERHEAD, &u32, 4);
	dcb_nl_put(&b, TCA_DCB_BURST, &u32, 4);
	u32 = 1048576;
	dcb_nl_put(&b, TCA_DCB_LIMIT, &u32, 4);
	u8 = TC_DCB_CLASSIFY_DSCP;
	dcb_nl_put(&b, TCA_DCB_CLASSIFY, &u8, 1);
	for (i = 0; i < TC_DCB_NUM_DSCP; i++)
		map[i] = i >> 3;
	map[46] = 7;
	dcb_nl_put(&b, TCA_DCB_DSCP_MAP, map, sizeof(map));
	/* a newer kernel's longer ecn struct */
	memset(ecn_long, 0xee, sizeof(ecn_long));
	memcpy(ecn_long, &e, sizeof(e));
	dcb_nl_put(&b, TCA_DCB_ECN, ecn_long, sizeof(ecn_long));
	dcb_nl_put(&b, 200, "junk", 4);			/* unknown attribute */
	bands = dcb_nl_nest_start(&b, TCA_DCB_BANDS);
	band = dcb_nl_nest_start(&b, TCA_DCB_BAND);
	u8 = 6;
	dcb_nl_put(&b, TCA_DCB_BAND_INDEX, &u8, 1);
	u32 = 65536;
	dcb_nl_put(&b, TCA_DCB_BAND_LIMIT, &u32, 4);
	dcb_nl_nest_end(&b, band);
	band = dcb_nl_nest_start(&b, TCA_DCB_BAND);
	u8 = 2;
	dcb_nl_put(&b, TCA_DCB_BAND_INDEX, &u8, 1);
	e.mode = TC_DCB_ECN_STEP;
	e.kmin = 10240;
	dcb_nl_put(&b, TCA_DCB_BAND_ECN, &e, sizeof(e));
	dcb_nl_nest_end(&b, band);
	dcb_nl_nest_end(&b, bands);

	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) == 0,
	   "kernel-style dump decodes (%s)", err);
	dcb_format_qdisc(&o, text, sizeof(text));
	ok(!strcmp(text, "rate 50Mbit overhead 0 burst 0 limit 1Mb classify dscp "
		   "dscp-map 46:7 ecn red kmin 30Kb kmax 90Kb pmax 0.1 "
		   "band 2 ecn step k 10Kb band 6 limit 64Kb"),
	   "dump prints as \"%s\"", text);

	/* broken dumps are reported, not crashed on */
	u32 = 5;
	dcb_nl_init(&b, mem, sizeof(mem));
	dcb_nl_put(&b, TCA_DCB_RATE64, &u32, 4);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) != 0 &&
	   strstr(err, "too short"), "short RATE64 rejected (%s)", err);
	memset(mem, 0, 8);
	mem[0] = 200;	/* nla_len beyond the buffer */
	ok(dcb_decode_qdisc(mem, 8, &o, err, sizeof(err)) != 0,
	   "truncated attribute rejected (%s)", err);
	dcb_nl_init(&b, mem, sizeof(mem));
	bands = dcb_nl_nest_start(&b, TCA_DCB_BANDS);
	band = dcb_nl_nest_start(&b, TCA_DCB_BAND);
	dcb_nl_put(&b, TCA_DCB_BAND_LIMIT, &u32, 4);
	dcb_nl_nest_end(&b, band);
	dcb_nl_nest_end(&b, bands);
	ok(dcb_decode_qdisc(b.data, b.len, &o, err, sizeof(err)) != 0,
	   "band entry without index rejected (%s)", err);

	test_decode_pfc_dump();
}

/* ---- statistics ----------------------------------------------------------- */

static void test_stats(void)
{
	unsigned char buf[sizeof(struct tc_dcb_xstats) + 64];
	struct tc_dcb_xstats x;
	struct tc_dcb_stats s;
	char text[512];

	memset(&x, 0, sizeof(x));
	x.version = TC_DCB_XSTATS_VERSION;
	x.nbands = TC_DCB_NUM_BANDS;
	memcpy(buf, &x, sizeof(x));
	ok(dcb_xstats_kind(buf, sizeof(x)) == DCB_XSTATS_QDISC,
	   "xstats of %zu bytes is the qdisc's", sizeof(x));
	ok(dcb_xstats_kind(buf, sizeof(buf)) == DCB_XSTATS_QDISC,
	   "longer xstats (newer kernel) still the qdisc's");
	ok(dcb_xstats_kind(buf, sizeof(struct tc_dcb_stats)) == DCB_XSTATS_CLASS,
	   "xstats of %zu bytes is a class's", sizeof(struct tc_dcb_stats));
	ok(dcb_xstats_kind(buf, sizeof(struct tc_dcb_stats) + 8) == DCB_XSTATS_CLASS,
	   "longer class stats still a class's");
	ok(dcb_xstats_kind(buf, 40) == DCB_XSTATS_BAD, "40 bytes is bad");
	ok(dcb_xstats_kind(buf, 80) == DCB_XSTATS_BAD,
	   "80 bytes (version 1 class stats) is bad");
	ok(dcb_xstats_kind(buf, sizeof(x) - 8) != DCB_XSTATS_QDISC,
	   "qdisc xstats shorter than version 2 refused");
	x.version = 1;
	memcpy(buf, &x, 8);
	ok(dcb_xstats_kind(buf, 16 + 9 * 80) == DCB_XSTATS_OLD,
	   "version 1 qdisc xstats (736 bytes) recognised as old");
	ok(dcb_xstats_kind(buf, sizeof(x)) != DCB_XSTATS_QDISC,
	   "version 1 header is not version 2");
	x.version = 2;
	memcpy(buf, &x, 8);
	ok(dcb_xstats_kind(buf, 16 + 9 * 176 + 56 + 8) == DCB_XSTATS_OLD,
	   "version 2 qdisc xstats (1664 bytes) recognised as old");
	x.version = 4;
	memcpy(buf, &x, 8);
	ok(dcb_xstats_kind(buf, sizeof(buf)) == DCB_XSTATS_NEW,
	   "version 4 (longer) recognised as newer, not read as 3");
	x.version = TC_DCB_XSTATS_VERSION;
	memcpy(buf, &x, 8);
	ok(dcb_stats_nfields == 25, "25 statistics fields");
	ok(dcb_pool_nfields == 8 && !strcmp(dcb_pool_fields[0].name, "id") &&
	   !strcmp(dcb_pool_fields[7].name, "drops_full"), "8 pool fields");
	{
		static const char *const v2[] = {
			"drops_headroom", "pause_tx", "resume_tx", "pause_rx",
			"resume_rx", "paused_us", "in_bytes", "in_peak",
			"in_headroom", "in_drops", "xoff", "np_unmarked",
			"nonect_passed", "pause_inflight_peak",
			"pause_react_us",
		};
		struct tc_dcb_stats probe;
		size_t k, bad = 0;

		/* names, offsets and order match the struct */
		for (k = 0; k < dcb_stats_nfields; k++) {
			memset(&probe, 0, sizeof(probe));
			((uint64_t *)&probe)[k] = k + 1;
			bad += dcb_stats_get(&probe, k) != k + 1;
			bad += dcb_stats_fields[k].version !=
			       (k < 10 ? 1u : k < 22 ? 2u : 3u);
			if (k >= 10)
				bad += strcmp(dcb_stats_fields[k].name, v2[k - 10]) != 0;
		}
		ok(!bad, "field table: 10 version 1 + 12 version 2 + 3 version 3 fields in struct order");
	}

	memset(&s, 0, sizeof(s));
	ok(!dcb_stats_active(&s), "idle band is inactive");
	s.enq_packets = 10;
	s.enq_bytes = 15000;
	s.deq_packets = 9;
	s.deq_bytes = 13500;
	s.backlog_packets = 1;
	s.backlog_bytes = 1500;
	s.backlog_peak = 3000;
	s.ecn_marked = 2;
	s.drops_tail = 3;
	s.drops_wred = 4;
	ok(dcb_stats_active(&s), "band with packets is active");
	ok(dcb_stats_get(&s, 0) == 10 && dcb_stats_get(&s, 9) == 4 &&
	   !strcmp(dcb_stats_fields[6].name, "backlog_peak"),
	   "field table matches struct tc_dcb_stats");
	dcb_format_stats(&s, text, sizeof(text));
	ok(!strcmp(text, "enq 10p 15000b deq 9p 13500b backlog 1p 1500b peak 3000b "
		   "ecn_marked 2 drops_tail 3 drops_wred 4"), "stats line \"%s\"",
	   text);
	s.pause_tx = 5;
	s.paused_us = 1200;
	s.xoff = 61440;
	dcb_format_stats(&s, text, sizeof(text));
	ok(!strcmp(text, "enq 10p 15000b deq 9p 13500b backlog 1p 1500b peak 3000b "
		   "ecn_marked 2 drops_tail 3 drops_wred 4 pause_tx 5 paused_us 1200 "
		   "xoff 61440"), "version 2 counters only when not 0: \"%s\"", text);
	memset(&s, 0, sizeof(s));
	s.xoff = 61440;
	ok(!dcb_stats_active(&s), "band with only xoff in force is inactive");
	s.in_bytes = 1500;
	ok(dcb_stats_active(&s), "band with ingress bytes queued is active");
	memset(&s, 0, sizeof(s));
	s.pause_rx = 1;
	ok(dcb_stats_active(&s), "band paused by the peer is active");

	/* totals: sum, in_peak and xoff max; version 1 ones left alone */
	{
		struct tc_dcb_stats band[3], total;

		memset(band, 0, sizeof(band));
		memset(&total, 0, sizeof(total));
		total.enq_packets = 99;
		band[0].pause_tx = 1;
		band[1].pause_tx = 2;
		band[2].pause_tx = 4;
		band[0].in_peak = 10;
		band[1].in_peak = 30;
		band[2].in_peak = 20;
		band[0].xoff = 100;
		band[2].xoff = 50;
		band[1].in_bytes = 7;
		band[2].in_bytes = 8;
		band[0].enq_packets = 5;
		dcb_stats_total(band, 3, &total);
		ok(total.pause_tx == 7 && total.in_peak == 30 && total.xoff == 100 &&
		   total.in_bytes == 15 && total.enq_packets == 99 &&
		   total.np_unmarked == 0,
		   "totals: pause_tx 7 (sum), in_peak 30 and xoff 100 (max), in_bytes 15");
	}

	/* pool line */
	{
		struct tc_dcb_pool_stats p = {
			.id = 1, .ports = 3, .size = 1048576, .reserved = 61440,
			.used = 30000, .peak = 90000, .headroom_used = 1500,
			.drops_full = 2,
		};

		dcb_format_pool(&p, text, sizeof(text));
		ok(!strcmp(text, "pool 1 used 30000/1048576 peak 90000 headroom 1500 "
			   "drops_full 2 ports 3"), "pool line \"%s\"", text);
		ok(dcb_pool_get(&p, 0) == 1 && dcb_pool_get(&p, 1) == 3 &&
		   dcb_pool_get(&p, 4) == 30000 && dcb_pool_get(&p, 7) == 2,
		   "pool field table matches struct tc_dcb_pool_stats");
	}
}

/* ---- tools for test_tc_cli.sh -------------------------------------------- */

static void msg_put(unsigned char *msg, size_t *len, size_t cap, int type,
		    const void *data, size_t dlen)
{
	struct dcb_nlbuf b;

	dcb_nl_init(&b, msg + *len, cap - *len);
	if (dcb_nl_put(&b, (uint16_t)type, data, dlen)) {
		fprintf(stderr, "message buffer too small\n");
		exit(2);
	}
	*len += b.len;
}

static size_t msg_begin(unsigned char *msg, int type, uint32_t handle,
			uint32_t parent)
{
	struct nlmsghdr h = { .nlmsg_type = (uint16_t)type };
	struct tcmsg t = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = 1,	/* lo */
		.tcm_handle = handle,
		.tcm_parent = parent,
		.tcm_info = 1,
	};

	memcpy(msg, &h, sizeof(h));
	memcpy(msg + NLMSG_HDRLEN, &t, sizeof(t));
	return NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(t));
}

static void msg_end(unsigned char *msg, size_t len, FILE *f)
{
	struct nlmsghdr h;

	memcpy(&h, msg, sizeof(h));
	h.nlmsg_len = (uint32_t)len;
	memcpy(msg, &h, sizeof(h));
	fwrite(msg, 1, NLMSG_ALIGN(len), f);
}

static void fill_stats(struct tc_dcb_stats *s, uint64_t seed)
{
	s->enq_packets = 1000 * seed;
	s->enq_bytes = 1500000 * seed;
	s->deq_packets = 990 * seed;
	s->deq_bytes = 1485000 * seed;
	s->backlog_packets = 10 * seed;
	s->backlog_bytes = 15000 * seed;
	s->backlog_peak = 30000 * seed;
	s->ecn_marked = 5 * seed;
	s->drops_tail = 1 * seed;
	s->drops_wred = 2 * seed;
}

/* the version 2 (PFC) counters of a band; in_headroom stays 0 */
static void fill_stats2(struct tc_dcb_stats *s, uint64_t seed)
{
	s->drops_headroom = 1 * seed;
	s->pause_tx = 10 * seed;
	s->resume_tx = 9 * seed;
	s->pause_rx = 3 * seed;
	s->resume_rx = 3 * seed;
	s->paused_us = 500 * seed;
	s->in_bytes = 1500 * seed;
	s->in_peak = 45000 * seed;
	s->in_drops = 1 * seed;
	s->xoff = 61440;
	s->np_unmarked = 7 * seed;
}

/* TCA_STATS2 with basic, queue and app (xstats) */
static void put_stats2(unsigned char *msg, size_t *len, size_t cap,
		       const void *app, size_t app_len)
{
	struct gnet_stats_basic basic = { .bytes = 1234567, .packets = 890 };
	struct gnet_stats_queue q = { .qlen = 10, .backlog = 15000, .drops = 3 };
	unsigned char inner[2048];
	struct dcb_nlbuf b;
	size_t nest;

	dcb_nl_init(&b, inner, sizeof(inner));
	nest = dcb_nl_nest_start(&b, TCA_STATS2);
	dcb_nl_put(&b, TCA_STATS_BASIC, &basic, sizeof(basic));
	dcb_nl_put(&b, TCA_STATS_QUEUE, &q, sizeof(q));
	dcb_nl_put(&b, TCA_STATS_APP, app, app_len);
	dcb_nl_nest_end(&b, nest);
	if (b.overflow || *len + b.len > cap) {
		fprintf(stderr, "message buffer too small\n");
		exit(2);
	}
	memcpy(msg + *len, b.data, b.len);
	*len += b.len;
}

/*
 * What the kernel should dump for a qdisc configured with argv: every
 * setting (defaults filled in), and a class (band 3) message.  With v1,
 * the qdisc's xstats are those of a version 1 module.
 */
static int gen_nlmsg(const char *path, int argc, char **argv, bool v1)
{
	unsigned char msg[4096], opts[1024];
	char err[DCB_ERRLEN];
	struct tc_dcb_xstats x;
	struct tc_dcb_stats cs;
	struct dcb_nlbuf b;
	struct dcb_opts o;
	size_t len;
	unsigned int i;
	FILE *f;

	if (dcb_parse_qdisc(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "gen-nlmsg: %s\n", err);
		return 2;
	}
	/* the kernel reports all settings */
	if (!(o.has & DCB_HAS_OVERHEAD))
		o.overhead = 0;
	if (!(o.has & DCB_HAS_BURST))
		o.burst = 0;
	if (!(o.has & DCB_HAS_LIMIT))
		o.limit = 1048576;
	if (!(o.has & DCB_HAS_ECN))
		o.ecn.mode = TC_DCB_ECN_OFF;
	if (!(o.has & DCB_HAS_POOL))
		o.pool = 0;
	if (!(o.has & DCB_HAS_BUFFER))
		o.buffer = 0;
	/* o.pfc is all 0 (off) unless given */
	o.has |= DCB_HAS_OVERHEAD | DCB_HAS_BURST | DCB_HAS_LIMIT |
		 DCB_HAS_CLASSIFY | DCB_HAS_DSCP_MAP | DCB_HAS_ECN |
		 DCB_HAS_POOL | DCB_HAS_BUFFER | DCB_HAS_PFC;
	for (i = 0; i < TC_DCB_NUM_BANDS; i++)
		if (o.band[i].ecn_state == DCB_BAND_ECN_DEFAULT)
			o.band[i].ecn_state = DCB_BAND_ECN_UNSET;

	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 2;
	}

	/* qdisc */
	len = msg_begin(msg, RTM_NEWQDISC, 0x10000, TC_H_ROOT);
	msg_put(msg, &len, sizeof(msg), TCA_KIND, "dcb", 4);
	dcb_nl_init(&b, opts, sizeof(opts));
	dcb_nl_put(&b, TCA_DCB_PAD, NULL, 0);
	if (dcb_encode_qdisc(&o, &b)) {
		fprintf(stderr, "gen-nlmsg: encode failed\n");
		fclose(f);
		return 2;
	}
	msg_put(msg, &len, sizeof(msg), TCA_OPTIONS | NLA_F_NESTED, b.data, b.len);
	memset(&x, 0, sizeof(x));
	x.version = TC_DCB_XSTATS_VERSION;
	x.nbands = TC_DCB_NUM_BANDS;
	x.rate = o.rate;
	fill_stats(&x.total, 6);
	fill_stats(&x.band[0], 1);
	fill_stats(&x.band[3], 2);
	fill_stats(&x.band[7], 3);
	fill_stats2(&x.band[3], 2);
	dcb_stats_total(x.band, TC_DCB_NUM_BANDS, &x.total);
	x.pool.id = o.pool;
	x.pool.ports = 2;
	x.pool.size = o.buffer;
	x.pool.reserved = 40960;
	x.pool.used = 90000;
	x.pool.peak = 180000;
	x.pool.headroom_used = 1500;
	x.pool.drops_full = 3;
	x.pfc_malformed = 4;
	if (v1) {
		/* version 1: 80-byte stats, no pool */
		unsigned char old[16 + 9 * 80];

		x.version = 1;
		memset(old, 0, sizeof(old));
		memcpy(old, &x, 16);
		put_stats2(msg, &len, sizeof(msg), old, sizeof(old));
	} else {
		put_stats2(msg, &len, sizeof(msg), &x, sizeof(x));
	}
	msg_end(msg, len, f);

	/* class 1:4 = band 3 */
	len = msg_begin(msg, RTM_NEWTCLASS, 0x10004, 0x10000);
	msg_put(msg, &len, sizeof(msg), TCA_KIND, "dcb", 4);
	{
		struct dcb_band_opts cb = o.band[3];
		uint8_t idx = 3;

		dcb_nl_init(&b, opts, sizeof(opts));
		dcb_nl_put(&b, TCA_DCB_BAND_INDEX, &idx, 1);
		dcb_encode_class(&cb, &b);
		msg_put(msg, &len, sizeof(msg), TCA_OPTIONS | NLA_F_NESTED,
			b.data, b.len);
	}
	memset(&cs, 0, sizeof(cs));
	fill_stats(&cs, 2);
	fill_stats2(&cs, 2);
	put_stats2(msg, &len, sizeof(msg), &cs, sizeof(cs));
	msg_end(msg, len, f);

	fclose(f);
	return 0;
}

static int format_args(int argc, char **argv)
{
	char err[DCB_ERRLEN], text[2048];
	struct dcb_opts o;

	if (dcb_parse_qdisc(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "format: %s\n", err);
		return 2;
	}
	dcb_format_qdisc(&o, text, sizeof(text));
	printf("%s\n", text);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--format"))
		return format_args(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "--gen-nlmsg"))
		return gen_nlmsg(argv[2], argc - 3, argv + 3, false);
	if (argc >= 3 && !strcmp(argv[1], "--gen-nlmsg-v1"))
		return gen_nlmsg(argv[2], argc - 3, argv + 3, true);

	printf("TAP version 13\n");
	test_values();
	test_valid();
	test_pfc_valid();
	test_invalid();
	test_roundtrip();
	test_decode_dump();
	test_stats();
	printf("1..%d\n", n_tests);
	printf("# %d tests, %d failed\n", n_tests, n_failed);
	return n_failed ? 1 : 0;
}
