// SPDX-License-Identifier: GPL-2.0
/*
 * ldcp_sm.c: LDCP sender (IETF 108 TSVWG slides, "LDCP - Stable stage
 * algorithm" and "LDCP - fast start algorithm").
 *
 * Per ACK that newly acknowledges n packets:
 *   ECE = 0:  cwnd += n * alpha / cwnd
 *   ECE = 1:  cwnd -= n * beta
 * within [min_cwnd, max_cwnd].  cwnd is in packets on a 2^16 scale;
 * alpha and beta are on a 1024 scale, so the increase is
 * (n * alpha << 22) / cwnd in 2^-16 packets, truncated (less than
 * 2^-16 packet per ACK).
 *
 * Fast start: a message whose first packet goes out while nothing is in
 * flight (and the previous new packet did not fill the window: a QP
 * stalled by its window is not idle) may send an initial window of init_window packets at once (cwnd
 * is raised to it if lower).  Its first min(init_window, message length)
 * new packets are the fast-start packets: not ECN-capable (a congested
 * switch drops them by WRED instead of queueing them), except the last
 * one, which is ECT so that it is marked rather than dropped and a tail
 * loss cannot go unnoticed until a timeout.  A retransmission ends the
 * fast start; retransmissions and all later packets are ECT.
 *
 * AckReq: on every ack_every-th packet, on the packet that fills the
 * window, on retransmissions and wherever rxe asks for one.
 */

#include "ldcp_sm.h"

void ldcp_params_sanitize(struct ldcp_params *p)
{
	p->alpha = min(max(p->alpha, 1U), LDCP_FRAC_ONE);
	p->beta = min(max(p->beta, 1U), LDCP_FRAC_ONE);
	p->max_cwnd = min(max(p->max_cwnd, 1U), LDCP_MAX_CWND);
	p->min_cwnd = min(max(p->min_cwnd, 1U), p->max_cwnd);
	p->init_window = min(p->init_window, p->max_cwnd);
	p->ack_every = max(p->ack_every, 1U);
}

void ldcp_sm_init(struct ldcp_sm *s, const struct ldcp_params *p)
{
	u32 w = max(p->init_window, p->min_cwnd);

	s->cwnd = min(w, p->max_cwnd) << LDCP_CWND_SHIFT;
	s->inflight = 0;
	s->fs_left = 0;
	s->win_full = 0;
	s->noack = 0;
	s->acks = 0;
	s->ece_acks = 0;
	s->fast_starts = 0;
}

/*
 * A request packet is being built: choose its ECT and AckReq bits.
 * Returns true when cwnd was raised (a fast start began).
 */
bool ldcp_sm_pkt_prep(struct ldcp_sm *s, const struct ldcp_params *p,
		      struct ldcp_pkt *pkt)
{
	bool raised = false;

	s->undo.fs_left = s->fs_left;
	s->undo.noack = s->noack;
	s->undo.win_full = s->win_full;
	s->undo.counted = 0;
	s->undo.fast_start = false;
	pkt->ect = true;
	if (pkt->retry) {
		s->fs_left = 0;
	} else {
		/* idle, not merely stalled by a full window */
		if (pkt->first && !s->inflight && !s->win_full &&
		    p->init_window) {
			u32 iw = p->init_window << LDCP_CWND_SHIFT;

			s->fs_left = p->init_window;
			s->fast_starts++;
			s->undo.fast_start = true;
			if (s->cwnd < iw) {
				s->cwnd = iw;
				raised = true;
			}
		}
		if (s->fs_left) {
			s->fs_left--;
			if (pkt->last)
				s->fs_left = 0;
			/* the last fast-start packet is ECT */
			pkt->ect = !s->fs_left;
		}
		/* the window counts packets on the wire, a READ's responses too */
		s->undo.counted = pkt->npsn ?: 1;
		s->inflight += s->undo.counted;
		s->win_full = s->inflight >= ldcp_sm_window(s, p);
	}
	/*
	 * Also ask on the packet that fills the window (nothing else would
	 * be sent to carry the next request: the QP would wait for its
	 * retransmission timer) and on every retransmission (their window
	 * is not tracked here).
	 */
	s->noack++;
	if (pkt->ackreq || pkt->retry || s->noack >= p->ack_every ||
	    s->inflight >= ldcp_sm_window(s, p)) {
		pkt->ackreq = true;
		s->noack = 0;
	}
	return raised;
}

/*
 * The packet of the last ldcp_sm_pkt_prep() was not sent and will be
 * prepared again: it is not in flight, its fast-start slot and AckReq
 * count are still to be used.  A cwnd raised by its fast start stays
 * (ACKs may have moved cwnd since).
 */
void ldcp_sm_pkt_unsent(struct ldcp_sm *s)
{
	s->fs_left = s->undo.fs_left;
	s->noack = s->undo.noack;
	s->win_full = s->undo.win_full;
	s->inflight -= min(s->undo.counted, s->inflight);
	if (s->undo.fast_start)
		s->fast_starts--;
	s->undo.counted = 0;
	s->undo.fast_start = false;
}

/*
 * An ACK newly acknowledged @n packets; @ece: it carried ECN-Echo (BECN).
 * Returns true when cwnd changed.
 */
bool ldcp_sm_on_ack(struct ldcp_sm *s, const struct ldcp_params *p,
		    u32 n, bool ece)
{
	u64 lo = (u64)p->min_cwnd << LDCP_CWND_SHIFT;
	u64 hi = (u64)p->max_cwnd << LDCP_CWND_SHIFT;
	u64 cwnd = s->cwnd;
	u32 old = s->cwnd;

	/* rxe's PSNs are 24 bits: keeps the products below 2^64 */
	n = min(n, 1U << 24);
	s->inflight -= min(n, s->inflight);
	s->acks++;
	if (ece) {
		u64 dec = ((u64)n * p->beta) <<
			  (LDCP_CWND_SHIFT - LDCP_FRAC_SHIFT);

		s->ece_acks++;
		cwnd = cwnd > lo + dec ? cwnd - dec : lo;
	} else {
		u64 num = ((u64)n * p->alpha) <<
			  (2 * LDCP_CWND_SHIFT - LDCP_FRAC_SHIFT);

		cwnd += div_u64(num, max(s->cwnd, 1U));
		cwnd = min(max(cwnd, lo), hi);
	}
	s->cwnd = cwnd;
	return s->cwnd != old;
}

u32 ldcp_sm_auto_init_window(u32 line_kbps, u32 rtt_us, u32 mtu)
{
	/* kb/s * us = millibits: BDP bytes = line * rtt / 8000 */
	u64 bits = (u64)line_kbps * rtt_us;
	u32 per_pkt = clamp(mtu, 1U, 65536U) * 8000;
	u64 w = div_u64(bits + per_pkt - 1, per_pkt);

	return min_t(u64, max_t(u64, w, 1), LDCP_MAX_CWND);
}
