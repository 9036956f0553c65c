// SPDX-License-Identifier: GPL-2.0
/*
 * Discrete-time model of N DCQCN flows through one bottleneck, driving the
 * kernel's rxe_cc/dcqcn_sm.c unchanged.
 *
 * One step is the bottleneck's transmission time of one packet.  Senders
 * are paced at their R_C (credit in bits, at most one packet of burst);
 * a packet is ECN-marked on enqueue with RED on the instantaneous queue
 * (Kmin, Kmax, Pmax; an independent coin per packet from a seeded
 * xorshift); the queue serves one packet per step; the NP (at the
 * dequeue, as in the fluid model the loop delay is lumped) sends at most
 * one CNP per flow per cnp_interval when marked packets arrive, and the
 * CNP reaches the RP a control-loop delay later.  The RP's timers fire at
 * dcqcn_sm_next_event().  Flows start at line rate, staggered.
 *
 * Checks (second half of the run): Jain's index >= 0.95, every flow
 * within 20% of C/N, link utilisation >= 90%, mean queue in
 * [0.5 Kmin, Kmax] (the fluid model's fixed point sits near Kmin, §5).
 *
 *   model [-v]          run the built-in scenarios, exit 1 on a failure
 *   model -f            the paper's section 5 analyses (Fig. 11, 12): one
 *                       line per setting, see figures()
 *   model -x C_MBPS N KMIN_KB KMAX_KB PMAX LOOP_MS CNP_MS T_MS AI_KBPS
 *            HAI_KBPS RUN_S SEEDS [K_MS]
 *                       one guest-style setting over SEEDS seeds (flows
 *                       staggered by 200 ms, rpg_min_rate 500 kb/s): per
 *                       seed the shares over the second half, the largest
 *                       deviation from their mean (as test_71 measures it)
 *                       and the utilisation, and alpha after the cuts;
 *                       then the mean and worst case.  The alpha timer K
 *                       is T unless K_MS is given
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "dcqcn_sm.h"
#include "paper.h"
#include "../model.h"

#define MAXN 32
#define QCAP (1 << 20)

struct scenario {
	const char *name;
	double c_bps;		/* bottleneck */
	int n;
	u32 pkt;		/* bytes on the wire */
	double kmin, kmax;	/* bytes */
	double pmax;
	double loop_ns;		/* control-loop delay tau* */
	double cnp_ns;		/* NP: one CNP per flow per this */
	double stagger_ns;	/* flow i starts at i * stagger */
	double run_ns;
	u32 late_rate;		/* kb/s: flows 1.. start at this R_C and R_T
				 * (0: at line rate, as DCQCN starts them)
				 */
	struct dcqcn_params p;
};

struct result {
	double jain, util, qmean, qmean_kb, worst;
	double share[MAXN];
	u64 cnps, marks, pkts;
	double alpha_sum, alpha_max;	/* alpha after each cut, 2nd half */
	u64 cuts;
	u64 early_decays;	/* alpha decays less than N after a CNP */
	double qmax, qsd;	/* bytes, second half */
	/* two flows: the end of the last CONV_WIN_NS window in which their
	 * throughputs differed by more than CONV_GAP of C (0: never), and
	 * that difference over the last tenth of the run
	 */
	double conv_ns, gap_end;
};

#define CONV_WIN_NS	2e6
#define CONV_GAP	0.1

#define SEED0 0x9e3779b97f4a7c15ULL

static u64 rng = SEED0;
static u64 seed = SEED0;

static double coin(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng >> 11) * (1.0 / 9007199254740992.0);
}

static int verbose;

