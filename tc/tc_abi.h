/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_abi.h - the part of iproute2 tc's internal interface that q_dcb.so
 * uses, declared here because no iproute2 development headers exist.
 *
 * Target: iproute2 6.1 (Debian 12 /usr/sbin/tc). tc is linked with
 * -rdynamic, so the functions below resolve against the tc binary when
 * tc dlopen()s $TC_LIB_DIR/q_dcb.so and looks up "dcb_qdisc_util".
 *
 * Checked against iproute2 6.1 (tc/tc_util.h, include/json_print.h,
 * include/color.h, include/libnetlink.h) and against the binary: the
 * size of every *_qdisc_util object in /usr/sbin/tc is 0x40, i.e. the
 * eight pointer-sized members below.
 */
#ifndef DCB_TC_ABI_H
#define DCB_TC_ABI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/*
 * The plugin descriptor tc looks for. Member order is the ABI; the
 * callbacks take the descriptor itself as their first argument.
 */
struct qdisc_util {
	struct qdisc_util *next;	/* tc's list of loaded kinds */
	const char *id;			/* kind name, "dcb" */
	/* qdisc add/change/replace: append TCA_OPTIONS to n */
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	/* qdisc show: opt is the qdisc's TCA_OPTIONS */
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	/* -s: TCA_STATS_APP (or TCA_XSTATS) of a qdisc or of a class */
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	/* class add/change/replace */
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	/* class show: opt is the class's TCA_OPTIONS */
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	/* shared-block lookup, unused by dcb */
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* include/json_print.h: where a print_* call writes */
enum output_type {
	PRINT_FP = 1,		/* text output only */
	PRINT_JSON = 2,		/* JSON output only */
	PRINT_ANY = 4,		/* whichever is active */
};

/* include/color.h: only the "no colour" value is used */
enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE,
};

/* netlink message building (lib/libnetlink.c) */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
int addraw_l(struct nlmsghdr *n, int maxlen, const void *data, int len);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);

/* JSON / text output (lib/json_print.c). All of them write to stdout. */
bool is_json_context(void);
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(enum output_type type, const char *key);
void close_json_array(enum output_type type, const char *delim);
void print_nl(void);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, uint64_t value);
int print_color_float(enum output_type t, enum color_attr color,
		      const char *key, const char *fmt, double value);

#endif /* DCB_TC_ABI_H */
