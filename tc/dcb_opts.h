/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dcb_opts: the tc-independent half of the sch_dcb tc plugin.
 *
 *   argv  --dcb_parse_qdisc()-->  struct dcb_opts  --dcb_encode_qdisc()-->
 *   netlink attributes (the payload of TCA_OPTIONS) --dcb_decode_qdisc()-->
 *   struct dcb_opts --dcb_format_qdisc()--> option text (parsable again).
 *
 * Nothing here calls into tc, so the unit tests link it directly.
 */
#ifndef DCB_OPTS_H
#define DCB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt_sched_dcb.h"

#define DCB_ERRLEN	256

/* Presence flags of struct dcb_opts::has */
#define DCB_HAS_RATE		(1u << 0)
#define DCB_HAS_OVERHEAD	(1u << 1)
#define DCB_HAS_BURST		(1u << 2)
#define DCB_HAS_LIMIT		(1u << 3)
#define DCB_HAS_CLASSIFY	(1u << 4)
#define DCB_HAS_DSCP_MAP	(1u << 5)
#define DCB_HAS_ECN		(1u << 6)

/* What a band (or a class change) says about ECN */
enum dcb_band_ecn {
	DCB_BAND_ECN_UNSET,	/* nothing sent: keep as is */
	DCB_BAND_ECN_SET,	/* TCA_DCB_BAND_ECN */
	DCB_BAND_ECN_DEFAULT,	/* TCA_DCB_BAND_ECN_DEFAULT (drop override) */
};

struct dcb_band_opts {
	bool			present;	/* band given (qdisc) / seen in dump */
	bool			has_limit;
	uint32_t		limit;		/* bytes */
	enum dcb_band_ecn	ecn_state;
	struct tc_dcb_ecn	ecn;
};

struct dcb_opts {
	uint32_t		has;		/* DCB_HAS_* */
	uint64_t		rate;		/* bytes/s, 0 = unshaped */
	uint32_t		overhead;	/* bytes */
	uint32_t		burst;		/* bytes, 0 = auto */
	uint32_t		limit;		/* bytes */
	uint8_t			classify;	/* enum tc_dcb_classify */
	uint8_t			dscp_map[TC_DCB_NUM_DSCP];
	struct tc_dcb_ecn	ecn;
	struct dcb_band_opts	band[TC_DCB_NUM_BANDS];
};

/* Return values of the parsers */
#define DCB_PARSE_OK	0
#define DCB_PARSE_ERR	(-1)	/* err holds the message */
#define DCB_PARSE_HELP	1	/* "help" was asked for */

/* --- values ------------------------------------------------------------ */

/* Rates: tc units (bit, kbit, mbit, gbit, tbit, kibit.., bps, kbps, mbps,
 * gbps, tbps, kibps.., case-insensitive; bare number = bit/s), "unlimited".
 * Result in bytes/s. */
int dcb_get_rate(const char *str, uint64_t *bytes_per_sec);
/* Sizes: tc get_size() units (b, k/kb, m/mb, g/gb = 1024^n bytes,
 * kbit/mbit/gbit = 1024^n/8 bytes; bare number = bytes). */
int dcb_get_size(const char *str, uint32_t *bytes);
/* Probability: decimal 0..1 or percentage ("1%"). TC_DCB_PROB_ONE = 1.0 */
int dcb_get_prob(const char *str, uint32_t *fixed);
/* Plain decimal unsigned number, no sign, no suffix, <= max */
int dcb_get_uint(const char *str, uint64_t max, uint64_t *val);

/* Formatters: every string they produce parses back to the same value. */
char *dcb_fmt_rate(uint64_t bytes_per_sec, char *buf, size_t len);
char *dcb_fmt_size(uint32_t bytes, char *buf, size_t len);
char *dcb_fmt_prob(uint32_t fixed, char *buf, size_t len);
double dcb_prob_to_double(uint32_t fixed);
const char *dcb_ecn_mode_name(uint32_t mode);
const char *dcb_classify_name(uint8_t classify);
uint8_t dcb_default_band(unsigned int dscp);	/* dscp >> 3 */
bool dcb_dscp_map_is_default(const uint8_t *map);

/* --- argv -> struct ----------------------------------------------------- */

void dcb_opts_init(struct dcb_opts *o);
int dcb_parse_qdisc(int argc, char **argv, struct dcb_opts *o,
		    char *err, size_t errlen);
int dcb_parse_class(int argc, char **argv, struct dcb_band_opts *b,
		    char *err, size_t errlen);

/* --- netlink attributes ------------------------------------------------- */

/* A bounded byte buffer of netlink attributes (struct nlattr layout). */
struct dcb_nlbuf {
	uint8_t		*data;
	size_t		len;
	size_t		cap;
	bool		overflow;
};

void dcb_nl_init(struct dcb_nlbuf *b, void *mem, size_t cap);
int dcb_nl_put(struct dcb_nlbuf *b, uint16_t type, const void *data,
	       size_t len);
/* Returns the offset of the nest header, to hand to dcb_nl_nest_end(). */
size_t dcb_nl_nest_start(struct dcb_nlbuf *b, uint16_t type);
void dcb_nl_nest_end(struct dcb_nlbuf *b, size_t start);

/* Build the payload of TCA_OPTIONS (the caller wraps it in the nest). */
int dcb_encode_qdisc(const struct dcb_opts *o, struct dcb_nlbuf *b);
int dcb_encode_class(const struct dcb_band_opts *band, struct dcb_nlbuf *b);

/* Parse the payload of TCA_OPTIONS. Unknown attributes are ignored. */
int dcb_decode_qdisc(const void *data, size_t len, struct dcb_opts *o,
		     char *err, size_t errlen);
/* index: TCA_DCB_BAND_INDEX if present, else -1 */
int dcb_decode_band(const void *data, size_t len, struct dcb_band_opts *b,
		    int *index, char *err, size_t errlen);

/* --- struct -> text ----------------------------------------------------- */

/* Option string, the same syntax dcb_parse_qdisc() takes. */
int dcb_format_qdisc(const struct dcb_opts *o, char *buf, size_t len);
/* Band settings: "limit SIZE ecn ..." (class change syntax); with
 * all_fields, an absent limit prints as "limit 0" and an absent override
 * as "ecn default" so that the text states the whole class config. */
int dcb_format_band(const struct dcb_band_opts *b, bool all_fields,
		    char *buf, size_t len);
int dcb_format_ecn(const struct tc_dcb_ecn *e, char *buf, size_t len);

/* --- statistics --------------------------------------------------------- */

struct dcb_stats_field {
	const char	*name;		/* JSON key */
	size_t		offset;		/* in struct tc_dcb_stats */
};
extern const struct dcb_stats_field dcb_stats_fields[];
extern const size_t dcb_stats_nfields;

enum dcb_xstats_kind {
	DCB_XSTATS_BAD,
	DCB_XSTATS_QDISC,	/* struct tc_dcb_xstats */
	DCB_XSTATS_CLASS,	/* struct tc_dcb_stats */
};
/* Which payload tc handed to print_xstats (by length and version). */
enum dcb_xstats_kind dcb_xstats_kind(const void *data, size_t len);
uint64_t dcb_stats_get(const struct tc_dcb_stats *s, size_t field);
/* One line: "enq 10p 1500b deq ... drops_wred 0" */
int dcb_format_stats(const struct tc_dcb_stats *s, char *buf, size_t len);
bool dcb_stats_active(const struct tc_dcb_stats *s);

#endif /* DCB_OPTS_H */
