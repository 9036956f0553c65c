// SPDX-License-Identifier: GPL-2.0
/*
 * Packet-level model of PCN (NSDI'20, Appendix A) driving rxe_cc/pcn_sm.c
 * unchanged: N senders (each paced at its RP's rate, line rate C) share
 * one bottleneck of capacity C whose FIFO marks CE with NP-ECN's rule for
 * a congested port (queue above a threshold K when the packet leaves).
 * Each receiver runs the NP (period T, timer started by a packet, stopped
 * by an empty period); its CNPs are encoded, travel back one propagation
 * delay, are decoded and fed to the sender's RP.
 *
 * Asserted, for N = 2, 4, 8 at 40 Gb/s, 100 Mb/s and 40 Mb/s:
 *  (a) all flows starting at line rate together: one control period
 *      after the CNPs can first arrive (T + RTT), the total sending rate
 *      is within 3% of (1 - w_min) C (Proposition 1);
 *  (b) flows starting one after another: over the second half of the
 *      run (20000 periods) Jain's index >= 0.99 and every flow within
 *      10% of C/N (Proposition 2), and the link is at least 90% used.
 *
 * The 100 Mb/s scale is the 40 Gb/s one slowed 400 times (T = 20 ms):
 * the same number of packets per period.  The 40 Mb/s scale is the
 * guest's (test_85): T = 16 packets at the line rate, a few packets per
 * flow and period.  The marking threshold K is sch_dcb's np-ecn default
 * (TC_DCB_NP_ECN_K_DEFAULT): a packet is marked when it leaves with more
 * than K bytes behind it (with K = 0, the paper's threshold, every flow
 * but one starves here: see pcn.rst).  The NP timers fire up to T/10
 * late (uniform, seeded).
 * `model -n`: the flow-scalability sweep of the paper's Fig. 17, see
 * run_flows().
 * Settings for exploring come from the environment (PCN_MODEL_K, _PKT,
 * _X, _PMARK, _ECN_PCT; with -n the guest scale's _C, _T, _MIN_RATE,
 * _XOFF, _RUN_S, _STAGGER; `model -n guest` runs that scale alone):
 * Documentation/pcn.rst lists them with units and defaults, and the
 * measured numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>

#include "pcn_sm.h"
#include "pkt_sched_dcb.h"

#define MAXN	64
#define RING	(1U << 20)

struct scale {
	const char *name;
	u32 c;			/* bottleneck = line rate, kb/s */
	u32 period_ns;		/* NP period T */
	u32 delay_ns;		/* one-way propagation */
	u32 dt_ns;		/* time step */
	u32 k_bytes;		/* marking threshold */
	u32 jitter_ns;		/* NP timers fire up to this late */
	u64 run_ns;		/* length of the convergence run */
	u64 stagger_ns;		/* start of flow i: i * stagger */
	bool converge_only;	/* (b) only, see main() */
	u32 xoff_bytes;		/* PFC: senders pause above this queue,
				 * resume 2 packets below (0: no PFC)
				 */
};

/*
 * A scale at line rate @c (kb/s) with NP period @period and one-way delay
 * @delay (ns), stepped every @dt ns; the rest follows the period: the NP
 * timers fire up to a tenth of it late, flow i starts i x 100 periods in,
 * a run lasts 40000 periods; marking at the module's default K.  More
 * fields may follow.
 */
#define SCALE(n, c_kbps, period, delay, dt, ...) {			\
	.name = (n),							\
	.c = (c_kbps),							\
	.period_ns = (period),						\
	.delay_ns = (delay),						\
	.dt_ns = (dt),							\
	.k_bytes = TC_DCB_NP_ECN_K_DEFAULT,				\
	.jitter_ns = (period) / 10,					\
	.run_ns = 40000ULL * (period),					\
	.stagger_ns = 100ULL * (period),				\
	__VA_ARGS__							\
}

struct pkt {
	u64 t;			/* delivery time (wire rings) */
	u8 flow;
	u8 ce;
	u8 cnp[PCN_CNP_BYTES];
};

struct ring {
	struct pkt *p;
	u32 head, tail;
};

static int fails;
static u32 pkt_bytes = 1024;	/* bytes on the wire per packet */
static u32 pmark = 1000;	/* per mille of the packets above K marked */
static u32 ecn_pct = 95;	/* the NP's ECN flag: more than this % CE */
static u32 min_rate;		/* kb/s; 0: C / 10000 */
static u64 rng = 88172645463325252ULL;

