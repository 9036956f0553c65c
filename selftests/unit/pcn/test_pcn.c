// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rxe_cc/pcn_sm.c against the paper's rules (NSDI'20,
 * Algorithm 1, Figure 8, Figure 10), expected values computed here (in
 * double precision where the machine rounds).  Each check prints what
 * it measured on failure (selftests/unit/check.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "pcn_sm.h"
#include "../check.h"

#define US 1000ULL
#define LINE 40000000U		/* 40 Gb/s in kb/s */
#define W_MIN (PCN_W_ONE / 128)
#define W_MAX (PCN_W_ONE / 2)


static struct pcn_rp_params rp_params(u32 line)
{
	struct pcn_rp_params p = {
		.line_rate = line,
		.min_rate = line / 1000,
		.w_min = W_MIN,
		.w_max = W_MAX,
	};
	return p;
}

static const struct pcn_np_params np_default = {
	.period_ns = 50 * US,
	.ecn_threshold_pct = 95,
};

/*
 * Figure 10: from a low rate, successive CNPs without ECN.  Under 10% of
 * the line rate for the first 5, above 95% after 15; each step within
 * 1e-4 of the line rate of a double-precision reference.
 */
static void fig10(struct __test_metadata *_metadata, u32 line)
{
	struct pcn_rp_params p = rp_params(line);
	struct pcn_rp s;
	double r, r5 = 0, w = 1.0 / 128;
	int k;

	pcn_rp_init(&s, &p);
	CHECK(s.rate == line && s.w == W_MIN, "init rate %u w %u", s.rate, s.w);
	/* an ECN CNP reporting 1 kb/s brings the flow to its floor */
	pcn_rp_on_cnp(&s, &p, true, 1);
	CHECK(s.rate == p.min_rate, "floor %u, want %u", s.rate, p.min_rate);
	r = s.rate;
	for (k = 1; k <= 15; k++) {
		pcn_rp_on_cnp(&s, &p, false, 0);
		r = r * (1 - w) + (double)line * w;
		w = w * (1 - w) + 0.5 * w;
		CHECK(fabs(s.rate - r) <= 1e-4 * line,
		      "line %u CNP %d: rate %u, reference %.0f", line, k,
		      s.rate, r);
		CHECK(fabs((double)s.w / PCN_W_ONE - w) <= 1e-5,
		      "CNP %d: w %.7f, reference %.7f", k,
		      (double)s.w / PCN_W_ONE, w);
		if (k == 5)
			r5 = s.rate;
		if (k <= 5)
			CHECK(s.rate < line / 10,
			      "line %u CNP %d: rate %u (%.2f%%) >= 10%%",
			      line, k, s.rate, 100.0 * s.rate / line);
	}
	CHECK(s.rate > (u64)line * 95 / 100,
	      "line %u after 15 CNPs: rate %u (%.2f%%) <= 95%%", line, s.rate,
	      100.0 * s.rate / line);
	printf("# fig10 line %u kb/s from %.1f%%: after 5 CNPs %.2f%%, after 15 %.2f%% (reference %.2f%%)\n",
	       line, 100.0 * p.min_rate / line, 100.0 * r5 / line,
	       100.0 * s.rate / line, 100.0 * r / line);
	/* w approaches w_max from below and never passes it */
	for (k = 0; k < 100; k++)
		pcn_rp_on_cnp(&s, &p, false, 0);
	CHECK(s.w <= W_MAX && s.w >= W_MAX - 4, "w %u, w_max %u", s.w, W_MAX);
	CHECK(s.rate == line, "ceiling: rate %u, line %u", s.rate, line);
}

TEST(test_fig10_40g)
{
	fig10(_metadata, LINE);
}

/* 100 Mb/s, the guest scale */
TEST(test_fig10_100m)
{
	fig10(_metadata, 100000);
}

/* Line 6-7: sendRate = min(sendRate, recRate*(1-w_min)), w = w_min. */
TEST(test_decrease)
{
	struct pcn_rp_params p = rp_params(LINE);
	struct pcn_rp s;
	bool ch;
	int k;

	pcn_rp_init(&s, &p);
	ch = pcn_rp_on_cnp(&s, &p, true, 20000000);
	/* 20 Gb/s * 127/128 = 19843750 kb/s, exact */
	CHECK(ch && s.rate == 19843750, "decrease: rate %u, want 19843750",
	      s.rate);
	CHECK(s.last_event == PCN_EV_DECREASE, "event %u", s.last_event);
	/* a higher recRate never increases the rate (queue draining) */
	ch = pcn_rp_on_cnp(&s, &p, true, 30000000);
	CHECK(!ch && s.rate == 19843750, "min(): rate %u, want 19843750",
	      s.rate);
	/* a lower one does */
	pcn_rp_on_cnp(&s, &p, true, 1280000);
	CHECK(s.rate == 1270000, "decrease: rate %u, want 1270000", s.rate);
	/* w grows on increases and is reset to w_min by ECN */
	for (k = 0; k < 6; k++)
		pcn_rp_on_cnp(&s, &p, false, 0);
	CHECK(s.w > 5 * W_MIN, "w after 6 increases %u", s.w);
	pcn_rp_on_cnp(&s, &p, true, LINE);
	CHECK(s.w == W_MIN, "w reset: %u, want %u", s.w, W_MIN);
	/* recRate above the line rate: taken as the line rate */
	pcn_rp_init(&s, &p);
	pcn_rp_on_cnp(&s, &p, true, 0xffffffffU);
	CHECK(s.rate == LINE - LINE / 128, "ceiling on decrease: rate %u",
	      s.rate);
	/* floor */
	pcn_rp_on_cnp(&s, &p, true, 100);
	CHECK(s.rate == p.min_rate, "floor: rate %u, want %u", s.rate,
	      p.min_rate);
	/* one increase from the floor closes w_min of the gap, rounded up */
	pcn_rp_on_cnp(&s, &p, false, 0);
	CHECK(s.rate == p.min_rate + (LINE - p.min_rate + 127) / 128,
	      "first increase: rate %u, want %u", s.rate,
	      p.min_rate + (LINE - p.min_rate + 127) / 128);
}

/*
 * recRate out of [min_rate, line_rate] (a broken or hostile NP) is
 * clamped and counted: 0 or 2^32 - 1 never takes a flow to its floor,
 * a sane recRate is not counted.
 */
TEST(test_clamp)
{
	struct pcn_rp_params p = rp_params(LINE);
	u32 ok = LINE / 2, r;
	struct pcn_rp s;

	pcn_rp_init(&s, &p);
	pcn_rp_on_cnp(&s, &p, true, ok);
	r = s.rate;
	CHECK(s.clamped == 0 && s.rec_rate == ok,
	      "sane recRate: clamped %u rec %u", s.clamped, s.rec_rate);
	/* garbage above the line rate with ECN: no cut at all */
	pcn_rp_on_cnp(&s, &p, true, 0xffffffffU);
	CHECK(s.clamped == 1 && s.rec_rate == LINE && s.rate == r,
	      "huge recRate: clamped %u rec %u rate %u, want 1 %u %u",
	      s.clamped, s.rec_rate, s.rate, LINE, r);
	pcn_rp_on_cnp(&s, &p, true, LINE + 1);
	CHECK(s.clamped == 2 && s.rate == r, "line + 1: clamped %u rate %u",
	      s.clamped, s.rate);
	/* recRate 0 without ECN (its recRate is unused): an increase */
	pcn_rp_on_cnp(&s, &p, false, 0);
	CHECK(s.clamped == 3 && s.rec_rate == p.min_rate && s.rate > r,
	      "recRate 0: clamped %u rec %u rate %u > %u", s.clamped,
	      s.rec_rate, s.rate, r);
	/* at the line rate, 2^32 - 1 with ECN costs w_min, not the floor */
	pcn_rp_init(&s, &p);
	pcn_rp_on_cnp(&s, &p, true, 0xffffffffU);
	CHECK(s.clamped == 1 && s.rate == LINE - LINE / 128 &&
	      s.rate > p.min_rate, "from line: clamped %u rate %u",
	      s.clamped, s.rate);
	/* below the floor: clamped to it; the floor holds */
	pcn_rp_on_cnp(&s, &p, true, 1);
	CHECK(s.clamped == 2 && s.rec_rate == p.min_rate &&
	      s.rate == p.min_rate, "recRate 1: clamped %u rec %u rate %u",
	      s.clamped, s.rec_rate, s.rate);
	/* the bounds themselves are sane */
	pcn_rp_on_cnp(&s, &p, true, p.min_rate);
	pcn_rp_on_cnp(&s, &p, false, LINE);
	CHECK(s.clamped == 2, "bounds counted: clamped %u", s.clamped);
}

/* Feed @n packets of @bytes, @nce of them CE, spread over the period. */
static bool np_period(struct pcn_np *s, u64 t0, u32 n, u32 nce, u32 bytes,
		      struct pcn_cnp *c)
{
	u32 i;

	for (i = 0; i < n; i++)
		pcn_np_on_rx(s, bytes, i < nce, t0 + i * (40 * US / n));
	return pcn_np_period_end(s, &np_default, t0 + 50 * US, c);
}

/* Figure 8's 95% rule: ECN only when strictly more than 95% are CE. */
TEST(test_ecn_rule)
{
	struct pcn_np_params p = np_default;
	struct pcn_cnp c;
	struct pcn_np s;
	bool sent;
	u64 t = 1000 * US;
	u32 i;

	pcn_np_init(&s);
	sent = np_period(&s, t, 20, 19, 1000, &c);
	CHECK(sent && !c.ecn, "19/20 CE (95%%): sent %d ecn %d", sent, c.ecn);
	t += 50 * US;
	sent = np_period(&s, t, 20, 20, 1000, &c);
	CHECK(sent && c.ecn, "20/20 CE: sent %d ecn %d", sent, c.ecn);
	t += 50 * US;
	sent = np_period(&s, t, 100, 95, 1000, &c);
	CHECK(sent && !c.ecn, "95/100 CE: ecn %d", c.ecn);
	t += 50 * US;
	sent = np_period(&s, t, 100, 96, 1000, &c);
	CHECK(sent && c.ecn, "96/100 CE: ecn %d", c.ecn);
	t += 50 * US;
	sent = np_period(&s, t, 100, 0, 1000, &c);
	CHECK(sent && !c.ecn, "0/100 CE: ecn %d", c.ecn);
	/* the knob: 50% */
	p.ecn_threshold_pct = 50;
	t += 50 * US;
	for (i = 0; i < 10; i++)
		pcn_np_on_rx(&s, 1000, i < 5, t + i * US);
	sent = pcn_np_period_end(&s, &p, t + 50 * US, &c);
	CHECK(sent && !c.ecn, "5/10 CE at 50%%: ecn %d", c.ecn);
	t += 50 * US;
	for (i = 0; i < 10; i++)
		pcn_np_on_rx(&s, 1000, i < 6, t + i * US);
	sent = pcn_np_period_end(&s, &p, t + 50 * US, &c);
	CHECK(sent && c.ecn, "6/10 CE at 50%%: ecn %d", c.ecn);
}

/* recRate: bytes over the period, or one packet over its gap. */
TEST(test_rate_estimate)
{
	struct pcn_cnp c;
	struct pcn_np s;
	u64 t = 1000 * US;
	bool opened, sent;
	u32 i;

	pcn_np_init(&s);
	/*
	 * 10 x 1000 bytes, the first opening the period: 9000 bytes in
	 * 50 us = 1.44 Gb/s (the opening packet was sent before the period)
	 */
	opened = pcn_np_on_rx(&s, 1000, false, t);
	CHECK(opened && s.running, "first packet opens a period");
	for (i = 1; i < 10; i++)
		pcn_np_on_rx(&s, 1000, false, t + i * 4 * US);
	sent = pcn_np_period_end(&s, &np_default, t + 50 * US, &c);
	CHECK(sent && c.rec_rate == 1440000,
	      "10 packets: recRate %u, want 1440000", c.rec_rate);
	CHECK(s.running, "a period with packets re-arms");
	/* a late timer: the rate is over the time that really passed */
	pcn_np_on_rx(&s, 1000, false, t + 60 * US);
	pcn_np_on_rx(&s, 1000, false, t + 70 * US);
	sent = pcn_np_period_end(&s, &np_default, t + 150 * US, &c);
	CHECK(sent && c.rec_rate == 160000,
	      "2 packets in 100 us: recRate %u, want 160000", c.rec_rate);
	/*
	 * one packet, 90 us after the previous: 1000 B / 90 us = 88.9 Mb/s
	 * (not 1000 B over the 50 us period, 160 Mb/s)
	 */
	pcn_np_on_rx(&s, 1000, true, t + 160 * US);
	sent = pcn_np_period_end(&s, &np_default, t + 200 * US, &c);
	CHECK(sent && c.rec_rate == 88888 && c.ecn,
	      "single packet: recRate %u, want 88888; ecn %d", c.rec_rate,
	      c.ecn);
	/* one packet 70 us after the previous (periods running) */
	pcn_np_on_rx(&s, 4096, false, t + 230 * US);
	sent = pcn_np_period_end(&s, &np_default, t + 250 * US, &c);
	CHECK(sent && c.rec_rate == 468114,
	      "single packet after 70 us: recRate %u, want 468114",
	      c.rec_rate);
}

/* No packets in a period: no CNP, the periods stop, restart on a packet. */
TEST(test_no_packets)
{
	struct pcn_cnp c = { .ecn = true, .rec_rate = 7 };
	struct pcn_np s;
	u64 t = 1000 * US;
	bool sent, opened;

	pcn_np_init(&s);
	sent = pcn_np_period_end(&s, &np_default, t, &c);
	CHECK(!sent && !s.running, "idle NP: sent %d", sent);
	pcn_np_on_rx(&s, 1000, false, t);
	sent = pcn_np_period_end(&s, &np_default, t + 50 * US, &c);
	CHECK(sent && s.running, "period with a packet: sent %d", sent);
	/* first packet ever: no predecessor, 1000 B over 50 us */
	CHECK(c.rec_rate == 160000, "lone first packet: recRate %u",
	      c.rec_rate);
	c.rec_rate = 7;
	sent = pcn_np_period_end(&s, &np_default, t + 100 * US, &c);
	CHECK(!sent && !s.running && c.rec_rate == 7,
	      "empty period: sent %d running %d", sent, s.running);
	/*
	 * a packet 150 us after the previous, two empty periods between:
	 * it opens a new period and its rate is over the whole gap,
	 * 1000 B / 150 us = 53.3 Mb/s (not 160 Mb/s over T)
	 */
	opened = pcn_np_on_rx(&s, 1000, false, t + 150 * US);
	CHECK(opened && s.gap == 150 * US, "reopen: opened %d gap %llu",
	      opened, (unsigned long long)s.gap);
	sent = pcn_np_period_end(&s, &np_default, t + 200 * US, &c);
	CHECK(sent && c.rec_rate == 53333,
	      "packet after two empty periods: recRate %u, want 53333",
	      c.rec_rate);
	/* long idle: the gap counts up to PCN_NP_GAP_PERIODS periods */
	sent = pcn_np_period_end(&s, &np_default, t + 250 * US, &c);
	CHECK(!sent && !s.running, "empty period after the lone packet");
	pcn_np_on_rx(&s, 1000, false, t + 1000000 * US);
	sent = pcn_np_period_end(&s, &np_default, t + 1000050 * US, &c);
	CHECK(sent && c.rec_rate == 1000 * 8 * 1000 /
	      (PCN_NP_GAP_PERIODS * 50),
	      "packet after 1 s idle: recRate %u, want %u", c.rec_rate,
	      1000 * 8 * 1000 / (PCN_NP_GAP_PERIODS * 50));
}

/*
 * Flows slower than one packet per period, at the paper's scale (40 Gb/s,
 * T = 50 us, 1500 B) and the guest's (40 Mb/s, T = 13.1 ms, 4096 B): each
 * lone packet reports its size over the real inter-arrival time, within
 * 1 %, for gaps of 2 to PCN_NP_GAP_PERIODS periods.
 */
TEST(test_slow_flows)
{
	static const struct {
		u32 period_us, bytes;
	} sc[] = { { 50, 1500 }, { 13107, 4096 } };
	static const u32 gaps[] = { 2, 3, 6, 24, PCN_NP_GAP_PERIODS };
	unsigned int i, j, k;

	for (i = 0; i < ARRAY_SIZE(sc); i++) {
		struct pcn_np_params p = np_default;
		u64 period = (u64)sc[i].period_us * US;

		p.period_ns = sc[i].period_us * 1000;
		for (j = 0; j < ARRAY_SIZE(gaps); j++) {
			u64 gap = gaps[j] * period + period / 3;
			u64 want, t = 1000 * US;
			struct pcn_cnp c;
			struct pcn_np s;
			u32 rates = 0;

			if (gaps[j] == PCN_NP_GAP_PERIODS)
				gap = gaps[j] * period;
			want = (u64)sc[i].bytes * 8 * 1000000 / gap;
			pcn_np_init(&s);
			pcn_np_on_rx(&s, sc[i].bytes, true, t);
			for (k = 0; k < 8; k++) {
				u64 at = t + (k + 1) * gap, pe;

				/* the periods until the gap ran out */
				for (pe = t + k * gap + period; pe < at;
				     pe += period)
					pcn_np_period_end(&s, &p, pe, &c);
				CHECK(!s.running, "idle before packet %u", k);
				pcn_np_on_rx(&s, sc[i].bytes, true, at);
				if (!pcn_np_period_end(&s, &p, at + period, &c))
					continue;
				rates++;
				CHECK(c.rec_rate * 100ULL >= want * 99 &&
				      c.rec_rate * 100ULL <= want * 101,
				      "T %u us, gap %u and 1/3 T: recRate %u, want %llu",
				      sc[i].period_us, gaps[j], c.rec_rate,
				      (unsigned long long)want);
			}
			CHECK(rates == 8, "T %u us gap %u: %u CNPs",
			      sc[i].period_us, gaps[j], rates);
		}
	}
}

TEST(test_cnp_codec)
{
	static const u32 rates[] = { 1, 1000, 100000, 40000000, 0xdeadbeef,
				     0xffffffff };
	struct pcn_cnp in, out;
	u8 b[PCN_CNP_BYTES];
	enum pcn_cnp_err e;
	unsigned int i;

	for (i = 0; i < 2 * ARRAY_SIZE(rates); i++) {
		in.ecn = i & 1;
		in.rec_rate = rates[i / 2];
		pcn_cnp_encode(&in, b);
		memset(&out, 0, sizeof(out));
		e = pcn_cnp_decode(b, &out);
		CHECK(e == PCN_CNP_OK && out.ecn == in.ecn &&
		      out.rec_rate == in.rec_rate,
		      "round trip %u/%d: err %d got %u/%d", in.rec_rate,
		      in.ecn, e, out.rec_rate, out.ecn);
	}
	in.ecn = true;
	in.rec_rate = 0x01020304;
	pcn_cnp_encode(&in, b);
	CHECK(b[0] == PCN_CNP_MAGIC && b[1] == 1 && b[4] == 1 && b[5] == 2 &&
	      b[6] == 3 && b[7] == 4 && !b[2] && !b[3] && !b[15],
	      "layout %02x %02x %02x%02x%02x%02x", b[0], b[1], b[4], b[5],
	      b[6], b[7]);
	/* rejections */
	memset(b, 0, sizeof(b));
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_BAD_MAGIC,
	      "all-zero (a DCQCN CNP) rejected");
	pcn_cnp_encode(&in, b);
	b[0] ^= 1;
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_BAD_MAGIC, "bad magic");
	pcn_cnp_encode(&in, b);
	b[1] |= 0x80;
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_BAD_FLAGS, "bad flags");
	pcn_cnp_encode(&in, b);
	b[3] = 1;
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_BAD_RSVD, "rsvd byte 3");
	pcn_cnp_encode(&in, b);
	b[12] = 0x40;
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_BAD_RSVD, "rsvd byte 12");
	in.rec_rate = 0;
	pcn_cnp_encode(&in, b);
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_BAD_RATE,
	      "ECN with recRate 0");
	in.ecn = false;
	pcn_cnp_encode(&in, b);
	CHECK(pcn_cnp_decode(b, &out) == PCN_CNP_OK && !out.ecn,
	      "increase with recRate 0 is valid");
}