static void run(const struct scenario *sc, struct result *res)
{
	static u8 qflow[QCAP], qmark[QCAP];
	static u64 cnp_at[QCAP];
	static u8 cnp_flow[QCAP];
	struct dcqcn_sm sm[MAXN];
	double credit[MAXN], pkt_bits = sc->pkt * 8.0;
	u64 np_last[MAXN], start[MAXN], got[MAXN], rp_cnp[MAXN];
	u64 dt = (u64)llround(pkt_bits / sc->c_bps * 1e9);
	u64 now, end = (u64)sc->run_ns, half = end / 2;
	u32 qh = 0, qt = 0, ch = 0, ct = 0;
	double qsum = 0;
	u64 qsamples = 0, total = 0, next_print = 0;
	u64 win[2] = { 0, 0 }, win_end = (u64)CONV_WIN_NS;
	u64 tail[2] = { 0, 0 }, tail_from = end - end / 10;
	double qsq = 0;
	int i;

	memset(res, 0, sizeof(*res));
	rng = seed;
	for (i = 0; i < sc->n; i++) {
		dcqcn_sm_init(&sm[i], &sc->p);
		if (i && sc->late_rate) {
			/* as if cut there by CNPs: its timers run */
			dcqcn_sm_on_cnp(&sm[i], &sc->p, 1);
			sm[i].rc = sc->late_rate;
			sm[i].rt = sc->late_rate;
		}
		credit[i] = 0;
		np_last[i] = 0;
		rp_cnp[i] = 0;
		got[i] = 0;
		start[i] = (u64)(i * sc->stagger_ns);
	}
	for (now = dt; now <= end; now += dt) {
		u32 qlen = qt - qh;
		double qbytes = (double)qlen * sc->pkt;

		/* senders */
		for (i = 0; i < sc->n; i++) {
			double prob;

			if (now < start[i])
				continue;
			credit[i] += sm[i].rc * 1000.0 * dt / 1e9;
			if (credit[i] < pkt_bits)
				continue;
			credit[i] -= pkt_bits;
			if (credit[i] > pkt_bits)
				credit[i] = pkt_bits;
			if (qbytes <= sc->kmin)
				prob = 0;
			else if (qbytes <= sc->kmax)
				prob = (qbytes - sc->kmin) /
				       (sc->kmax - sc->kmin) * sc->pmax;
			else
				prob = 1;
			if (qt - qh >= QCAP) {
				fprintf(stderr, "model: queue overflow\n");
				exit(2);
			}
			qflow[qt % QCAP] = i;
			qmark[qt % QCAP] = prob > 0 && coin() < prob;
			res->marks += qmark[qt % QCAP];
			qt++;
			res->pkts++;
			dcqcn_sm_on_sent(&sm[i], &sc->p, sc->pkt);
		}
		/* bottleneck: one packet per step; NP at the receiver */
		if (qt != qh) {
			int f = qflow[qh % QCAP];

			if (qmark[qh % QCAP] &&
			    (!np_last[f] || now - np_last[f] >= sc->cnp_ns)) {
				np_last[f] = now;
				cnp_at[ct % QCAP] = now + (u64)sc->loop_ns;
				cnp_flow[ct % QCAP] = f;
				ct++;
			}
			if (now > half) {
				got[f] += sc->pkt;
				total += sc->pkt;
			}
			if (f < 2) {
				win[f] += sc->pkt;
				if (now > tail_from)
					tail[f] += sc->pkt;
			}
			qh++;
		}
		/* CNPs reaching the RPs */
		while (ch != ct && cnp_at[ch % QCAP] <= now) {
			struct dcqcn_sm *c = &sm[cnp_flow[ch % QCAP]];

			dcqcn_sm_on_cnp(c, &sc->p, now);
			rp_cnp[cnp_flow[ch % QCAP]] = now;
			res->cnps++;
			if (now > half) {
				double a = (double)c->alpha / DCQCN_ALPHA_ONE;

				res->alpha_sum += a;
				res->cuts++;
				if (a > res->alpha_max)
					res->alpha_max = a;
			}
			ch++;
		}
		/* RP timers */
		for (i = 0; i < sc->n; i++) {
			u64 t = dcqcn_sm_next_event(&sm[i]);

			if (t && t <= now) {
				u32 a0 = sm[i].alpha;

				dcqcn_sm_on_timer(&sm[i], &sc->p, now);
				/* K <= N: alpha decays before the next CNP */
				if (sm[i].alpha < a0 && now > half &&
				    rp_cnp[i] && now - rp_cnp[i] < sc->cnp_ns)
					res->early_decays++;
			}
		}
		if (now > half) {
			double qb = (double)(qt - qh) * sc->pkt;

			qsum += qb;
			qsq += qb * qb;
			if (qb > res->qmax)
				res->qmax = qb;
			qsamples++;
		}
		if (now >= win_end) {
			double gap = fabs((double)win[0] - (double)win[1]) *
				     8 / (CONV_WIN_NS / 1e9) / sc->c_bps;

			if (sc->n == 2 && now > start[1] && gap > CONV_GAP)
				res->conv_ns = now;
			win[0] = 0;
			win[1] = 0;
			win_end += (u64)CONV_WIN_NS;
		}
		if (verbose && now >= next_print) {
			printf("  t=%8.3f ms q=%7.1f KB", now / 1e6,
			       (qt - qh) * sc->pkt / 1e3);
			for (i = 0; i < sc->n; i++)
				printf(" %.3g", sm[i].rc / 1e6);
			printf(" Gb/s\n");
			next_print += end / 40;
		}
	}
	{
		double fair = sc->c_bps / sc->n, sum = 0, sq = 0;
		double secs = (end - half) / 1e9;

		res->worst = 0;
		for (i = 0; i < sc->n; i++) {
			double x = got[i] * 8.0 / secs;

			res->share[i] = x / fair;
			sum += x;
			sq += x * x;
			if (fabs(x / fair - 1) > res->worst)
				res->worst = fabs(x / fair - 1);
		}
		res->jain = sum * sum / (sc->n * sq);
		res->util = total * 8.0 / secs / sc->c_bps;
		res->qmean = qsamples ? qsum / qsamples : 0;
		res->qsd = qsamples ?
			   sqrt(fmax(0, qsq / qsamples - res->qmean * res->qmean)) :
			   0;
		res->gap_end = fabs((double)tail[0] - (double)tail[1]) * 8 /
			       ((end - tail_from) / 1e9) / sc->c_bps;
	}
}

