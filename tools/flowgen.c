// SPDX-License-Identifier: GPL-2.0
/*
 * flowgen.c - rdmaflow's workload: CDFs, random streams, Poisson
 * arrivals, flow files and the sender's scheduler (see flowgen.h).
 *
 * Errors are one line in the caller's buffer err (FG_ERRLEN bytes),
 * "FILE:LINE: what", and the functions return -1; nothing is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flowgen.h"

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, FG_ERRLEN, fmt, ap);
	va_end(ap);
	return -1;
}

/* The line without its comment (from '#') and surrounding blanks. */
static char *strip(char *line)
{
	char *p = strchr(line, '#'), *end;

	if (p)
		*p = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	end = line + strlen(line);
	while (end > line && strchr(" \t\r\n", end[-1]))
		*--end = '\0';
	return line;
}

/* A finite number filling all of @s, or -1. */
static int number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v))
		return -1;
	return 0;
}

/*
 * The file's lines are "SIZE PROB": the size in bytes and the cumulative
 * probability of sizes up to it, in percent (the HPCC simulator's
 * traffic_gen files) or as a fraction: the last point says which, 100 or
 * 1.  '#' starts a comment.
 */
int fg_cdf_parse(struct fg_cdf *cdf, FILE *f, const char *name, char *err)
{
	unsigned int cap = 0, lineno = 0;
	char buf[512];
	double div;

	memset(cdf, 0, sizeof(*cdf));
	while (fgets(buf, sizeof(buf), f)) {
		char *s = strip(buf), *a, *b, *extra, *save;
		double x, p;

		lineno++;
		if (!*s)
			continue;
		a = strtok_r(s, " \t", &save);
		b = strtok_r(NULL, " \t", &save);
		extra = strtok_r(NULL, " \t", &save);
		if (!b || extra) {
			fg_cdf_free(cdf);
			return fail(err, "%s:%u: want 'SIZE PROBABILITY'", name,
				    lineno);
		}
		if (number(a, &x) || x < 0) {
			fg_cdf_free(cdf);
			return fail(err, "%s:%u: bad size '%s'", name, lineno, a);
		}
		if (number(b, &p) || p < 0 || p > 100) {
			fg_cdf_free(cdf);
			return fail(err, "%s:%u: bad probability '%s' (0 to 100)",
				    name, lineno, b);
		}
		if (cdf->n && (x < cdf->size[cdf->n - 1] ||
			       p < cdf->prob[cdf->n - 1])) {
			fg_cdf_free(cdf);
			return fail(err, "%s:%u: sizes and probabilities must not decrease",
				    name, lineno);
		}
		if (cdf->n == cap) {
			double *ns, *np;

			cap = cap ? 2 * cap : 32;
			ns = realloc(cdf->size, cap * sizeof(*ns));
			if (ns)
				cdf->size = ns;
			np = realloc(cdf->prob, cap * sizeof(*np));
			if (np)
				cdf->prob = np;
			if (!ns || !np) {
				fg_cdf_free(cdf);
				return fail(err, "%s: out of memory", name);
			}
		}
		cdf->size[cdf->n] = x;
		cdf->prob[cdf->n] = p;
		cdf->n++;
	}
	if (ferror(f)) {
		fg_cdf_free(cdf);
		return fail(err, "%s: read error", name);
	}
	if (!cdf->n)
		return fail(err, "%s: no points", name);
	div = cdf->prob[cdf->n - 1];
	if (div != 100 && div != 1) {
		fail(err, "%s: the last probability is %g, want 100 (percent) or 1",
		     name, div);
		fg_cdf_free(cdf);
		return -1;
	}
	for (unsigned int i = 0; i < cdf->n; i++)
		cdf->prob[i] /= div;
	if (cdf->size[cdf->n - 1] <= 0) {
		fg_cdf_free(cdf);
		return fail(err, "%s: every size is 0", name);
	}
	return 0;
}

int fg_cdf_load(struct fg_cdf *cdf, const char *path, char *err)
{
	FILE *f = fopen(path, "r");
	int r;

	if (!f)
		return fail(err, "%s: %s", path, strerror(errno));
	r = fg_cdf_parse(cdf, f, path, err);
	fclose(f);
	return r;
}

void fg_cdf_free(struct fg_cdf *cdf)
{
	free(cdf->size);
	free(cdf->prob);
	memset(cdf, 0, sizeof(*cdf));
}

/*
 * The size at cumulative probability @u (0..1): the first point's size up
 * to its probability, linear between points beyond it.
 */
double fg_cdf_quantile(const struct fg_cdf *cdf, double u)
{
	unsigned int i = 0;

	while (i < cdf->n - 1 && cdf->prob[i] < u)
		i++;
	if (i == 0 || cdf->prob[i] <= cdf->prob[i - 1])
		return cdf->size[i];
	return cdf->size[i - 1] + (cdf->size[i] - cdf->size[i - 1]) *
		(u - cdf->prob[i - 1]) / (cdf->prob[i] - cdf->prob[i - 1]);
}

