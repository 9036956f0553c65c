/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ldcp_sm: LDCP's sender (draft-dai-tsvwg-PFC-free-low-delay-control-
 * protocol, IETF 108 slides): the stable-stage window rule and the fast
 * start, integer and fixed-point only.  Builds in the kernel and in
 * userspace, where selftests/unit/include/ has the kernel headers it
 * includes.  See Documentation/ldcp.rst.
 */
#ifndef LDCP_SM_H
#define LDCP_SM_H

#include <linux/types.h>
#include <linux/math64.h>
#include <linux/minmax.h>

/* cwnd is kept in packets on a 2^16 scale */
#define LDCP_CWND_SHIFT		16
#define LDCP_CWND_ONE		(1U << LDCP_CWND_SHIFT)
/* alpha and beta knobs: 1024 = 1.0 */
#define LDCP_FRAC_SHIFT		10
#define LDCP_FRAC_ONE		(1U << LDCP_FRAC_SHIFT)
/* the highest window: rxe's RXE_MAX_UNACKED_PSNS */
#define LDCP_MAX_CWND		128U

struct ldcp_params {
	u32 alpha;		/* additive increase per RTT, /1024, 1..1024 */
	u32 beta;		/* decrease per ECE-acked packet, /1024 */
	u32 min_cwnd;		/* packets, >= 1 */
	u32 max_cwnd;		/* packets, min_cwnd..LDCP_MAX_CWND */
	u32 init_window;	/* fast-start window, packets, 0 = off */
	u32 ack_every;		/* AckReq on every k-th packet, >= 1 */
};

struct ldcp_sm {
	u32 cwnd;		/* packets << LDCP_CWND_SHIFT */
	u32 inflight;		/* new packets sent, not yet acknowledged */
	u32 fs_left;		/* fast-start packets left in this burst */
	u32 noack;		/* packets since the last AckReq */
	u8 win_full;		/* the last new packet filled the window */
	u32 acks;		/* on_ack calls */
	u32 ece_acks;		/* of which with ECE */
	u32 fast_starts;	/* fast-start bursts begun */
	/* the last pkt_prep, for ldcp_sm_pkt_unsent() */
	struct {
		u32 fs_left;
		u32 noack;
		u8 win_full;
		u32 counted;	/* added to inflight */
		u8 fast_start;	/* fast_starts++ */
	} undo;
};

/* A request packet as the state machine sees it (struct rxe_cc_pkt). */
struct ldcp_pkt {
	bool first;		/* first packet of a message */
	bool last;		/* last packet of a message */
	bool retry;		/* go-back-N retransmission */
	u32 npsn;		/* packets on the wire: 1 (0 = 1), or a READ's */
	bool ect;		/* out: ECT(0) */
	bool ackreq;		/* in: rxe's choice; out: AckReq bit */
};

/*
 * The default fast-start window: one bandwidth-delay product (the slides:
 * "a large value for IW, e.g., BDP") at @line_kbps and @rtt_us in packets
 * of @mtu bytes, rounded up, within 1 .. LDCP_MAX_CWND.
 */
u32 ldcp_sm_auto_init_window(u32 line_kbps, u32 rtt_us, u32 mtu);

void ldcp_params_sanitize(struct ldcp_params *p);
void ldcp_sm_init(struct ldcp_sm *s, const struct ldcp_params *p);
bool ldcp_sm_pkt_prep(struct ldcp_sm *s, const struct ldcp_params *p,
		      struct ldcp_pkt *pkt);
void ldcp_sm_pkt_unsent(struct ldcp_sm *s);
bool ldcp_sm_on_ack(struct ldcp_sm *s, const struct ldcp_params *p,
		    u32 n, bool ece);

/* The window in whole packets (floor), within [min_cwnd, max_cwnd]. */
static inline u32 ldcp_sm_window(const struct ldcp_sm *s,
				 const struct ldcp_params *p)
{
	u32 w = s->cwnd >> LDCP_CWND_SHIFT;

	return min(max(w, p->min_cwnd), p->max_cwnd);
}

#endif /* LDCP_SM_H */
