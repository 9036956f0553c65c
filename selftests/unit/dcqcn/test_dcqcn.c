// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rxe_cc/dcqcn_sm.c against the paper's formulas
 * (SIGCOMM'15 eq. (1)-(4), Figure 7), each expected value computed here
 * in double precision.  Tolerances: rates within 2 kb/s + 1e-6 relative
 * (the machine rounds fast recovery up by at most 1 kb/s per step),
 * alpha within 2e-5 (2^-20 rounding per update).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcqcn_sm.h"
#include "paper.h"
#include "../check.h"

#define US 1000ULL
#define LINE 40000000U		/* 40 Gb/s in kb/s */


static int rate_ok(u32 got, double want)
{
	return fabs(got - want) <= 2.0 + 1e-6 * want;
}

static double alpha_d(const struct dcqcn_sm *s)
{
	return (double)s->alpha / DCQCN_ALPHA_ONE;
}

#define CHECK_RATE(got, want, what) \
	CHECK(rate_ok(got, want), "%s = %u, want %.1f", what, got, (double)(want))
#define CHECK_ALPHA(s, want) \
	CHECK(fabs(alpha_d(s) - (want)) <= 2e-5, "alpha = %.7f, want %.7f", \
	      alpha_d(s), (double)(want))

/* The paper's datacenter settings (Fig. 14) at 40 Gb/s. */
static struct dcqcn_params paper(void)
{
	return dcqcn_paper(LINE, 1000, 40000, 50000, 55 * US);
}

/* Independent double-precision reference of Figure 7. */
struct ref {
	double rc, rt, alpha, g, line, ai, hai;
	int t, bc, f;
};

static void ref_init(struct ref *r, const struct dcqcn_params *p)
{
	memset(r, 0, sizeof(*r));
	r->rc = r->rt = r->line = p->line_rate;
	r->alpha = p->initial_alpha / 1024.0;
	r->g = (1024.0 - p->g) / 1024.0;
	r->ai = p->ai_rate;
	r->hai = p->hai_rate;
	r->f = p->threshold;
}

static void ref_cnp(struct ref *r)
{
	r->rt = r->rc;
	r->rc = r->rc * (1 - r->alpha / 2);
	r->alpha = (1 - r->g) * r->alpha + r->g;
	r->t = r->bc = 0;
}

static void ref_increase(struct ref *r)
{
	int hi = r->t > r->bc ? r->t : r->bc;
	int lo = r->t < r->bc ? r->t : r->bc;

	if (hi <= r->f) {
		r->rc = (r->rt + r->rc) / 2;
		return;
	}
	if (lo > r->f)
		r->rt += (lo - r->f) * r->hai;
	else
		r->rt += r->ai;
	if (r->rt > r->line)
		r->rt = r->line;
	r->rc = (r->rt + r->rc) / 2;
}

TEST(test_init)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;

	dcqcn_sm_init(&s, &p);
	CHECK(s.rc == LINE && s.rt == LINE, "starts at line rate");
	CHECK(s.alpha == DCQCN_ALPHA_ONE, "initial alpha 1");
	CHECK(dcqcn_sm_next_event(&s) == 0, "no timer before a CNP");
	CHECK(!dcqcn_sm_on_sent(&s, &p, 1 << 30), "no byte counter at line rate");
}

