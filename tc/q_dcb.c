// SPDX-License-Identifier: GPL-2.0
/*
 * q_dcb.c - tc plugin for the sch_dcb qdisc (loaded as $TC_LIB_DIR/q_dcb.so).
 *
 * A thin adapter: parsing, encoding, decoding and the text form live in
 * dcb_opts.c; this file moves the results in and out of tc's netlink
 * message and JSON/text printer.
 */
#include <stdio.h>
#include <string.h>

#include <linux/gen_stats.h>

#include "tc_abi.h"
#include "dcb_opts.h"

/* Upper bound handed to tc's addattr helpers; the largest dcb option set
 * is about 600 bytes, tc's request buffers are larger than this. */
#define DCB_NL_MAXLEN	2048

static void dcb_usage(void)
{
	fprintf(stderr,
"Usage: ... dcb rate RATE [overhead BYTES] [burst SIZE] [limit SIZE]\n"
"              [classify {dscp|prio}] [dscp-map {DSCP:BAND[,DSCP:BAND...]|default}]\n"
"              [ecn ECN] [pool ID] [buffer SIZE] [pfc PFC]\n"
"              [nonect NONECT] [band N [limit SIZE] [ecn BAND_ECN] [nonect NONECT]]...\n"
"       ... class change ... classid MAJ:(N+1) dcb [limit SIZE] [ecn BAND_ECN]\n"
"              [nonect NONECT]\n"
"\n"
"  ECN      := off | red kmin SIZE kmax SIZE pmax PROB | step k SIZE\n"
"              | np-ecn [k SIZE]   (np-ecn: marks with more than k behind, default 10kb)\n"
"  BAND_ECN := ECN | default\n"
"  RATE     := tc rate (50mbit, 1gbit, 1000kbit, 10MBps, ...); 0 or unlimited = no shaping\n"
"  SIZE     := bytes, or with a unit: b, k/kb (1024), m/mb (1024^2), g/gb\n"
"  PROB     := 0..1 (e.g. 0.01) or a percentage (1%%)\n"
"  NONECT   := pass | drop | default: non-ECT packets the red/step curve selects;\n"
"              default: pass on a band with PFC (lossless), drop (WRED) otherwise\n"
"  PFC      := off | [prio-pfc {LIST|all}] {xoff SIZE [xon SIZE] | beta 1..1000}\n"
"              [headroom SIZE] [quanta 1..65535] [delay TIME]\n"
"  LIST     := band numbers 0..7 separated by commas (3,6); default all\n"
"  TIME     := us, or with a unit: us, ms, s (e.g. 1ms)\n"
"  N        := band 0..7 (class MAJ:N+1); DSCP := 0..63\n"
"  ID       := shared buffer pool id, 0..4294967295 (default 0)\n"
"  Options after the first \"band\" belong to a band (limit, ecn, nonect).\n");
}

static int dcb_add_options(struct nlmsghdr *n, const struct dcb_nlbuf *b)
{
	struct rtattr *tail;

	tail = addattr_nest(n, DCB_NL_MAXLEN, TCA_OPTIONS | NLA_F_NESTED);
	if (!tail)
		return -1;
	if (b->len && addraw_l(n, DCB_NL_MAXLEN, b->data, (int)b->len) < 0)
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

/* Report a parser result: 0 to go on, -1 (after the message and the
 * usage) to stop.
 */
static int dcb_parsed(int ret, const char *err)
{
	if (ret == DCB_PARSE_OK)
		return 0;
	if (ret == DCB_PARSE_ERR)
		fprintf(stderr, "dcb: %s\n", err);
	dcb_usage();
	return -1;
}

/* Put the encoded attributes (encode_ret from dcb_encode_*) into @n. */
static int dcb_emit(int encode_ret, struct nlmsghdr *n,
		    const struct dcb_nlbuf *b)
{
	if (encode_ret || dcb_add_options(n, b)) {
		fprintf(stderr, "dcb: options do not fit in the message\n");
		return -1;
	}
	return 0;
}

static int dcb_parse_qopt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	uint8_t mem[1024];
	char err[DCB_ERRLEN];
	struct dcb_nlbuf b;
	struct dcb_opts o;

	(void)qu;
	(void)dev;
	if (dcb_parsed(dcb_parse_qdisc(argc, argv, &o, err, sizeof(err)), err))
		return -1;
	dcb_nl_init(&b, mem, sizeof(mem));
	return dcb_emit(dcb_encode_qdisc(&o, &b), n, &b);
}

