// SPDX-License-Identifier: GPL-2.0
/*
 * Discrete-time model of N LDCP flows through one bottleneck, driving the
 * kernel's rxe_cc/ldcp_sm.c unchanged, with rxe's transport around it.
 *
 * One step is the bottleneck's transmission time of one packet.  Every
 * flow is a long transfer of back-to-back messages of msg_pkts packets
 * (rxe asks for an ACK on each message's last packet; LDCP adds its own).
 * A sender's NIC sends at most one packet per step, and only while the
 * requester's window check lets it: rxe sends when unacknowledged <=
 * the engine window, which ldcp.c sets to w - 1 (see ldcp.c).  The
 * switch queue marks ECT packets CE when it holds K or more packets on
 * arrival (DCTCP step) and drops non-ECT (fast-start) packets there
 * (WRED with the same threshold), as the slides' fast start expects.
 * The queue serves one packet per step to the receiver, which acts as
 * rxe's responder: in-order packets advance the expected PSN and are
 * acknowledged when they ask for it, with BECN when a CE packet arrived
 * since the last ACK; the first out-of-order packet after a gap gets one
 * sequence NAK (which also carries and clears BECN, as in the engine);
 * ACKs and NAKs reach the sender after the propagation RTT d.  ACKs feed
 * ldcp_sm_on_ack() with the packets newly acknowledged (as
 * rxe_cc_ack_rcv() counts them); a NAK rewinds the sender (go-back-N)
 * and is no acknowledgement for the engine.  A retransmission timer of
 * rto steps covers tail losses.  Flows start staggered, each with a fast
 * start.
 *
 * Checks over the second half of the run: mean queue <= K + 2 packets,
 * max queue <= K + N alpha + 2 (N alpha: what N flows add in the RTT the
 * marks take to act), queue standard deviation <= K / 2, utilisation
 * >= 90%, Jain's index >= 0.95, no timeouts, and the fraction of ACKs
 * with ECE within 0.04 of the fluid model's fixed point: dW/dt = 0 gives
 * p* = alpha / (alpha + beta W*), W* = (C d + q) / N.
 *
 *   model [-v] [-a alpha] [-b beta] [-k ack_every]   (1024 = 1.0;
 *                                  defaults are ldcp.c's)
 *   runs the built-in scenarios, exit 1 on a failure
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldcp_sm.h"
#include "../model.h"

#define MAXN 16
#define RING (1 << 16)

struct scenario {
	const char *name;
	int n;
	u32 d;			/* propagation RTT, steps */
	u32 k;			/* marking / WRED threshold, packets */
	u32 qlimit;		/* tail drop, packets */
	u32 msg_pkts;
	u32 stagger;		/* flow i starts at i * stagger steps */
	u32 rto;		/* retransmission timeout, steps */
	u64 steps;
	struct ldcp_params p;
};

struct result {
	double util, jain, qmean, qsd, ece_frac, pstar, wmean;
	u32 qmax, qmin;
	u64 drops_fs, drops_tail, timeouts, naks, fast_starts, retries;
	double share[MAXN];
};

struct pktq {			/* the switch queue */
	u8 flow[RING];
	u32 psn[RING];
	u8 ce[RING];
	u8 ackreq[RING];
	u32 head, tail;
};

struct ackev {			/* ACKs and NAKs on their way back */
	u64 at[RING];
	u8 flow[RING];
	u32 psn[RING];
	u8 nak[RING];
	u8 becn[RING];
	u32 head, tail;
};

struct flow {
	struct ldcp_sm sm;
	u32 snd_nxt, snd_una, snd_max;	/* rxe requester / completer */
	u32 acked;			/* engine: oldest PSN not acked */
	u32 rcv_nxt;			/* responder */
	bool nak_sent, ce_unacked;
	u64 progress_at;		/* last ACK progress, for the RTO */
	u64 got;			/* in-order packets, second half */
	bool on;
};

static int verbose;
static u32 opt_alpha = 1024, opt_beta = 128, opt_k = 1;

/* the window ldcp.c gives the engine, and the engine's check */
static bool may_send(const struct flow *f, const struct ldcp_params *p)
{
	u32 w = ldcp_sm_window(&f->sm, p);
	u32 engine = w > 1 ? w - 1 : 1;

	return f->snd_nxt - f->snd_una <= engine;
}

static void send_ack(struct ackev *a, u64 at, int i, u32 psn, bool nak,
		     bool becn)
{
	u32 t = a->tail++ % RING;

	a->at[t] = at;
	a->flow[t] = i;
	a->psn[t] = psn;
	a->nak[t] = nak;
	a->becn[t] = becn;
}