/* Eq. (1): R_T = R_C, R_C *= 1 - alpha/2, alpha = (1-g) alpha + g. */
TEST(test_cnp_decrease_alpha)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	struct ref r;
	u64 now = 1000 * US;
	int k;

	p.time_reset_ns = 0;	/* only alpha moves between CNPs */
	dcqcn_sm_init(&s, &p);
	ref_init(&r, &p);
	CHECK(dcqcn_sm_on_cnp(&s, &p, now), "first CNP changes the rate");
	ref_cnp(&r);
	CHECK_RATE(s.rc, LINE / 2.0, "rc after first CNP (alpha 1)");
	CHECK(s.rt == LINE, "rt = old rc");
	CHECK_ALPHA(&s, 1.0);
	CHECK(s.alpha_at == now + 55 * US, "alpha timer restarted");

	/* 100 alpha periods without CNP: alpha = (1-g)^100 */
	for (k = 1; k <= 100; k++) {
		dcqcn_sm_on_timer(&s, &p, now + k * 55 * US);
		r.alpha *= 1 - r.g;
	}
	CHECK_ALPHA(&s, pow(1 - 4 / 1024.0, 100));
	CHECK_ALPHA(&s, r.alpha);

	now += 100 * 55 * US + 10 * US;
	{
		double rc0 = s.rc, a0 = alpha_d(&s);

		dcqcn_sm_on_cnp(&s, &p, now);
		CHECK(s.rt == (u32)rc0, "rt = rc before the cut");
		CHECK_RATE(s.rc, rc0 * (1 - a0 / 2), "rc after CNP");
		CHECK_ALPHA(&s, (1 - 4 / 1024.0) * a0 + 4 / 1024.0);
	}
}

/* Eq. (2): alpha = (1-g) alpha every K without CNP; a CNP restarts K. */
TEST(test_alpha_decay)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	u64 t0 = 5 * US;
	double a = 1.0, g = 4 / 1024.0;
	int k;

	p.alpha_period_ns = 40 * US;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, t0);
	dcqcn_sm_on_timer(&s, &p, t0 + 39 * US);
	CHECK_ALPHA(&s, 1.0);	/* not yet a full period */
	for (k = 1; k <= 1000; k++) {
		dcqcn_sm_on_timer(&s, &p, t0 + k * 40 * US);
		a *= 1 - g;
	}
	CHECK_ALPHA(&s, a);
	/* a CNP in the middle of a period restarts the alpha timer */
	dcqcn_sm_on_cnp(&s, &p, t0 + 1000 * 40 * US + 7 * US);
	a = (1 - g) * a + g;
	CHECK_ALPHA(&s, a);
	CHECK(s.alpha_at == t0 + 1000 * 40 * US + 47 * US, "alpha timer reset");
	/* a late timer catches up every missed period */
	dcqcn_sm_on_timer(&s, &p, s.alpha_at + 9 * 40 * US);
	CHECK_ALPHA(&s, a * pow(1 - g, 10));
	/* g = 1/256 as dce_tcp_g = 1020; mlx5's default 1019 is g = 5/1024 */
	p.g = 1019;
	dcqcn_sm_on_cnp(&s, &p, 1000000 * US);
	CHECK_ALPHA(&s, (1019 / 1024.0) * a * pow(1 - g, 10) + 5 / 1024.0);
}

/* Eq. (3): five fast-recovery steps halve the distance to R_T. */
TEST(test_fast_recovery)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	u64 t0 = 100 * US;
	double rt, dist;
	int k;

	p.byte_reset = 0;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, t0);
	rt = s.rt;
	dist = rt - s.rc;
	CHECK_RATE(s.rc, LINE / 2.0, "cut to half");
	for (k = 1; k <= 5; k++) {
		CHECK(dcqcn_sm_next_event(&s) == t0 + k * 55 * US,
		      "timer event %d at T intervals", k);
		dcqcn_sm_on_timer(&s, &p, t0 + k * 55 * US);
		dist /= 2;
		CHECK(s.last_event == DCQCN_EV_FAST_RECOVERY, "step %d is FR", k);
		CHECK(s.rt == (u32)rt, "R_T fixed in fast recovery");
		CHECK_RATE(s.rc, rt - dist, "rc after fast-recovery step");
		CHECK(s.t == (u32)k, "T = %d", k);
	}
	dcqcn_sm_on_timer(&s, &p, t0 + 6 * 55 * US);
	CHECK(s.last_event == DCQCN_EV_ADDITIVE, "step 6 is additive");
}

