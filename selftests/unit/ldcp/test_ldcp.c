// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rxe_cc/ldcp_sm.c against the slides' rules (IETF 108,
 * "Window update rule (one ACK confirms n packets)" and the fast start).
 * cwnd values are checked exactly in 2^-16 packets where the rule gives an
 * exact fixed-point result, otherwise against a double-precision reference
 * within the truncation bound (2^-16 packet per ACK).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/limits.h>

#include "ldcp_sm.h"
#include "../check.h"

#define ONE ((double)LDCP_CWND_ONE)
#define FP(x) ((u32)((x) * LDCP_CWND_ONE))


#define CHECK_CWND(s, want)						\
	CHECK((s)->cwnd == (u32)(want), "cwnd = %u (%.6f), want %u (%.6f)", \
	      (s)->cwnd, (s)->cwnd / ONE, (u32)(want), (want) / ONE)

static struct ldcp_params defaults(void)
{
	struct ldcp_params p = {
		.alpha = 1024,
		.beta = 128,
		.min_cwnd = 1,
		.max_cwnd = 128,
		.init_window = 16,
		.ack_every = 1,
	};
	ldcp_params_sanitize(&p);
	return p;
}

static void at(struct ldcp_sm *s, const struct ldcp_params *p, u32 fp)
{
	ldcp_sm_init(s, p);
	s->cwnd = fp;
}

/* One ACK of one packet without ECE: cwnd += alpha / cwnd. */
TEST(test_increase_one)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;

	at(&s, &p, FP(10));
	CHECK(ldcp_sm_on_ack(&s, &p, 1, false), "cwnd must change");
	/* 10 + 1/10: 655360 + floor(2^32 / 655360) = 655360 + 6553 */
	CHECK_CWND(&s, 655360 + 6553);

	at(&s, &p, FP(16));
	ldcp_sm_on_ack(&s, &p, 1, false);
	CHECK_CWND(&s, FP(16) + 4096);		/* exactly + 1/16 */

	p.alpha = 512;				/* alpha = 0.5 */
	at(&s, &p, FP(8));
	ldcp_sm_on_ack(&s, &p, 1, false);
	CHECK_CWND(&s, FP(8) + 4096);		/* + 0.5/8 */

	p.alpha = 1;				/* smallest: 1/1024 */
	at(&s, &p, FP(4));
	ldcp_sm_on_ack(&s, &p, 1, false);
	CHECK_CWND(&s, FP(4) + 16);		/* 2^16 / 1024 / 4 */
}

/* One RTT of per-packet ACKs adds about alpha (the AI factor). */
TEST(test_increase_rtt)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;
	double ref = 20;
	int i;

	at(&s, &p, FP(20));
	for (i = 0; i < 20; i++) {
		ldcp_sm_on_ack(&s, &p, 1, false);
		ref += 1.0 / ref;
	}
	CHECK(fabs(s.cwnd / ONE - ref) <= 20.0 / ONE,
	      "after 20 ACKs cwnd = %.6f, reference %.6f", s.cwnd / ONE, ref);
	/* about +alpha per RTT: 20 ACKs from 20 give 20.98 */
	CHECK(s.cwnd / ONE > 20.97 && s.cwnd / ONE < 20.99,
	      "cwnd after one RTT = %.4f, want 20.98", s.cwnd / ONE);
	CHECK(ldcp_sm_window(&s, &p) == 20, "window %u, want 20 (floor)",
	      ldcp_sm_window(&s, &p));
}

/* An ACK of n packets: cwnd += n * alpha / cwnd (old cwnd). */
TEST(test_increase_n)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;

	at(&s, &p, FP(10));
	ldcp_sm_on_ack(&s, &p, 4, false);
	/* 4/10 = 0.4: floor(4 * 2^32 / 655360) = 26214 */
	CHECK_CWND(&s, FP(10) + 26214);

	p.alpha = 256;				/* 0.25 */
	at(&s, &p, FP(32));
	ldcp_sm_on_ack(&s, &p, 64, false);	/* 64 * 0.25 / 32 = 0.5 */
	CHECK_CWND(&s, FP(32) + FP(0.5));

	/* a huge n still only reaches max_cwnd, no overflow */
	p = defaults();
	at(&s, &p, FP(1));
	ldcp_sm_on_ack(&s, &p, 0xffffff, false);
	CHECK_CWND(&s, FP(128));
}

