// SPDX-License-Identifier: GPL-2.0
/*
 * dcb_opts.c - option parsing, netlink encoding/decoding and text
 * formatting of the sch_dcb qdisc, independent of tc.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/netlink.h>

#include "dcb_opts.h"

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* numbers                                                             */
/* ------------------------------------------------------------------ */

/*
 * Split "<decimal number><suffix>": the number must start with a digit or
 * a dot (no sign, no hex, no inf/nan). Returns the suffix or NULL.
 */
static const char *split_number(const char *str, double *val)
{
	char *end;

	if (!str || !(isdigit((unsigned char)str[0]) || str[0] == '.'))
		return NULL;
	if (strchr(str, 'x') || strchr(str, 'X'))
		return NULL;
	errno = 0;
	*val = strtod(str, &end);
	if (end == str || errno == ERANGE || !isfinite(*val) || *val < 0)
		return NULL;
	return end;
}

/* Turn a computed double into an integer: forgive floating point noise
 * (0.3mbit), otherwise truncate like tc does. */
static double to_integer(double v)
{
	double r = nearbyint(v);

	if (fabs(v - r) <= 1e-9 * (v > 1 ? v : 1))
		return r;
	return floor(v);
}

int dcb_get_uint(const char *str, uint64_t max, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (!str || !isdigit((unsigned char)str[0]))
		return -1;
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*val = v;
	return 0;
}

struct unit {
	const char	*name;
	double		scale;
};

/* Rate units, in bit/s per unit (tc semantics; matched case-insensitively,
 * so "kbps" is kilo*bytes* per second as in tc). */
static const struct unit rate_units[] = {
	{ "bit",	1. },
	{ "kbit",	1e3 },
	{ "mbit",	1e6 },
	{ "gbit",	1e9 },
	{ "tbit",	1e12 },
	{ "kibit",	1024. },
	{ "mibit",	1024. * 1024. },
	{ "gibit",	1024. * 1024. * 1024. },
	{ "tibit",	1024. * 1024. * 1024. * 1024. },
	{ "bps",	8. },
	{ "kbps",	8e3 },
	{ "mbps",	8e6 },
	{ "gbps",	8e9 },
	{ "tbps",	8e12 },
	{ "kibps",	8. * 1024. },
	{ "mibps",	8. * 1024. * 1024. },
	{ "gibps",	8. * 1024. * 1024. * 1024. },
	{ "tibps",	8. * 1024. * 1024. * 1024. * 1024. },
	{ NULL,		0 },
};

/* Size units, in bytes per unit (tc get_size() semantics). */
static const struct unit size_units[] = {
	{ "b",		1. },
	{ "k",		1024. },
	{ "kb",		1024. },
	{ "m",		1024. * 1024. },
	{ "mb",		1024. * 1024. },
	{ "g",		1024. * 1024. * 1024. },
	{ "gb",		1024. * 1024. * 1024. },
	{ "kbit",	1024. / 8 },
	{ "mbit",	1024. * 1024. / 8 },
	{ "gbit",	1024. * 1024. * 1024. / 8 },
	{ NULL,		0 },
};

/* Time units, in microseconds per unit (tc get_time() semantics). */
static const struct unit time_units[] = {
	{ "s",		1e6 },
	{ "sec",	1e6 },
	{ "secs",	1e6 },
	{ "ms",		1e3 },
	{ "msec",	1e3 },
	{ "msecs",	1e3 },
	{ "us",		1. },
	{ "usec",	1. },
	{ "usecs",	1. },
	{ NULL,		0 },
};

static int unit_scale(const struct unit *u, const char *suffix, double dflt,
		      double *scale)
{
	if (!*suffix) {
		*scale = dflt;
		return 0;
	}
	for (; u->name; u++) {
		if (strcasecmp(u->name, suffix) == 0) {
			*scale = u->scale;
			return 0;
		}
	}
	return -1;
}

int dcb_get_rate(const char *str, uint64_t *bytes_per_sec)
{
	const char *suffix;
	double v, scale;

	if (str && strcmp(str, "unlimited") == 0) {
		*bytes_per_sec = 0;
		return 0;
	}
	suffix = split_number(str, &v);
	if (!suffix || unit_scale(rate_units, suffix, 1., &scale))
		return -1;
	v = to_integer(v * scale / 8.);
	/* JSON and the text form show bits/s in a u64 */
	if (v > (double)(UINT64_MAX / 8))
		return -1;
	*bytes_per_sec = (uint64_t)v;
	return 0;
}