TEST(test_rate_kbps)
{
	CHECK(pcn_rate_kbps(1000, 50 * US) == 160000, "1000 B / 50 us");
	CHECK(pcn_rate_kbps(1, 1000000000ULL) == 1, "tiny rate floors at 1");
	CHECK(pcn_rate_kbps(1000, 0) == 0xffffffffU, "0 ns saturates");
	CHECK(pcn_rate_kbps(1ULL << 40, 1) == 0xffffffffU, "huge saturates");
}


/*
 * Defaults from the line rate and the base RTT (pcn_sm_auto): T = 50 us
 * and a 1 Mb/s floor at 40 Gb/s with a 50 us RTT (the paper's), T at least
 * 16 packets at line rate at guest rates.
 */
TEST(test_auto)
{
	static const struct { u32 line, rtt, mtu, period, min; } c[] = {
		/* the floor: one packet per 10 RTT, 16384 kb/s at 50 us */
		{ PCN_REF_LINE_KBPS, PCN_REF_RTT_US, 1024, 50, 16384 },
		{ PCN_REF_LINE_KBPS, PCN_REF_RTT_US, 4096, 50, 65536 },
		{ PCN_REF_LINE_KBPS, 5000, 1024, 5000, 1000 },
		{ 10000000, 50, 1024, 50, 16384 },
		/* 16 KB at 40 Mb/s: 3.28 ms; at 10 Mb/s 13.1 ms */
		{ 40000, 50, 1024, 3276, 16384 },
		{ 40000, 2000, 1024, 3276, 409 },
		{ 40000, 5000, 1024, 5000, 163 },
		{ 10000, 50, 1024, 13107, 16384 },
		{ 10000, 2000, 1024, 13107, 409 },
		{ 1, 1, 0, 1, 1 },
		{ U32_MAX, 1000000, 1024, 1000000, U32_MAX / 40000 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct pcn_auto a;
		double pk = 16.0 * c[i].mtu * 8 * 1000 / c[i].line;

		pcn_sm_auto(&a, c[i].line, c[i].rtt, c[i].mtu);
		CHECK(a.period_us == c[i].period && a.min_rate == c[i].min,
		      "%u kb/s %u us: T %u us min %u, want %u us %u",
		      c[i].line, c[i].rtt, a.period_us, a.min_rate,
		      c[i].period, c[i].min);
		CHECK(a.min_rate == (u32)fmax(fmax(floor(c[i].line / 40000.0), 1),
					     floor(c[i].mtu * 800.0 / c[i].rtt)),
		      "%u kb/s %u us: floor %u, rule", c[i].line, c[i].rtt,
		      a.min_rate);
		/* the rule, independently: max(RTT, 16 packets), <= 1 s */
		CHECK(a.period_us == (u32)fmin(fmax(c[i].rtt, floor(pk)), 1e6),
		      "%u kb/s %u us: T %u us, rule %.1f", c[i].line,
		      c[i].rtt, a.period_us, fmax(c[i].rtt, pk));
	}
}

TEST_HARNESS_MAIN