/* ECE: cwnd -= beta per ACK, n * beta for n packets. */
TEST(test_decrease)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;

	p.beta = 512;				/* 0.5 */
	at(&s, &p, FP(10));
	CHECK(ldcp_sm_on_ack(&s, &p, 1, true), "cwnd must change");
	CHECK_CWND(&s, FP(9.5));
	ldcp_sm_on_ack(&s, &p, 3, true);
	CHECK_CWND(&s, FP(8));			/* 9.5 - 3 * 0.5 */
	CHECK(s.ece_acks == 2 && s.acks == 2, "acks %u ece %u", s.acks,
	      s.ece_acks);

	p.beta = 128;				/* 1/8 (default) */
	at(&s, &p, FP(10));
	ldcp_sm_on_ack(&s, &p, 1, true);
	CHECK_CWND(&s, FP(9.875));
	ldcp_sm_on_ack(&s, &p, 8, true);
	CHECK_CWND(&s, FP(8.875));

	p.beta = 1024;				/* 1.0 */
	at(&s, &p, FP(10.25));
	ldcp_sm_on_ack(&s, &p, 2, true);
	CHECK_CWND(&s, FP(8.25));
	CHECK(ldcp_sm_window(&s, &p) == 8, "window %u, want 8",
	      ldcp_sm_window(&s, &p));
}

/* cwnd stays within [min_cwnd, max_cwnd], and the window with it. */
TEST(test_floor_ceiling)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;
	int i;

	p.min_cwnd = 2;
	p.max_cwnd = 12;
	p.beta = 1024;
	at(&s, &p, FP(2.3));
	ldcp_sm_on_ack(&s, &p, 5, true);
	CHECK_CWND(&s, FP(2));
	CHECK(!ldcp_sm_on_ack(&s, &p, 1, true), "at the floor: no change");
	CHECK_CWND(&s, FP(2));
	CHECK(ldcp_sm_window(&s, &p) == 2, "window %u", ldcp_sm_window(&s, &p));

	at(&s, &p, FP(11.95));
	ldcp_sm_on_ack(&s, &p, 1, false);	/* + 1/11.95 > 0.05 */
	CHECK_CWND(&s, FP(12));
	for (i = 0; i < 100; i++)
		ldcp_sm_on_ack(&s, &p, 1, false);
	CHECK_CWND(&s, FP(12));
	CHECK(ldcp_sm_window(&s, &p) == 12, "window %u",
	      ldcp_sm_window(&s, &p));

	/* sanitised knobs: ceiling at rxe's 128, floor at least 1 */
	p.min_cwnd = 0;
	p.max_cwnd = 1000;
	p.init_window = 500;
	p.ack_every = 0;
	ldcp_params_sanitize(&p);
	CHECK(p.min_cwnd == 1 && p.max_cwnd == 128 && p.init_window == 128 &&
	      p.ack_every == 1, "sanitised %u %u %u %u", p.min_cwnd,
	      p.max_cwnd, p.init_window, p.ack_every);
	p.min_cwnd = 50;
	p.max_cwnd = 20;
	ldcp_params_sanitize(&p);
	CHECK(p.min_cwnd == 20 && p.max_cwnd == 20, "min %u max %u",
	      p.min_cwnd, p.max_cwnd);
	ldcp_sm_init(&s, &p);
	CHECK_CWND(&s, FP(20));
}

