// SPDX-License-Identifier: GPL-2.0
/*
 * pcn_sm.c: PCN's reaction point and notification point, fixed point.
 * See pcn_sm.h and Documentation/pcn.rst.
 */
#include <linux/string.h>

#include "pcn_sm.h"

void pcn_rp_init(struct pcn_rp *s, const struct pcn_rp_params *p)
{
	memset(s, 0, sizeof(*s));
	s->rate = p->line_rate;
	s->w = p->w_min;
	s->last_event = PCN_EV_INIT;
}

/* Algorithm 1, lines 5-11. */
bool pcn_rp_on_cnp(struct pcn_rp *s, const struct pcn_rp_params *p,
		   bool ecn, u32 rec_rate)
{
	u32 old = s->rate;
	u64 v;

	s->cnps++;
	/*
	 * No NP measures a receiving rate above the line rate, and one below
	 * the floor cannot take the rate lower than the floor: a recRate
	 * outside [min_rate, line_rate] comes from a broken or hostile NP.
	 * Clamped and counted, it moves the rate no further than the
	 * nearest sane value would.
	 */
	if (rec_rate < p->min_rate || rec_rate > p->line_rate) {
		rec_rate = clamp(rec_rate, p->min_rate, p->line_rate);
		s->clamped++;
	}
	s->ecn = ecn;
	s->rec_rate = rec_rate;
	if (ecn) {
		/* sendRate = min(sendRate, recRate * (1 - w_min)) */
		v = ((u64)rec_rate * (PCN_W_ONE - p->w_min)) >> PCN_W_SHIFT;
		if (v < s->rate)
			s->rate = (u32)v;
		s->w = p->w_min;
		s->last_event = PCN_EV_DECREASE;
	} else {
		/*
		 * sendRate = sendRate * (1 - w) + lineRate * w, i.e. the
		 * rate closes w of its gap to the line rate (rounded up, so
		 * that it always moves); w = w * (1 - w) + w_max * w.
		 */
		if (s->rate < p->line_rate) {
			v = (u64)(p->line_rate - s->rate) * s->w;
			s->rate += (u32)((v + PCN_W_ONE - 1) >> PCN_W_SHIFT);
		}
		/* rounded to nearest: never above w_max */
		if (s->w < p->w_max)
			s->w += (u32)(((u64)s->w * (p->w_max - s->w) +
				       PCN_W_ONE / 2) >> PCN_W_SHIFT);
		s->last_event = PCN_EV_INCREASE;
	}
	s->rate = clamp(s->rate, p->min_rate, p->line_rate);
	return s->rate != old;
}

u32 pcn_rate_kbps(u64 bytes, u64 ns)
{
	u64 kbps;

	if (!ns)
		return U32_MAX;
	/* bits * 10^6 / ns = kb/s; no period carries 2^41 bytes */
	if (bytes > (U64_MAX / 8000000ULL))
		return U32_MAX;
	kbps = div64_u64(bytes * 8000000ULL, ns);
	if (kbps > U32_MAX)
		return U32_MAX;
	return kbps ? (u32)kbps : 1;
}

void pcn_np_init(struct pcn_np *s)
{
	memset(s, 0, sizeof(*s));
}

/* Figure 8: count packets, bytes and CE marks of the period. */
bool pcn_np_on_rx(struct pcn_np *s, u32 bytes, bool ce, u64 now)
{
	s->gap = s->last_rx && now > s->last_rx ? now - s->last_rx : 0;
	s->last_rx = now;
	s->last_bytes = bytes;
	s->pkts++;
	s->bytes += bytes;
	if (ce)
		s->ce++;
	if (s->running)
		return false;
	s->running = true;
	s->start = now;
	s->open_bytes = bytes;
	return true;
}

