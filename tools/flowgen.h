/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flowgen.h - the workload side of rdmaflow, without any verbs: flow-size
 * CDFs and inverse-transform sampling, a seeded random generator, Poisson
 * arrivals, flow files, and the sender's scheduler of messages over QPs.
 * selftests/unit/rdmaflow tests it on the host.
 */
#ifndef FLOWGEN_H
#define FLOWGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FG_ERRLEN 256

/*
 * A flow-size CDF: n points (size in bytes, cumulative probability in
 * 0..1), both non-decreasing, the last probability 1.  Between points the
 * distribution is linear (uniform within a segment), as the HPCC
 * simulator's traffic generator reads these files.
 */
struct fg_cdf {
	unsigned int n;
	double *size;
	double *prob;
};

int fg_cdf_parse(struct fg_cdf *cdf, FILE *f, const char *name, char *err);
int fg_cdf_load(struct fg_cdf *cdf, const char *path, char *err);
void fg_cdf_free(struct fg_cdf *cdf);
double fg_cdf_quantile(const struct fg_cdf *cdf, double u);
double fg_cdf_mean(const struct fg_cdf *cdf);

/* splitmix64: one 64-bit state per stream, a fixed sequence per seed */
struct fg_rng {
	uint64_t s;
};

void fg_rng_seed(struct fg_rng *r, uint64_t seed, uint64_t stream);
uint64_t fg_rng_next(struct fg_rng *r);
double fg_rng_uniform(struct fg_rng *r);
double fg_rng_exp(struct fg_rng *r, double mean);
uint32_t fg_rng_below(struct fg_rng *r, uint32_t n);

uint64_t fg_size(const struct fg_cdf *cdf, struct fg_rng *r, double scale);
double fg_mean_gap(double mean_bytes, double load, double rate_bps);

/* A flow of a flow file; src and dst as the file names them */
struct fg_flow {
	char src[64];
	char dst[64];
	uint64_t size;
	double start;
};

int fg_flows_parse(FILE *f, const char *name, struct fg_flow **flows,
		   size_t *n, char *err);

/*
 * The sender's scheduler.  Messages arrive for a destination and wait in
 * its FIFO until one of its nqp QPs is idle; a QP carries one message at a
 * time, in WRs of at most wr_size bytes, at most depth of them in flight.
 * Times are the caller's (nanoseconds); nothing here waits.
 */
struct fg_msg {
	uint64_t size;
	uint64_t posted;	/* bytes in WRs handed out */
	uint64_t done;		/* bytes in WRs completed */
	int64_t t_arr;		/* arrival (scheduled) */
	int64_t t_post;		/* first WR handed out; -1 before */
	int64_t t_done;		/* last WR completed; -1 before */
	uint32_t dst;
	uint32_t qp;		/* index within the destination's QPs */
	long next;		/* the destination's FIFO; -1 ends it */
};

struct fg_qp {
	long cur;		/* the message it carries, -1 idle */
	uint32_t inflight;	/* WRs handed out, not completed */
};

struct fg_dst {
	long head, tail;	/* FIFO of waiting messages, -1 empty */
	uint32_t busy;		/* QPs carrying a message */
	uint32_t rr;		/* the QP to try first */
};

struct fg_sched {
	uint32_t ndst, nqp, depth;
	uint64_t wr_size;
	struct fg_msg *msg;
	size_t nmsg, cap;
	struct fg_qp *qp;	/* ndst * nqp, destination-major */
	struct fg_dst *dst;
	uint64_t waiting, active, completed;
};

int fg_sched_init(struct fg_sched *s, uint32_t ndst, uint32_t nqp,
		  uint32_t depth, uint64_t wr_size);
void fg_sched_free(struct fg_sched *s);
long fg_sched_arrive(struct fg_sched *s, uint32_t dst, uint64_t size,
		     int64_t t);
unsigned int fg_sched_dispatch(struct fg_sched *s, int64_t t);
int fg_sched_next_wr(struct fg_sched *s, uint32_t q, uint64_t *len,
		     int *last, long *msg);
long fg_sched_complete(struct fg_sched *s, uint32_t q, uint64_t len,
		       int64_t t);

#endif