/* Send @len packets of one message; record ECT and AckReq as 0/1 chars. */
static void send_msg(struct ldcp_sm *s, const struct ldcp_params *p,
		     int len, char *ect, char *ack)
{
	int i;

	for (i = 0; i < len; i++) {
		struct ldcp_pkt pkt = {
			.first = i == 0,
			.last = i == len - 1,
			.ackreq = i == len - 1,	/* rxe's own choice */
		};

		ldcp_sm_pkt_prep(s, p, &pkt);
		ect[i] = pkt.ect ? '1' : '0';
		ack[i] = pkt.ackreq ? '1' : '0';
	}
	ect[len] = ack[len] = 0;
}

/*
 * Send a message of @len packets and CHECK its packets' ECT and AckReq
 * bits against @ect_want and @ack_want ("0"/"1" per packet; NULL: not
 * checked); @what names the step in a failure.
 */
static void check_msg(struct __test_metadata *_metadata, struct ldcp_sm *s,
		      const struct ldcp_params *p, int len, const char *ect_want,
		      const char *ack_want, const char *what)
{
	char ect[64], ack[64];

	send_msg(s, p, len, ect, ack);
	if (ect_want)
		CHECK(!strcmp(ect, ect_want), "%s: ect %s, want %s", what, ect,
		      ect_want);
	if (ack_want)
		CHECK(!strcmp(ack, ack_want), "%s: ackreq %s, want %s", what,
		      ack, ack_want);
}

/* AckReq on every k-th packet and on rxe's own requests. */
TEST(test_ack_every)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;

	ldcp_sm_init(&s, &p);
	check_msg(_metadata, &s, &p, 10, NULL, "1111111111", "k=1");

	p.ack_every = 3;
	ldcp_sm_init(&s, &p);
	check_msg(_metadata, &s, &p, 10, NULL, "0010010011", "k=3");
	/* rxe's request on the last packet restarted the count */
	check_msg(_metadata, &s, &p, 4, NULL, "0011", "k=3 next message");

	p.ack_every = 4;
	ldcp_sm_init(&s, &p);
	check_msg(_metadata, &s, &p, 9, NULL, "000100011", "k=4");

	/* the packet that fills the window asks too (cwnd 5, k = 4) */
	p.init_window = 0;
	ldcp_sm_init(&s, &p);
	s.cwnd = FP(5.5);
	/* without the rule: 0001001 (k = 4 and rxe's last) */
	check_msg(_metadata, &s, &p, 7, NULL, "0001111", "k=4, window 5");
	/* and every retransmission */
	{
		struct ldcp_pkt pkt = { .retry = true };

		ldcp_sm_pkt_prep(&s, &p, &pkt);
		CHECK(pkt.ackreq, "retransmission without AckReq");
		pkt = (struct ldcp_pkt){ .retry = true };
		ldcp_sm_pkt_prep(&s, &p, &pkt);
		CHECK(pkt.ackreq, "second retransmission without AckReq");
	}
}