static int dcb_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct dcb_band_opts band;
	char err[DCB_ERRLEN];
	struct dcb_nlbuf b;
	uint8_t mem[256];

	(void)qu;
	(void)dev;
	if (dcb_parsed(dcb_parse_class(argc, argv, &band, err, sizeof(err)), err))
		return -1;
	dcb_nl_init(&b, mem, sizeof(mem));
	return dcb_emit(dcb_encode_class(&band, &b), n, &b);
}

/* ---- printing --------------------------------------------------------- */

static void json_ecn(const char *key, const struct tc_dcb_ecn *e)
{
	open_json_object(key);
	print_color_string(PRINT_JSON, COLOR_NONE, "mode", NULL,
			   dcb_ecn_mode_name(e->mode));
	print_color_uint(PRINT_JSON, COLOR_NONE, "kmin", NULL, e->kmin);
	print_color_uint(PRINT_JSON, COLOR_NONE, "kmax", NULL, e->kmax);
	print_color_float(PRINT_JSON, COLOR_NONE, "pmax", NULL,
			  dcb_prob_to_double(e->pmax));
	close_json_object();
}

static void json_band(int index, const struct dcb_band_opts *b,
		      bool all_fields)
{
	if (index >= 0)
		print_color_uint(PRINT_JSON, COLOR_NONE, "band", NULL,
				 (unsigned int)index);
	if (b->has_limit || all_fields)
		print_color_uint(PRINT_JSON, COLOR_NONE, "limit", NULL,
				 b->has_limit ? b->limit : 0);
	if (b->ecn_state == DCB_BAND_ECN_SET)
		json_ecn("ecn", &b->ecn);
	if (b->has_nonect || all_fields)
		print_color_string(PRINT_JSON, COLOR_NONE, "nonect", NULL,
				   dcb_nonect_name(b->has_nonect ?
						   b->nonect : 0));
}

/* "pfc": {"prio_pfc": [3, 6], "xoff": .., ..., "delay_us": ..} */
static void json_pfc(const struct dcb_pfc *p)
{
	unsigned int n;
	size_t i;

	open_json_object("pfc");
	for (i = 0; i < dcb_pfc_nfields; i++) {
		const struct dcb_pfc_field *pf = &dcb_pfc_fields[i];
		uint32_t v = dcb_pfc_get(p, i);

		if (pf->kind != DCB_PFC_MASK) {
			print_color_uint(PRINT_JSON, COLOR_NONE, pf->json, NULL,
					 v);
			continue;
		}
		open_json_array(PRINT_JSON, pf->json);
		for (n = 0; n < TC_DCB_NUM_BANDS; n++)
			if (v & (1u << n))
				print_color_uint(PRINT_JSON, COLOR_NONE, NULL,
						 NULL, n);
		close_json_array(PRINT_JSON, NULL);
	}
	close_json_object();
}

