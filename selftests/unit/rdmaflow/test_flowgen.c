// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/flowgen.c, rdmaflow's workload: the shipped CDFs
 * parse and have the means of their linear segments, inverse-transform
 * sampling reproduces a CDF, Poisson gaps have the mean and the
 * memorylessness they should, bad files are refused with the line, flow
 * files (ours and the HPCC simulator's) parse, and the sender's scheduler
 * queues messages when every QP is busy, splits them into WRs and
 * completes them with their last WR.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flowgen.h"
#include "../check.h"

#define WEBSEARCH DCBLAB_TOP "/data/cdf/WebSearch_distribution.txt"
#define FBHDP DCBLAB_TOP "/data/cdf/FbHdp_distribution.txt"

static int cdf_of(struct fg_cdf *cdf, const char *text, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = fg_cdf_parse(cdf, f, "t.cdf", err);

	fclose(f);
	return r;
}

static int close_to(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b);
}

TEST(shipped_cdfs)
{
	char err[FG_ERRLEN] = "";
	struct fg_cdf c;

	ASSERT_EQ(0, fg_cdf_load(&c, WEBSEARCH, err)) TH_LOG("%s", err);
	CHECK(c.n == 12, "WebSearch: %u points", c.n);
	CHECK(c.prob[c.n - 1] == 1.0, "last probability %g", c.prob[c.n - 1]);
	/* the sum of each segment's mass times its midpoint, by hand */
	CHECK(close_to(fg_cdf_mean(&c), 1711250, 1e-9), "WebSearch mean %.2f",
	      fg_cdf_mean(&c));
	CHECK(fg_cdf_quantile(&c, 0) == 0, "q(0) = %g", fg_cdf_quantile(&c, 0));
	CHECK(close_to(fg_cdf_quantile(&c, 0.15), 10000, 1e-12), "q(.15) = %g",
	      fg_cdf_quantile(&c, 0.15));
	CHECK(close_to(fg_cdf_quantile(&c, 0.175), 15000, 1e-9),
	      "q(.175) = %g", fg_cdf_quantile(&c, 0.175));
	CHECK(close_to(fg_cdf_quantile(&c, 0.985), 2e7, 1e-9), "q(.985) = %g",
	      fg_cdf_quantile(&c, 0.985));
	CHECK(fg_cdf_quantile(&c, 1) == 3e7, "q(1) = %g", fg_cdf_quantile(&c, 1));
	fg_cdf_free(&c);

	ASSERT_EQ(0, fg_cdf_load(&c, FBHDP, err)) TH_LOG("%s", err);
	CHECK(c.n == 20, "FbHdp: %u points", c.n);
	CHECK(close_to(fg_cdf_mean(&c), 120420.75, 1e-9), "FbHdp mean %.2f",
	      fg_cdf_mean(&c));
	CHECK(close_to(fg_cdf_quantile(&c, 0.5), 700, 1e-12), "median %g",
	      fg_cdf_quantile(&c, 0.5));
	fg_cdf_free(&c);
}

TEST(fraction_cdf_and_mass_at_first_point)
{
	char err[FG_ERRLEN] = "";
	struct fg_cdf c;

	ASSERT_EQ(0, cdf_of(&c, "# sizes\n100 0.5\n\n200 1   # end\n", err))
		TH_LOG("%s", err);
	CHECK(fg_cdf_quantile(&c, 0.25) == 100, "q(.25) = %g",
	      fg_cdf_quantile(&c, 0.25));
	CHECK(fg_cdf_quantile(&c, 0.75) == 150, "q(.75) = %g",
	      fg_cdf_quantile(&c, 0.75));
	CHECK(fg_cdf_mean(&c) == 125, "mean %g", fg_cdf_mean(&c));
	fg_cdf_free(&c);
}

TEST(bad_cdfs)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "", "no points" },
		{ "# nothing\n", "no points" },
		{ "10 0\n5 100\n", "t.cdf:2: sizes and probabilities" },
		{ "10 50\n20 40\n30 100\n", "t.cdf:2: sizes and probabilities" },
		{ "10 0\n20 50\n", "last probability is 50" },
		{ "10 0\n20 101\n", "t.cdf:2: bad probability" },
		{ "10 0\nabc 100\n", "t.cdf:2: bad size 'abc'" },
		{ "-5 0\n10 100\n", "t.cdf:1: bad size" },
		{ "10 0 7\n20 100\n", "t.cdf:1: want 'SIZE PROBABILITY'" },
		{ "10\n20 100\n", "t.cdf:1: want 'SIZE PROBABILITY'" },
		{ "0 0\n0 100\n", "every size is 0" },
		{ "10 0\n20 nan\n", "t.cdf:2: bad probability" },
	};
	char err[FG_ERRLEN];
	struct fg_cdf c;

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		CHECK(cdf_of(&c, bad[i].text, err) == -1, "accepted %s",
		      bad[i].text);
		CHECK(strstr(err, bad[i].want) != NULL,
		      "error '%s', want '%s'", err, bad[i].want);
		CHECK(c.n == 0 && !c.size, "case %u left points", i);
	}
	CHECK(fg_cdf_load(&c, "/nonexistent.cdf", err) == -1, "no file");
	CHECK(strstr(err, "No such file") != NULL, "error '%s'", err);
}