/* Paper scale: 40 Gb/s, Fig. 14 settings, R_AI 40 Mb/s. */
static struct scenario paper_scale(int n)
{
	struct scenario sc = {
		.name = "paper 40G",
		.c_bps = 40e9,
		.n = n,
		.pkt = 1000,
		.kmin = 5e3,
		.kmax = 200e3,
		.pmax = 0.01,
		.loop_ns = 4e3,
		.cnp_ns = 50e3,
		.stagger_ns = 2e6,
		.run_ns = 200e6,
		.p = dcqcn_paper(40000000, 1000, 40000, 50000, 55000),
	};
	return sc;
}

/*
 * Guest scale: 100 Mb/s (k = 1) or 10 Mb/s (k = 10), 400 k times slower
 * than the paper's link.  Queue thresholds stay in packets (Kmax lowered
 * to 50 KB so the queue's delay stays below T), T, K and the CNP interval
 * are the paper's times 100 k, R_AI = R_HAI = 0.1% of C (the paper's
 * R_AI / C), the loop delay 1.6 ms (k = 1) or 2 ms (a TCG guest's order).
 * See "Guest-speed settings" in dcqcn.rst.
 */
static struct scenario guest_scale(int n, int k)
{
	struct scenario sc = {
		.name = k == 1 ? "guest 100M" : "guest 10M",
		.c_bps = 100e6 / k,
		.n = n,
		.pkt = 1000,
		.kmin = 5e3,
		.kmax = 50e3,
		.pmax = 0.01,
		.loop_ns = k == 1 ? 1.6e6 : 2e6,
		.cnp_ns = 5e6 * k,
		.stagger_ns = 800e6 * k,
		.run_ns = 20e9 * k,
		.p = dcqcn_paper(100000 / k, 100 / k, 100 / k, 100 / k,
				 5500000 * k),
	};
	return sc;
}

/*
 * model -f: the analyses of the paper's section 5 (its Fig. 11 and 12,
 * which it ran on a fluid model) on this discrete model driving
 * dcqcn_sm.c, at the paper's 40 Gb/s.  Every line is one run; "conv" is
 * when two flows (one at line rate, one starting at the minimum rate,
 * as in the paper's two-flow study) last differed by more than 10 % of C
 * over 2 ms, "-" when never.
 */
static struct scenario fig_base(int n, int strawman)
{
	struct scenario sc = paper_scale(n);

	sc.name = strawman ? "strawman" : "paper";
	sc.stagger_ns = 0;
	if (strawman) {
		/* QCN's and DCTCP's recommendations (paper, section 5.2) */
		sc.p.byte_reset = 150 * 1000;
		sc.p.time_reset_ns = 1500000;
		sc.kmin = 40e3;
		sc.kmax = 40e3;
		sc.pmax = 1;
		sc.p.g = 1024 - 64;	/* g = 1/16 */
	}
	return sc;
}

/* The two-flow study: flow 1 starts at the minimum rate. */
static struct scenario fig_two(int strawman)
{
	struct scenario sc = fig_base(2, strawman);

	sc.late_rate = sc.p.min_rate;
	return sc;
}