/* xorshift64: deterministic jitter */
static u32 rnd(u32 range)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return range ? (u32)(rng % range) : 0;
}

static void ring_push(struct ring *r, const struct pkt *p)
{
	if (r->tail - r->head >= RING) {
		fprintf(stderr, "ring overflow (%u packets)\n", r->tail - r->head);
		exit(2);
	}
	r->p[r->tail++ % RING] = *p;
}

static struct pkt *ring_peek(struct ring *r)
{
	return r->head == r->tail ? NULL : &r->p[r->head % RING];
}

struct sim {
	const struct scale *sc;
	int n;
	struct pcn_rp_params rpp;
	struct pcn_np_params npp;
	struct pcn_rp rp[MAXN];
	struct pcn_np np[MAXN];
	u64 np_timer[MAXN];
	u64 start[MAXN];
	double credit[MAXN];
	u64 rx_bytes[MAXN];	/* delivered, in the measuring window */
	u32 cnps[MAXN], ecn_cnps[MAXN];
	struct ring q, wire, back;	/* bottleneck FIFO, to receivers, CNPs */
	u32 qbytes;
	double srv;		/* bottleneck credit, bits */
	double qsum;
	u64 qsamples;
	u32 qmax;
	bool paused;		/* PFC holds every sender */
	u32 pauses;		/* PAUSE decisions, measuring window */
	u64 now;
};

static void sim_init(struct sim *s, const struct scale *sc, int n)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->sc = sc;
	s->n = n;
	s->rpp.line_rate = sc->c;
	s->rpp.min_rate = min_rate ? min_rate : max(sc->c / 10000, 1U);
	s->rpp.w_min = PCN_W_ONE / 128;
	s->rpp.w_max = PCN_W_ONE / 2;
	s->npp.period_ns = sc->period_ns;
	s->npp.ecn_threshold_pct = ecn_pct;
	for (i = 0; i < n; i++) {
		pcn_rp_init(&s->rp[i], &s->rpp);
		pcn_np_init(&s->np[i]);
	}
	s->q.p = calloc(RING, sizeof(struct pkt));
	s->wire.p = calloc(RING, sizeof(struct pkt));
	s->back.p = calloc(RING, sizeof(struct pkt));
	if (!s->q.p || !s->wire.p || !s->back.p)
		exit(2);
	s->now = 1000000;	/* pcn_np: time 0 means "no packet yet" */
}

static void sim_free(struct sim *s)
{
	free(s->q.p);
	free(s->wire.p);
	free(s->back.p);
}

static void sim_step(struct sim *s)
{
	const struct scale *sc = s->sc;
	struct pkt p = { 0 }, *h;
	struct pcn_cnp cnp;
	int i;

	/* PFC: the queue holds every sender (one ingress, as the paper's
	 * dumbbell's senders share the switch's uplink)
	 */
	if (sc->xoff_bytes) {
		if (!s->paused && s->qbytes > sc->xoff_bytes) {
			s->paused = true;
			s->pauses++;
		} else if (s->paused &&
			   s->qbytes + 2 * pkt_bytes <= sc->xoff_bytes) {
			s->paused = false;
		}
	}
	/* senders, paced at their RP rate */
	for (i = 0; i < s->n; i++) {
		if (s->now < s->start[i] || s->paused)
			continue;
		s->credit[i] += (double)s->rp[i].rate * sc->dt_ns / 1e6;
		if (s->credit[i] > 2.0 * pkt_bytes * 8)
			s->credit[i] = 2.0 * pkt_bytes * 8;
		while (s->credit[i] >= pkt_bytes * 8) {
			s->credit[i] -= pkt_bytes * 8;
			p.flow = i;
			ring_push(&s->q, &p);
			s->qbytes += pkt_bytes;
		}
	}
	/* bottleneck */
	if (s->qbytes) {
		s->srv += (double)sc->c * sc->dt_ns / 1e6;
		while (s->srv >= pkt_bytes * 8 && (h = ring_peek(&s->q))) {
			s->srv -= pkt_bytes * 8;
			p = *h;
			s->q.head++;
			s->qbytes -= pkt_bytes;
			/* marked when it leaves with a queue behind it */
			p.ce = s->qbytes > sc->k_bytes &&
			       (pmark >= 1000 || rnd(1000) < pmark);
			p.t = s->now + sc->delay_ns;
			ring_push(&s->wire, &p);
		}
		if (!s->qbytes)
			s->srv = 0;
	}
	s->qsum += s->qbytes;
	s->qsamples++;
	if (s->qbytes > s->qmax)
		s->qmax = s->qbytes;
	/* receivers: NP */
	while ((h = ring_peek(&s->wire)) && h->t <= s->now) {
		i = h->flow;
		s->rx_bytes[i] += pkt_bytes;
		if (pcn_np_on_rx(&s->np[i], pkt_bytes, h->ce, s->now))
			s->np_timer[i] = s->now + sc->period_ns +
					 rnd(sc->jitter_ns);
		s->wire.head++;
	}
	for (i = 0; i < s->n; i++) {
		if (!s->np[i].running || s->np_timer[i] > s->now)
			continue;
		if (pcn_np_period_end(&s->np[i], &s->npp, s->now, &cnp)) {
			p.flow = i;
			p.t = s->now + sc->delay_ns;
			pcn_cnp_encode(&cnp, p.cnp);
			ring_push(&s->back, &p);
		}
		if (s->np[i].running)
			s->np_timer[i] += sc->period_ns + rnd(sc->jitter_ns);
	}
	/* senders: RP */
	while ((h = ring_peek(&s->back)) && h->t <= s->now) {
		i = h->flow;
		if (pcn_cnp_decode(h->cnp, &cnp) != PCN_CNP_OK) {
			printf("not ok: CNP did not decode\n");
			fails++;
		} else {
			pcn_rp_on_cnp(&s->rp[i], &s->rpp, cnp.ecn,
				      cnp.rec_rate);
			s->cnps[i]++;
			s->ecn_cnps[i] += cnp.ecn;
		}
		s->back.head++;
	}
	s->now += sc->dt_ns;
}