/* Fast start: non-ECT except the last of the initial window. */
TEST(test_fast_start)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;
	char ect[64], ack[64];
	struct ldcp_pkt pkt;

	p.init_window = 8;
	ldcp_sm_init(&s, &p);
	CHECK_CWND(&s, FP(8));			/* init: the initial window */
	check_msg(_metadata, &s, &p, 20, "00000001111111111111", NULL,
		  "IW 8, 20 pkts");
	CHECK(s.fast_starts == 1 && s.inflight == 20, "fs %u inflight %u",
	      s.fast_starts, s.inflight);

	/* a message started while packets are in flight: all ECT */
	check_msg(_metadata, &s, &p, 5, "11111", NULL, "busy");

	/* all acknowledged, but the last packet had filled the window: the
	 * QP was stalled, not idle, so no fast start
	 */
	ldcp_sm_on_ack(&s, &p, 25, false);
	CHECK(s.inflight == 0, "inflight %u", s.inflight);
	check_msg(_metadata, &s, &p, 4, "1111", NULL, "after a window stall");
	CHECK(s.fast_starts == 1, "fast starts %u", s.fast_starts);

	/* an idle QP (a 3-packet message within the window, acknowledged),
	 * cwnd cut to 3: the next message starts fast, cwnd back at 8
	 */
	ldcp_sm_init(&s, &p);
	send_msg(&s, &p, 3, ect, ack);
	ldcp_sm_on_ack(&s, &p, 3, false);
	s.cwnd = FP(3);
	pkt = (struct ldcp_pkt){ .first = true };
	CHECK(ldcp_sm_pkt_prep(&s, &p, &pkt), "fast start raises cwnd");
	CHECK_CWND(&s, FP(8));
	CHECK(!pkt.ect, "first fast-start packet non-ECT");

	/* a message shorter than the initial window: its last is ECT */
	ldcp_sm_init(&s, &p);
	check_msg(_metadata, &s, &p, 3, "001", NULL, "IW 8, 3 pkts");
	/* 3 in flight */
	check_msg(_metadata, &s, &p, 3, "111", NULL, "then busy");

	/* one-packet message from idle: ECT (it is the last) */
	ldcp_sm_init(&s, &p);
	check_msg(_metadata, &s, &p, 1, "1", NULL, "1 pkt");

	/* retransmissions are ECT and end the fast start */
	ldcp_sm_init(&s, &p);
	send_msg(&s, &p, 0, ect, ack);
	{
		static const struct { bool first, retry; } seq[] = {
			{ 1, 0 }, { 0, 0 }, { 0, 0 },	/* new: 0 0 0 */
			{ 0, 1 }, { 0, 1 },		/* go-back-N: 1 1 */
			{ 0, 0 }, { 0, 0 },		/* new again: 1 1 */
		};
		char got[8];
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(seq); i++) {
			pkt = (struct ldcp_pkt){ .first = seq[i].first,
						 .retry = seq[i].retry };
			ldcp_sm_pkt_prep(&s, &p, &pkt);
			got[i] = pkt.ect ? '1' : '0';
		}
		got[i] = 0;
		CHECK(!strcmp(got, "0001111"), "retry: ect %s", got);
		CHECK(s.inflight == 5, "retries not counted: inflight %u",
		      s.inflight);
	}

	/* fast start off: everything ECT */
	p.init_window = 0;
	ldcp_sm_init(&s, &p);
	CHECK_CWND(&s, FP(1));			/* starts at min_cwnd */
	check_msg(_metadata, &s, &p, 6, "111111", NULL, "IW 0");
	CHECK(s.fast_starts == 0, "fast starts %u", s.fast_starts);
}

/*
 * A packet rxe could not send (-EAGAIN) is prepared again: after
 * ldcp_sm_pkt_unsent() the state is as if it had never been prepared, so
 * it is not counted in flight twice and its fast-start slot is reused.
 */
TEST(test_unsent)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s, before;
	struct ldcp_pkt pkt;
	int i;

	p.init_window = 8;
	p.ack_every = 4;
	ldcp_sm_init(&s, &p);
	for (i = 0; i < 5; i++) {
		pkt = (struct ldcp_pkt){ .first = !i };
		before = s;
		ldcp_sm_pkt_prep(&s, &p, &pkt);
		/* every packet is refused once, then sent */
		ldcp_sm_pkt_unsent(&s);
		CHECK(s.inflight == before.inflight &&
		      s.fs_left == before.fs_left &&
		      s.noack == before.noack &&
		      s.win_full == before.win_full &&
		      s.fast_starts == before.fast_starts,
		      "pkt %d unsent: inflight %u fs_left %u noack %u fs %u, want %u %u %u %u",
		      i, s.inflight, s.fs_left, s.noack, s.fast_starts,
		      before.inflight, before.fs_left, before.noack,
		      before.fast_starts);
		pkt = (struct ldcp_pkt){ .first = !i };
		ldcp_sm_pkt_prep(&s, &p, &pkt);
		CHECK(pkt.ect == false, "pkt %d of the fast start: non-ECT", i);
	}
	CHECK(s.inflight == 5 && s.fast_starts == 1 && s.fs_left == 3,
	      "5 sent: inflight %u fast starts %u fs_left %u, want 5 1 3",
	      s.inflight, s.fast_starts, s.fs_left);
	ldcp_sm_on_ack(&s, &p, 5, false);
	CHECK(s.inflight == 0, "all acknowledged: inflight %u, want 0",
	      s.inflight);
}