/* 200,000 sizes of WebSearch: the empirical CDF at its points, the mean. */
TEST(inverse_transform_sampling)
{
	char err[FG_ERRLEN] = "";
	const int n = 200000;
	unsigned int below10k = 0, below1m = 0, below10m = 0;
	struct fg_cdf c;
	struct fg_rng r;
	double sum = 0, ssum = 0;

	ASSERT_EQ(0, fg_cdf_load(&c, WEBSEARCH, err)) TH_LOG("%s", err);
	fg_rng_seed(&r, 7, 1);
	for (int i = 0; i < n; i++) {
		uint64_t s = fg_size(&c, &r, 1);

		below10k += s <= 10000;
		below1m += s <= 1000000;
		below10m += s <= 10000000;
		sum += s;
	}
	CHECK(fabs(below10k / (double)n - 0.15) < 0.004, "P(<=10 KB) %.4f",
	      below10k / (double)n);
	CHECK(fabs(below1m / (double)n - 0.70) < 0.004, "P(<=1 MB) %.4f",
	      below1m / (double)n);
	CHECK(fabs(below10m / (double)n - 0.97) < 0.002, "P(<=10 MB) %.4f",
	      below10m / (double)n);
	CHECK(close_to(sum / n, 1711250, 0.02), "mean %.0f", sum / n);

	/* scaled by 1/1000: a thousandth of the mean, never below a byte */
	fg_rng_seed(&r, 7, 1);
	for (int i = 0; i < n; i++) {
		uint64_t s = fg_size(&c, &r, 0.001);

		CHECK(s >= 1, "size %llu", (unsigned long long)s);
		ssum += s;
	}
	CHECK(close_to(ssum / n, 1711.25, 0.02), "scaled mean %.1f", ssum / n);
	fg_cdf_free(&c);
}

TEST(streams_are_fixed_by_the_seed)
{
	struct fg_rng a, b, c;
	int same = 1, differ = 0;

	fg_rng_seed(&a, 42, 1);
	fg_rng_seed(&b, 42, 1);
	fg_rng_seed(&c, 42, 2);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = fg_rng_next(&a), z = fg_rng_next(&c);

		same &= x == fg_rng_next(&b);
		differ += x != z;
	}
	CHECK(same, "one seed and stream, two sequences");
	CHECK(differ == 1000, "streams 1 and 2 agree %d times", 1000 - differ);
	for (int i = 0; i < 100000; i++) {
		double u = fg_rng_uniform(&a);
		uint32_t k = fg_rng_below(&a, 3);

		if (u < 0 || u >= 1 || k > 2) {
			CHECK(0, "uniform %g, below(3) %u", u, k);
			break;
		}
	}
}

/*
 * Poisson arrivals at 30 % of 100 Mbit/s with WebSearch's mean: the gap's
 * mean is 1711250 * 8 / 30e6 s; exponential gaps have a coefficient of
 * variation of 1 and P(gap > mean) = 1/e.
 */
TEST(poisson_gaps)
{
	const double mean = fg_mean_gap(1711250, 0.3, 100e6);
	const int n = 200000;
	double sum = 0, sq = 0, cv;
	unsigned int above = 0;
	struct fg_rng r;

	CHECK(close_to(mean, 0.45633333, 1e-6), "mean gap %.8f s", mean);
	fg_rng_seed(&r, 1, 0);
	for (int i = 0; i < n; i++) {
		double g = fg_rng_exp(&r, mean);

		sum += g;
		sq += g * g;
		above += g > mean;
	}
	cv = sqrt(sq / n - (sum / n) * (sum / n)) / (sum / n);
	CHECK(close_to(sum / n, mean, 0.01), "sample mean %.6f, want %.6f",
	      sum / n, mean);
	CHECK(fabs(cv - 1) < 0.02, "coefficient of variation %.4f", cv);
	CHECK(fabs(above / (double)n - exp(-1)) < 0.004, "P(gap > mean) %.4f",
	      above / (double)n);
}

static int flows_of(const char *text, struct fg_flow **v, size_t *n,
		    char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r = fg_flows_parse(f, "t.flows", v, n, err);

	fclose(f);
	return r;
}

