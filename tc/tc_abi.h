/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_abi.h - the part of iproute2 tc's internal interface that q_dcb.so
 * uses, declared here because Debian ships no iproute2 headers.
 *
 * tc is linked with -export-dynamic: the functions below resolve against
 * the tc binary when it dlopen()s q_dcb.so and looks up dcb_qdisc_util.
 * Signatures as in iproute2 6.1 (include/utils.h, json_print.h,
 * libnetlink.h, tc/tc_util.h), the tc of Debian 12; unchanged since.
 */
#ifndef DCB_TC_ABI_H
#define DCB_TC_ABI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* The plugin descriptor; member order is the ABI. */
struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* include/utils.h */
#define SPRINT_BSIZE	64
#define NEXT_ARG() do { argv++; if (--argc <= 0) incomplete_command(); } while (0)
#define NEXT_ARG_OK() (argc - 1 > 0)
#define PREV_ARG() do { argv--; argc++; } while (0)

void incomplete_command(void) __attribute__((noreturn));
void invarg(const char *msg, const char *arg) __attribute__((noreturn));
void duparg(const char *key, const char *arg) __attribute__((noreturn));
int get_u32(__u32 *val, const char *arg, int base);
int get_u16(__u16 *val, const char *arg, int base);
int get_u8(__u8 *val, const char *arg, int base);
int get_rate64(__u64 *rate, const char *str);		/* bytes/s */
int get_size(unsigned int *size, const char *str);	/* bytes */
int get_time(unsigned int *time, const char *str);	/* us */
char *sprint_time(__u32 time, char *buf);

/* include/libnetlink.h */
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
int addattr(struct nlmsghdr *n, int maxlen, int type);
int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data);
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data);
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);
#define parse_rtattr_nested(tb, max, rta) \
	parse_rtattr_flags((tb), (max), RTA_DATA(rta), RTA_PAYLOAD(rta), \
			   NLA_F_NESTED)

/* include/json_print.h: every print_* writes to stdout */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

enum color_attr {
	COLOR_IFNAME, COLOR_MAC, COLOR_INET, COLOR_INET6,
	COLOR_OPERSTATE_UP, COLOR_OPERSTATE_DOWN, COLOR_NONE,
};

bool is_json_context(void);
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(enum output_type type, const char *key);
void close_json_array(enum output_type type, const char *delim);
void print_nl(void);
int print_color_string(enum output_type t, enum color_attr c, const char *key,
		       const char *fmt, const char *value);
int print_color_uint(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, unsigned int value);
int print_color_float(enum output_type t, enum color_attr c, const char *key,
		      const char *fmt, double value);
int print_color_lluint(enum output_type t, enum color_attr c, const char *key,
			const char *fmt, unsigned long long value);
int print_color_size(enum output_type t, enum color_attr c, const char *key,
		     const char *fmt, __u32 value);

/* tc/tc_util.h */
/* bytes/s; text in bit/s with SI (or, tc -iec, IEC) prefixes */
void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate);

#define print_string(t, k, f, v)	print_color_string(t, COLOR_NONE, k, f, v)
#define print_uint(t, k, f, v)		print_color_uint(t, COLOR_NONE, k, f, v)
#define print_float(t, k, f, v)		print_color_float(t, COLOR_NONE, k, f, v)
#define print_lluint(t, k, f, v)	print_color_lluint(t, COLOR_NONE, k, f, v)
#define print_size(t, k, f, v)		print_color_size(t, COLOR_NONE, k, f, v)

#endif /* DCB_TC_ABI_H */