/* Eq. (4) and hyper increase, event by event against the reference. */
TEST(test_additive_hyper)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	struct ref r;
	u64 now = 10 * US;
	int k, nai = 0, nhai = 0;

	p.time_reset_ns = 1000 * US;	/* the test drives both counters */
	p.alpha_period_ns = 0;
	p.byte_reset = 1000000;
	dcqcn_sm_init(&s, &p);
	ref_init(&r, &p);
	dcqcn_sm_on_cnp(&s, &p, now);
	ref_cnp(&r);
	dcqcn_sm_on_cnp(&s, &p, now);	/* alpha 1: rc = line / 4 */
	ref_cnp(&r);
	for (k = 1; k <= 30; k++) {
		double rt0 = r.rt;

		/* byte counter: B bytes in 1000-byte packets */
		for (int i = 0; i < 1000; i++)
			dcqcn_sm_on_sent(&s, &p, 1000);
		r.bc++;
		ref_increase(&r);
		CHECK_RATE(s.rc, r.rc, "rc after BC event");
		CHECK_RATE(s.rt, r.rt, "rt after BC event");
		now += 1000 * US;
		dcqcn_sm_on_timer(&s, &p, now);
		r.t++;
		ref_increase(&r);
		CHECK_RATE(s.rc, r.rc, "rc after T event");
		CHECK_RATE(s.rt, r.rt, "rt after T event");
		if (s.last_event == DCQCN_EV_ADDITIVE) {
			nai++;
			CHECK_RATE(s.rt, rt0 + 40000, "R_T += R_AI");
		}
		if (s.last_event == DCQCN_EV_HYPER) {
			nhai++;
			/*
			 * the BC event saw BC = k, T = k - 1 (additive
			 * until k - 1 > F), the T event BC = T = k
			 */
			double want = rt0 + (k - 5) * 50000.0 +
				(k - 1 > 5 ? (k - 6) * 50000.0 : 40000.0);

			CHECK_RATE(s.rt, fmin(want, LINE), "R_T += i * R_HAI");
		}
	}
	CHECK(nai == 0 && nhai == 25, "ai %d hyper %d with T = BC", nai, nhai);

	/* additive: only T passes F while BC stays below */
	dcqcn_sm_on_cnp(&s, &p, now);
	ref_cnp(&r);
	dcqcn_sm_on_cnp(&s, &p, now);
	ref_cnp(&r);
	nai = 0;
	for (k = 1; k <= 12; k++) {
		double rt0 = s.rt;

		now += 1000 * US;
		dcqcn_sm_on_timer(&s, &p, now);
		r.t++;
		ref_increase(&r);
		CHECK_RATE(s.rc, r.rc, "rc (T only)");
		if (k > 5) {
			nai += s.last_event == DCQCN_EV_ADDITIVE;
			CHECK_RATE(s.rt, rt0 + 40000, "R_T += R_AI");
		}
	}
	CHECK(nai == 7, "additive steps %d", nai);
}