static void fig_line(const char *fig, const char *what,
		     const struct scenario *sc)
{
	struct result r;

	seed = SEED0;
	run(sc, &r);
	printf("%-4s %-22s %2d %6.4f %5.3f %7.1f %7.1f %7.1f ", fig, what,
	       sc->n, r.jain, r.util, r.qmean / 1e3, r.qsd / 1e3,
	       r.qmax / 1e3);
	if (sc->n == 2) {
		if (r.conv_ns)
			printf("%6.1f", r.conv_ns / 1e6);
		else
			printf("%6s", "-");
		printf(" %5.3f", r.gap_end);
	}
	printf("\n");
}

static int figures(void)
{
	static const u32 bytes[] = { 150 * 1000, 1500 * 1000, 10 << 20 };
	static const char * const bnames[] = { "150 KB", "1.5 MB", "10 MB" };
	static const u32 timers[] = { 1500000, 300000, 55000 };
	static const u32 gs[] = { 16, 64, 256 };
	static const u32 ais[] = { 40000, 20000, 10000, 5000 };
	static const int incasts[] = { 2, 16, 32 };
	struct scenario sc;
	char what[64];
	unsigned int i, j;

	printf("%-4s %-22s %2s %6s %5s %7s %7s %7s %6s %5s\n", "fig",
	       "setting", "N", "jain", "util", "q KB", "sd KB", "max KB",
	       "conv", "gap");
	printf("%-4s %-22s %2s %6s %5s %7s %7s %7s %6s %5s\n", "", "",
	       "", "", "", "mean", "", "", "ms", "end");
	for (i = 0; i < ARRAY_SIZE(bytes); i++) {
		sc = fig_two(1);
		sc.p.byte_reset = bytes[i];
		snprintf(what, sizeof(what), "strawman B %s", bnames[i]);
		fig_line("11a", what, &sc);
	}
	for (i = 0; i < ARRAY_SIZE(timers); i++) {
		sc = fig_two(1);
		sc.p.byte_reset = 10 << 20;
		sc.p.time_reset_ns = timers[i];
		snprintf(what, sizeof(what), "B 10 MB T %u us",
			 timers[i] / 1000);
		fig_line("11b", what, &sc);
	}
	for (i = 0; i < 2; i++) {
		sc = fig_two(1);
		sc.kmin = 5e3;
		sc.kmax = i ? 200e3 : 40e3;
		snprintf(what, sizeof(what), "strawman Kmax %.0f KB",
			 sc.kmax / 1e3);
		fig_line("11c", what, &sc);
	}
	for (i = 0; i < 3; i++) {
		static const double pm[] = { 1, 0.1, 0.01 };

		sc = fig_two(1);
		sc.kmin = 5e3;
		sc.kmax = 200e3;
		sc.pmax = pm[i];
		snprintf(what, sizeof(what), "Kmax 200 KB Pmax %g%%",
			 100 * pm[i]);
		fig_line("11d", what, &sc);
	}
	sc = fig_two(0);
	fig_line("11", "paper (Fig. 14)", &sc);
	for (j = 0; j < 2; j++) {
		for (i = 0; i < ARRAY_SIZE(gs); i++) {
			sc = fig_base(incasts[j], 0);
			sc.p.g = 1024 - 1024 / gs[i];
			snprintf(what, sizeof(what), "g 1/%u", gs[i]);
			fig_line("12", what, &sc);
		}
	}
	for (j = 1; j < 3; j++) {
		for (i = 0; i < ARRAY_SIZE(ais); i++) {
			sc = fig_base(incasts[j], 0);
			sc.p.ai_rate = ais[i];
			snprintf(what, sizeof(what), "R_AI %u Mb/s",
				 ais[i] / 1000);
			fig_line("12", what, &sc);
		}
	}
	for (i = 0; i < ARRAY_SIZE(ais); i++) {
		sc = fig_two(0);
		sc.p.ai_rate = ais[i];
		snprintf(what, sizeof(what), "R_AI %u Mb/s", ais[i] / 1000);
		fig_line("12", what, &sc);
	}
	return 0;
}