bool pcn_np_period_end(struct pcn_np *s, const struct pcn_np_params *p,
		       u64 now, struct pcn_cnp *cnp)
{
	u64 elapsed = now > s->start ? now - s->start : p->period_ns;

	if (!s->pkts) {
		/*
		 * No packets, no CNP; the periods stop until the next
		 * packet.  The last arrival is kept: a flow slower than one
		 * packet per period sends a packet every few periods, and
		 * its rate is that packet over the whole gap, not over T.
		 */
		s->running = false;
		s->gap = 0;
		return false;
	}
	/* congested: more than ecn_threshold_pct % of the packets CE */
	cnp->ecn = (u64)s->ce * 100 > (u64)s->pkts * p->ecn_threshold_pct;
	/*
	 * One packet: its size over its inter-arrival time, at most
	 * PCN_NP_GAP_PERIODS periods (a flow idle for longer reports one
	 * packet per that many periods, not the rate of a packet arrival
	 * seconds ago, which is no rate of the current flow).  Otherwise the
	 * bytes over the period; the first period of a run started with
	 * its opening packet, which was sent before the period began: a
	 * window of T opened by a packet holds one packet more than the
	 * rate carries, so that packet is left out (pcn.rst).
	 */
	if (s->pkts == 1 && s->gap)
		cnp->rec_rate = pcn_rate_kbps(s->last_bytes,
					      min_t(u64, s->gap,
						    (u64)p->period_ns *
						    PCN_NP_GAP_PERIODS));
	else if (s->pkts > 1 && s->open_bytes)
		cnp->rec_rate = pcn_rate_kbps(s->bytes - s->open_bytes,
					      elapsed);
	else
		cnp->rec_rate = pcn_rate_kbps(s->bytes, elapsed);
	s->open_bytes = 0;
	s->pkts = 0;
	s->ce = 0;
	s->bytes = 0;
	s->start = now;
	return true;
}

void pcn_cnp_encode(const struct pcn_cnp *cnp, u8 *buf)
{
	memset(buf, 0, PCN_CNP_BYTES);
	buf[0] = PCN_CNP_MAGIC;
	buf[1] = cnp->ecn ? PCN_CNP_F_ECN : 0;
	buf[4] = cnp->rec_rate >> 24;
	buf[5] = cnp->rec_rate >> 16;
	buf[6] = cnp->rec_rate >> 8;
	buf[7] = cnp->rec_rate;
}

enum pcn_cnp_err pcn_cnp_decode(const u8 *buf, struct pcn_cnp *cnp)
{
	int i;

	if (buf[0] != PCN_CNP_MAGIC)
		return PCN_CNP_BAD_MAGIC;
	if (buf[1] & ~PCN_CNP_F_ECN)
		return PCN_CNP_BAD_FLAGS;
	if (buf[2] || buf[3])
		return PCN_CNP_BAD_RSVD;
	for (i = 8; i < PCN_CNP_BYTES; i++)
		if (buf[i])
			return PCN_CNP_BAD_RSVD;
	cnp->ecn = buf[1] & PCN_CNP_F_ECN;
	cnp->rec_rate = (u32)buf[4] << 24 | (u32)buf[5] << 16 |
			(u32)buf[6] << 8 | buf[7];
	if (cnp->ecn && !cnp->rec_rate)
		return PCN_CNP_BAD_RATE;
	return PCN_CNP_OK;
}

/*
 * The defaults at @line_kbps and @rtt_us with packets of @mtu bytes.  The
 * paper's NP period is about one maximum RTT (50 us); its recRate is the
 * bytes of one period, so a period must also hold enough packets to
 * measure a rate: at 40 Gb/s 50 us hold 244 packets of 1 KB, at tens of
 * Mb/s an RTT holds one or two.  The period is the longer of the RTT and
 * PCN_AUTO_MIN_PKTS packets at line rate.
 */
void pcn_sm_auto(struct pcn_auto *a, u32 line_kbps, u32 rtt_us, u32 mtu)
{
	u64 pkts_us;

	line_kbps = max(line_kbps, 1U);
	/* bits / (kb/s) = ms; * 1000 -> us */
	pkts_us = div_u64((u64)PCN_AUTO_MIN_PKTS * mtu * 8 * 1000, line_kbps);
	a->period_us = min_t(u64, max_t(u64, max(rtt_us, 1U), pkts_us),
			     1000000);
	/* as DCQCN's (dcqcn_sm_auto_min_rate()), here without packets no CNP */
	a->min_rate = max_t(u64, max(line_kbps / 40000, 1U),
			    min_t(u64, div_u64((u64)mtu * 800, max(rtt_us, 1U)),
				  U32_MAX));
}