/* The mean of that distribution: each segment's mass at its midpoint. */
double fg_cdf_mean(const struct fg_cdf *cdf)
{
	double m = cdf->prob[0] * cdf->size[0];

	for (unsigned int i = 1; i < cdf->n; i++)
		m += (cdf->prob[i] - cdf->prob[i - 1]) *
			(cdf->size[i - 1] + cdf->size[i]) / 2;
	return m;
}

/*
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): the state steps by the golden-ratio constant
 * and each output is a mix of it.  Streams of one seed start 2^64/phi^2
 * steps apart, so the sizes of a run do not change with its load.
 */
void fg_rng_seed(struct fg_rng *r, uint64_t seed, uint64_t stream)
{
	r->s = seed + stream * 0xd1b54a32d192ed03ULL;
}

uint64_t fg_rng_next(struct fg_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1): the top 53 bits. */
double fg_rng_uniform(struct fg_rng *r)
{
	return (fg_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Exponential with mean @mean (inverse transform of 1 - u in (0, 1]). */
double fg_rng_exp(struct fg_rng *r, double mean)
{
	return -mean * log1p(-fg_rng_uniform(r));
}

/* Uniform in 0..n-1 (n > 0; the bias of the multiply is below 2^-32 n). */
uint32_t fg_rng_below(struct fg_rng *r, uint32_t n)
{
	return (uint32_t)(((fg_rng_next(r) >> 32) * n) >> 32);
}

/* One size drawn from @cdf, times @scale, rounded, at least one byte. */
uint64_t fg_size(const struct fg_cdf *cdf, struct fg_rng *r, double scale)
{
	double v = fg_cdf_quantile(cdf, fg_rng_uniform(r)) * scale;

	return v < 1.5 ? 1 : (uint64_t)llround(v);
}

/*
 * The mean gap between arrivals (seconds) that offers @load of @rate_bps
 * in messages of @mean_bytes on average.
 */
double fg_mean_gap(double mean_bytes, double load, double rate_bps)
{
	return mean_bytes * 8 / (load * rate_bps);
}

static int flow_cmp(const void *a, const void *b)
{
	const struct fg_flow *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->src, y->src);
}

/* Copy a name into @dst (64 bytes), or -1 if it does not fit. */
static int name_copy(char *dst, const char *s)
{
	if (strlen(s) >= 64)
		return -1;
	strcpy(dst, s);
	return 0;
}

/*
 * A flow file: "SRC DST SIZE START" per line (START in seconds from the
 * start of the run), or the HPCC simulator's flow.txt, whose first line
 * is the number of flows and whose lines are "SRC DST PG DPORT SIZE
 * START".  '#' starts a comment.  The flows come back sorted by start
 * (ties in the file's order of sources: qsort is not stable, so the same
 * start and source keep no order among themselves).
 */
int fg_flows_parse(FILE *f, const char *name, struct fg_flow **flows,
		   size_t *n, char *err)
{
	size_t cap = 0, count = 0, want = 0, lineno = 0;
	struct fg_flow *v = NULL;
	int first = 1;
	char buf[512];

	while (fgets(buf, sizeof(buf), f)) {
		char *s = strip(buf), *w[7], *save;
		struct fg_flow *fl;
		unsigned int k = 0;
		double size, start;

		lineno++;
		if (!*s)
			continue;
		for (char *t = strtok_r(s, " \t", &save); t && k < 7;
		     t = strtok_r(NULL, " \t", &save))
			w[k++] = t;
		if (first && k == 1) {
			double c;

			first = 0;
			if (number(w[0], &c) || c < 0 || c != (size_t)c) {
				free(v);
				return fail(err, "%s:%zu: bad flow count '%s'",
					    name, lineno, w[0]);
			}
			want = (size_t)c + 1;
			continue;
		}
		first = 0;
		if (k != 4 && k != 6) {
			free(v);
			return fail(err, "%s:%zu: want 'SRC DST SIZE START' or 'SRC DST PG DPORT SIZE START'",
				    name, lineno);
		}
		if (number(w[k - 2], &size) || size < 1 || size > 1e15 ||
		    size != (uint64_t)size) {
			free(v);
			return fail(err, "%s:%zu: bad size '%s' (bytes, at least 1)",
				    name, lineno, w[k - 2]);
		}
		if (number(w[k - 1], &start) || start < 0) {
			free(v);
			return fail(err, "%s:%zu: bad start time '%s' (seconds)",
				    name, lineno, w[k - 1]);
		}
		if (count == cap) {
			struct fg_flow *nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				free(v);
				return fail(err, "%s: out of memory", name);
			}
			v = nv;
		}
		fl = &v[count];
		if (name_copy(fl->src, w[0]) || name_copy(fl->dst, w[1])) {
			free(v);
			return fail(err, "%s:%zu: a name longer than 63 characters",
				    name, lineno);
		}
		fl->size = (uint64_t)size;
		fl->start = start;
		count++;
	}
	if (ferror(f)) {
		free(v);
		return fail(err, "%s: read error", name);
	}
	if (want && want - 1 != count) {
		free(v);
		return fail(err, "%s: its first line says %zu flows, it has %zu",
			    name, want - 1, count);
	}
	if (count)
		qsort(v, count, sizeof(*v), flow_cmp);
	*flows = v;
	*n = count;
	return 0;
}