static int dcb_print_qopt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	char err[DCB_ERRLEN];
	struct dcb_opts o;
	unsigned int i;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	if (dcb_decode_qdisc(RTA_DATA(opt), RTA_PAYLOAD(opt), &o, err,
			     sizeof(err))) {
		fprintf(stderr, "dcb: cannot parse qdisc options: %s\n", err);
		return -1;
	}

	if (!is_json_context()) {
		char buf[2048];

		if (dcb_format_qdisc(&o, buf, sizeof(buf))) {
			fprintf(stderr, "dcb: options too long to print\n");
			return -1;
		}
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s ", buf);
		return 0;
	}

	/* rate in bit/s, sizes in bytes */
	print_color_u64(PRINT_JSON, COLOR_NONE, "rate", NULL, o.rate * 8);
	if (o.has & DCB_HAS_OVERHEAD)
		print_color_uint(PRINT_JSON, COLOR_NONE, "overhead", NULL,
				 o.overhead);
	if (o.has & DCB_HAS_BURST)
		print_color_uint(PRINT_JSON, COLOR_NONE, "burst", NULL,
				 o.burst);
	if (o.has & DCB_HAS_LIMIT)
		print_color_uint(PRINT_JSON, COLOR_NONE, "limit", NULL,
				 o.limit);
	if (o.has & DCB_HAS_CLASSIFY)
		print_color_string(PRINT_JSON, COLOR_NONE, "classify", NULL,
				   dcb_classify_name(o.classify));
	if ((o.has & DCB_HAS_DSCP_MAP) && !dcb_dscp_map_is_default(o.dscp_map)) {
		/* index = DSCP, value = band */
		open_json_array(PRINT_JSON, "dscp_map");
		for (i = 0; i < TC_DCB_NUM_DSCP; i++)
			print_color_uint(PRINT_JSON, COLOR_NONE, NULL, NULL,
					 o.dscp_map[i]);
		close_json_array(PRINT_JSON, NULL);
	}
	if (o.has & DCB_HAS_ECN)
		json_ecn("ecn", &o.ecn);
	if (o.has & DCB_HAS_NONECT)
		print_color_string(PRINT_JSON, COLOR_NONE, "nonect", NULL,
				   dcb_nonect_name(o.nonect));
	if (o.has & DCB_HAS_POOL)
		print_color_uint(PRINT_JSON, COLOR_NONE, "pool", NULL, o.pool);
	if (o.has & DCB_HAS_BUFFER)
		print_color_uint(PRINT_JSON, COLOR_NONE, "buffer", NULL,
				 o.buffer);
	if (o.has & DCB_HAS_PFC)
		json_pfc(&o.pfc);

	open_json_array(PRINT_JSON, "bands");
	for (i = 0; i < TC_DCB_NUM_BANDS; i++) {
		if (!o.band[i].present)
			continue;
		open_json_object(NULL);
		json_band((int)i, &o.band[i], false);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	return 0;
}

static int dcb_print_copt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct dcb_band_opts b;
	char err[DCB_ERRLEN];
	int index;

	(void)qu;
	(void)f;
	if (!opt)
		return 0;
	if (dcb_decode_band(RTA_DATA(opt), RTA_PAYLOAD(opt), &b, &index, err,
			    sizeof(err))) {
		fprintf(stderr, "dcb: cannot parse class options: %s\n", err);
		return -1;
	}
	if (!is_json_context()) {
		char buf[256];

		if (dcb_format_band(&b, true, buf, sizeof(buf)))
			return -1;
		print_color_string(PRINT_FP, COLOR_NONE, NULL, "%s ", buf);
		return 0;
	}
	json_band(index, &b, true);
	return 0;
}

static void json_stats(const struct tc_dcb_stats *s)
{
	size_t i;

	for (i = 0; i < dcb_stats_nfields; i++)
		print_color_u64(PRINT_JSON, COLOR_NONE, dcb_stats_fields[i].name,
				NULL, dcb_stats_get(s, i));
}

static void json_pool(const struct tc_dcb_pool_stats *p)
{
	size_t i;

	open_json_object("pool");
	for (i = 0; i < dcb_pool_nfields; i++)
		print_color_u64(PRINT_JSON, COLOR_NONE, dcb_pool_fields[i].name,
				NULL, dcb_pool_get(p, i));
	close_json_object();
}