static void run(const struct scenario *sc, struct result *res)
{
	static struct pktq q;
	static struct ackev a;
	struct flow fl[MAXN];
	u64 now, half = sc->steps / 2, served = 0, acks = 0, eces = 0;
	double qsum = 0, qsq = 0, wsum = 0;
	u64 qn = 0;
	int i;

	memset(res, 0, sizeof(*res));
	memset(fl, 0, sizeof(fl));
	q.head = q.tail = 0;
	a.head = a.tail = 0;
	res->qmin = ~0U;
	for (i = 0; i < sc->n; i++)
		ldcp_sm_init(&fl[i].sm, &sc->p);

	for (now = 0; now < sc->steps; now++) {
		u32 qlen;

		/* ACKs and NAKs reaching the senders */
		while (a.head != a.tail && a.at[a.head % RING] <= now) {
			u32 h = a.head++ % RING, psn = a.psn[h];
			struct flow *f = &fl[a.flow[h]];

			if (a.nak[h]) {
				/* go-back-N from the expected PSN */
				res->naks++;
				if (psn - f->snd_una < 1U << 31)
					f->snd_una = psn;
				f->snd_nxt = psn;
				f->progress_at = now;
				continue;
			}
			if (psn + 1 - f->acked - 1 >= f->snd_max - f->acked)
				continue;	/* not new (or not sent) */
			acks++;
			eces += a.becn[h];
			ldcp_sm_on_ack(&f->sm, &sc->p, psn + 1 - f->acked,
				       a.becn[h]);
			f->acked = psn + 1;
			if (psn + 1 - f->snd_una < 1U << 31)
				f->snd_una = psn + 1;
			if (f->snd_nxt - f->snd_una >= 1U << 31)
				f->snd_nxt = f->snd_una;
			f->progress_at = now;
		}
		/* senders: one packet per step each */
		for (i = 0; i < sc->n; i++) {
			struct flow *f = &fl[i];
			struct ldcp_pkt pkt;
			u32 psn = f->snd_nxt, t;

			if (now < (u64)i * sc->stagger)
				continue;
			if (!f->on) {
				f->on = true;
				f->progress_at = now;
			}
			if (f->snd_nxt != f->snd_una &&
			    now - f->progress_at > sc->rto) {
				res->timeouts++;
				f->snd_nxt = f->snd_una;
				f->progress_at = now;
				psn = f->snd_nxt;
			}
			if (!may_send(f, &sc->p))
				continue;
			pkt = (struct ldcp_pkt){
				.first = psn % sc->msg_pkts == 0,
				.last = psn % sc->msg_pkts == sc->msg_pkts - 1,
				.retry = psn < f->snd_max,
			};
			pkt.ackreq = pkt.last;
			ldcp_sm_pkt_prep(&f->sm, &sc->p, &pkt);
			res->retries += pkt.retry;
			f->snd_nxt++;
			if (f->snd_nxt > f->snd_max)
				f->snd_max = f->snd_nxt;
			qlen = q.tail - q.head;
			if (qlen >= sc->k && !pkt.ect) {
				res->drops_fs++;
				continue;
			}
			if (qlen >= sc->qlimit) {
				res->drops_tail++;
				continue;
			}
			t = q.tail++ % RING;
			q.flow[t] = i;
			q.psn[t] = psn;
			q.ce[t] = pkt.ect && qlen >= sc->k;
			q.ackreq[t] = pkt.ackreq;
		}
		/* bottleneck and responder */
		if (q.head != q.tail) {
			u32 h = q.head++ % RING, psn = q.psn[h];
			struct flow *f = &fl[q.flow[h]];

			if (q.ce[h])
				f->ce_unacked = true;
			if (psn == f->rcv_nxt) {
				f->rcv_nxt++;
				f->nak_sent = false;
				if (now >= half) {
					f->got++;
					served++;
				}
				if (q.ackreq[h]) {
					send_ack(&a, now + sc->d, q.flow[h],
						 psn, false, f->ce_unacked);
					f->ce_unacked = false;
				}
			} else if (psn > f->rcv_nxt && !f->nak_sent) {
				f->nak_sent = true;
				send_ack(&a, now + sc->d, q.flow[h],
					 f->rcv_nxt, true, f->ce_unacked);
				f->ce_unacked = false;
			}
		}
		qlen = q.tail - q.head;
		if (now >= half) {
			qsum += qlen;
			qsq += (double)qlen * qlen;
			qn++;
			if (qlen > res->qmax)
				res->qmax = qlen;
			if (qlen < res->qmin)
				res->qmin = qlen;
			for (i = 0; i < sc->n; i++)
				wsum += fl[i].sm.cwnd / (double)LDCP_CWND_ONE;
		}
		if (verbose && now % (sc->steps / 40) == 0) {
			printf("  t=%8llu q=%4u", (unsigned long long)now, qlen);
			for (i = 0; i < sc->n; i++)
				printf(" %6.2f",
				       fl[i].sm.cwnd / (double)LDCP_CWND_ONE);
			printf("\n");
		}
		if (now == half) {
			/* count only the second half */
			acks = eces = 0;
		}
	}
	{
		double sum = 0, sq = 0, fair = (double)served / sc->n;

		for (i = 0; i < sc->n; i++) {
			sum += fl[i].got;
			sq += (double)fl[i].got * fl[i].got;
			res->share[i] = fl[i].got / fair;
			res->fast_starts += fl[i].sm.fast_starts;
		}
		res->jain = sq ? sum * sum / (sc->n * sq) : 0;
		res->util = (double)served / (sc->steps - half);
		res->qmean = qsum / qn;
		res->qsd = sqrt(qsq / qn - res->qmean * res->qmean);
		res->ece_frac = acks ? (double)eces / acks : 0;
		res->wmean = wsum / qn / sc->n;
		{
			double al = sc->p.alpha / 1024.0;
			double be = sc->p.beta / 1024.0;
			double w = (sc->d + res->qmean) / sc->n;

			res->pstar = al / (al + be * w);
		}
	}
}