TEST(flow_files)
{
	char err[FG_ERRLEN] = "";
	struct fg_flow *v;
	size_t n;

	ASSERT_EQ(0, flows_of("# ours\nh1 h2 1000 0.5\nh1 h3 20 0.25\n"
			      "h2 h1 7 0.25\n", &v, &n, err)) TH_LOG("%s", err);
	ASSERT_EQ(3, n);
	CHECK(v[0].start == 0.25 && !strcmp(v[0].src, "h1") &&
	      !strcmp(v[0].dst, "h3") && v[0].size == 20, "first %s %s %llu %g",
	      v[0].src, v[0].dst, (unsigned long long)v[0].size, v[0].start);
	CHECK(!strcmp(v[1].src, "h2"), "second from %s", v[1].src);
	CHECK(v[2].size == 1000 && v[2].start == 0.5, "last %llu at %g",
	      (unsigned long long)v[2].size, v[2].start);
	free(v);

	/* the HPCC simulator's flow.txt */
	ASSERT_EQ(0, flows_of("2\n0 5 3 100 6000 2.0\n1 5 3 100 350 2.000001\n",
			      &v, &n, err)) TH_LOG("%s", err);
	ASSERT_EQ(2, n);
	CHECK(!strcmp(v[0].dst, "5") && v[0].size == 6000 && v[0].start == 2.0,
	      "HPCC line: %s %llu %g", v[0].dst, (unsigned long long)v[0].size,
	      v[0].start);
	free(v);

	CHECK(flows_of("3\n0 5 3 100 6000 2.0\n", &v, &n, err) == -1,
	      "a short HPCC file accepted");
	CHECK(strstr(err, "says 3 flows, it has 1") != NULL, "error '%s'", err);
	CHECK(flows_of("h1 h2 0 1\n", &v, &n, err) == -1, "size 0 accepted");
	CHECK(strstr(err, "t.flows:1: bad size") != NULL, "error '%s'", err);
	CHECK(flows_of("h1 h2 10 -1\n", &v, &n, err) == -1, "start -1 accepted");
	CHECK(strstr(err, "t.flows:1: bad start time") != NULL, "error '%s'",
	      err);
	CHECK(flows_of("h1 h2 10 1\nh1 h2 10\n", &v, &n, err) == -1,
	      "three fields accepted");
	CHECK(strstr(err, "t.flows:2: want") != NULL, "error '%s'", err);
	CHECK(flows_of("h1 h2 1.5 1\n", &v, &n, err) == -1, "1.5 bytes");
	ASSERT_EQ(0, flows_of("", &v, &n, err));
	CHECK(n == 0, "empty file: %zu flows", n);
	free(v);
}

/*
 * One destination, two QPs, two WRs of at most 100 bytes in flight per QP.
 * Three messages arrive at once: two start, the third waits for a QP and
 * its completion time counts the wait.
 */