/* Recovery from the timer alone and from the byte counter alone. */
TEST(test_single_source_recovery)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	struct ref r;
	u64 now = 0;
	int n = 0;

	p.byte_reset = 0;
	p.alpha_period_ns = 0;
	dcqcn_sm_init(&s, &p);
	ref_init(&r, &p);
	dcqcn_sm_on_cnp(&s, &p, 1);
	ref_cnp(&r);
	CHECK(!dcqcn_sm_on_sent(&s, &p, 1 << 30), "byte counter off");
	while (dcqcn_sm_next_event(&s) && n < 100000) {
		now = dcqcn_sm_next_event(&s);
		dcqcn_sm_on_timer(&s, &p, now);
		r.t++;
		ref_increase(&r);
		n++;
		if (!rate_ok(s.rc, r.rc))
			break;
	}
	CHECK_RATE(s.rc, r.rc, "timer-only recovery follows the reference");
	CHECK(s.rc == LINE && s.bc == 0, "timer-only: back at line rate, BC 0");
	CHECK(n > 5 && n < 100000, "timer-only events %d", n);
	CHECK(s.inc_at == 0, "timer stops at line rate");

	p = paper();
	p.time_reset_ns = 0;
	p.alpha_period_ns = 0;
	p.byte_reset = 64 * 1024;
	dcqcn_sm_init(&s, &p);
	ref_init(&r, &p);
	dcqcn_sm_on_cnp(&s, &p, 1);
	ref_cnp(&r);
	CHECK(dcqcn_sm_next_event(&s) == 0, "no timer when T is off");
	n = 0;
	while (s.rc < LINE && n < 10000000) {
		u32 bc = s.bc;

		dcqcn_sm_on_sent(&s, &p, 1024);
		n++;
		if (s.bc != bc) {
			r.bc++;
			ref_increase(&r);
			if (!rate_ok(s.rc, r.rc))
				break;
		}
	}
	CHECK_RATE(s.rc, r.rc, "byte-only recovery follows the reference");
	CHECK(s.rc == LINE && s.t == 0, "byte-only: line rate, T 0");
	CHECK(s.bc == (u32)n / 64, "BC = bytes / B (%u, %d packets)", s.bc, n);
}

TEST(test_min_rate_floor)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	int k;

	p.min_rate = 123456;
	dcqcn_sm_init(&s, &p);
	for (k = 0; k < 40; k++) {
		dcqcn_sm_on_cnp(&s, &p, k * US);
		CHECK(s.rc >= p.min_rate, "rc %u above floor", s.rc);
	}
	CHECK(s.rc == p.min_rate, "rc = rpg_min_rate after many CNPs (%u)",
	      s.rc);

	/* rpg_min_dec_fac: at most (100 - fac)% off per CNP */
	p = paper();
	p.min_dec_fac = 80;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, 0);
	CHECK_RATE(s.rc, LINE * 0.8, "min_dec_fac 80 bounds the cut");
	p.min_dec_fac = 100;
	dcqcn_sm_on_cnp(&s, &p, 1);
	CHECK_RATE(s.rc, LINE * 0.8, "min_dec_fac 100: no cut");
}

TEST(test_line_rate_ceiling)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	u64 now = 0;
	int k;

	p.hai_rate = 10000000;	/* huge steps */
	p.ai_rate = 5000000;
	p.byte_reset = 1000;
	p.time_reset_ns = 1000;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, 0);
	for (k = 0; k < 200 && s.rc < LINE; k++) {
		dcqcn_sm_on_sent(&s, &p, 1000);
		now += 1000;
		dcqcn_sm_on_timer(&s, &p, now);
		CHECK(s.rt <= LINE && s.rc <= s.rt, "rt %u rc %u", s.rt, s.rc);
	}
	CHECK(s.rc == LINE && s.rt == LINE, "capped at line rate");
	CHECK(s.inc_at == 0, "increase timer stopped at line rate");
	CHECK(!dcqcn_sm_on_sent(&s, &p, 100000), "no increase past line rate");
}

TEST(test_first_cnp_and_clamp)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;

	p.first_cnp_rate = 7000000;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, 0);
	CHECK(s.rc == 7000000 && s.rt == 7000000,
	      "rate_to_set_on_first_cnp sets R_C and R_T");
	CHECK(s.last_event == DCQCN_EV_FIRST_CNP, "first-CNP event");
	dcqcn_sm_on_cnp(&s, &p, 1);
	CHECK_RATE(s.rc, 3500000, "second CNP cuts as usual");
	CHECK(s.rt == 7000000, "second CNP: R_T = R_C");

	/* clamp_tgt_rate 0: back-to-back CNPs keep the first target */
	p = paper();
	p.clamp_tgt_rate = 0;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, 0);
	dcqcn_sm_on_cnp(&s, &p, 1);
	CHECK(s.rt == LINE, "clamp 0: R_T kept (%u)", s.rt);
	CHECK_RATE(s.rc, LINE / 4.0, "clamp 0: R_C still cut");
	dcqcn_sm_on_timer(&s, &p, 1 + 55 * US);	/* an increase */
	dcqcn_sm_on_cnp(&s, &p, 2 + 55 * US);
	CHECK(s.rt < LINE, "clamp 0: R_T = R_C after an increase");
	p.clamp_tgt_rate = 1;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, 0);
	dcqcn_sm_on_cnp(&s, &p, 1);
	CHECK_RATE(s.rt, LINE / 2.0, "clamp 1: R_T = R_C on every CNP");
}