/* "<number><unit>" to a u32 in the units' base unit */
static int get_u32_units(const char *str, const struct unit *units,
			 uint32_t *out)
{
	const char *suffix;
	double v, scale;

	suffix = split_number(str, &v);
	if (!suffix || unit_scale(units, suffix, 1., &scale))
		return -1;
	v = to_integer(v * scale);
	if (v > (double)UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int dcb_get_size(const char *str, uint32_t *bytes)
{
	return get_u32_units(str, size_units, bytes);
}

int dcb_get_time(const char *str, uint32_t *usec)
{
	return get_u32_units(str, time_units, usec);
}

int dcb_get_band_list(const char *str, uint8_t *mask, char *err,
		      size_t errlen)
{
	const char *p = str;
	uint8_t m = 0;

	if (str && strcmp(str, "all") == 0) {
		*mask = 0xff;
		return 0;
	}
	if (!str || !*str)
		goto bad;
	for (;;) {
		char num[8];
		size_t n = strcspn(p, ",");
		uint64_t band;

		if (!n || n >= sizeof(num))
			goto bad;
		memcpy(num, p, n);
		num[n] = '\0';
		if (dcb_get_uint(num, UINT64_MAX, &band))
			goto bad;
		if (band >= TC_DCB_NUM_BANDS) {
			seterr(err, errlen, "band %s out of range (0..%d) in \"%s\"",
			       num, TC_DCB_NUM_BANDS - 1, str);
			return -1;
		}
		if (m & (1u << band)) {
			seterr(err, errlen, "band %s listed twice in \"%s\"",
			       num, str);
			return -1;
		}
		m |= (uint8_t)(1u << band);
		if (!p[n])
			break;
		p += n + 1;
	}
	*mask = m;
	return 0;
bad:
	seterr(err, errlen,
	       "invalid band list \"%s\" (expected bands 0..%d separated by commas, e.g. 3,6, or all)",
	       str ? str : "", TC_DCB_NUM_BANDS - 1);
	return -1;
}

int dcb_get_prob(const char *str, uint32_t *fixed)
{
	const char *suffix;
	double v;

	suffix = split_number(str, &v);
	if (!suffix)
		return -1;
	if (strcmp(suffix, "%") == 0)
		v /= 100.;
	else if (*suffix)
		return -1;
	if (v < 0. || v > 1.)
		return -1;
	*fixed = (uint32_t)floor(v * (double)TC_DCB_PROB_ONE + 0.5);
	return 0;
}

double dcb_prob_to_double(uint32_t fixed)
{
	return (double)fixed / (double)TC_DCB_PROB_ONE;
}

char *dcb_fmt_rate(uint64_t bytes_per_sec, char *buf, size_t len)
{
	static const struct { const char *name; uint64_t div; } u[] = {
		{ "Tbit", 1000000000000ULL },
		{ "Gbit", 1000000000ULL },
		{ "Mbit", 1000000ULL },
		{ "Kbit", 1000ULL },
	};
	uint64_t bits = bytes_per_sec * 8;
	size_t i;

	if (!bytes_per_sec) {
		snprintf(buf, len, "unlimited");
		return buf;
	}
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (bits % u[i].div == 0) {
			snprintf(buf, len, "%llu%s",
				 (unsigned long long)(bits / u[i].div),
				 u[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "%llubit", (unsigned long long)bits);
	return buf;
}

char *dcb_fmt_size(uint32_t bytes, char *buf, size_t len)
{
	if (bytes == 0)
		snprintf(buf, len, "0");
	else if (bytes % (1024u * 1024u * 1024u) == 0)
		snprintf(buf, len, "%uGb", bytes / (1024u * 1024u * 1024u));
	else if (bytes % (1024u * 1024u) == 0)
		snprintf(buf, len, "%uMb", bytes / (1024u * 1024u));
	else if (bytes % 1024u == 0)
		snprintf(buf, len, "%uKb", bytes / 1024u);
	else
		snprintf(buf, len, "%ub", bytes);
	return buf;
}

char *dcb_fmt_prob(uint32_t fixed, char *buf, size_t len)
{
	double p = dcb_prob_to_double(fixed);
	uint32_t back;
	int prec;

	/* shortest decimal that parses back to the same fixed point value */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, p);
		if (dcb_get_prob(buf, &back) == 0 && back == fixed)
			return buf;
	}
	snprintf(buf, len, "%.17g", p);
	return buf;
}

char *dcb_fmt_time(uint32_t usec, char *buf, size_t len)
{
	if (usec && usec % 1000000u == 0)
		snprintf(buf, len, "%us", usec / 1000000u);
	else if (usec && usec % 1000u == 0)
		snprintf(buf, len, "%ums", usec / 1000u);
	else
		snprintf(buf, len, "%uus", usec);
	return buf;
}

char *dcb_fmt_band_list(uint8_t mask, char *buf, size_t len)
{
	const char *sep = "";
	size_t pos = 0;
	unsigned int n;

	if (len)
		buf[0] = '\0';
	if (mask == 0xff) {
		snprintf(buf, len, "all");
		return buf;
	}
	for (n = 0; n < TC_DCB_NUM_BANDS && pos < len; n++) {
		if (!(mask & (1u << n)))
			continue;
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%u", sep, n);
		sep = ",";
	}
	return buf;
}

static const char *const ecn_mode_names[] = {
	[TC_DCB_ECN_OFF]	= "off",
	[TC_DCB_ECN_RED]	= "red",
	[TC_DCB_ECN_STEP]	= "step",
	[TC_DCB_ECN_NP_ECN]	= "np-ecn",
};

const char *dcb_ecn_mode_name(uint32_t mode)
{
	if (mode < sizeof(ecn_mode_names) / sizeof(ecn_mode_names[0]))
		return ecn_mode_names[mode];
	return "unknown";
}

const char *dcb_classify_name(uint8_t classify)
{
	switch (classify) {
	case TC_DCB_CLASSIFY_DSCP:
		return "dscp";
	case TC_DCB_CLASSIFY_PRIO:
		return "prio";
	}
	return "unknown";
}

const char *dcb_nonect_name(uint8_t nonect)
{
	static const char *const names[] = { "default", "pass", "drop" };

	return nonect < __TC_DCB_NONECT_MAX ? names[nonect] : "?";
}

uint8_t dcb_default_band(unsigned int dscp)
{
	return (uint8_t)(dscp >> 3);
}

bool dcb_dscp_map_is_default(const uint8_t *map)
{
	unsigned int d;

	for (d = 0; d < TC_DCB_NUM_DSCP; d++)
		if (map[d] != dcb_default_band(d))
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* PFC fields                                                          */
/* ------------------------------------------------------------------ */

#define PFC_FIELD(kw, key, t, m, k, lo, hi, hx)				\
	{ kw, key, t, offsetof(struct dcb_pfc, m),			\
	  sizeof(((struct dcb_pfc *)0)->m), k, lo, hi, hx }
/* Order = order of the text form ("pfc prio-pfc 3 xoff 60Kb ...") */
const struct dcb_pfc_field dcb_pfc_fields[] = {
	PFC_FIELD("prio-pfc", "prio_pfc", TCA_DCB_PFC_PRIO_MASK, prio_mask,
		  DCB_PFC_MASK, 0, 0xff, false),
	PFC_FIELD("xoff", "xoff", TCA_DCB_PFC_XOFF, xoff,
		  DCB_PFC_SIZE, 1, UINT32_MAX, false),
	PFC_FIELD("xon", "xon", TCA_DCB_PFC_XON, xon,
		  DCB_PFC_SIZE, 0, UINT32_MAX, false),
	PFC_FIELD("beta", "beta", TCA_DCB_PFC_BETA, beta,
		  DCB_PFC_NUM, 1, 1000, false),
	PFC_FIELD("headroom", "headroom", TCA_DCB_PFC_HEADROOM, headroom,
		  DCB_PFC_SIZE, 0, UINT32_MAX, false),
	PFC_FIELD("quanta", "quanta", TCA_DCB_PFC_QUANTA, quanta,
		  DCB_PFC_NUM, 1, 0xffff, true),
	PFC_FIELD("delay", "delay_us", TCA_DCB_PFC_DELAY, delay,
		  DCB_PFC_TIME, 0, UINT32_MAX, false),
};
#undef PFC_FIELD
const size_t dcb_pfc_nfields =
	sizeof(dcb_pfc_fields) / sizeof(dcb_pfc_fields[0]);

/* An unsigned member of 1, 2 or 4 bytes at base + off */
static uint32_t get_member(const void *base, size_t off, size_t size)
{
	const uint8_t *p = (const uint8_t *)base + off;
	uint16_t u16;
	uint32_t u32;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&u16, p, sizeof(u16));
		return u16;
	case 4:
		memcpy(&u32, p, sizeof(u32));
		return u32;
	}
	return 0;
}

static void set_member(void *base, size_t off, size_t size, uint32_t v)
{
	uint8_t *p = (uint8_t *)base + off;
	uint16_t u16 = (uint16_t)v;

	switch (size) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2:
		memcpy(p, &u16, sizeof(u16));
		break;
	case 4:
		memcpy(p, &v, sizeof(v));
		break;
	}
}

uint32_t dcb_pfc_get(const struct dcb_pfc *p, size_t field)
{
	return get_member(p, dcb_pfc_fields[field].off,
			  dcb_pfc_fields[field].size);
}

static int pfc_field_index(const char *kw)
{
	size_t i;

	for (i = 0; kw && i < dcb_pfc_nfields; i++)
		if (strcmp(kw, dcb_pfc_fields[i].name) == 0)
			return (int)i;
	return -1;
}