TEST(scheduler)
{
	struct fg_sched s;
	uint64_t len;
	long m;
	int last;

	ASSERT_EQ(0, fg_sched_init(&s, 1, 2, 2, 100));
	ASSERT_EQ(0, fg_sched_arrive(&s, 0, 250, 0));
	ASSERT_EQ(1, fg_sched_arrive(&s, 0, 50, 1));
	ASSERT_EQ(2, fg_sched_arrive(&s, 0, 10, 2));
	CHECK(fg_sched_arrive(&s, 1, 10, 2) == -1, "no destination 1");
	CHECK(fg_sched_arrive(&s, 0, 0, 2) == -1, "an empty message");
	CHECK(s.waiting == 3, "waiting %llu", (unsigned long long)s.waiting);

	CHECK(fg_sched_dispatch(&s, 5) == 2, "two QPs, two messages");
	CHECK(s.waiting == 1 && s.active == 2, "waiting %llu active %llu",
	      (unsigned long long)s.waiting, (unsigned long long)s.active);
	CHECK(s.msg[0].qp == 0 && s.msg[1].qp == 1 && s.msg[0].t_post == 5,
	      "qps %u %u, post %lld", s.msg[0].qp, s.msg[1].qp,
	      (long long)s.msg[0].t_post);
	CHECK(s.msg[2].t_post == -1, "the third was posted");

	/* 250 bytes: 100 + 100 in flight, then the window is full */
	ASSERT_EQ(1, fg_sched_next_wr(&s, 0, &len, &last, &m));
	CHECK(len == 100 && !last && m == 0, "wr %llu last %d", (unsigned long long)len, last);
	ASSERT_EQ(1, fg_sched_next_wr(&s, 0, &len, &last, &m));
	CHECK(fg_sched_next_wr(&s, 0, &len, &last, &m) == 0,
	      "a third WR beyond depth 2");
	ASSERT_EQ(1, fg_sched_next_wr(&s, 1, &len, &last, &m));
	CHECK(len == 50 && last && m == 1, "wr %llu last %d msg %ld",
	      (unsigned long long)len, last, m);
	CHECK(fg_sched_next_wr(&s, 1, &len, &last, &m) == 0, "more of msg 1");

	/* message 1 completes: its QP takes message 2, 9 ns after arrival */
	CHECK(fg_sched_complete(&s, 1, 50, 10) == 1, "msg 1 not complete");
	CHECK(s.msg[1].t_done == 10, "t_done %lld", (long long)s.msg[1].t_done);
	CHECK(fg_sched_complete(&s, 1, 10, 10) == -2, "a WR that was not posted");
	CHECK(fg_sched_dispatch(&s, 11) == 1, "msg 2 not dispatched");
	CHECK(s.msg[2].qp == 1 && s.msg[2].t_post == 11, "msg 2 on %u at %lld",
	      s.msg[2].qp, (long long)s.msg[2].t_post);

	/* message 0: a WR completes, the third goes out, is the last */
	CHECK(fg_sched_complete(&s, 0, 100, 12) == -1, "msg 0 complete early");
	ASSERT_EQ(1, fg_sched_next_wr(&s, 0, &len, &last, &m));
	CHECK(len == 50 && last, "tail wr %llu last %d",
	      (unsigned long long)len, last);
	CHECK(fg_sched_complete(&s, 0, 100, 13) == -1, "msg 0 complete early");
	CHECK(fg_sched_complete(&s, 0, 50, 20) == 0, "msg 0 not complete");
	CHECK(s.msg[0].t_done - s.msg[0].t_arr == 20, "fct %lld",
	      (long long)(s.msg[0].t_done - s.msg[0].t_arr));
	ASSERT_EQ(1, fg_sched_next_wr(&s, 1, &len, &last, &m));
	CHECK(fg_sched_complete(&s, 1, 10, 30) == 2, "msg 2 not complete");
	/* its completion time counts its wait for a QP */
	CHECK(s.msg[2].t_done - s.msg[2].t_arr == 28, "fct of msg 2 %lld",
	      (long long)(s.msg[2].t_done - s.msg[2].t_arr));
	CHECK(s.completed == 3 && !s.active && !s.waiting,
	      "completed %llu", (unsigned long long)s.completed);
	CHECK(fg_sched_complete(&s, 0, 1, 31) == -2, "an idle QP completed");
	fg_sched_free(&s);
}

/*
 * Open loop: messages one after the other to one destination take its
 * QPs in turn, and a thousand arrivals while every QP is busy all wait
 * (the scheduler never refuses an arrival) and leave in order.
 */
TEST(scheduler_round_robin_and_fifo)
{
	unsigned int used[4] = { 0 };
	struct fg_sched s;
	uint64_t len;
	long m;
	int last;

	ASSERT_EQ(0, fg_sched_init(&s, 2, 4, 1, 1 << 20));
	for (int i = 0; i < 8; i++) {
		ASSERT_EQ(i, fg_sched_arrive(&s, 1, 1000, i));
		ASSERT_EQ(1, fg_sched_dispatch(&s, i));
		used[s.msg[i].qp]++;
		ASSERT_EQ(1, fg_sched_next_wr(&s, 4 + s.msg[i].qp, &len, &last,
					      &m));
		ASSERT_EQ(i, fg_sched_complete(&s, 4 + s.msg[i].qp, 1000, i));
	}
	CHECK(used[0] == 2 && used[1] == 2 && used[2] == 2 && used[3] == 2,
	      "QPs used %u %u %u %u", used[0], used[1], used[2], used[3]);

	for (int i = 0; i < 1004; i++)
		ASSERT_LE(0, fg_sched_arrive(&s, 0, 10, 100 + i));
	CHECK(fg_sched_dispatch(&s, 2000) == 4, "four QPs");
	CHECK(s.waiting == 1000, "waiting %llu", (unsigned long long)s.waiting);
	for (long i = 8; i < 8 + 1004; i++) {
		uint32_t q = s.msg[i].qp;

		ASSERT_EQ(1, fg_sched_next_wr(&s, q, &len, &last, &m));
		ASSERT_EQ(i, fg_sched_complete(&s, q, 10, 3000 + i));
		fg_sched_dispatch(&s, 3000 + i);
	}
	CHECK(s.completed == 1012 && !s.waiting, "completed %llu",
	      (unsigned long long)s.completed);
	fg_sched_free(&s);
}

TEST_HARNESS_MAIN
