/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dcqcn_sm: DCQCN's reaction-point state machine (SIGCOMM'15, section 3,
 * Figure 7), integer and fixed-point only.  It never reads a clock: the
 * caller passes "now" in ns and arms one timer for dcqcn_sm_next_event().
 * Builds in the kernel and in userspace, where selftests/unit/include/
 * has the kernel headers it includes.  See Documentation/dcqcn.rst.
 */
#ifndef DCQCN_SM_H
#define DCQCN_SM_H

#include <linux/types.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>

/* alpha is kept on a 2^20 scale; the knobs use mlx5's 1024 scale */
#define DCQCN_ALPHA_SHIFT	20
#define DCQCN_ALPHA_ONE		(1U << DCQCN_ALPHA_SHIFT)
#define DCQCN_G_ONE		1024U

/* Parameters, already in the machine's units (rates in kb/s). */
struct dcqcn_params {
	u32 line_rate;		/* start rate and R_T ceiling, kb/s (> 0) */
	u32 min_rate;		/* rpg_min_rate, kb/s */
	u32 ai_rate;		/* rpg_ai_rate (R_AI), kb/s */
	u32 hai_rate;		/* rpg_hai_rate (R_HAI), kb/s */
	u32 first_cnp_rate;	/* rate_to_set_on_first_cnp, kb/s, 0 = off */
	u32 min_dec_fac;	/* rpg_min_dec_fac: new R_C >= this % of old */
	u32 threshold;		/* rpg_threshold (F) */
	u32 byte_reset;		/* rpg_byte_reset (B), bytes, 0 = off */
	u32 time_reset_ns;	/* rpg_time_reset (T), 0 = off */
	u32 alpha_period_ns;	/* dce_tcp_rtt (K), 0 = no decay */
	u32 g;			/* dce_tcp_g: alpha keeps g/1024 per update */
	u32 initial_alpha;	/* initial_alpha_value, 1024 = 1.0 */
	u32 clamp_tgt_rate;	/* 1: R_T = R_C on every CNP (paper) */
};

/* What happened last, for tracing. */
enum dcqcn_event {
	DCQCN_EV_INIT,
	DCQCN_EV_CNP,
	DCQCN_EV_FIRST_CNP,
	DCQCN_EV_ALPHA,
	DCQCN_EV_FAST_RECOVERY,
	DCQCN_EV_ADDITIVE,
	DCQCN_EV_HYPER,
};

struct dcqcn_sm {
	u32 rc;			/* current rate R_C, kb/s */
	u32 rt;			/* target rate R_T, kb/s */
	u32 alpha;		/* 2^20 = 1.0 */
	u32 t;			/* timer stage counter T */
	u32 bc;			/* byte-counter stage counter BC */
	u32 bytes;		/* bytes sent since the last BC event */
	u64 inc_at;		/* next rate-increase timer expiry, 0 = off */
	u64 alpha_at;		/* next alpha timer expiry, 0 = off */
	u32 cnps;		/* CNPs handled */
	u8 increased;		/* a rate increase since the last CNP */
	u8 last_event;		/* enum dcqcn_event */
};

/*
 * Defaults from the line rate and the base RTT (Documentation/rxe_cc.rst,
 * "Default parameters"): the paper's 40 Gb/s values at 40 Gb/s and a
 * 50 us RTT, rates as fractions of the line rate, times as multiples of
 * the RTT, B as a multiple of the bandwidth-delay product.
 */
#define DCQCN_REF_LINE_KBPS	40000000U	/* 40 Gb/s */
#define DCQCN_REF_RTT_US	50U

struct dcqcn_auto {
	u32 time_reset_us;	/* T: 1.1 RTT (55 us) */
	u32 alpha_period_us;	/* K: 1.1 max(RTT, N) (55 us), > N */
	u32 byte_reset;		/* B: 41.9 BDP (10 MB), bytes */
	u32 ai_rate;		/* R_AI: line / 1000 (40 Mb/s), kb/s */
	u32 hai_rate;		/* R_HAI: line / 800 (50 Mb/s), kb/s */
	u32 min_rate;		/* max(line / 40000, MTU per 10 RTT), kb/s */
};

void dcqcn_sm_auto(struct dcqcn_auto *a, u32 line_kbps, u32 rtt_us,
		   u32 cnp_us, u32 mtu);
/* max(line / 40000, one @mtu packet per 10 RTT), kb/s: also PCN's */
u32 dcqcn_sm_auto_min_rate(u32 line_kbps, u32 rtt_us, u32 mtu);

void dcqcn_sm_init(struct dcqcn_sm *s, const struct dcqcn_params *p);
bool dcqcn_sm_on_cnp(struct dcqcn_sm *s, const struct dcqcn_params *p,
		     u64 now);
bool dcqcn_sm_on_sent(struct dcqcn_sm *s, const struct dcqcn_params *p,
		      u32 bytes);
bool dcqcn_sm_on_timer(struct dcqcn_sm *s, const struct dcqcn_params *p,
		       u64 now);
u64 dcqcn_sm_next_event(const struct dcqcn_sm *s);

#endif /* DCQCN_SM_H */