/*
 * The byte counter with B near U32_MAX: B - 1 bytes and then one packet
 * make one BC event (a u32 sum of the two would wrap and lose it), and
 * the packet's remainder counts toward the next.
 */
TEST(test_byte_reset_near_max)
{
	struct dcqcn_params p = paper();
	struct dcqcn_sm s;
	u64 now = 1000 * US;

	p.time_reset_ns = 0;		/* only the byte counter */
	p.byte_reset = 0xffffff00U;
	dcqcn_sm_init(&s, &p);
	dcqcn_sm_on_cnp(&s, &p, now);
	dcqcn_sm_on_sent(&s, &p, p.byte_reset - 1);
	CHECK(s.bc == 0, "BC = %u after B - 1 bytes, want 0", s.bc);
	dcqcn_sm_on_sent(&s, &p, 4096);
	CHECK(s.bc == 1, "BC = %u after B + 4095 bytes, want 1", s.bc);
	CHECK(s.bytes == 4095, "byte counter %u after the event, want 4095",
	      s.bytes);
	dcqcn_sm_on_sent(&s, &p, 0xffffffffU);
	CHECK(s.bc == 2, "BC = %u after another U32_MAX bytes, want 2", s.bc);
	CHECK(s.bytes == 4095 + 0xffffffffU - p.byte_reset,
	      "byte counter %u, want %u", s.bytes,
	      4095 + 0xffffffffU - p.byte_reset);
}


/*
 * Defaults from the line rate and the base RTT (dcqcn_sm_auto): the
 * paper's values at 40 Gb/s with a 50 us RTT and N = 50 us, and the rule
 * (rates proportional to the line rate, times to the RTT, B to the BDP)
 * computed here in double precision at guest rates.
 */
static void check_auto(struct __test_metadata *_metadata, u32 line, u32 rtt,
		       u32 cnp)
{
	struct dcqcn_auto a;
	double l = line, r = rtt, bdp = l * r / 40e6 / 50;
	double k = 1.1 * (rtt > cnp ? rtt : cnp);
	/* one 1024-byte packet per 10 RTT, in kb/s */
	double pkt = floor(1024.0 * 8 * 1000 / (10 * r));

	if (k < cnp + 1)
		k = cnp + 1;
	dcqcn_sm_auto(&a, line, rtt, cnp, 1024);
	CHECK(a.time_reset_us == (u32)(1.1 * r + 1e-9),
	      "%u kb/s %u us: T = %u us, want %.1f", line, rtt,
	      a.time_reset_us, 1.1 * r);
	CHECK(a.alpha_period_us == (u32)(k + 1e-9),
	      "%u kb/s %u us N %u: K = %u us, want %.1f", line, rtt, cnp,
	      a.alpha_period_us, k);
	CHECK(a.alpha_period_us > cnp, "K = %u us not > N = %u us",
	      a.alpha_period_us, cnp);
	CHECK(fabs(a.byte_reset - fmax(10485760.0 * bdp, 1)) <= 1,
	      "%u kb/s %u us: B = %u, want %.1f", line, rtt, a.byte_reset,
	      10485760.0 * bdp);
	CHECK(a.ai_rate == (u32)fmax(floor(l / 1000), 1),
	      "%u kb/s: R_AI = %u", line, a.ai_rate);
	CHECK(a.hai_rate == (u32)fmax(floor(l / 800), 1),
	      "%u kb/s: R_HAI = %u", line, a.hai_rate);
	CHECK(a.min_rate == (u32)fmax(fmax(floor(l / 40000), 1), pkt),
	      "%u kb/s %u us: min rate = %u", line, rtt, a.min_rate);
	/* a packet at the floor holds the QP at most 10 RTT */
	CHECK(1024.0 * 8 * 1000 / a.min_rate <= 10.0 * r * 1.001,
	      "%u kb/s %u us: a packet at the floor takes %.0f us", line, rtt,
	      1024.0 * 8 * 1000 / a.min_rate);
}