/* decimal, or "0x" hex when hex; min..max */
static int get_num(const char *str, bool hex, uint32_t min, uint32_t max,
		   uint32_t *out)
{
	uint64_t v;

	if (hex && str && str[0] == '0' && (str[1] == 'x' || str[1] == 'X')) {
		char *end;

		if (!isxdigit((unsigned char)str[2]))
			return -1;
		errno = 0;
		v = strtoull(str + 2, &end, 16);
		if (errno || *end)
			return -1;
	} else if (dcb_get_uint(str, UINT64_MAX, &v)) {
		return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* argv parsing                                                        */
/* ------------------------------------------------------------------ */

void dcb_opts_init(struct dcb_opts *o)
{
	unsigned int d;

	memset(o, 0, sizeof(*o));
	for (d = 0; d < TC_DCB_NUM_DSCP; d++)
		o->dscp_map[d] = dcb_default_band(d);
}

struct cursor {
	int		argc;
	char		**argv;
	int		i;
	char		*err;
	size_t		errlen;
};

static bool more(const struct cursor *c)
{
	return c->i < c->argc;
}

static const char *peek(const struct cursor *c)
{
	return more(c) ? c->argv[c->i] : NULL;
}

/* Take the value following keyword argv[i]; moves past both. */
static const char *value_of(struct cursor *c)
{
	const char *kw = c->argv[c->i];

	if (c->i + 1 >= c->argc) {
		seterr(c->err, c->errlen, "missing value after \"%s\"", kw);
		return NULL;
	}
	c->i += 2;
	return c->argv[c->i - 1];
}

static int take_size(struct cursor *c, const char *what, uint32_t *out)
{
	const char *v = value_of(c);

	if (!v)
		return -1;
	if (dcb_get_size(v, out)) {
		seterr(c->err, c->errlen,
		       "invalid %s \"%s\" (expected a size: bytes, or with unit b, kb, mb, gb)",
		       what, v);
		return -1;
	}
	return 0;
}

static int take_uint(struct cursor *c, const char *what, const char *unit,
		     uint32_t *out)
{
	const char *v = value_of(c);
	uint64_t n;

	if (!v)
		return -1;
	if (dcb_get_uint(v, UINT32_MAX, &n)) {
		seterr(c->err, c->errlen,
		       "invalid %s \"%s\" (expected %s, 0..%u)", what, v, unit,
		       UINT32_MAX);
		return -1;
	}
	*out = (uint32_t)n;
	return 0;
}

static int dup_err(struct cursor *c, const char *what)
{
	seterr(c->err, c->errlen, "duplicate \"%s\"", what);
	return -1;
}

/* The value of PFC field f; c->i at its keyword. */
static int take_pfc_value(struct cursor *c, const struct dcb_pfc_field *f,
			  struct dcb_pfc *p)
{
	const char *v = value_of(c);
	char why[DCB_ERRLEN];
	uint32_t val = 0;
	uint8_t mask;

	if (!v)
		return -1;
	switch (f->kind) {
	case DCB_PFC_MASK:
		if (dcb_get_band_list(v, &mask, why, sizeof(why))) {
			seterr(c->err, c->errlen, "%s: %s", f->name, why);
			return -1;
		}
		val = mask;
		break;
	case DCB_PFC_SIZE:
		if (dcb_get_size(v, &val) || val < f->min) {
			seterr(c->err, c->errlen,
			       "invalid %s \"%s\" (expected a size%s: bytes, or with unit b, kb, mb, gb)",
			       f->name, v, f->min ? " above 0" : "");
			return -1;
		}
		break;
	case DCB_PFC_NUM:
		if (get_num(v, f->hex, f->min, f->max, &val)) {
			seterr(c->err, c->errlen,
			       "invalid %s \"%s\" (expected %u..%u%s)", f->name, v,
			       f->min, f->max, f->hex ? ", decimal or 0x hex" : "");
			return -1;
		}
		break;
	case DCB_PFC_TIME:
		if (dcb_get_time(v, &val)) {
			seterr(c->err, c->errlen,
			       "invalid %s \"%s\" (expected a time with unit us, ms or s, e.g. 500us, 1ms; bare number = us)",
			       f->name, v);
			return -1;
		}
		break;
	}
	set_member(p, f->off, f->size, val);
	return 0;
}

#define PFC_GIVEN(type)	(1u << (type))

/* The rules between the PFC fields given (bit mask of attribute types) */
static int check_pfc(struct cursor *c, struct dcb_pfc *p, uint32_t given)
{
	bool xoff = given & PFC_GIVEN(TCA_DCB_PFC_XOFF);
	bool beta = given & PFC_GIVEN(TCA_DCB_PFC_BETA);

	if (!(given & PFC_GIVEN(TCA_DCB_PFC_PRIO_MASK)))
		p->prio_mask = 0xff;
	if (xoff && beta) {
		seterr(c->err, c->errlen,
		       "pfc: \"xoff\" and \"beta\" are mutually exclusive (xoff for a static threshold, beta for the dynamic one)");
		return -1;
	}
	if ((given & PFC_GIVEN(TCA_DCB_PFC_XON)) && !xoff) {
		seterr(c->err, c->errlen,
		       "pfc: \"xon\" requires \"xoff\" (with beta, XON is always XOFF - 2 MTU)");
		return -1;
	}
	if (!xoff && !beta) {
		seterr(c->err, c->errlen,
		       "pfc: needs \"xoff SIZE\" (static threshold) or \"beta N\" (dynamic threshold), or use \"pfc off\"");
		return -1;
	}
	if ((given & PFC_GIVEN(TCA_DCB_PFC_XON)) && p->xon >= p->xoff) {
		seterr(c->err, c->errlen,
		       "pfc: xon (%u) must be below xoff (%u)", p->xon, p->xoff);
		return -1;
	}
	return 0;
}

/*
 * "pfc off | pfc [prio-pfc LIST] [xoff SIZE] [xon SIZE] [beta N]
 *  [headroom SIZE] [quanta N] [delay TIME]"; c->i at "pfc".
 */
static int parse_pfc(struct cursor *c, struct dcb_pfc *p)
{
	uint32_t given = 0;

	memset(p, 0, sizeof(*p));
	c->i++;
	if (peek(c) && strcmp(peek(c), "off") == 0) {
		c->i++;
		if (pfc_field_index(peek(c)) >= 0) {
			seterr(c->err, c->errlen,
			       "\"pfc off\" takes no \"%s\"", peek(c));
			return -1;
		}
		return 0;
	}
	while (more(c)) {
		int i = pfc_field_index(peek(c));
		const struct dcb_pfc_field *f;

		if (i < 0)
			break;
		f = &dcb_pfc_fields[i];
		if (given & PFC_GIVEN(f->type))
			return dup_err(c, f->name);
		if (take_pfc_value(c, f, p))
			return -1;
		given |= PFC_GIVEN(f->type);
	}
	return check_pfc(c, p, given);
}

static bool is_red_kw(const char *kw)
{
	return kw && (!strcmp(kw, "kmin") || !strcmp(kw, "kmax") ||
		      !strcmp(kw, "pmax"));
}

/*
 * "ecn off | red kmin SIZE kmax SIZE pmax PROB | step k SIZE
 *  | np-ecn [k SIZE] | default"
 * c->i is at "ecn".
 */
static int parse_ecn(struct cursor *c, bool allow_default,
		     struct tc_dcb_ecn *e, enum dcb_band_ecn *state)
{
	const char *mode = value_of(c);
	bool has_kmin = false, has_kmax = false, has_pmax = false;

	if (!mode)
		return -1;
	memset(e, 0, sizeof(*e));
	*state = DCB_BAND_ECN_SET;

	if (strcmp(mode, "off") == 0) {
		e->mode = TC_DCB_ECN_OFF;
		return 0;
	}
	if (strcmp(mode, "default") == 0) {
		if (!allow_default) {
			seterr(c->err, c->errlen,
			       "\"ecn default\" is only valid for a band or class");
			return -1;
		}
		*state = DCB_BAND_ECN_DEFAULT;
		return 0;
	}
	if (strcmp(mode, "step") == 0) {
		if (!peek(c) || strcmp(peek(c), "k") != 0) {
			seterr(c->err, c->errlen,
			       "\"ecn step\" needs \"k SIZE\"");
			return -1;
		}
		e->mode = TC_DCB_ECN_STEP;
		if (take_size(c, "k", &e->kmin))
			return -1;
		/* STEP ignores kmax/pmax; state them as "p = 1 from k on" */
		e->kmax = e->kmin;
		e->pmax = TC_DCB_PROB_ONE;
		return 0;
	}
	if (strcmp(mode, "np-ecn") == 0) {
		/* K travels as kmin; kmax and pmax stay 0 */
		e->mode = TC_DCB_ECN_NP_ECN;
		e->kmin = TC_DCB_NP_ECN_K_DEFAULT;
		if (is_red_kw(peek(c))) {
			seterr(c->err, c->errlen,
			       "\"ecn np-ecn\" takes no \"%s\" (NP-ECN has no marking curve; its threshold is \"k SIZE\")",
			       peek(c));
			return -1;
		}
		if (peek(c) && strcmp(peek(c), "k") == 0)
			return take_size(c, "k", &e->kmin);
		return 0;
	}
	if (strcmp(mode, "red") == 0) {
		e->mode = TC_DCB_ECN_RED;
	} else {
		seterr(c->err, c->errlen,
		       "unknown ecn mode \"%s\" (expected off, red, step, np-ecn%s)",
		       mode, allow_default ? " or default" : "");
		return -1;
	}

	while (is_red_kw(peek(c))) {
		const char *kw = peek(c);

		if (strcmp(kw, "kmin") == 0) {
			if (has_kmin)
				return dup_err(c, "kmin");
			if (take_size(c, "kmin", &e->kmin))
				return -1;
			has_kmin = true;
		} else if (strcmp(kw, "kmax") == 0) {
			if (has_kmax)
				return dup_err(c, "kmax");
			if (take_size(c, "kmax", &e->kmax))
				return -1;
			has_kmax = true;
		} else if (strcmp(kw, "pmax") == 0) {
			const char *v;

			if (has_pmax)
				return dup_err(c, "pmax");
			v = value_of(c);
			if (!v)
				return -1;
			if (dcb_get_prob(v, &e->pmax)) {
				seterr(c->err, c->errlen,
				       "invalid pmax \"%s\" (expected a probability 0..1, or a percentage like 1%%)",
				       v);
				return -1;
			}
			has_pmax = true;
		}
	}

	if (!(has_kmin && has_kmax && has_pmax)) {
		seterr(c->err, c->errlen,
		       "\"ecn red\" needs kmin, kmax and pmax (missing %s)",
		       !has_kmin ? "kmin" : !has_kmax ? "kmax" : "pmax");
		return -1;
	}
	if (e->kmin > e->kmax) {
		seterr(c->err, c->errlen,
		       "kmin (%u) is greater than kmax (%u)",
		       e->kmin, e->kmax);
		return -1;
	}
	if (e->kmin == e->kmax) {
		seterr(c->err, c->errlen,
		       "kmin and kmax are equal (%u): use \"ecn step k SIZE\" for a step",
		       e->kmin);
		return -1;
	}
	return 0;
}

static int parse_band_index(struct cursor *c, unsigned int *band)
{
	const char *v = value_of(c);
	uint64_t n;

	if (!v)
		return -1;
	if (dcb_get_uint(v, UINT64_MAX, &n)) {
		seterr(c->err, c->errlen, "invalid band \"%s\"", v);
		return -1;
	}
	if (n >= TC_DCB_NUM_BANDS) {
		seterr(c->err, c->errlen, "band %s out of range (0..%d)", v,
		       TC_DCB_NUM_BANDS - 1);
		return -1;
	}
	*band = (unsigned int)n;
	return 0;
}

/* "DSCP:BAND[,DSCP:BAND...]" or "default" */
static int parse_dscp_map(struct cursor *c, uint8_t *map)
{
	const char *v = value_of(c);
	bool seen[TC_DCB_NUM_DSCP] = { false };
	char *copy, *tok, *save = NULL;
	unsigned int d;
	int ret = -1;

	if (!v)
		return -1;
	for (d = 0; d < TC_DCB_NUM_DSCP; d++)
		map[d] = dcb_default_band(d);
	if (strcmp(v, "default") == 0)
		return 0;
	if (!*v || v[0] == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,")) {
		seterr(c->err, c->errlen,
		       "invalid dscp-map \"%s\" (expected DSCP:BAND[,DSCP:BAND...])",
		       v);
		return -1;
	}
	copy = strdup(v);
	if (!copy) {
		seterr(c->err, c->errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		uint64_t dscp, band;

		if (!colon) {
			seterr(c->err, c->errlen,
			       "invalid dscp-map entry \"%s\" (expected DSCP:BAND)",
			       tok);
			goto out;
		}
		*colon = '\0';
		if (dcb_get_uint(tok, UINT64_MAX, &dscp) ||
		    dcb_get_uint(colon + 1, UINT64_MAX, &band)) {
			*colon = ':';
			seterr(c->err, c->errlen,
			       "invalid dscp-map entry \"%s\" (expected DSCP:BAND)",
			       tok);
			goto out;
		}
		if (dscp >= TC_DCB_NUM_DSCP) {
			seterr(c->err, c->errlen,
			       "dscp %llu out of range (0..%d)",
			       (unsigned long long)dscp, TC_DCB_NUM_DSCP - 1);
			goto out;
		}
		if (band >= TC_DCB_NUM_BANDS) {
			seterr(c->err, c->errlen,
			       "band %llu of dscp %llu out of range (0..%d)",
			       (unsigned long long)band,
			       (unsigned long long)dscp, TC_DCB_NUM_BANDS - 1);
			goto out;
		}
		if (seen[dscp]) {
			seterr(c->err, c->errlen,
			       "dscp %llu mapped twice in dscp-map",
			       (unsigned long long)dscp);
			goto out;
		}
		seen[dscp] = true;
		map[dscp] = (uint8_t)band;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* "nonect pass|drop|default"; c->i at "nonect" */
static int parse_nonect(struct cursor *c, uint8_t *out)
{
	const char *v = value_of(c);
	uint8_t n;

	if (!v)
		return -1;
	for (n = 0; n < __TC_DCB_NONECT_MAX; n++) {
		if (strcmp(v, dcb_nonect_name(n)) == 0) {
			*out = n;
			return 0;
		}
	}
	seterr(c->err, c->errlen,
	       "invalid nonect \"%s\" (expected pass, drop or default)", v);
	return -1;
}

/* limit / ecn / nonect of one band; c->i at the keyword. 1 = not a band
 * keyword.
 */
static int parse_band_kw(struct cursor *c, struct dcb_band_opts *b,
			 const char *who)
{
	const char *kw = peek(c);

	if (strcmp(kw, "limit") == 0) {
		if (b->has_limit) {
			seterr(c->err, c->errlen, "duplicate \"limit\" for %s",
			       who);
			return -1;
		}
		if (take_size(c, "limit", &b->limit))
			return -1;
		b->has_limit = true;
		return 0;
	}
	if (strcmp(kw, "ecn") == 0) {
		if (b->ecn_state != DCB_BAND_ECN_UNSET) {
			seterr(c->err, c->errlen, "duplicate \"ecn\" for %s",
			       who);
			return -1;
		}
		return parse_ecn(c, true, &b->ecn, &b->ecn_state);
	}
	if (strcmp(kw, "nonect") == 0) {
		if (b->has_nonect) {
			seterr(c->err, c->errlen, "duplicate \"nonect\" for %s",
			       who);
			return -1;
		}
		b->has_nonect = true;
		return parse_nonect(c, &b->nonect);
	}
	return 1;
}

static bool band_empty(const struct dcb_band_opts *b)
{
	return !b->has_limit && b->ecn_state == DCB_BAND_ECN_UNSET &&
	       !b->has_nonect;
}

static bool is_help(const char *s)
{
	return strcmp(s, "help") == 0 || strcmp(s, "-h") == 0 ||
	       strcmp(s, "--help") == 0;
}

int dcb_parse_qdisc(int argc, char **argv, struct dcb_opts *o,
		    char *err, size_t errlen)
{
	struct cursor c = { argc, argv, 0, err, errlen };
	int cur_band = -1;
	char who[16];
	int i;

	dcb_opts_init(o);
	if (err && errlen)
		err[0] = '\0';
	for (i = 0; i < argc; i++)
		if (is_help(argv[i]))
			return DCB_PARSE_HELP;

	while (more(&c)) {
		const char *kw = peek(&c);
		const char *v;

		if (cur_band >= 0) {
			int r;

			snprintf(who, sizeof(who), "band %d", cur_band);
			r = parse_band_kw(&c, &o->band[cur_band], who);
			if (r <= 0) {
				if (r < 0)
					return DCB_PARSE_ERR;
				continue;
			}
		}

		if (strcmp(kw, "band") == 0) {
			unsigned int n;

			if (cur_band >= 0 && band_empty(&o->band[cur_band]))
				goto empty_band;
			if (parse_band_index(&c, &n))
				return DCB_PARSE_ERR;
			if (o->band[n].present) {
				seterr(err, errlen, "band %u given twice", n);
				return DCB_PARSE_ERR;
			}
			o->band[n].present = true;
			cur_band = (int)n;
			continue;
		}
		if (cur_band >= 0) {
			static const char *const port_kw[] = {
				"rate", "overhead", "burst", "classify",
				"dscp-map", "pool", "buffer", "pfc",
			};
			bool qdisc_kw = false;
			size_t k;

			for (k = 0; k < sizeof(port_kw) / sizeof(port_kw[0]); k++)
				qdisc_kw |= !strcmp(kw, port_kw[k]);
			if (qdisc_kw)
				seterr(err, errlen,
				       "\"%s\" must come before the first \"band\"",
				       kw);
			else
				seterr(err, errlen,
				       "unknown option \"%s\" for band %d (expected limit, ecn, nonect or band)",
				       kw, cur_band);
			return DCB_PARSE_ERR;
		}

		if (strcmp(kw, "rate") == 0) {
			if (o->has & DCB_HAS_RATE)
				return dup_err(&c, "rate");
			v = value_of(&c);
			if (!v)
				return DCB_PARSE_ERR;
			if (dcb_get_rate(v, &o->rate)) {
				seterr(err, errlen,
				       "invalid rate \"%s\" (expected e.g. 50mbit, 1gbit, 1000kbit, 10MBps, 0 or unlimited)",
				       v);
				return DCB_PARSE_ERR;
			}
			o->has |= DCB_HAS_RATE;
		} else if (strcmp(kw, "overhead") == 0) {
			if (o->has & DCB_HAS_OVERHEAD)
				return dup_err(&c, "overhead");
			if (take_uint(&c, "overhead", "bytes", &o->overhead))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_OVERHEAD;
		} else if (strcmp(kw, "pool") == 0) {
			if (o->has & DCB_HAS_POOL)
				return dup_err(&c, "pool");
			if (take_uint(&c, "pool", "a pool id", &o->pool))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_POOL;
		} else if (strcmp(kw, "buffer") == 0) {
			if (o->has & DCB_HAS_BUFFER)
				return dup_err(&c, "buffer");
			if (take_size(&c, "buffer", &o->buffer))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_BUFFER;
		} else if (strcmp(kw, "pfc") == 0) {
			if (o->has & DCB_HAS_PFC)
				return dup_err(&c, "pfc");
			if (parse_pfc(&c, &o->pfc))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_PFC;
		} else if (strcmp(kw, "burst") == 0) {
			if (o->has & DCB_HAS_BURST)
				return dup_err(&c, "burst");
			if (take_size(&c, "burst", &o->burst))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_BURST;
		} else if (strcmp(kw, "limit") == 0) {
			if (o->has & DCB_HAS_LIMIT)
				return dup_err(&c, "limit");
			if (take_size(&c, "limit", &o->limit))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_LIMIT;
		} else if (strcmp(kw, "classify") == 0) {
			if (o->has & DCB_HAS_CLASSIFY)
				return dup_err(&c, "classify");
			v = value_of(&c);
			if (!v)
				return DCB_PARSE_ERR;
			if (strcmp(v, "dscp") == 0)
				o->classify = TC_DCB_CLASSIFY_DSCP;
			else if (strcmp(v, "prio") == 0)
				o->classify = TC_DCB_CLASSIFY_PRIO;
			else {
				seterr(err, errlen,
				       "invalid classify \"%s\" (expected dscp or prio)",
				       v);
				return DCB_PARSE_ERR;
			}
			o->has |= DCB_HAS_CLASSIFY;
		} else if (strcmp(kw, "dscp-map") == 0) {
			if (o->has & DCB_HAS_DSCP_MAP)
				return dup_err(&c, "dscp-map");
			if (parse_dscp_map(&c, o->dscp_map))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_DSCP_MAP;
		} else if (strcmp(kw, "ecn") == 0) {
			enum dcb_band_ecn st;

			if (o->has & DCB_HAS_ECN)
				return dup_err(&c, "ecn");
			if (parse_ecn(&c, false, &o->ecn, &st))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_ECN;
		} else if (strcmp(kw, "nonect") == 0) {
			if (o->has & DCB_HAS_NONECT)
				return dup_err(&c, "nonect");
			if (parse_nonect(&c, &o->nonect))
				return DCB_PARSE_ERR;
			o->has |= DCB_HAS_NONECT;
		} else {
			seterr(err, errlen, "unknown option \"%s\"", kw);
			return DCB_PARSE_ERR;
		}
	}

	if (cur_band >= 0 && band_empty(&o->band[cur_band]))
		goto empty_band;
	if (!(o->has & DCB_HAS_RATE)) {
		seterr(err, errlen,
		       "rate is required (use \"rate 0\" or \"rate unlimited\" for no shaping)");
		return DCB_PARSE_ERR;
	}
	return DCB_PARSE_OK;

empty_band:
	seterr(err, errlen,
	       "band %d: nothing to set (expected limit, ecn or nonect)",
	       cur_band);
	return DCB_PARSE_ERR;
}

int dcb_parse_class(int argc, char **argv, struct dcb_band_opts *b,
		    char *err, size_t errlen)
{
	struct cursor c = { argc, argv, 0, err, errlen };
	int i;

	memset(b, 0, sizeof(*b));
	b->present = true;
	if (err && errlen)
		err[0] = '\0';
	for (i = 0; i < argc; i++)
		if (is_help(argv[i]))
			return DCB_PARSE_HELP;

	while (more(&c)) {
		int r = parse_band_kw(&c, b, "the class");

		if (r < 0)
			return DCB_PARSE_ERR;
		if (r > 0) {
			seterr(err, errlen,
			       "unknown class option \"%s\" (expected limit, ecn or nonect)",
			       peek(&c));
			return DCB_PARSE_ERR;
		}
	}
	return DCB_PARSE_OK;
}

/* ------------------------------------------------------------------ */
/* netlink attribute buffer                                            */
/* ------------------------------------------------------------------ */

void dcb_nl_init(struct dcb_nlbuf *b, void *mem, size_t cap)
{
	b->data = mem;
	b->len = 0;
	b->cap = cap;
	b->overflow = false;
}

int dcb_nl_put(struct dcb_nlbuf *b, uint16_t type, const void *data,
	       size_t len)
{
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);
	struct nlattr nla;

	if (b->overflow || NLA_HDRLEN + len > 0xffff ||
	    b->len + total > b->cap) {
		b->overflow = true;
		return -1;
	}
	nla.nla_len = (uint16_t)(NLA_HDRLEN + len);
	nla.nla_type = type;
	memcpy(b->data + b->len, &nla, sizeof(nla));
	if (len)
		memcpy(b->data + b->len + NLA_HDRLEN, data, len);
	memset(b->data + b->len + NLA_HDRLEN + len, 0,
	       total - NLA_HDRLEN - len);
	b->len += total;
	return 0;
}

size_t dcb_nl_nest_start(struct dcb_nlbuf *b, uint16_t type)
{
	size_t start = b->len;

	dcb_nl_put(b, type | NLA_F_NESTED, NULL, 0);
	return start;
}

void dcb_nl_nest_end(struct dcb_nlbuf *b, size_t start)
{
	struct nlattr nla;

	if (b->overflow || b->len - start > 0xffff) {
		b->overflow = true;
		return;
	}
	memcpy(&nla, b->data + start, sizeof(nla));
	nla.nla_len = (uint16_t)(b->len - start);
	memcpy(b->data + start, &nla, sizeof(nla));
}

/* Fixed-size qdisc attributes: where each goes and which DCB_HAS_ flag
 * says it was present (sent when present, or always).
 */
struct dcb_field {
	int		type;
	size_t		off, size;
	const char	*name;
	uint32_t	has;
	bool		always;
};

#define DCB_FIELD(t, m, n, h, a) \
	{ t, offsetof(struct dcb_opts, m), sizeof(((struct dcb_opts *)0)->m), \
	  n, h, a }
static const struct dcb_field qdisc_fields[] = {
	/* the rate is mandatory on input, so always sent */
	DCB_FIELD(TCA_DCB_RATE64, rate, "rate", DCB_HAS_RATE, true),
	DCB_FIELD(TCA_DCB_OVERHEAD, overhead, "overhead", DCB_HAS_OVERHEAD,
		  false),
	DCB_FIELD(TCA_DCB_BURST, burst, "burst", DCB_HAS_BURST, false),
	DCB_FIELD(TCA_DCB_LIMIT, limit, "limit", DCB_HAS_LIMIT, false),
	DCB_FIELD(TCA_DCB_CLASSIFY, classify, "classify", DCB_HAS_CLASSIFY,
		  false),
	DCB_FIELD(TCA_DCB_DSCP_MAP, dscp_map, "dscp-map", DCB_HAS_DSCP_MAP,
		  false),
	DCB_FIELD(TCA_DCB_ECN, ecn, "ecn", DCB_HAS_ECN, false),
	DCB_FIELD(TCA_DCB_POOL, pool, "pool", DCB_HAS_POOL, false),
	DCB_FIELD(TCA_DCB_BUFFER, buffer, "buffer", DCB_HAS_BUFFER, false),
	DCB_FIELD(TCA_DCB_NONECT, nonect, "nonect", DCB_HAS_NONECT, false),
};
#undef DCB_FIELD
#define NQDISC_FIELDS (sizeof(qdisc_fields) / sizeof(qdisc_fields[0]))

static void put_band_attrs(const struct dcb_band_opts *band,
			   struct dcb_nlbuf *b)
{
	if (band->has_limit)
		dcb_nl_put(b, TCA_DCB_BAND_LIMIT, &band->limit,
			   sizeof(band->limit));
	if (band->ecn_state == DCB_BAND_ECN_SET)
		dcb_nl_put(b, TCA_DCB_BAND_ECN, &band->ecn, sizeof(band->ecn));
	else if (band->ecn_state == DCB_BAND_ECN_DEFAULT)
		dcb_nl_put(b, TCA_DCB_BAND_ECN_DEFAULT, NULL, 0);
	if (band->has_nonect)
		dcb_nl_put(b, TCA_DCB_BAND_NONECT, &band->nonect,
			   sizeof(band->nonect));
}

int dcb_encode_qdisc(const struct dcb_opts *o, struct dcb_nlbuf *b)
{
	bool any_band = false;
	unsigned int n;
	size_t i;

	for (i = 0; i < NQDISC_FIELDS; i++) {
		const struct dcb_field *f = &qdisc_fields[i];

		if (f->always || (o->has & f->has))
			dcb_nl_put(b, (uint16_t)f->type,
				   (const char *)o + f->off, f->size);
	}
	/* PFC is replaced as a whole: every member, 0 = kernel default */
	if (o->has & DCB_HAS_PFC) {
		size_t nest = dcb_nl_nest_start(b, TCA_DCB_PFC);

		for (i = 0; i < dcb_pfc_nfields; i++) {
			const struct dcb_pfc_field *f = &dcb_pfc_fields[i];

			dcb_nl_put(b, f->type, (const char *)&o->pfc + f->off,
				   f->size);
		}
		dcb_nl_nest_end(b, nest);
	}

	for (n = 0; n < TC_DCB_NUM_BANDS; n++)
		any_band |= o->band[n].present;
	if (any_band) {
		size_t bands = dcb_nl_nest_start(b, TCA_DCB_BANDS);

		for (n = 0; n < TC_DCB_NUM_BANDS; n++) {
			const struct dcb_band_opts *band = &o->band[n];
			uint8_t idx = (uint8_t)n;
			size_t nest;

			if (!band->present)
				continue;
			nest = dcb_nl_nest_start(b, TCA_DCB_BAND);
			dcb_nl_put(b, TCA_DCB_BAND_INDEX, &idx, sizeof(idx));
			put_band_attrs(band, b);
			dcb_nl_nest_end(b, nest);
		}
		dcb_nl_nest_end(b, bands);
	}
	return b->overflow ? -1 : 0;
}

int dcb_encode_class(const struct dcb_band_opts *band, struct dcb_nlbuf *b)
{
	put_band_attrs(band, b);
	return b->overflow ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* decoding                                                            */
/* ------------------------------------------------------------------ */

/* Walk attributes: fills tb[type] with the last one seen of each type. */
static int parse_attrs(const void *data, size_t len, const struct nlattr **tb,
		       unsigned int max, char *err, size_t errlen)
{
	const uint8_t *p = data;
	size_t off = 0;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (off + NLA_HDRLEN <= len) {
		struct nlattr nla;
		unsigned int type;

		memcpy(&nla, p + off, sizeof(nla));
		if (nla.nla_len < NLA_HDRLEN || off + nla.nla_len > len) {
			seterr(err, errlen,
			       "malformed attribute at offset %zu", off);
			return -1;
		}
		type = nla.nla_type & NLA_TYPE_MASK;
		if (type <= max)
			tb[type] = (const struct nlattr *)(p + off);
		off += NLA_ALIGN(nla.nla_len);
	}
	return 0;
}

static size_t alen(const struct nlattr *a)
{
	uint16_t l;

	memcpy(&l, &a->nla_len, sizeof(l));
	return l - NLA_HDRLEN;
}

static const void *adata(const struct nlattr *a)
{
	return (const uint8_t *)a + NLA_HDRLEN;
}

/* copy exactly, or the known prefix of a longer (newer) payload */
static int get_fixed(const struct nlattr *a, void *out, size_t size,
		     const char *what, char *err, size_t errlen)
{
	if (alen(a) < size) {
		seterr(err, errlen, "attribute %s too short (%zu < %zu bytes)",
		       what, alen(a), size);
		return -1;
	}
	memcpy(out, adata(a), size);
	return 0;
}

static int decode_ecn(const struct nlattr *a, struct tc_dcb_ecn *e,
		      char *err, size_t errlen)
{
	return get_fixed(a, e, sizeof(*e), "ecn", err, errlen);
}

int dcb_decode_band(const void *data, size_t len, struct dcb_band_opts *b,
		    int *index, char *err, size_t errlen)
{
	const struct nlattr *tb[TCA_DCB_BAND_MAX + 1];

	memset(b, 0, sizeof(*b));
	b->present = true;
	*index = -1;
	if (parse_attrs(data, len, tb, TCA_DCB_BAND_MAX, err, errlen))
		return -1;
	if (tb[TCA_DCB_BAND_INDEX]) {
		uint8_t idx;

		if (get_fixed(tb[TCA_DCB_BAND_INDEX], &idx, sizeof(idx),
			      "band index", err, errlen))
			return -1;
		*index = idx;
	}
	if (tb[TCA_DCB_BAND_LIMIT]) {
		if (get_fixed(tb[TCA_DCB_BAND_LIMIT], &b->limit,
			      sizeof(b->limit), "band limit", err, errlen))
			return -1;
		b->has_limit = true;
	}
	if (tb[TCA_DCB_BAND_ECN]) {
		if (decode_ecn(tb[TCA_DCB_BAND_ECN], &b->ecn, err, errlen))
			return -1;
		b->ecn_state = DCB_BAND_ECN_SET;
	} else if (tb[TCA_DCB_BAND_ECN_DEFAULT]) {
		b->ecn_state = DCB_BAND_ECN_DEFAULT;
	}
	if (tb[TCA_DCB_BAND_NONECT]) {
		if (get_fixed(tb[TCA_DCB_BAND_NONECT], &b->nonect,
			      sizeof(b->nonect), "band nonect", err, errlen))
			return -1;
		b->has_nonect = true;
	}
	return 0;
}

/* TCA_DCB_PFC: absent members are 0 (kernel default) */
static int decode_pfc(const struct nlattr *nest, struct dcb_pfc *p,
		      char *err, size_t errlen)
{
	const struct nlattr *tb[TCA_DCB_PFC_MAX + 1];
	size_t i;

	memset(p, 0, sizeof(*p));
	if (parse_attrs(adata(nest), alen(nest), tb, TCA_DCB_PFC_MAX, err,
			errlen))
		return -1;
	for (i = 0; i < dcb_pfc_nfields; i++) {
		const struct dcb_pfc_field *f = &dcb_pfc_fields[i];

		if (tb[f->type] &&
		    get_fixed(tb[f->type], (char *)p + f->off, f->size, f->name,
			      err, errlen))
			return -1;
	}
	return 0;
}

int dcb_decode_qdisc(const void *data, size_t len, struct dcb_opts *o,
		     char *err, size_t errlen)
{
	const struct nlattr *tb[TCA_DCB_MAX + 1];
	size_t i;

	dcb_opts_init(o);
	if (parse_attrs(data, len, tb, TCA_DCB_MAX, err, errlen))
		return -1;

	for (i = 0; i < NQDISC_FIELDS; i++) {
		const struct dcb_field *f = &qdisc_fields[i];

		if (!tb[f->type])
			continue;
		if (get_fixed(tb[f->type], (char *)o + f->off, f->size,
			      f->name, err, errlen))
			return -1;
		o->has |= f->has;
	}
	if (tb[TCA_DCB_PFC]) {
		if (decode_pfc(tb[TCA_DCB_PFC], &o->pfc, err, errlen))
			return -1;
		o->has |= DCB_HAS_PFC;
	}
	if (tb[TCA_DCB_BANDS]) {
		const uint8_t *p = adata(tb[TCA_DCB_BANDS]);
		size_t l = alen(tb[TCA_DCB_BANDS]), off = 0;

		while (off + NLA_HDRLEN <= l) {
			const struct nlattr *a = (const void *)(p + off);
			struct dcb_band_opts band;
			struct nlattr nla;
			int idx;

			memcpy(&nla, a, sizeof(nla));
			if (nla.nla_len < NLA_HDRLEN || off + nla.nla_len > l) {
				seterr(err, errlen, "malformed band list");
				return -1;
			}
			off += NLA_ALIGN(nla.nla_len);
			if ((nla.nla_type & NLA_TYPE_MASK) != TCA_DCB_BAND)
				continue;
			if (dcb_decode_band(adata(a), alen(a), &band, &idx,
					    err, errlen))
				return -1;
			if (idx < 0 || idx >= TC_DCB_NUM_BANDS) {
				seterr(err, errlen,
				       "band entry without a valid index (%d)",
				       idx);
				return -1;
			}
			o->band[idx] = band;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* text                                                                */
/* ------------------------------------------------------------------ */

struct sbuf {
	char	*p;
	size_t	len;
	size_t	pos;
	bool	trunc;
};

static void sb_add(struct sbuf *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->trunc)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->p + s->pos, s->len - s->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= s->len - s->pos) {
		s->trunc = true;
		return;
	}
	s->pos += (size_t)n;
}

static void sb_init(struct sbuf *s, char *buf, size_t len)
{
	s->p = buf;
	s->len = len;
	s->pos = 0;
	s->trunc = !len;
	if (len)
		buf[0] = '\0';
}

/* Separator: a space before every item but the first */
#define SEP(s) ((s)->pos ? " " : "")

static void sb_ecn(struct sbuf *s, const struct tc_dcb_ecn *e)
{
	char a[32], b[32], c[32];

	switch (e->mode) {
	case TC_DCB_ECN_OFF:
		sb_add(s, "%secn off", SEP(s));
		break;
	case TC_DCB_ECN_STEP:
		sb_add(s, "%secn step k %s", SEP(s),
		       dcb_fmt_size(e->kmin, a, sizeof(a)));
		break;
	case TC_DCB_ECN_NP_ECN:
		/* K is kmin; kmax and pmax are 0 */
		sb_add(s, "%secn np-ecn k %s", SEP(s),
		       dcb_fmt_size(e->kmin, a, sizeof(a)));
		break;
	case TC_DCB_ECN_RED:
	default:
		sb_add(s, "%secn %s kmin %s kmax %s pmax %s", SEP(s),
		       dcb_ecn_mode_name(e->mode),
		       dcb_fmt_size(e->kmin, a, sizeof(a)),
		       dcb_fmt_size(e->kmax, b, sizeof(b)),
		       dcb_fmt_prob(e->pmax, c, sizeof(c)));
		break;
	}
}

int dcb_format_ecn(const struct tc_dcb_ecn *e, char *buf, size_t len)
{
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_ecn(&s, e);
	return s.trunc ? -1 : 0;
}

static void sb_band(struct sbuf *s, const struct dcb_band_opts *b,
		    bool all_fields)
{
	char a[32];

	if (b->has_limit || all_fields)
		sb_add(s, "%slimit %s", SEP(s),
		       dcb_fmt_size(b->has_limit ? b->limit : 0, a, sizeof(a)));
	if (b->ecn_state == DCB_BAND_ECN_SET)
		sb_ecn(s, &b->ecn);
	else if (b->ecn_state == DCB_BAND_ECN_DEFAULT || all_fields)
		sb_add(s, "%secn default", SEP(s));
	if (b->has_nonect || all_fields)
		sb_add(s, "%snonect %s", SEP(s),
		       dcb_nonect_name(b->has_nonect ? b->nonect : 0));
}

int dcb_format_band(const struct dcb_band_opts *b, bool all_fields,
		    char *buf, size_t len)
{
	struct sbuf s;

	sb_init(&s, buf, len);
	sb_band(&s, b, all_fields);
	return s.trunc ? -1 : 0;
}

/* "pfc prio-pfc LIST ..." with the members that are set; xoff/xon only
 * for a static threshold (beta 0), as the parser wants them. */
static void sb_pfc(struct sbuf *s, const struct dcb_pfc *p)
{
	size_t i;

	sb_add(s, "%spfc", SEP(s));
	for (i = 0; i < dcb_pfc_nfields; i++) {
		const struct dcb_pfc_field *f = &dcb_pfc_fields[i];
		uint32_t v = dcb_pfc_get(p, i);
		char a[32];

		if (!v || (p->beta && (f->type == TCA_DCB_PFC_XOFF ||
				       f->type == TCA_DCB_PFC_XON)))
			continue;
		switch (f->kind) {
		case DCB_PFC_MASK:
			dcb_fmt_band_list((uint8_t)v, a, sizeof(a));
			break;
		case DCB_PFC_SIZE:
			dcb_fmt_size(v, a, sizeof(a));
			break;
		case DCB_PFC_NUM:
			snprintf(a, sizeof(a), "%u", v);
			break;
		case DCB_PFC_TIME:
			dcb_fmt_time(v, a, sizeof(a));
			break;
		}
		sb_add(s, " %s %s", f->name, a);
	}
}

int dcb_format_qdisc(const struct dcb_opts *o, char *buf, size_t len)
{
	struct sbuf s;
	unsigned int n;
	char a[32];

	sb_init(&s, buf, len);
	/* rate is mandatory on input, so always print it */
	sb_add(&s, "rate %s", dcb_fmt_rate(o->rate, a, sizeof(a)));
	if (o->has & DCB_HAS_OVERHEAD)
		sb_add(&s, " overhead %u", o->overhead);
	if (o->has & DCB_HAS_BURST)
		sb_add(&s, " burst %s", dcb_fmt_size(o->burst, a, sizeof(a)));
	if (o->has & DCB_HAS_LIMIT)
		sb_add(&s, " limit %s", dcb_fmt_size(o->limit, a, sizeof(a)));
	if (o->has & DCB_HAS_CLASSIFY)
		sb_add(&s, " classify %s", dcb_classify_name(o->classify));
	if ((o->has & DCB_HAS_DSCP_MAP) &&
	    !dcb_dscp_map_is_default(o->dscp_map)) {
		const char *sep = " dscp-map ";

		for (n = 0; n < TC_DCB_NUM_DSCP; n++) {
			if (o->dscp_map[n] == dcb_default_band(n))
				continue;
			sb_add(&s, "%s%u:%u", sep, n, o->dscp_map[n]);
			sep = ",";
		}
	}
	if (o->has & DCB_HAS_ECN)
		sb_ecn(&s, &o->ecn);
	if ((o->has & DCB_HAS_NONECT) && o->nonect)
		sb_add(&s, " nonect %s", dcb_nonect_name(o->nonect));
	if (o->has & DCB_HAS_POOL)
		sb_add(&s, " pool %u", o->pool);
	if ((o->has & DCB_HAS_BUFFER) && o->buffer)
		sb_add(&s, " buffer %s", dcb_fmt_size(o->buffer, a, sizeof(a)));
	if ((o->has & DCB_HAS_PFC) && o->pfc.prio_mask)
		sb_pfc(&s, &o->pfc);
	for (n = 0; n < TC_DCB_NUM_BANDS; n++) {
		const struct dcb_band_opts *b = &o->band[n];

		if (!b->present || band_empty(b))
			continue;
		sb_add(&s, " band %u", n);
		sb_band(&s, b, false);
	}
	return s.trunc ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* statistics                                                          */
/* ------------------------------------------------------------------ */

#define FIELD(name) \
	{ #name, offsetof(struct tc_dcb_stats, name), 1, DCB_AGG_PORT }
#define FIELD2(name, agg) \
	{ #name, offsetof(struct tc_dcb_stats, name), 2, agg }
#define FIELD3(name, agg) \
	{ #name, offsetof(struct tc_dcb_stats, name), 3, agg }
const struct dcb_stats_field dcb_stats_fields[] = {
	FIELD(enq_packets),
	FIELD(enq_bytes),
	FIELD(deq_packets),
	FIELD(deq_bytes),
	FIELD(backlog_bytes),
	FIELD(backlog_packets),
	FIELD(backlog_peak),
	FIELD(ecn_marked),
	FIELD(drops_tail),
	FIELD(drops_wred),
	FIELD2(drops_headroom, DCB_AGG_SUM),
	FIELD2(pause_tx, DCB_AGG_SUM),
	FIELD2(resume_tx, DCB_AGG_SUM),
	FIELD2(pause_rx, DCB_AGG_SUM),
	FIELD2(resume_rx, DCB_AGG_SUM),
	FIELD2(paused_us, DCB_AGG_SUM),
	FIELD2(in_bytes, DCB_AGG_SUM),
	FIELD2(in_peak, DCB_AGG_MAX),
	FIELD2(in_headroom, DCB_AGG_SUM),
	FIELD2(in_drops, DCB_AGG_SUM),
	FIELD2(xoff, DCB_AGG_MAX),
	FIELD2(np_unmarked, DCB_AGG_SUM),
	FIELD3(nonect_passed, DCB_AGG_SUM),
	FIELD3(pause_inflight_peak, DCB_AGG_MAX),
	FIELD3(pause_react_us, DCB_AGG_MAX),
};
#undef FIELD
#undef FIELD2
#undef FIELD3
const size_t dcb_stats_nfields =
	sizeof(dcb_stats_fields) / sizeof(dcb_stats_fields[0]);

#define PFIELD(name) \
	{ #name, offsetof(struct tc_dcb_pool_stats, name), \
	  sizeof(((struct tc_dcb_pool_stats *)0)->name) }
const struct dcb_pool_field dcb_pool_fields[] = {
	PFIELD(id),
	PFIELD(ports),
	PFIELD(size),
	PFIELD(reserved),
	PFIELD(used),
	PFIELD(peak),
	PFIELD(headroom_used),
	PFIELD(drops_full),
};
#undef PFIELD
const size_t dcb_pool_nfields =
	sizeof(dcb_pool_fields) / sizeof(dcb_pool_fields[0]);

/* Version 1 layout: struct tc_dcb_stats ended at drops_headroom. */
#define DCB_STATS_V1_LEN	offsetof(struct tc_dcb_stats, drops_headroom)
#define DCB_XSTATS_V1_LEN	(offsetof(struct tc_dcb_xstats, total) + \
				 (TC_DCB_NUM_BANDS + 1) * DCB_STATS_V1_LEN)
/* Version 2 layout: struct tc_dcb_stats ended at np_unmarked. */
#define DCB_STATS_V2_LEN	offsetof(struct tc_dcb_stats, nonect_passed)
#define DCB_XSTATS_V2_LEN	(offsetof(struct tc_dcb_xstats, total) + \
				 (TC_DCB_NUM_BANDS + 1) * DCB_STATS_V2_LEN + \
				 sizeof(struct tc_dcb_pool_stats) + \
				 sizeof(uint64_t))

enum dcb_xstats_kind dcb_xstats_kind(const void *data, size_t len)
{
	struct tc_dcb_xstats x;

	if (len >= offsetof(struct tc_dcb_xstats, total)) {
		memcpy(&x, data, sizeof(x.version) + sizeof(x.nbands));
		/* the qdisc's: this version, at least as long */
		if (len >= sizeof(x) && x.version == TC_DCB_XSTATS_VERSION &&
		    x.nbands >= 1 && x.nbands <= 64)
			return DCB_XSTATS_QDISC;
		/* a later version may lay band[] out anew (it grew in 3) */
		if (len >= sizeof(x) && x.version > TC_DCB_XSTATS_VERSION)
			return DCB_XSTATS_NEW;
		if (len == DCB_XSTATS_V1_LEN && x.version == 1 &&
		    x.nbands == TC_DCB_NUM_BANDS)
			return DCB_XSTATS_OLD;
		if (len == DCB_XSTATS_V2_LEN && x.version == 2 &&
		    x.nbands == TC_DCB_NUM_BANDS)
			return DCB_XSTATS_OLD;
	}
	/* a class's TCA_STATS_APP is one struct tc_dcb_stats (or longer) */
	if (len >= sizeof(struct tc_dcb_stats) && len < sizeof(x))
		return DCB_XSTATS_CLASS;
	return DCB_XSTATS_BAD;
}

uint64_t dcb_stats_get(const struct tc_dcb_stats *s, size_t field)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)s + dcb_stats_fields[field].offset,
	       sizeof(v));
	return v;
}

static void stats_set(struct tc_dcb_stats *s, size_t field, uint64_t v)
{
	memcpy((uint8_t *)s + dcb_stats_fields[field].offset, &v, sizeof(v));
}

uint64_t dcb_pool_get(const struct tc_dcb_pool_stats *p, size_t field)
{
	const struct dcb_pool_field *f = &dcb_pool_fields[field];
	uint32_t u32;
	uint64_t v;

	if (f->size == sizeof(u32)) {
		memcpy(&u32, (const uint8_t *)p + f->offset, sizeof(u32));
		return u32;
	}
	memcpy(&v, (const uint8_t *)p + f->offset, sizeof(v));
	return v;
}

/* Something happened in the band: any counter but xoff (a setting in
 * force on every lossless band, traffic or not) */
bool dcb_stats_active(const struct tc_dcb_stats *s)
{
	size_t i;

	for (i = 0; i < dcb_stats_nfields; i++)
		if (dcb_stats_fields[i].offset !=
		    offsetof(struct tc_dcb_stats, xoff) && dcb_stats_get(s, i))
			return true;
	return false;
}

void dcb_stats_total(const struct tc_dcb_stats *band, unsigned int nbands,
		     struct tc_dcb_stats *total)
{
	unsigned int b;
	size_t i;

	for (i = 0; i < dcb_stats_nfields; i++) {
		enum dcb_stats_agg agg = dcb_stats_fields[i].agg;
		uint64_t t = 0;

		if (agg == DCB_AGG_PORT)
			continue;
		for (b = 0; b < nbands; b++) {
			uint64_t v = dcb_stats_get(&band[b], i);

			t = agg == DCB_AGG_MAX ? (v > t ? v : t) : t + v;
		}
		stats_set(total, i, t);
	}
}

int dcb_format_stats(const struct tc_dcb_stats *s, char *buf, size_t len)
{
	struct sbuf sb;
	size_t i;

	sb_init(&sb, buf, len);
	sb_add(&sb, "enq %llup %llub deq %llup %llub backlog %llup %llub peak %llub ecn_marked %llu drops_tail %llu drops_wred %llu",
	       (unsigned long long)s->enq_packets,
	       (unsigned long long)s->enq_bytes,
	       (unsigned long long)s->deq_packets,
	       (unsigned long long)s->deq_bytes,
	       (unsigned long long)s->backlog_packets,
	       (unsigned long long)s->backlog_bytes,
	       (unsigned long long)s->backlog_peak,
	       (unsigned long long)s->ecn_marked,
	       (unsigned long long)s->drops_tail,
	       (unsigned long long)s->drops_wred);
	/* the PFC / pool counters only where they say something */
	for (i = 0; i < dcb_stats_nfields; i++) {
		uint64_t v = dcb_stats_get(s, i);

		if (dcb_stats_fields[i].version >= 2 && v)
			sb_add(&sb, " %s %llu", dcb_stats_fields[i].name,
			       (unsigned long long)v);
	}
	return sb.trunc ? -1 : 0;
}

int dcb_format_pool(const struct tc_dcb_pool_stats *p, char *buf,
		    size_t len)
{
	struct sbuf sb;

	sb_init(&sb, buf, len);
	sb_add(&sb, "pool %u used %llu/%llu peak %llu headroom %llu drops_full %llu ports %u",
	       p->id, (unsigned long long)p->used,
	       (unsigned long long)p->size, (unsigned long long)p->peak,
	       (unsigned long long)p->headroom_used,
	       (unsigned long long)p->drops_full, p->ports);
	return sb.trunc ? -1 : 0;
}