int fg_sched_init(struct fg_sched *s, uint32_t ndst, uint32_t nqp,
		  uint32_t depth, uint64_t wr_size)
{
	memset(s, 0, sizeof(*s));
	if (!ndst || !nqp || !depth || !wr_size) {
		errno = EINVAL;
		return -1;
	}
	s->ndst = ndst;
	s->nqp = nqp;
	s->depth = depth;
	s->wr_size = wr_size;
	s->qp = calloc((size_t)ndst * nqp, sizeof(*s->qp));
	s->dst = calloc(ndst, sizeof(*s->dst));
	if (!s->qp || !s->dst) {
		fg_sched_free(s);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < (size_t)ndst * nqp; i++)
		s->qp[i].cur = -1;
	for (uint32_t d = 0; d < ndst; d++)
		s->dst[d].head = s->dst[d].tail = -1;
	return 0;
}

void fg_sched_free(struct fg_sched *s)
{
	free(s->msg);
	free(s->qp);
	free(s->dst);
	memset(s, 0, sizeof(*s));
}

/*
 * A message of @size bytes for destination @dst arrives at @t: it joins
 * the destination's FIFO.  Its index, or -1 (errno EINVAL, ENOMEM).
 */
long fg_sched_arrive(struct fg_sched *s, uint32_t dst, uint64_t size,
		     int64_t t)
{
	struct fg_dst *d;
	struct fg_msg *m;

	if (dst >= s->ndst || !size) {
		errno = EINVAL;
		return -1;
	}
	if (s->nmsg == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct fg_msg *nm = realloc(s->msg, cap * sizeof(*nm));

		if (!nm) {
			errno = ENOMEM;
			return -1;
		}
		s->msg = nm;
		s->cap = cap;
	}
	m = &s->msg[s->nmsg];
	*m = (struct fg_msg){ .size = size, .t_arr = t, .t_post = -1,
			      .t_done = -1, .dst = dst, .qp = UINT32_MAX,
			      .next = -1 };
	d = &s->dst[dst];
	if (d->tail >= 0)
		s->msg[d->tail].next = (long)s->nmsg;
	else
		d->head = (long)s->nmsg;
	d->tail = (long)s->nmsg;
	s->waiting++;
	return (long)s->nmsg++;
}

/*
 * Give each waiting message, oldest first per destination, an idle QP of
 * its destination (taken in turn, so that a destination's QPs, and the
 * UDP source ports ECMP hashes, all carry traffic); @t is its post time.
 * The number of messages that got one.
 */
unsigned int fg_sched_dispatch(struct fg_sched *s, int64_t t)
{
	unsigned int n = 0;

	for (uint32_t di = 0; di < s->ndst; di++) {
		struct fg_dst *d = &s->dst[di];
		struct fg_qp *qps = &s->qp[(size_t)di * s->nqp];
		uint32_t q = d->rr;

		while (d->head >= 0 && d->busy < s->nqp) {
			struct fg_msg *m = &s->msg[d->head];
			long idx = d->head;

			while (qps[q].cur >= 0)
				q = (q + 1) % s->nqp;
			d->head = m->next;
			if (d->head < 0)
				d->tail = -1;
			m->next = -1;
			m->qp = q;
			m->t_post = t;
			qps[q].cur = idx;
			d->busy++;
			s->waiting--;
			s->active++;
			n++;
			q = (q + 1) % s->nqp;
		}
		d->rr = q;
	}
	return n;
}

/*
 * The next WR of global QP @q (destination * nqp + index): 1 and its
 * length, whether it is the message's last and the message, or 0 if the
 * QP is idle, its message fully handed out, or depth WRs are in flight.
 */
int fg_sched_next_wr(struct fg_sched *s, uint32_t q, uint64_t *len,
		     int *last, long *msg)
{
	struct fg_qp *qp = &s->qp[q];
	struct fg_msg *m;

	if (qp->cur < 0 || qp->inflight >= s->depth)
		return 0;
	m = &s->msg[qp->cur];
	if (m->posted == m->size)
		return 0;
	*len = m->size - m->posted < s->wr_size ? m->size - m->posted :
		s->wr_size;
	m->posted += *len;
	*last = m->posted == m->size;
	*msg = qp->cur;
	qp->inflight++;
	return 1;
}

/*
 * A WR of @len bytes of global QP @q completed at @t.  The message's index
 * if that completed it (the QP is idle again), -1 if not, -2 if no such
 * WR was in flight.
 */
long fg_sched_complete(struct fg_sched *s, uint32_t q, uint64_t len,
		       int64_t t)
{
	struct fg_qp *qp = &s->qp[q];
	struct fg_msg *m;
	long idx = qp->cur;

	if (idx < 0 || !qp->inflight)
		return -2;
	m = &s->msg[idx];
	if (len > m->posted - m->done)
		return -2;
	m->done += len;
	qp->inflight--;
	if (m->done < m->size)
		return -1;
	m->t_done = t;
	qp->cur = -1;
	s->dst[m->dst].busy--;
	s->active--;
	s->completed++;
	return idx;
}