static int dcb_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	const void *data;
	char line[1024];
	size_t len;

	(void)qu;
	(void)f;
	if (!xstats)
		return 0;
	data = RTA_DATA(xstats);
	len = RTA_PAYLOAD(xstats);

	switch (dcb_xstats_kind(data, len)) {
	case DCB_XSTATS_QDISC: {
		struct tc_dcb_xstats x;
		unsigned int i, nb;
		char rate[32];

		/* a longer payload is a newer kernel: read what we know */
		memcpy(&x, data, sizeof(x));
		nb = x.nbands < TC_DCB_NUM_BANDS ? x.nbands : TC_DCB_NUM_BANDS;
		if (is_json_context()) {
			print_color_u64(PRINT_JSON, COLOR_NONE, "rate_in_force",
					NULL, x.rate * 8);
			json_stats(&x.total);
			json_pool(&x.pool);
			print_color_u64(PRINT_JSON, COLOR_NONE, "pfc_malformed",
					NULL, x.pfc_malformed);
			open_json_array(PRINT_JSON, "bands");
			for (i = 0; i < nb; i++) {
				open_json_object(NULL);
				print_color_uint(PRINT_JSON, COLOR_NONE, "band",
						 NULL, i);
				json_stats(&x.band[i]);
				close_json_object();
			}
			close_json_array(PRINT_JSON, NULL);
			return 0;
		}
		dcb_format_stats(&x.total, line, sizeof(line));
		print_color_string(PRINT_FP, COLOR_NONE, NULL,
				   " total: rate %s", dcb_fmt_rate(x.rate, rate,
								   sizeof(rate)));
		print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s", line);
		dcb_format_pool(&x.pool, line, sizeof(line));
		print_nl();
		print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s", line);
		if (x.pfc_malformed)
			print_color_u64(PRINT_FP, COLOR_NONE, NULL,
					" pfc_malformed %llu",
					x.pfc_malformed);
		for (i = 0; i < nb; i++) {
			if (!dcb_stats_active(&x.band[i]))
				continue;
			dcb_format_stats(&x.band[i], line, sizeof(line));
			print_nl();
			print_color_uint(PRINT_FP, COLOR_NONE, NULL,
					 "  band %u:", i);
			print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s",
					   line);
		}
		return 0;
	}
	case DCB_XSTATS_CLASS: {
		struct tc_dcb_stats s;

		memcpy(&s, data, sizeof(s));
		if (is_json_context()) {
			json_stats(&s);
			return 0;
		}
		dcb_format_stats(&s, line, sizeof(line));
		print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s", line);
		return 0;
	}
	case DCB_XSTATS_OLD:
		fprintf(stderr,
			"dcb: xstats version %u from an older sch_dcb module; this tc needs version %d\n",
			*(const uint32_t *)data, TC_DCB_XSTATS_VERSION);
		return -1;
	case DCB_XSTATS_NEW:
		fprintf(stderr,
			"dcb: xstats version %u from a newer sch_dcb module; this tc knows version %d (rebuild q_dcb.so)\n",
			*(const uint32_t *)data, TC_DCB_XSTATS_VERSION);
		return -1;
	case DCB_XSTATS_BAD:
	default:
		fprintf(stderr,
			"dcb: unexpected xstats (%zu bytes; version %d is %zu bytes for a qdisc, %zu for a class)\n",
			len, TC_DCB_XSTATS_VERSION,
			sizeof(struct tc_dcb_xstats),
			sizeof(struct tc_dcb_stats));
		return -1;
	}
}

struct qdisc_util dcb_qdisc_util = {
	.id		= "dcb",
	.parse_qopt	= dcb_parse_qopt,
	.print_qopt	= dcb_print_qopt,
	.print_xstats	= dcb_print_xstats,
	.parse_copt	= dcb_parse_copt,
	.print_copt	= dcb_print_copt,
};
