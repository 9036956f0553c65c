// SPDX-License-Identifier: GPL-2.0
/*
 * dcqcn_sm.c: DCQCN reaction point (SIGCOMM'15 section 3, Figure 7).
 *
 * On a CNP:              R_T = R_C; R_C = R_C * (1 - alpha / 2);
 *                        alpha = (1 - g) * alpha + g;
 *                        reset the timer, byte counter, T, BC, alpha timer
 * alpha timer (K):       alpha = (1 - g) * alpha
 * increase event:        T++ (timer, every T ns) or BC++ (every B bytes),
 *   max(T, BC) <= F:     R_C = (R_T + R_C) / 2            fast recovery
 *   min(T, BC) >  F:     R_T += i * R_HAI, i = min - F    hyper increase
 *   otherwise:           R_T += R_AI                      additive increase
 *                        and then R_C = (R_T + R_C) / 2
 *
 * Here g is (1024 - dce_tcp_g) / 1024 as in mlx5.  Rates are kb/s, alpha
 * is on a 2^20 scale, times are ns given by the caller.
 */

#include "dcqcn_sm.h"

/* Late timers catch up this many periods at most, then resynchronise. */
#define DCQCN_MAX_CATCHUP	64

static u32 dcqcn_alpha_mix(u32 alpha, u32 g, bool cnp)
{
	u64 a = (u64)alpha * g;

	if (cnp)
		a += (u64)(DCQCN_G_ONE - g) << DCQCN_ALPHA_SHIFT;
	/* round to nearest: the decay stops where it cannot move alpha */
	a = (a + DCQCN_G_ONE / 2) / DCQCN_G_ONE;
	return min_t(u64, a, DCQCN_ALPHA_ONE);
}

void dcqcn_sm_init(struct dcqcn_sm *s, const struct dcqcn_params *p)
{
	u64 a = (u64)p->initial_alpha << (DCQCN_ALPHA_SHIFT - 10);

	s->rc = p->line_rate;
	s->rt = p->line_rate;
	s->alpha = min_t(u64, a, DCQCN_ALPHA_ONE);
	s->t = 0;
	s->bc = 0;
	s->bytes = 0;
	s->inc_at = 0;
	s->alpha_at = 0;
	s->cnps = 0;
	s->increased = 1;
	s->last_event = DCQCN_EV_INIT;
}

/* A CNP at @now: cut the rate, raise alpha, restart the increase phases. */
bool dcqcn_sm_on_cnp(struct dcqcn_sm *s, const struct dcqcn_params *p,
		     u64 now)
{
	u32 old = s->rc;

	if (!s->cnps && p->first_cnp_rate) {
		s->rc = min(p->first_cnp_rate, p->line_rate);
		s->rt = s->rc;
		s->last_event = DCQCN_EV_FIRST_CNP;
	} else {
		u64 cut = ((u64)s->rc * s->alpha) >> (DCQCN_ALPHA_SHIFT + 1);
		u64 lowest = div_u64((u64)s->rc * min(p->min_dec_fac, 100U),
				    100);
		u64 rc = s->rc - cut;

		if (p->clamp_tgt_rate || s->increased)
			s->rt = s->rc;
		rc = max(rc, lowest);
		rc = max_t(u64, rc, min(p->min_rate, s->rc));
		s->rc = rc;
		s->last_event = DCQCN_EV_CNP;
	}
	s->alpha = dcqcn_alpha_mix(s->alpha, min(p->g, DCQCN_G_ONE), true);
	s->cnps++;
	s->increased = 0;
	s->t = 0;
	s->bc = 0;
	s->bytes = 0;
	s->inc_at = p->time_reset_ns ? now + p->time_reset_ns : 0;
	s->alpha_at = p->alpha_period_ns ? now + p->alpha_period_ns : 0;
	return s->rc != old;
}

/* Still below line rate: the increase timer and byte counter run. */
static bool dcqcn_limited(const struct dcqcn_sm *s,
			  const struct dcqcn_params *p)
{
	return s->cnps && s->rc < p->line_rate;
}

/* One rate-increase event, after T or BC was incremented. */
static void dcqcn_increase(struct dcqcn_sm *s, const struct dcqcn_params *p)
{
	u32 hi = max(s->t, s->bc);
	u32 lo = min(s->t, s->bc);
	u64 rt = s->rt;

	if (hi <= p->threshold) {
		s->last_event = DCQCN_EV_FAST_RECOVERY;
	} else if (lo > p->threshold) {
		rt += (u64)(lo - p->threshold) * p->hai_rate;
		s->last_event = DCQCN_EV_HYPER;
	} else {
		rt += p->ai_rate;
		s->last_event = DCQCN_EV_ADDITIVE;
	}
	s->rt = min_t(u64, rt, p->line_rate);
	/* round up so that fast recovery reaches R_T */
	s->rc = ((u64)s->rt + s->rc + 1) >> 1;
	s->increased = 1;
}