static double total_rate(const struct sim *s)
{
	double t = 0;
	int i;

	for (i = 0; i < s->n; i++)
		t += s->rp[i].rate;
	return t;
}

/*
 * (a) all at line rate together: the first CNP of every flow carries ECN
 * and brings the total to (1 - w_min) C; that happens within one control
 * period: T after the first packets reach the receivers (one delay plus
 * N packet times), plus the NP timer's jitter, plus the way back.
 */
static void run_overload(const struct scale *sc, int n)
{
	double want = sc->c * (1.0 - 1.0 / 128), got;
	double pkt_ns = pkt_bytes * 8 * 1e6 / sc->c;
	u64 t0, bound, lim;
	struct sim s;
	int i, done;

	sim_init(&s, sc, n);
	t0 = s.now;
	for (i = 0; i < n; i++)
		s.start[i] = t0;
	bound = t0 + sc->period_ns + 2ULL * sc->delay_ns + sc->jitter_ns +
		(u64)((n + 2) * pkt_ns) + 2ULL * sc->dt_ns;
	lim = t0 + 4ULL * sc->period_ns;
	do {
		sim_step(&s);
		for (done = 0, i = 0; i < n; i++)
			done += s.cnps[i] > 0;
	} while (done < n && s.now < lim);
	got = total_rate(&s);
	printf("# %s N=%d overload: all flows had their first CNP after %.1f us (bound %.1f us): total %.4f C (want %.4f C, %+.2f%%), queue %.0f KB\n",
	       sc->name, n, (s.now - t0) / 1e3, (bound - t0) / 1e3,
	       got / sc->c, want / sc->c, 100.0 * (got - want) / want,
	       s.qbytes / 1024.0);
	if (s.now > bound || fabs(got - want) > 0.03 * want) {
		printf("not ok: %s N=%d: total %.0f kb/s at %.1f us, want %.0f by %.1f us\n",
		       sc->name, n, got, (s.now - t0) / 1e3, want,
		       (bound - t0) / 1e3);
		fails++;
	}
	for (i = 0; i < n; i++) {
		if (s.ecn_cnps[i] != 1) {
			printf("not ok: %s N=%d flow %d: first CNP without ECN\n",
			       sc->name, n, i);
			fails++;
		}
	}
	sim_free(&s);
}

/*
 * Flow i starts at i * stagger; run the first half of the run, then
 * forget what was delivered and queued: the measuring window is the
 * second half.  Returns the start time.
 */
static u64 sim_first_half(struct sim *s, int n)
{
	const struct scale *sc = s->sc;
	u64 t0 = s->now;
	int i;

	for (i = 0; i < n; i++)
		s->start[i] = t0 + i * sc->stagger_ns;
	while (s->now < t0 + sc->run_ns / 2)
		sim_step(s);
	memset(s->rx_bytes, 0, sizeof(s->rx_bytes));
	s->qsum = 0;
	s->qsamples = 0;
	s->qmax = 0;
	s->pauses = 0;
	return t0;
}