static struct scenario make(const char *name, int n, u32 d, u32 k)
{
	struct scenario sc = {
		.name = name,
		.n = n,
		.d = d,
		.k = k,
		.qlimit = 1000,
		.msg_pkts = 64,
		.stagger = 200 * d,
		.rto = 50 * d,
		.steps = 20000ULL * d,
		.p = {
			.alpha = opt_alpha,
			.beta = opt_beta,
			.min_cwnd = 1,
			.max_cwnd = 128,
			.init_window = d,
			.ack_every = opt_k,
		},
	};
	ldcp_params_sanitize(&sc.p);
	return sc;
}

int main(int argc, char **argv)
{
	static const int ns[] = { 2, 4, 8 };
	/* guest: 100 Mb/s, 1 KB, 1.6 ms RTT = 20 packets; datacenter:
	 * 25 Gb/s, 1 KB, 16 us RTT = 50 packets
	 */
	static const struct { const char *name; u32 d, k; } nets[] = {
		{ "guest", 20, 8 },
		{ "dc", 50, 12 },
	};
	const double qslack = 2;
	int fails = 0, s, j, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "-a") && i + 1 < argc)
			opt_alpha = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-b") && i + 1 < argc)
			opt_beta = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-k") && i + 1 < argc)
			opt_k = atoi(argv[++i]);
	}
	printf("%-6s %2s %3s %3s %6s %6s %6s %6s %5s %5s %6s %6s %6s %5s %5s %4s  shares of C/N\n",
	       "net", "N", "d", "K", "util", "jain", "qmean", "qsd", "qmin",
	       "qmax", "ECE", "p*", "cwnd", "fsdrp", "naks", "rto");
	for (s = 0; s < 2; s++) {
		for (j = 0; j < 3; j++) {
			struct scenario sc = make(nets[s].name, ns[j],
						  nets[s].d, nets[s].k);
			struct result r;
			int ok;

			run(&sc, &r);
			/* overshoot: N flows add N alpha per RTT while the
			 * marks are one RTT on their way
			 */
			double over = sc.n * sc.p.alpha / 1024.0;

			ok = r.util >= 0.90 && r.jain >= 0.95 &&
			     r.qmean <= sc.k + qslack &&
			     r.qmax <= sc.k + over + qslack &&
			     r.qsd <= sc.k / 2.0 &&
			     fabs(r.ece_frac - r.pstar) <= 0.04 &&
			     !r.timeouts;
			printf("%-6s %2d %3u %3u %6.3f %6.4f %6.2f %6.2f %5u %5u %6.3f %6.3f %6.2f %5llu %5llu %4llu ",
			       sc.name, sc.n, sc.d, sc.k, r.util, r.jain,
			       r.qmean, r.qsd, r.qmin, r.qmax, r.ece_frac,
			       r.pstar, r.wmean,
			       (unsigned long long)r.drops_fs,
			       (unsigned long long)r.naks,
			       (unsigned long long)r.timeouts);
			fails += model_scenario_end(r.share, sc.n, ok);
		}
	}
	return model_exit(fails);
}