TEST(test_auto)
{
	struct dcqcn_auto a;
	struct dcqcn_params p = paper();

	/* the 40 Gb/s row is the paper's (and these tests') settings */
	dcqcn_sm_auto(&a, DCQCN_REF_LINE_KBPS, DCQCN_REF_RTT_US, 50, 1024);
	CHECK(a.time_reset_us * US == p.time_reset_ns, "T = %u us, want 55",
	      a.time_reset_us);
	CHECK(a.alpha_period_us * US == p.alpha_period_ns,
	      "K = %u us, want 55", a.alpha_period_us);
	CHECK(a.byte_reset == p.byte_reset, "B = %u, want 10 MiB",
	      a.byte_reset);
	CHECK(a.ai_rate == p.ai_rate, "R_AI = %u, want 40000", a.ai_rate);
	CHECK(a.hai_rate == p.hai_rate, "R_HAI = %u, want 50000",
	      a.hai_rate);
	/* not mlx5's 1 Mb/s: one packet per 10 RTT (dcqcn_sm_auto_min_rate) */
	CHECK(a.min_rate == 16384, "min rate = %u, want 16384", a.min_rate);

	/* 40 Mb/s and 10 Mb/s at the paper's RTT and the guests' */
	dcqcn_sm_auto(&a, 40000, 2000, 2000, 1024);
	CHECK(a.time_reset_us == 2200 && a.alpha_period_us == 2200 &&
	      a.byte_reset == 419430 && a.ai_rate == 40 &&
	      a.hai_rate == 50 && a.min_rate == 409,
	      "40 Mb/s 2 ms: T %u K %u B %u R_AI %u R_HAI %u min %u",
	      a.time_reset_us, a.alpha_period_us, a.byte_reset, a.ai_rate,
	      a.hai_rate, a.min_rate);
	check_auto(_metadata, 40000, 50, 50);
	check_auto(_metadata, 40000, 1000, 1000);
	check_auto(_metadata, 10000, 50, 50);
	check_auto(_metadata, 10000, 1000, 1000);
	check_auto(_metadata, 10000000, 50, 50);
	/* K > N whatever N is: a user's N above 1.1 RTT moves K up */
	check_auto(_metadata, 40000, 1000, 5000);
	check_auto(_metadata, 40000, 1000, 1100);
	check_auto(_metadata, 40000, 10, 10);
	check_auto(_metadata, 40000, 1, 1);
	check_auto(_metadata, 40000, 1000, 0);
	/* the largest inputs: B saturates, nothing wraps */
	dcqcn_sm_auto(&a, U32_MAX, 1000000, 1000000, 65536);
	CHECK(a.byte_reset == U32_MAX && a.alpha_period_us > 1000000 &&
	      a.ai_rate == U32_MAX / 1000,
	      "max inputs: B %u K %u R_AI %u", a.byte_reset,
	      a.alpha_period_us, a.ai_rate);
	dcqcn_sm_auto(&a, 1, 1, 0, 0);
	CHECK(a.time_reset_us >= 1 && a.byte_reset >= 1 && a.ai_rate >= 1 &&
	      a.min_rate >= 1, "min inputs: a zero default");
}

TEST_HARNESS_MAIN