/* Jain's index of @x[0..n), 0 when all are 0. */
static double jain_index(const double *x, int n)
{
	double sum = 0, sq = 0;
	int i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / (n * sq) : 0;
}

/* (b) one after another: fair shares at the end */
static void run_converge(const struct scale *sc, int n)
{
	double share = (double)sc->c / n, x[MAXN], sum = 0, jain;
	double worst = 0, util, secs;
	struct sim s;
	u64 t0;
	int i;

	sim_init(&s, sc, n);
	t0 = sim_first_half(&s, n);
	while (s.now < t0 + sc->run_ns)
		sim_step(&s);
	secs = (sc->run_ns - sc->run_ns / 2) / 1e9;
	for (i = 0; i < n; i++) {
		x[i] = s.rx_bytes[i] * 8 / secs / 1e3;	/* kb/s */
		sum += x[i];
		if (fabs(x[i] - share) / share > worst)
			worst = fabs(x[i] - share) / share;
	}
	jain = jain_index(x, n);
	util = sum / sc->c;
	printf("# %s N=%d converge: Jain %.4f, worst flow %.1f%% off C/N, utilisation %.3f, queue mean %.1f KB max %.1f KB; shares",
	       sc->name, n, jain, 100 * worst, util,
	       s.qsum / s.qsamples / 1024, s.qmax / 1024.0);
	for (i = 0; i < n; i++)
		printf(" %.3f", x[i] / share);
	printf("\n");
	if (jain < 0.99 || worst > 0.10 || util < 0.90) {
		printf("not ok: %s N=%d: Jain %.4f (>= 0.99), worst %.1f%% (<= 10%%), utilisation %.3f (>= 0.90)\n",
		       sc->name, n, jain, 100 * worst, util);
		fails++;
	}
	sim_free(&s);
}


/*
 * model -n: the paper's Fig. 17 (flow scalability): N = 4 ... 64 flows
 * into one port, started 1 ms apart (x 1000 at guest scale), at the
 * testbed's 10 Gb/s (T = 50 us, 5 us links) and at the guests' 40 Mb/s.
 * Per N over the second half of the run: Jain's index of the flows'
 * throughputs, the lowest Jain's index over WIN periods (the paper's
 * 500 ms at 10 Gb/s is 10000 periods; 100 at guest scale, where a run
 * holds fewer), the utilisation and the queue's mean and maximum.  The
 * paper: PCN keeps Jain near 1, the link fully used and the queue below
 * 60 KB (testbed) at every N.  Returns the number of N below @min_jain.
 */
static int run_flows(const struct scale *sc, u32 win_periods,
		     double min_jain)
{
	static const int ns[] = { 4, 8, 16, 32, 64 };
	unsigned int k;
	int bad = 0;

	for (k = 0; k < ARRAY_SIZE(ns); k++) {
		int n = ns[k], i;
		double x[MAXN], sum = 0, jain, util, secs, wjain = 2;
		u64 wbytes[MAXN] = { 0 }, t0, wend, win;
		struct sim s;

		sim_init(&s, sc, n);
		t0 = sim_first_half(&s, n);
		win = (u64)win_periods * sc->period_ns;
		wend = s.now + win;
		while (s.now < t0 + sc->run_ns) {
			sim_step(&s);
			if (s.now < wend)
				continue;
			/* this window's bytes per flow */
			for (i = 0; i < n; i++) {
				x[i] = (double)(s.rx_bytes[i] - wbytes[i]);
				wbytes[i] = s.rx_bytes[i];
			}
			wjain = fmin(wjain, jain_index(x, n));
			wend += win;
		}
		secs = (sc->run_ns - sc->run_ns / 2) / 1e9;
		for (i = 0; i < n; i++) {
			x[i] = s.rx_bytes[i] * 8 / secs / 1e3;	/* kb/s */
			sum += x[i];
		}
		jain = jain_index(x, n);
		util = sum / sc->c;
		printf("%-8s %2d  %6.4f  %6.4f  %5.3f  %8.1f  %8.1f  %6u\n",
		       sc->name, n, jain, wjain > 1 ? 0 : wjain, util,
		       s.qsum / s.qsamples / 1024, s.qmax / 1024.0, s.pauses);
		bad += jain < min_jain;
		sim_free(&s);
	}
	return bad;
}