/* model -x ...: see the header */
static int sweep(char **a, const char *k_ms)
{
	struct scenario sc = {
		.name = "x",
		.c_bps = atof(a[0]) * 1e6,
		.n = atoi(a[1]),
		.pkt = 1082,
		.kmin = atof(a[2]) * 1e3,
		.kmax = atof(a[3]) * 1e3,
		.pmax = atof(a[4]),
		.loop_ns = atof(a[5]) * 1e6,
		.cnp_ns = atof(a[6]) * 1e6,
		.stagger_ns = 200e6,
		.run_ns = atof(a[10]) * 1e9,
		.p = dcqcn_paper(atof(a[0]) * 1000, 500, atoi(a[8]),
				 atoi(a[9]), atof(a[7]) * 1e6),
	};
	int seeds = atoi(a[11]), k, i, over = 0;
	double dsum = 0, dmax = 0, usum = 0, asum = 0, amax = 0;
	u64 acuts = 0, early = 0;

	if (k_ms)
		sc.p.alpha_period_ns = atof(k_ms) * 1e6;
	if (sc.n < 1 || sc.n > MAXN || seeds < 1 || sc.c_bps <= 0 ||
	    sc.run_ns <= 0 || sc.kmax <= sc.kmin) {
		fprintf(stderr, "model: bad -x arguments\n");
		return 2;
	}
	for (k = 0; k < seeds; k++) {
		struct result r;
		double m = 0, d = 0;

		seed = SEED0 + 7919ULL * k;
		run(&sc, &r);
		for (i = 0; i < sc.n; i++)
			m += r.share[i] / sc.n;
		for (i = 0; i < sc.n; i++)
			if (fabs(r.share[i] / m - 1) > d)
				d = fabs(r.share[i] / m - 1);
		printf("seed %2d util %.3f dev %5.1f%% alpha at cuts mean %.3f max %.3f shares",
		       k, r.util, 100 * d, r.cuts ? r.alpha_sum / r.cuts : 0,
		       r.alpha_max);
		asum += r.alpha_sum;
		early += r.early_decays;
		acuts += r.cuts;
		if (r.alpha_max > amax)
			amax = r.alpha_max;
		for (i = 0; i < sc.n; i++)
			printf(" %.2f", r.share[i]);
		printf("\n");
		dsum += d;
		usum += r.util;
		over += d > 0.2;
		if (d > dmax)
			dmax = d;
	}
	printf("alpha at cuts mean %.3f max %.3f\n", acuts ? asum / acuts : 0,
	       amax);
	printf("alpha decays less than N after a CNP: %llu\n",
	       (unsigned long long)early);
	printf("util %.3f deviation mean %.1f%% max %.1f%% above 20%%: %d of %d\n",
	       usum / seeds, 100 * dsum / seeds, 100 * dmax, over, seeds);
	return 0;
}

int main(int argc, char **argv)
{
	static const int ns[] = { 2, 4, 8 };
	int fails = 0, s, k;

	if (argc > 1 && !strcmp(argv[1], "-x")) {
		if (argc != 14 && argc != 15) {
			fprintf(stderr, "usage: model -x C_MBPS N KMIN_KB KMAX_KB PMAX LOOP_MS CNP_MS T_MS AI_KBPS HAI_KBPS RUN_S SEEDS [K_MS]\n");
			return 2;
		}
		return sweep(argv + 2, argc == 15 ? argv[14] : NULL);
	}
	if (argc > 1 && !strcmp(argv[1], "-f"))
		return figures();
	verbose = argc > 1 && !strcmp(argv[1], "-v");
	printf("%-11s %2s %6s %6s %7s %9s %8s %8s  shares of C/N\n",
	       "scenario", "N", "jain", "util", "worst", "queue KB", "CNPs",
	       "mark%");
	for (s = 0; s < 3; s++) {
		for (k = 0; k < 3; k++) {
			struct scenario sc = s ?
				guest_scale(ns[k], s == 1 ? 1 : 10) :
				paper_scale(ns[k]);
			struct result r;
			int ok;

			run(&sc, &r);
			ok = r.jain >= 0.95 && r.worst <= 0.20 &&
			     r.util >= 0.90 && r.qmean >= 0.5 * sc.kmin &&
			     r.qmean <= sc.kmax;
			printf("%-11s %2d %6.4f %6.3f %6.1f%% %9.1f %8llu %7.3f%% ",
			       sc.name, sc.n, r.jain, r.util, r.worst * 100,
			       r.qmean / 1e3, (unsigned long long)r.cnps,
			       100.0 * r.marks / (r.pkts ? r.pkts : 1));
			fails += model_scenario_end(r.share, sc.n, ok);
		}
	}
	return model_exit(fails);
}