/* @bytes left on the wire: the byte counter. */
bool dcqcn_sm_on_sent(struct dcqcn_sm *s, const struct dcqcn_params *p,
		      u32 bytes)
{
	u32 old = s->rc;

	if (!p->byte_reset || !dcqcn_limited(s, p))
		return false;
	/*
	 * Count toward B without adding to s->bytes first: with B near
	 * U32_MAX the sum would wrap and lose the event.  s->bytes stays at
	 * most B (it may exceed a B lowered since: then an event is due).
	 */
	for (;;) {
		u32 need = s->bytes < p->byte_reset ?
			   p->byte_reset - s->bytes : 0;

		if (bytes < need || !dcqcn_limited(s, p)) {
			s->bytes += min(bytes, need);
			break;
		}
		bytes -= need;
		s->bytes = 0;
		s->bc++;
		dcqcn_increase(s, p);
	}
	if (!dcqcn_limited(s, p))
		s->inc_at = 0;
	return s->rc != old;
}

/* The alpha timer and the rate-increase timer, whichever are due. */
bool dcqcn_sm_on_timer(struct dcqcn_sm *s, const struct dcqcn_params *p,
		       u64 now)
{
	u32 old = s->rc;
	int n;

	for (n = 0; s->alpha_at && s->alpha_at <= now; n++) {
		u32 a = dcqcn_alpha_mix(s->alpha, min(p->g, DCQCN_G_ONE),
					false);

		if (a == s->alpha || !p->alpha_period_ns) {
			s->alpha_at = 0;	/* nothing left to decay */
			break;
		}
		s->alpha = a;
		s->last_event = DCQCN_EV_ALPHA;
		s->alpha_at += p->alpha_period_ns;
		if (n == DCQCN_MAX_CATCHUP)
			s->alpha_at = now + p->alpha_period_ns;
	}
	for (n = 0; s->inc_at && s->inc_at <= now; n++) {
		if (!dcqcn_limited(s, p) || !p->time_reset_ns) {
			s->inc_at = 0;
			break;
		}
		s->t++;
		dcqcn_increase(s, p);
		s->inc_at += p->time_reset_ns;
		if (n == DCQCN_MAX_CATCHUP)
			s->inc_at = now + p->time_reset_ns;
	}
	if (!dcqcn_limited(s, p))
		s->inc_at = 0;
	return s->rc != old;
}

/* Earliest pending timer expiry in ns, 0 = none. */
u64 dcqcn_sm_next_event(const struct dcqcn_sm *s)
{
	if (!s->inc_at)
		return s->alpha_at;
	if (!s->alpha_at)
		return s->inc_at;
	return min(s->inc_at, s->alpha_at);
}

/* line / @div in kb/s, at least 1 kb/s */
static u32 dcqcn_frac(u32 line_kbps, u32 div)
{
	return max(line_kbps / div, 1U);
}

/*
 * The rate floor.  A QP paced at rate r waits MTU / r after a packet
 * whatever the rate becomes meanwhile, and a PCN NP sends no CNP (so no
 * increase) without packets: line / 40000 (mlx5's 1 Mb/s at 40 Gb/s) would
 * leave a QP at 40 Mb/s waiting 8 s, beyond rxe's transport timeouts.  So
 * the floor also lets one packet out per 10 RTT.
 */
u32 dcqcn_sm_auto_min_rate(u32 line_kbps, u32 rtt_us, u32 mtu)
{
	/* bits / us = Mb/s: mtu * 8 * 1000 / (10 * rtt) kb/s */
	u64 pkt = div_u64((u64)mtu * 800, max(rtt_us, 1U));

	return max_t(u64, max(line_kbps / 40000, 1U), min_t(u64, pkt, U32_MAX));
}

/*
 * The defaults at @line_kbps and @rtt_us, with the NP sending a CNP at
 * most every @cnp_us (N), packets of @mtu bytes.  The paper (section 3.1) asks for K > N; its
 * K = 55 us against N = 50 us is 1.1 N, kept here as K = 1.1 max(RTT, N),
 * and at least N + 1 us.
 */
void dcqcn_sm_auto(struct dcqcn_auto *a, u32 line_kbps, u32 rtt_us,
		   u32 cnp_us, u32 mtu)
{
	u64 x, k;

	rtt_us = max(rtt_us, 1U);
	a->time_reset_us = max_t(u64, (u64)rtt_us * 11 / 10, 1);
	k = (u64)max(rtt_us, cnp_us) * 11 / 10;
	k = max_t(u64, k, (u64)cnp_us + 1);
	a->alpha_period_us = min_t(u64, k, 4000000);
	/*
	 * B = 10 MiB * (line / 40 Gb/s) * (RTT / 50 us): kb/s * us is
	 * millibits, and 10 MiB / (40e6 * 50) = 2^19 / 1e8.
	 */
	x = (u64)line_kbps * rtt_us;
	if (x >= 1ULL << 44)
		a->byte_reset = U32_MAX;
	else
		a->byte_reset = max_t(u64, div_u64(x << 19, 100000000), 1);
	a->ai_rate = dcqcn_frac(line_kbps, 1000);
	a->hai_rate = dcqcn_frac(line_kbps, 800);
	a->min_rate = dcqcn_sm_auto_min_rate(line_kbps, rtt_us, mtu);
}