/*
 * An RDMA READ request puts its response packets on the wire: they are in
 * flight from the request on, fill the window (and ask for an ACK) as
 * many packets would, are undone together when the request is not sent,
 * and the responses acknowledge them one PSN each.
 */
TEST(test_read)
{
	struct ldcp_params p = defaults();
	struct ldcp_sm s;
	struct ldcp_pkt pkt;

	p.init_window = 0;
	p.ack_every = 64;
	ldcp_sm_init(&s, &p);
	s.cwnd = FP(8);
	pkt = (struct ldcp_pkt){ .first = true, .last = true, .npsn = 4 };
	ldcp_sm_pkt_prep(&s, &p, &pkt);
	CHECK(s.inflight == 4 && !s.win_full && !pkt.ackreq,
	      "one 4-packet READ: inflight %u win_full %u ackreq %d, want 4 0 0",
	      s.inflight, s.win_full, pkt.ackreq);
	ldcp_sm_pkt_unsent(&s);
	CHECK(s.inflight == 0, "READ unsent: inflight %u, want 0", s.inflight);
	ldcp_sm_pkt_prep(&s, &p, &pkt);
	pkt = (struct ldcp_pkt){ .first = true, .last = true, .npsn = 4 };
	ldcp_sm_pkt_prep(&s, &p, &pkt);
	CHECK(s.inflight == 8 && s.win_full && pkt.ackreq,
	      "two READs: inflight %u win_full %u ackreq %d, want 8 1 1",
	      s.inflight, s.win_full, pkt.ackreq);
	ldcp_sm_on_ack(&s, &p, 1, false);
	ldcp_sm_on_ack(&s, &p, 3, false);
	CHECK(s.inflight == 4, "4 responses: inflight %u, want 4", s.inflight);
	/* npsn 0 (a caller that does not know) counts as one packet */
	pkt = (struct ldcp_pkt){ .first = true, .last = true };
	ldcp_sm_pkt_prep(&s, &p, &pkt);
	CHECK(s.inflight == 5, "a SEND after them: inflight %u, want 5",
	      s.inflight);
}

/*
 * The default fast-start window (ldcp_sm_auto_init_window): one BDP in
 * packets, rounded up, 1 .. 128 (rxe's window).  At 40 Gb/s and 50 us the
 * slides' BDP is 244 packets of 1 KB, above rxe's 128.
 */
TEST(test_auto)
{
	static const struct { u32 line, rtt, mtu, want; } c[] = {
		{ 40000000, 50, 1024, 128 },	/* BDP 244 */
		{ 10000000, 50, 4096, 16 },	/* 62.5 KB */
		{ 10000000, 10, 1024, 13 },	/* 12.5 KB */
		{ 40000, 1000, 1024, 5 },	/* 5000 B */
		{ 40000, 50, 1024, 1 },		/* 250 B */
		{ 10000, 1000, 1024, 2 },	/* 1250 B */
		{ 10000, 50, 1024, 1 },
		{ 20000, 1000, 1024, 3 },		/* 2500 B */
		{ 1, 1, 0, 1 },
		{ U32_MAX, 1000000, 1024, 128 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		u32 w = ldcp_sm_auto_init_window(c[i].line, c[i].rtt, c[i].mtu);
		double bdp = (double)c[i].line * c[i].rtt / 8000;
		double want = ceil(bdp / (c[i].mtu ? c[i].mtu : 1));

		CHECK(w == c[i].want, "%u kb/s %u us MTU %u: IW %u, want %u",
		      c[i].line, c[i].rtt, c[i].mtu, w, c[i].want);
		CHECK(w == (u32)fmin(fmax(want, 1), 128),
		      "%u kb/s %u us: IW %u, rule %.1f", c[i].line, c[i].rtt,
		      w, want);
	}
}

TEST_HARNESS_MAIN
