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
#define DCB_HAS_POOL		(1u << 7)
#define DCB_HAS_BUFFER		(1u << 8)
#define DCB_HAS_PFC		(1u << 9)
#define DCB_HAS_NONECT		(1u << 10)

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
	bool			has_nonect;
	uint8_t			nonect;		/* enum tc_dcb_nonect */
};

/*
 * PFC of the port (TCA_DCB_PFC, sent as a whole).  prio_mask 0 = "pfc
 * off"; every other member 0 = not given = kernel default.
 */
struct dcb_pfc {
	uint8_t			prio_mask;	/* bit N: band N lossless */
	uint32_t		xoff;		/* bytes, static threshold */
	uint32_t		xon;		/* bytes */
	uint32_t		beta;		/* dynamic threshold factor */
	uint32_t		headroom;	/* bytes per (port, band) */
	uint16_t		quanta;		/* pause quanta sent */
	uint32_t		delay;		/* us */
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
	uint8_t			nonect;		/* enum tc_dcb_nonect */
	uint32_t		pool;		/* shared buffer pool id */
	uint32_t		buffer;		/* pool size, bytes, 0 = unlimited */
	struct dcb_pfc		pfc;
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
/* Times: tc get_time() units (s/sec/secs, ms/msec/msecs, us/usec/usecs,
 * case-insensitive; bare number = us).  Result in microseconds. */
int dcb_get_time(const char *str, uint32_t *usec);
/* "3,6" or "all" -> bit mask of bands; err gets the reason */
int dcb_get_band_list(const char *str, uint8_t *mask, char *err,
		      size_t errlen);

/* Formatters: every string they produce parses back to the same value. */
char *dcb_fmt_rate(uint64_t bytes_per_sec, char *buf, size_t len);
char *dcb_fmt_size(uint32_t bytes, char *buf, size_t len);
char *dcb_fmt_prob(uint32_t fixed, char *buf, size_t len);
char *dcb_fmt_time(uint32_t usec, char *buf, size_t len);
char *dcb_fmt_band_list(uint8_t mask, char *buf, size_t len);
double dcb_prob_to_double(uint32_t fixed);
const char *dcb_ecn_mode_name(uint32_t mode);
const char *dcb_classify_name(uint8_t classify);
/* "default" (AUTO), "pass", "drop" */
const char *dcb_nonect_name(uint8_t nonect);
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

/* --- PFC fields ---------------------------------------------------------- */

enum dcb_pfc_kind {
	DCB_PFC_MASK,		/* band list ("3,6" / "all") */
	DCB_PFC_SIZE,		/* bytes, dcb_get_size() */
	DCB_PFC_NUM,		/* number min..max (hex "0x.." if hex) */
	DCB_PFC_TIME,		/* microseconds, dcb_get_time() */
};

/* One member of struct dcb_pfc: keyword, attribute, JSON key, value. */
struct dcb_pfc_field {
	const char		*name;		/* keyword after "pfc" */
	const char		*json;		/* JSON key */
	uint16_t		type;		/* TCA_DCB_PFC_* */
	size_t			off, size;	/* in struct dcb_pfc */
	enum dcb_pfc_kind	kind;
	uint32_t		min, max;	/* DCB_PFC_NUM */
	bool			hex;		/* DCB_PFC_NUM: 0x.. accepted */
};
extern const struct dcb_pfc_field dcb_pfc_fields[];
extern const size_t dcb_pfc_nfields;
uint32_t dcb_pfc_get(const struct dcb_pfc *p, size_t field);

/* --- statistics --------------------------------------------------------- */

/* How the port total of a counter follows from the bands' values. */
enum dcb_stats_agg {
	DCB_AGG_PORT,		/* the port's own counter (version 1) */
	DCB_AGG_SUM,
	DCB_AGG_MAX,
};

struct dcb_stats_field {
	const char		*name;		/* JSON key */
	size_t			offset;		/* in struct tc_dcb_stats */
	unsigned int		version;	/* xstats version adding it */
	enum dcb_stats_agg	agg;
};
extern const struct dcb_stats_field dcb_stats_fields[];
extern const size_t dcb_stats_nfields;

enum dcb_xstats_kind {
	DCB_XSTATS_BAD,
	DCB_XSTATS_QDISC,	/* struct tc_dcb_xstats */
	DCB_XSTATS_CLASS,	/* struct tc_dcb_stats */
	DCB_XSTATS_OLD,		/* version 1 or 2 qdisc xstats (older module) */
	DCB_XSTATS_NEW,		/* a later version (newer module) */
};

/* Shared buffer pool statistics (struct tc_dcb_pool_stats), for JSON. */
struct dcb_pool_field {
	const char	*name;
	size_t		offset, size;	/* in struct tc_dcb_pool_stats */
};
extern const struct dcb_pool_field dcb_pool_fields[];
extern const size_t dcb_pool_nfields;
uint64_t dcb_pool_get(const struct tc_dcb_pool_stats *p, size_t field);
/* "pool 0 used 1500/1048576 peak 3000 headroom 0 drops_full 0 ports 2" */
int dcb_format_pool(const struct tc_dcb_pool_stats *p, char *buf,
		    size_t len);
/* Which payload tc handed to print_xstats (by length and version). */
enum dcb_xstats_kind dcb_xstats_kind(const void *data, size_t len);
uint64_t dcb_stats_get(const struct tc_dcb_stats *s, size_t field);
/* One line: "enq 10p 1500b deq ... drops_wred 0", then "NAME N" for each
 * version 2 counter that is not zero. */
int dcb_format_stats(const struct tc_dcb_stats *s, char *buf, size_t len);
bool dcb_stats_active(const struct tc_dcb_stats *s);
/* Totals of the version 2 counters over bands (sum, or max by agg);
 * version 1 counters of total are left alone. */
void dcb_stats_total(const struct tc_dcb_stats *band, unsigned int nbands,
		     struct tc_dcb_stats *total);

#endif /* DCB_OPTS_H */