/*
 * The number in environment variable NAME into *v: false when it is unset,
 * exit with a message when it is not a decimal number from min to max
 */
static bool env_num(const char *name, u32 min, u32 max, u64 *v)
{
	const char *e = getenv(name);
	char *end;

	if (!e)
		return false;
	errno = 0;
	*v = strtoull(e, &end, 10);
	if (!isdigit((unsigned char)*e) || *end || errno || *v < min || *v > max) {
		fprintf(stderr, "model: %s=%s: want a number from %u to %u\n",
			name, e, min, max);
		exit(2);
	}
	return true;
}

int main(int argc, char **argv)
{
	static const struct scale scales[] = {
		SCALE("40Gb/s", 40000000, 50000, 5000, 50),
		SCALE("100Mb/s", 100000, 20000000, 2000000, 20000),
		/* the guest tests: 40 Mb/s, pcn's auto period (16 packets
		 * at the line rate), a slow guest's delay; (a) does not
		 * hold here: the queue passes K only part way through the
		 * first period of an overload, which is then less than 95%
		 * marked (no ECN)
		 */
		SCALE("40Mb/s", 40000, 3276800, 500000, 4000,
		      .converge_only = true),
	};
	static const int ns[] = { 2, 4, 8 };
	unsigned int i, j;
	struct scale sc;
	u64 v, k, x = 1;
	bool has_k;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		/* the testbed of Fig. 17 (10 Gb/s) and the guests' 40 Mb/s */
		struct scale tb = scales[0], gs = scales[2];
		static char gs_name[16];
		int bad;

		tb.name = "10Gb/s";
		tb.c = 10000000;
		tb.dt_ns = 200;
		tb.stagger_ns = 1000000;
		tb.xoff_bytes = 200 * 1024;
		gs.stagger_ns = 500000000ULL;
		gs.xoff_bytes = 64 * 1024;
		if (env_num("PCN_MODEL_K", 0, U32_MAX, &v))
			tb.k_bytes = gs.k_bytes = v;
		if (env_num("PCN_MODEL_PMARK", 0, 1000, &v))
			pmark = v;
		if (env_num("PCN_MODEL_ECN_PCT", 0, 100, &v))
			ecn_pct = v;
		if (env_num("PCN_MODEL_C", 1, U32_MAX, &v))
			gs.c = v;
		if (env_num("PCN_MODEL_T", 1, U32_MAX / 1000, &v)) {
			gs.period_ns = v * 1000;
			gs.jitter_ns = gs.period_ns / 10;
		}
		if (env_num("PCN_MODEL_MIN_RATE", 1, U32_MAX, &v))
			min_rate = v;
		if (env_num("PCN_MODEL_RUN_S", 1, U32_MAX, &v))
			gs.run_ns = v * 1000000000ULL;
		if (env_num("PCN_MODEL_STAGGER", 0, U32_MAX, &v))
			gs.stagger_ns = v * 1000;
		if (env_num("PCN_MODEL_XOFF", 1, U32_MAX, &v))
			gs.xoff_bytes = v;
		snprintf(gs_name, sizeof(gs_name), "%uMb/s", gs.c / 1000);
		gs.name = gs_name;
		printf("scale     N    jain  jain_w   util  q KB mean  q KB max  pauses\n");
		bad = 0;
		if (argc < 3 || strcmp(argv[2], "guest"))
			bad += run_flows(&tb, 10000, 0.9);
		bad += run_flows(&gs, 100, 0.9);
		printf("%s: %d of 10 below Jain 0.9\n", bad ? "FAIL" : "PASS", bad);
		return bad ? 1 : 0;
	}

	if (env_num("PCN_MODEL_X", 1, 1000, &v))
		x = v;
	if (env_num("PCN_MODEL_PKT", 1, 65536, &v))
		pkt_bytes = v;
	has_k = env_num("PCN_MODEL_K", 0, U32_MAX, &k);
	for (i = 0; i < ARRAY_SIZE(scales); i++)
		for (j = 0; j < ARRAY_SIZE(ns); j++) {
			sc = scales[i];
			sc.run_ns *= x;
			if (has_k)
				sc.k_bytes = k;
			if (!sc.converge_only)
				run_overload(&sc, ns[j]);
			run_converge(&sc, ns[j]);
		}
	printf("%s: PCN model, %d failures\n", fails ? "FAIL" : "PASS", fails);
	return fails ? 1 : 0;
}
