/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcn_sm: PCN's reaction point (NSDI'20, Algorithm 1) and notification
 * point (Figure 8) as integer, fixed-point state machines.  They never
 * read a clock: the caller passes "now" in ns.  Builds in the kernel and
 * in userspace, where selftests/unit/include/ has the kernel headers it
 * includes.  Rates are in kb/s (the paper carries 1 Mb/s units).  See
 * Documentation/pcn.rst.
 */
#ifndef PCN_SM_H
#define PCN_SM_H

#include <linux/types.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>

/* the weight w is kept on a 2^20 scale: 1/128 and 1/2 are exact */
#define PCN_W_SHIFT		20
#define PCN_W_ONE		(1U << PCN_W_SHIFT)
/* the w_min and w_max knobs are in units of 1/65536 */
#define PCN_W_KNOB_SHIFT	16
#define PCN_W_KNOB_ONE		(1U << PCN_W_KNOB_SHIFT)

/* Reaction-point parameters, in the machine's units. */
struct pcn_rp_params {
	u32 line_rate;		/* start rate and ceiling, kb/s (> 0) */
	u32 min_rate;		/* floor, kb/s (> 0) */
	u32 w_min;		/* 2^20 scale, 0 < w_min <= w_max */
	u32 w_max;		/* 2^20 scale, w_max < 1 */
};

enum pcn_event {
	PCN_EV_INIT,
	PCN_EV_DECREASE,	/* CNP with ECN */
	PCN_EV_INCREASE,	/* CNP without ECN */
};

struct pcn_rp {
	u32 rate;		/* sendRate, kb/s */
	u32 w;			/* 2^20 scale */
	u32 rec_rate;		/* recRate of the last CNP, kb/s */
	u32 cnps;		/* CNPs handled */
	u32 clamped;		/* of those, recRate out of [min, line] */
	u8 ecn;			/* ECN flag of the last CNP */
	u8 last_event;		/* enum pcn_event */
};

void pcn_rp_init(struct pcn_rp *s, const struct pcn_rp_params *p);
/*
 * A valid CNP; returns true if the sending rate changed.  @rec_rate is
 * clamped to [p->min_rate, p->line_rate] (counted in s->clamped).
 */
bool pcn_rp_on_cnp(struct pcn_rp *s, const struct pcn_rp_params *p,
		   bool ecn, u32 rec_rate);

/*
 * Defaults from the line rate and the base RTT (Documentation/rxe_cc.rst,
 * "Default parameters"): the paper's values at 40 Gb/s and 50 us.
 */
#define PCN_REF_LINE_KBPS	40000000U	/* 40 Gb/s */
#define PCN_REF_RTT_US		50U
/* a period holds at least this many packets at line rate */
#define PCN_AUTO_MIN_PKTS	16U

struct pcn_auto {
	u32 period_us;		/* T: max(RTT, 16 packets at line rate) */
	u32 min_rate;		/* max(line / 40000, MTU per 10 RTT), kb/s */
};

void pcn_sm_auto(struct pcn_auto *a, u32 line_kbps, u32 rtt_us, u32 mtu);

/* Notification-point parameters. */
/*
 * A lone packet's recRate is its size over the time since the previous
 * one, counted across empty periods up to this many periods: at T = 50 us
 * and 1500 B, down to 3.75 Mb/s; at the guest's T of 13 ms and 4 KB, to
 * 39 kb/s.
 */
#define PCN_NP_GAP_PERIODS	64U

struct pcn_np_params {
	u32 period_ns;		/* T (> 0) */
	u32 ecn_threshold_pct;	/* congested when CE/packets > this % */
};

struct pcn_np {
	u64 start;		/* start of the current period, ns */
	u64 last_rx;		/* previous arrival, 0 = none; kept idle */
	u64 gap;		/* inter-arrival time of the last packet, ns */
	u64 bytes;		/* in the current period */
	u32 pkts;
	u32 ce;
	u32 last_bytes;		/* size of the last packet */
	u32 open_bytes;		/* size of the packet that opened the run */
	bool running;		/* a period is open (the timer is armed) */
};

/* What the NP puts in a CNP. */
struct pcn_cnp {
	bool ecn;
	u32 rec_rate;		/* kb/s */
};

void pcn_np_init(struct pcn_np *s);
/* A packet arrived; returns true if a period opened (arm the timer). */
bool pcn_np_on_rx(struct pcn_np *s, u32 bytes, bool ce, u64 now);
/*
 * The period's timer expired.  Returns true with *cnp filled if a CNP is
 * due; s->running then says whether a new period is open (re-arm the
 * timer): a period without packets closes it and sends nothing.
 */
bool pcn_np_period_end(struct pcn_np *s, const struct pcn_np_params *p,
		       u64 now, struct pcn_cnp *cnp);

/* bytes over ns in kb/s, at least 1 kb/s, at most U32_MAX */
u32 pcn_rate_kbps(u64 bytes, u64 ns);

/*
 * CNP payload, in the 16 reserved bytes after the BTH:
 *   byte 0      PCN_CNP_MAGIC (identifies PCN and this version)
 *   byte 1      flags: bit 0 = ECN (flow congested), other bits zero
 *   bytes 2-3   zero
 *   bytes 4-7   recRate in kb/s, big endian
 *   bytes 8-15  zero
 * A payload with another magic, unknown flags or non-zero bytes where
 * zeros belong, or the ECN flag with recRate 0, is rejected.
 */
#define PCN_CNP_BYTES		16
#define PCN_CNP_MAGIC		0xc5
#define PCN_CNP_F_ECN		0x01

enum pcn_cnp_err {
	PCN_CNP_OK,
	PCN_CNP_BAD_MAGIC,
	PCN_CNP_BAD_FLAGS,
	PCN_CNP_BAD_RSVD,
	PCN_CNP_BAD_RATE,
};

void pcn_cnp_encode(const struct pcn_cnp *cnp, u8 *buf);
enum pcn_cnp_err pcn_cnp_decode(const u8 *buf, struct pcn_cnp *cnp);

#endif /* PCN_SM_H */
