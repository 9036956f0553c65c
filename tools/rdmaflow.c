// SPDX-License-Identifier: GPL-2.0
/*
 * rdmaflow - a workload of RDMA messages and their completion times.
 *
 *   rdmaflow server [options]
 *   rdmaflow client [options] [NAME=]ADDR ...
 *
 * The server accepts RC connections over librdmacm and registers one
 * buffer per RDMA device that every client WRITEs into.  The client opens
 * --qps QPs to each destination and issues messages: sizes drawn from a
 * flow-size CDF with Poisson arrivals at a share of a line rate (--cdf),
 * the lines of a flow file (--flows), or one small message at a time
 * (--ping, the idle fabric's base RTT).  Arrivals never wait for
 * completions: a message whose destination has no idle QP waits at the
 * sender, and that wait is part of its completion time.  A message is
 * RDMA WRITEs of at most --wr-size bytes, --depth of them in flight per
 * QP; the last carries an immediate, the message's number, which
 * consumes a receive at the server: one receive completion per message
 * there, and the server's CPU does nothing for the bytes before it.
 * (SEND would need receive buffers as large as the WRs posted ahead on
 * every QP, and a completion at the server for every WR.)  A message
 * completes when the last of its WRs completes at the client, that is
 * when the server's ACK for it arrived.
 *
 * At the end the client writes every message to a CSV (-o, default
 * stdout): msg,src,dst,qp,size,arrival_ns,post_ns,done_ns with times in
 * nanoseconds of CLOCK_MONOTONIC from the moment every QP was connected;
 * arrival is the scheduled arrival, post the moment its first WR was
 * posted, done empty for a message that did not complete.  A summary
 * line goes to stderr.
 *
 * Exit status: 0 every message completed; 1 an RDMA or system error,
 * messages left incomplete, or a signal; 2 bad usage or input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "flowgen.h"

#define __noreturn __attribute__((noreturn))

#define DEFAULT_PORT	18515
#define MAX_CTX		8
#define MAX_CQE		32767		/* rdma_rxe's RXE_MAX_CQE */
#define CONNECT_TRIES	20
#define PING_GAP_NS	1000000		/* --ping: 1 ms between messages */

static const char usage_text[] =
	"usage: rdmaflow server [-p PORT] [-b ADDR] [--wr-size B] [--rq-depth N]\n"
	"       rdmaflow client MODE [options] [NAME=]ADDR ...\n"
	"  MODE: --cdf FILE --rate MBIT --load F (--duration S | --count N)\n"
	"        | --flows FILE | --ping N [--size B]\n"
	"  options: [--src NAME] [--scale S] [--seed N] [-p PORT] [--qps Q]\n"
	"           [--wr-size B] [--depth D] [--stall S] [--tos T]\n"
	"           [--ack-timeout U] [-o FILE]\n"
	"  (rdmaflow --help: the options explained)\n";

static const char help_text[] =
	"server: accepts connections on PORT (default 18515) of ADDR (default any);\n"
	"  --wr-size B   its buffer: the largest WR a client may write (1048576)\n"
	"  --rq-depth N  receives posted per QP (16); SIGTERM/SIGINT end it\n"
	"client: messages to every destination [NAME=]ADDR (NAME: how the CSV and\n"
	"  a flow file name it, default ADDR); one of:\n"
	"  --cdf FILE    sizes from a flow-size CDF (lines 'SIZE PROB', PROB in\n"
	"                percent or as a fraction), Poisson arrivals offering\n"
	"  --load F      times --rate MBIT (Mbit/s) in all, destinations uniform,\n"
	"                for --duration S seconds and/or --count N messages\n"
	"  --flows FILE  lines 'SRC DST SIZE START' (or the HPCC simulator's\n"
	"                flow.txt), START in seconds; those whose SRC is --src\n"
	"  --ping N      N messages of --size B bytes (1) per destination, one\n"
	"                at a time, each 1 ms after the last completed (the\n"
	"                idle fabric's completion time)\n"
	"  --src NAME    this client in the CSV (default its address)\n"
	"  --scale S     sizes of --cdf and --flows times S (1)\n"
	"  --seed N      the random streams' seed (1)\n"
	"  --qps Q       QPs per destination (4); --depth D WRs in flight per\n"
	"                QP (4) of at most --wr-size B bytes (1048576)\n"
	"  --stall S     give up when nothing completed for S seconds (30)\n"
	"  --tos T       the connections' IP TOS byte (0: rxe's roce_dscp)\n"
	"  --ack-timeout U  transport timeout 4.096 us * 2^U (20)\n"
	"  -o FILE       the messages' CSV (default stdout)\n";

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	stopping = sig;
}

/* "rdmaflow: " and the message of @fmt, @ap on stderr, a line */
static void vsay(const char *fmt, va_list ap)
{
	fputs("rdmaflow: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void __noreturn bad_usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsay(fmt, ap);
		va_end(ap);
	}
	fputs(usage_text, stderr);
	exit(2);
}

static void __noreturn bad_input(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	exit(2);
}

static void __noreturn die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	exit(1);
}

static double num(const char *opt, const char *s, double min, double max,
		  int whole)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max ||
	    (whole && v != floor(v)))
		bad_input("bad value '%s' for %s (%s %g to %g)", s, opt,
			  whole ? "a whole number from" : "from", min, max);
	return v;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* SIGINT and SIGTERM only get through while we wait in ppoll(). */
static void signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* What the server tells a client in its accept: where to write. */
struct wire_buf {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* The resources of one RDMA device: all QPs on it share them. */
struct ctx {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	void *buf;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	int armed;
};

static struct ctx ctxs[MAX_CTX];
static unsigned int nctx;

static struct ctx *ctx_get(struct ibv_context *verbs, size_t buflen,
			   int access, int cqe)
{
	struct ctx *c;

	for (unsigned int i = 0; i < nctx; i++)
		if (ctxs[i].verbs == verbs)
			return &ctxs[i];
	if (nctx == MAX_CTX)
		die("more than %d RDMA devices", MAX_CTX);
	c = &ctxs[nctx];
	c->verbs = verbs;
	c->pd = ibv_alloc_pd(verbs);
	if (!c->pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	c->buf = calloc(1, buflen);
	if (!c->buf)
		die("out of memory for a %zu-byte buffer", buflen);
	c->mr = ibv_reg_mr(c->pd, c->buf, buflen, access);
	if (!c->mr)
		die("ibv_reg_mr of %zu bytes: %s", buflen, strerror(errno));
	c->ch = ibv_create_comp_channel(verbs);
	if (!c->ch)
		die("ibv_create_comp_channel: %s", strerror(errno));
	c->cq = ibv_create_cq(verbs, cqe, NULL, c->ch, 0);
	if (!c->cq)
		die("ibv_create_cq(%d): %s", cqe, strerror(errno));
	nctx++;
	return c;
}

static void ctx_free_all(void)
{
	for (unsigned int i = 0; i < nctx; i++) {
		ibv_destroy_cq(ctxs[i].cq);
		ibv_destroy_comp_channel(ctxs[i].ch);
		ibv_dereg_mr(ctxs[i].mr);
		free(ctxs[i].buf);
		ibv_dealloc_pd(ctxs[i].pd);
	}
	nctx = 0;
}

/* Take the completion event of a readable channel and arm the CQ again. */
static void ctx_event(struct ctx *c)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	if (ibv_get_cq_event(c->ch, &cq, &cq_ctx))
		return;
	ibv_ack_cq_events(cq, 1);
	c->armed = 0;
}

static int ctx_arm(struct ctx *c)
{
	if (c->armed)
		return 0;
	if (ibv_req_notify_cq(c->cq, 0))
		die("ibv_req_notify_cq: %s", strerror(errno));
	c->armed = 1;
	return 1;
}

/* ------------------------------------------------------------ server */

struct sconn {
	struct rdma_cm_id *id;
	struct ctx *ctx;
	uint64_t msgs;
	int open;
	struct sconn *next;
};

static int post_recv(struct sconn *sc)
{
	struct ibv_recv_wr wr = { .wr_id = (uintptr_t)sc }, *bad;

	return ibv_post_recv(sc->id->qp, &wr, &bad);
}

struct server_opts {
	const char *bind;
	unsigned int port;
	size_t wr_size;
	unsigned int rq_depth;
};

static void server_accept(const struct server_opts *o, struct rdma_cm_id *id,
			  struct sconn **list, unsigned int *nconn)
{
	struct rdma_conn_param param = { .rnr_retry_count = 7,
					 .retry_count = 7 };
	struct ibv_qp_init_attr attr = { 0 };
	unsigned int max = (MAX_CQE - 1) / o->rq_depth;
	struct wire_buf wb;
	struct sconn *sc;
	struct ctx *c;

	if (*nconn >= max) {
		fprintf(stderr, "rdmaflow server: refusing connection %u: the CQ holds %u QPs of --rq-depth %u\n",
			*nconn + 1, max, o->rq_depth);
		rdma_reject(id, NULL, 0);
		return;
	}
	c = ctx_get(id->verbs, o->wr_size,
		    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, MAX_CQE);
	ctx_arm(c);
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		die("out of memory");
	attr.qp_context = sc;
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = o->rq_depth;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &attr)) {
		fprintf(stderr, "rdmaflow server: rdma_create_qp: %s\n",
			strerror(errno));
		free(sc);
		rdma_reject(id, NULL, 0);
		return;
	}
	sc->id = id;
	sc->ctx = c;
	id->context = sc;
	for (unsigned int i = 0; i < o->rq_depth; i++)
		if (post_recv(sc))
			die("ibv_post_recv: %s", strerror(errno));
	wb.addr = htobe64((uintptr_t)c->buf);
	wb.rkey = htobe32(c->mr->rkey);
	wb.len = htobe32((uint32_t)o->wr_size);
	param.private_data = &wb;
	param.private_data_len = sizeof(wb);
	if (rdma_accept(id, &param)) {
		fprintf(stderr, "rdmaflow server: rdma_accept: %s\n",
			strerror(errno));
		rdma_destroy_qp(id);
		free(sc);
		return;
	}
	sc->open = 1;
	sc->next = *list;
	*list = sc;
	(*nconn)++;
}

/* A receive completed: a message's last WRITE arrived. */
static void server_wc(struct ibv_wc *wc, uint64_t *msgs, uint64_t *errs)
{
	struct sconn *sc = (struct sconn *)(uintptr_t)wc->wr_id;

	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR) {
			fprintf(stderr, "rdmaflow server: receive failed: %s\n",
				ibv_wc_status_str(wc->status));
			(*errs)++;
		}
		return;
	}
	if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM)
		return;
	sc->msgs++;
	(*msgs)++;
	if (sc->open && post_recv(sc)) {
		fprintf(stderr, "rdmaflow server: ibv_post_recv: %s\n",
			strerror(errno));
		(*errs)++;
	}
}

/*
 * A passive side whose RTU was lost is established by the QP's first
 * packet: rxe raises IBV_EVENT_COMM_EST, which librdmacm wants passed on.
 */
static void server_async(struct ctx *c)
{
	struct ibv_async_event ev;

	if (ibv_get_async_event(c->verbs, &ev))
		return;
	if (ev.event_type == IBV_EVENT_COMM_EST) {
		struct sconn *sc = ev.element.qp->qp_context;

		if (sc && sc->id)
			rdma_notify(sc->id, IBV_EVENT_COMM_EST);
	}
	ibv_ack_async_event(&ev);
}

static int run_server(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'b' },
		{ "wr-size", required_argument, NULL, 'W' },
		{ "rq-depth", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct server_opts o = { .port = DEFAULT_PORT, .wr_size = 1 << 20,
				 .rq_depth = 16 };
	struct rdma_event_channel *ch;
	struct addrinfo hints = { .ai_flags = AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM }, *ai;
	struct rdma_cm_id *listen_id;
	unsigned int nconn = 0, open = 0;
	uint64_t msgs = 0, errs = 0;
	struct sconn *list = NULL;
	char port[16];
	sigset_t waitmask;
	int c, r;

	while ((c = getopt_long(argc, argv, "p:b:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.port = num("-p", optarg, 1, 65535, 1);
			break;
		case 'b':
			o.bind = optarg;
			break;
		case 'W':
			o.wr_size = num("--wr-size", optarg, 1, 1 << 30, 1);
			break;
		case 'R':
			o.rq_depth = num("--rq-depth", optarg, 1, 1024, 1);
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			return 0;
		default:
			bad_usage(NULL);
		}
	}
	if (optind != argc)
		bad_usage("unexpected argument '%s'", argv[optind]);
	snprintf(port, sizeof(port), "%u", o.port);
	r = getaddrinfo(o.bind, port, &hints, &ai);
	if (r)
		bad_input("bad address '%s': %s", o.bind ? o.bind : "",
			  gai_strerror(r));
	signals(&waitmask);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel: %s (is rdma_ucm loaded?)",
		    strerror(errno));
	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(listen_id, ai->ai_addr))
		die("rdma_bind_addr port %u: %s", o.port, strerror(errno));
	freeaddrinfo(ai);
	if (rdma_listen(listen_id, 128))
		die("rdma_listen: %s", strerror(errno));
	printf("rdmaflow server: listening on port %u\n", o.port);
	fflush(stdout);

	while (!stopping) {
		struct pollfd pfd[1 + 2 * MAX_CTX];
		unsigned int n = 1;

		pfd[0] = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
		for (unsigned int i = 0; i < nctx; i++) {
			pfd[n++] = (struct pollfd){ .fd = ctxs[i].ch->fd,
						    .events = POLLIN };
			pfd[n++] = (struct pollfd){ .fd = ctxs[i].verbs->async_fd,
						    .events = POLLIN };
		}
		if (ppoll(pfd, n, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			die("ppoll: %s", strerror(errno));
		}
		if (pfd[0].revents & POLLIN) {
			struct rdma_cm_event *ev;

			if (rdma_get_cm_event(ch, &ev))
				die("rdma_get_cm_event: %s", strerror(errno));
			switch (ev->event) {
			case RDMA_CM_EVENT_CONNECT_REQUEST:
				server_accept(&o, ev->id, &list, &nconn);
				break;
			case RDMA_CM_EVENT_ESTABLISHED:
				open++;
				break;
			case RDMA_CM_EVENT_DISCONNECTED: {
				struct sconn *sc = ev->id->context;

				if (sc && sc->open) {
					sc->open = 0;
					rdma_ack_cm_event(ev);
					rdma_destroy_qp(sc->id);
					rdma_destroy_id(sc->id);
					sc->id = NULL;
					open--;
					continue;
				}
				break;
			}
			default:
				break;
			}
			rdma_ack_cm_event(ev);
		}
		for (unsigned int i = 0; i < nctx; i++) {
			struct ibv_wc wc[32];
			int got;

			if (pfd[1 + 2 * i].revents & POLLIN)
				ctx_event(&ctxs[i]);
			if (pfd[2 + 2 * i].revents & POLLIN)
				server_async(&ctxs[i]);
			do {
				got = ibv_poll_cq(ctxs[i].cq, 32, wc);
				for (int k = 0; k < got; k++)
					server_wc(&wc[k], &msgs, &errs);
			} while (got > 0 || ctx_arm(&ctxs[i]));
		}
	}
	fprintf(stderr, "rdmaflow server: %u connections, %" PRIu64
		" messages received, %" PRIu64 " errors\n", nconn, msgs, errs);
	while (list) {
		struct sconn *sc = list;

		list = sc->next;
		if (sc->id) {
			rdma_disconnect(sc->id);
			rdma_destroy_qp(sc->id);
			rdma_destroy_id(sc->id);
		}
		free(sc);
	}
	ctx_free_all();
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return errs ? 1 : 0;
}

/* ------------------------------------------------------------ client */

struct dest {
	char name[64];
	char addr[64];
	struct sockaddr_storage sa;
};

struct conn {
	struct rdma_cm_id *id;
	struct ctx *ctx;
	uint64_t raddr;
	uint32_t rkey;
};

struct client_opts {
	const char *cdf, *flows, *src, *out;
	double rate_bps, load, duration, scale, stall;
	uint64_t count, seed, ping, ping_size;
	unsigned int port, qps, depth, tos, ack_timeout;
	size_t wr_size;
};

static const char *event_name(enum rdma_cm_event_type e)
{
	return rdma_event_str(e);
}

/* The next CM event of the channel within @ms milliseconds, or NULL. */
static struct rdma_cm_event *cm_wait(struct rdma_event_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	return ev;
}

/*
 * Connect one QP to @d: resolve, create the QP, connect, and read the
 * server's buffer from its accept.  A server that is not listening yet
 * rejects us (or cannot be reached yet): try again, CONNECT_TRIES times.
 */
static void client_connect(const struct client_opts *o,
			   struct rdma_event_channel *ch, struct conn *cn,
			   const struct dest *d, int cqe)
{
	static const enum rdma_cm_event_type steps[] = {
		RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED,
		RDMA_CM_EVENT_ESTABLISHED
	};
	for (int attempt = 1;; attempt++) {
		struct rdma_conn_param param = { .retry_count = 7,
						 .rnr_retry_count = 7 };
		struct ibv_qp_init_attr attr = { 0 };
		struct rdma_cm_event *ev = NULL;
		const char *what = "";
		unsigned int step;

		if (rdma_create_id(ch, &cn->id, cn, RDMA_PS_TCP))
			die("rdma_create_id: %s", strerror(errno));
		if (o->tos) {
			uint8_t tos = o->tos;

			if (rdma_set_option(cn->id, RDMA_OPTION_ID,
					    RDMA_OPTION_ID_TOS, &tos, 1))
				die("rdma_set_option(TOS): %s", strerror(errno));
		}
		if (rdma_resolve_addr(cn->id, NULL, (struct sockaddr *)&d->sa,
				      5000))
			die("rdma_resolve_addr %s: %s", d->addr, strerror(errno));
		for (step = 0; step < 3; step++) {
			ev = cm_wait(ch, 30000);
			if (!ev) {
				what = "no answer in 30 s";
				break;
			}
			if (ev->event != steps[step]) {
				what = event_name(ev->event);
				break;
			}
			if (step == 0) {
				uint8_t u = o->ack_timeout;

				rdma_ack_cm_event(ev);
				ev = NULL;
				if (rdma_set_option(cn->id, RDMA_OPTION_ID,
						    RDMA_OPTION_ID_ACK_TIMEOUT,
						    &u, 1))
					die("rdma_set_option(ACK_TIMEOUT): %s",
					    strerror(errno));
				if (rdma_resolve_route(cn->id, 5000))
					die("rdma_resolve_route %s: %s", d->addr,
					    strerror(errno));
			} else if (step == 1) {
				rdma_ack_cm_event(ev);
				ev = NULL;
				cn->ctx = ctx_get(cn->id->verbs, o->wr_size,
						  IBV_ACCESS_LOCAL_WRITE, cqe);
				attr.qp_context = cn;
				attr.send_cq = cn->ctx->cq;
				attr.recv_cq = cn->ctx->cq;
				attr.qp_type = IBV_QPT_RC;
				attr.cap.max_send_wr = o->depth;
				attr.cap.max_recv_wr = 1;
				attr.cap.max_send_sge = 1;
				attr.cap.max_recv_sge = 1;
				if (rdma_create_qp(cn->id, cn->ctx->pd, &attr))
					die("rdma_create_qp: %s", strerror(errno));
				if (rdma_connect(cn->id, &param))
					die("rdma_connect %s: %s", d->addr,
					    strerror(errno));
			}
		}
		if (step == 3) {
			struct wire_buf wb;

			if (ev->param.conn.private_data_len < sizeof(wb))
				die("%s: the server sent no buffer (is it rdmaflow server?)",
				    d->addr);
			memcpy(&wb, ev->param.conn.private_data, sizeof(wb));
			rdma_ack_cm_event(ev);
			cn->raddr = be64toh(wb.addr);
			cn->rkey = be32toh(wb.rkey);
			if (be32toh(wb.len) < o->wr_size)
				bad_input("%s: the server's buffer is %u bytes, less than --wr-size %zu",
					  d->addr, be32toh(wb.len), o->wr_size);
			return;
		}
		if (ev)
			rdma_ack_cm_event(ev);
		if (cn->id->qp)
			rdma_destroy_qp(cn->id);
		rdma_destroy_id(cn->id);
		cn->id = NULL;
		if (attempt == CONNECT_TRIES || stopping)
			die("cannot connect to %s port %u: %s", d->addr, o->port,
			    what);
		usleep(200000);
	}
}

static void dest_parse(struct dest *d, const char *arg, unsigned int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	const char *eq = strchr(arg, '='), *addr = eq ? eq + 1 : arg;
	char p[16];
	int r;

	if (eq && (eq == arg || (size_t)(eq - arg) >= sizeof(d->name)))
		bad_input("bad destination '%s' (want [NAME=]ADDR)", arg);
	if (!*addr || strlen(addr) >= sizeof(d->addr))
		bad_input("bad destination '%s' (want [NAME=]ADDR)", arg);
	strcpy(d->addr, addr);
	if (eq) {
		memcpy(d->name, arg, eq - arg);
		d->name[eq - arg] = '\0';
	} else {
		strcpy(d->name, addr);
	}
	snprintf(p, sizeof(p), "%u", port);
	r = getaddrinfo(addr, p, &hints, &ai);
	if (r)
		bad_input("bad destination address '%s': %s", addr,
			  gai_strerror(r));
	memcpy(&d->sa, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
}

/* Where the arrivals come from: one of the three modes. */
struct source {
	const struct client_opts *o;
	struct fg_cdf cdf;
	struct fg_rng gap, size, dst;
	double mean_gap_ns;
	uint64_t n;		/* arrivals taken */
	int64_t next_t;		/* --cdf: the next arrival, drawn ahead */
	uint32_t next_dst;
	uint64_t next_size;
	struct fg_flow *flows;
	size_t nflows;
	uint32_t *flow_dst;
	uint32_t ndst;
};

/* --cdf: draw the arrival after the one taken (the first at n == 0). */
static void source_draw(struct source *s)
{
	s->next_t += (int64_t)llround(fg_rng_exp(&s->gap, s->mean_gap_ns));
	s->next_dst = fg_rng_below(&s->dst, s->ndst);
	s->next_size = fg_size(&s->cdf, &s->size, s->o->scale);
}

/*
 * The next arrival: 1 and its time, destination and size, or 0 when the
 * mode has no more.  --ping arrivals are closed-loop: the next one is due
 * PING_GAP_NS after the last one completed (@last_done) when nothing is in
 * flight (@idle): on a timer, as every message of the other modes, so
 * that the base RTT has the same wake-up in it as their FCTs.
 */
static int source_peek(struct source *s, int idle, int64_t last_done,
		       int64_t *t, uint32_t *dst, uint64_t *size)
{
	const struct client_opts *o = s->o;

	if (o->ping) {
		if (s->n >= o->ping * s->ndst || !idle)
			return 0;
		*t = last_done + PING_GAP_NS;
		*dst = s->n % s->ndst;
		*size = o->ping_size;
		return 1;
	}
	if (o->flows) {
		if (s->n >= s->nflows)
			return 0;
		*t = (int64_t)llround(s->flows[s->n].start * 1e9);
		*dst = s->flow_dst[s->n];
		*size = s->flows[s->n].size;
		return 1;
	}
	if (o->count && s->n >= o->count)
		return 0;
	if (o->duration && s->next_t > (int64_t)llround(o->duration * 1e9))
		return 0;
	*t = s->next_t;
	*dst = s->next_dst;
	*size = s->next_size;
	return 1;
}

/* The arrival source_peek() returned happened: step to the next one. */
static void source_take(struct source *s)
{
	s->n++;
	if (s->o->cdf)
		source_draw(s);
}

static void source_init(struct source *s, const struct client_opts *o,
			const struct dest *dests, uint32_t ndst)
{
	char err[FG_ERRLEN];

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->ndst = ndst;
	fg_rng_seed(&s->gap, o->seed, 0);
	fg_rng_seed(&s->size, o->seed, 1);
	fg_rng_seed(&s->dst, o->seed, 2);
	if (o->cdf) {
		if (fg_cdf_load(&s->cdf, o->cdf, err))
			bad_input("%s", err);
		s->mean_gap_ns = 1e9 * fg_mean_gap(fg_cdf_mean(&s->cdf) *
						   o->scale, o->load,
						   o->rate_bps);
		source_draw(s);
	}
	if (o->flows) {
		FILE *f = fopen(o->flows, "r");
		size_t n, k = 0;
		struct fg_flow *v;

		if (!f)
			bad_input("%s: %s", o->flows, strerror(errno));
		if (fg_flows_parse(f, o->flows, &v, &n, err))
			bad_input("%s", err);
		fclose(f);
		s->flows = v;
		s->flow_dst = calloc(n ? n : 1, sizeof(*s->flow_dst));
		if (!s->flow_dst)
			die("out of memory");
		for (size_t i = 0; i < n; i++) {
			uint32_t d;

			if (o->src && strcmp(v[i].src, o->src))
				continue;
			for (d = 0; d < ndst; d++)
				if (!strcmp(v[i].dst, dests[d].name) ||
				    !strcmp(v[i].dst, dests[d].addr))
					break;
			if (d == ndst)
				bad_input("%s: a flow from %s to %s, which is not a destination",
					  o->flows, v[i].src, v[i].dst);
			v[k] = v[i];
			v[k].size = (uint64_t)llround(v[k].size * o->scale);
			if (!v[k].size)
				v[k].size = 1;
			s->flow_dst[k++] = d;
		}
		s->nflows = k;
	}
}

static void write_csv(FILE *f, const struct fg_sched *s,
		      const struct dest *dests, const char *src)
{
	fprintf(f, "msg,src,dst,qp,size,arrival_ns,post_ns,done_ns\n");
	for (size_t i = 0; i < s->nmsg; i++) {
		const struct fg_msg *m = &s->msg[i];

		fprintf(f, "%zu,%s,%s,", i, src, dests[m->dst].name);
		if (m->t_post >= 0)
			fprintf(f, "%u", m->qp);
		fprintf(f, ",%" PRIu64 ",%" PRId64 ",", m->size, m->t_arr);
		if (m->t_post >= 0)
			fprintf(f, "%" PRId64, m->t_post);
		fputc(',', f);
		if (m->t_done >= 0)
			fprintf(f, "%" PRId64, m->t_done);
		fputc('\n', f);
	}
}

/* Post the WRs every QP may post now, one chain per QP. */
static void client_post(struct fg_sched *s, struct conn *conns)
{
	for (uint32_t q = 0; q < s->ndst * s->nqp; q++) {
		struct ibv_send_wr wr[64], *bad;
		struct ibv_sge sge[64];
		struct conn *cn = &conns[q];
		unsigned int n = 0;
		uint64_t len;
		long msg;
		int last;

		while (n < 64 && fg_sched_next_wr(s, q, &len, &last, &msg)) {
			sge[n] = (struct ibv_sge){
				.addr = (uintptr_t)cn->ctx->buf,
				.length = (uint32_t)len,
				.lkey = cn->ctx->mr->lkey };
			wr[n] = (struct ibv_send_wr){
				.wr_id = (uint64_t)q << 32 | len,
				.sg_list = &sge[n],
				.num_sge = 1,
				.opcode = last ? IBV_WR_RDMA_WRITE_WITH_IMM :
					IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.imm_data = htobe32((uint32_t)msg),
				.wr.rdma.remote_addr = cn->raddr,
				.wr.rdma.rkey = cn->rkey };
			if (n)
				wr[n - 1].next = &wr[n];
			n++;
		}
		if (n && ibv_post_send(cn->id->qp, wr, &bad))
			die("ibv_post_send: %s", strerror(errno));
	}
}

/* Poll every CQ; the number of completions, or exits on a failed one. */
static int client_poll(struct fg_sched *s, const struct dest *dests,
		       int64_t t0)
{
	int total = 0;

	for (unsigned int i = 0; i < nctx; i++) {
		struct ibv_wc wc[64];
		int got = ibv_poll_cq(ctxs[i].cq, 64, wc);
		int64_t t = now_ns() - t0;

		if (got < 0)
			die("ibv_poll_cq failed");
		for (int k = 0; k < got; k++) {
			uint32_t q = wc[k].wr_id >> 32;
			uint64_t len = wc[k].wr_id & 0xffffffff;

			if (wc[k].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "rdmaflow: %s QP %u: WRITE failed: %s (vendor error %u)\n",
					dests[q / s->nqp].name, q % s->nqp,
					ibv_wc_status_str(wc[k].status),
					wc[k].vendor_err);
				return -1;
			}
			if (fg_sched_complete(s, q, len, t) == -2)
				die("a completion of QP %u without a WR", q);
		}
		total += got;
	}
	return total;
}

static int run_client(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "cdf", required_argument, NULL, 'C' },
		{ "flows", required_argument, NULL, 'F' },
		{ "ping", required_argument, NULL, 'P' },
		{ "size", required_argument, NULL, 'S' },
		{ "src", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "load", required_argument, NULL, 'l' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "scale", required_argument, NULL, 'x' },
		{ "seed", required_argument, NULL, 'e' },
		{ "port", required_argument, NULL, 'p' },
		{ "qps", required_argument, NULL, 'q' },
		{ "depth", required_argument, NULL, 'D' },
		{ "wr-size", required_argument, NULL, 'W' },
		{ "stall", required_argument, NULL, 't' },
		{ "tos", required_argument, NULL, 'T' },
		{ "ack-timeout", required_argument, NULL, 'u' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct client_opts o = { .scale = 1, .seed = 1, .port = DEFAULT_PORT,
				 .qps = 4, .depth = 4, .wr_size = 1 << 20,
				 .stall = 30, .ping_size = 1,
				 .ack_timeout = 20 };
	int64_t t0, last_progress, stall_ns;
	struct rdma_event_channel *ch;
	struct fg_sched sched;
	struct source src;
	struct conn *conns;
	struct dest *dests;
	uint32_t ndst, nconn;
	sigset_t waitmask;
	char local[INET6_ADDRSTRLEN] = "-";
	FILE *out = stdout;
	int c, modes, failed = 0;
	uint64_t bytes = 0;

	while ((c = getopt_long(argc, argv, "p:o:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o.cdf = optarg;
			break;
		case 'F':
			o.flows = optarg;
			break;
		case 'P':
			o.ping = num("--ping", optarg, 1, 1e6, 1);
			break;
		case 'S':
			o.ping_size = num("--size", optarg, 1, 1 << 30, 1);
			break;
		case 's':
			o.src = optarg;
			break;
		case 'r':
			o.rate_bps = num("--rate", optarg, 0.001, 1e6, 0) * 1e6;
			break;
		case 'l':
			o.load = num("--load", optarg, 1e-6, 100, 0);
			break;
		case 'd':
			o.duration = num("--duration", optarg, 1e-6, 1e6, 0);
			break;
		case 'n':
			o.count = num("--count", optarg, 1, 1e9, 1);
			break;
		case 'x':
			o.scale = num("--scale", optarg, 1e-9, 1e6, 0);
			break;
		case 'e':
			o.seed = num("--seed", optarg, 0, 1e15, 1);
			break;
		case 'p':
			o.port = num("-p", optarg, 1, 65535, 1);
			break;
		case 'q':
			o.qps = num("--qps", optarg, 1, 1024, 1);
			break;
		case 'D':
			o.depth = num("--depth", optarg, 1, 4096, 1);
			break;
		case 'W':
			o.wr_size = num("--wr-size", optarg, 1, 1 << 30, 1);
			break;
		case 't':
			o.stall = num("--stall", optarg, 0.001, 1e6, 0);
			break;
		case 'T':
			o.tos = num("--tos", optarg, 0, 255, 1);
			break;
		case 'u':
			o.ack_timeout = num("--ack-timeout", optarg, 0, 31, 1);
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(help_text, stdout);
			return 0;
		default:
			bad_usage(NULL);
		}
	}
	modes = !!o.cdf + !!o.flows + !!o.ping;
	if (modes != 1)
		bad_usage("a client needs one of --cdf, --flows and --ping");
	if (o.cdf && (!o.rate_bps || !o.load))
		bad_usage("--cdf needs --rate and --load");
	if (o.cdf && !o.duration && !o.count)
		bad_usage("--cdf needs --duration or --count (or both)");
	if (!o.cdf && (o.rate_bps || o.load || o.duration || o.count))
		bad_usage("--rate, --load, --duration and --count go with --cdf");
	if (optind == argc)
		bad_usage("no destination");
	ndst = argc - optind;
	nconn = ndst * o.qps;
	if ((uint64_t)nconn * o.depth + 1 > MAX_CQE)
		bad_usage("destinations x --qps x --depth above %d (the CQ's size)",
			  MAX_CQE - 1);
	dests = calloc(ndst, sizeof(*dests));
	conns = calloc(nconn, sizeof(*conns));
	if (!dests || !conns)
		die("out of memory");
	for (uint32_t d = 0; d < ndst; d++) {
		dest_parse(&dests[d], argv[optind + d], o.port);
		for (uint32_t e = 0; e < d; e++)
			if (!strcmp(dests[e].name, dests[d].name))
				bad_input("destination %s given twice",
					  dests[d].name);
	}
	source_init(&src, &o, dests, ndst);
	if (o.out && strcmp(o.out, "-")) {
		out = fopen(o.out, "w");
		if (!out)
			bad_input("%s: %s", o.out, strerror(errno));
	}
	if (fg_sched_init(&sched, ndst, o.qps, o.depth, o.wr_size))
		die("out of memory");

	signals(&waitmask);
	/*
	 * An arrival is a ppoll() timeout: with the default timer slack of
	 * 50 us every message would be posted up to 50 us late.
	 */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel: %s (is rdma_ucm loaded?)",
		    strerror(errno));
	for (uint32_t k = 0; k < nconn; k++)
		client_connect(&o, ch, &conns[k], &dests[k / o.qps],
			       (int)(nconn * o.depth + 1));
	inet_ntop(rdma_get_local_addr(conns[0].id)->sa_family,
		  rdma_get_local_addr(conns[0].id)->sa_family == AF_INET ?
		  (void *)&((struct sockaddr_in *)
			    rdma_get_local_addr(conns[0].id))->sin_addr :
		  (void *)&((struct sockaddr_in6 *)
			    rdma_get_local_addr(conns[0].id))->sin6_addr,
		  local, sizeof(local));
	fprintf(stderr, "rdmaflow: client %s: %u destinations x %u QPs connected\n",
		o.src ? o.src : local, ndst, o.qps);

	t0 = now_ns();
	last_progress = 0;
	stall_ns = (int64_t)llround(o.stall * 1e9);
	while (!stopping) {
		int64_t now = now_ns() - t0, t = 0, wait;
		uint64_t size;
		uint32_t d;
		int more, got;

		while ((more = source_peek(&src, !sched.active && !sched.waiting,
					   sched.nmsg ? sched.msg[sched.nmsg - 1].t_done : 0,
					   &t, &d, &size)) && t <= now) {
			if (fg_sched_arrive(&sched, d, size, t) < 0)
				die("out of memory");
			source_take(&src);
		}
		if (fg_sched_dispatch(&sched, now))
			last_progress = now;
		client_post(&sched, conns);
		got = client_poll(&sched, dests, t0);
		if (got < 0) {
			failed = 1;
			break;
		}
		if (got) {
			last_progress = now_ns() - t0;
			continue;
		}
		if (!more && !sched.active && !sched.waiting)
			break;
		if (sched.active && now - last_progress > stall_ns) {
			fprintf(stderr, "rdmaflow: nothing completed for %g s: giving up\n",
				o.stall);
			failed = 1;
			break;
		}
		{
			struct pollfd pfd[MAX_CTX];
			struct timespec ts;
			int armed = 0;

			for (unsigned int i = 0; i < nctx; i++)
				armed |= ctx_arm(&ctxs[i]);
			if (armed)	/* completions that came before arming */
				continue;
			wait = sched.active ? last_progress + stall_ns - now :
				INT64_MAX;
			if (more && t - now < wait)
				wait = t - now;
			if (wait < 0)
				wait = 0;
			ts.tv_sec = wait / 1000000000;
			ts.tv_nsec = wait % 1000000000;
			for (unsigned int i = 0; i < nctx; i++)
				pfd[i] = (struct pollfd){ .fd = ctxs[i].ch->fd,
							  .events = POLLIN };
			if (ppoll(pfd, nctx, wait == INT64_MAX ? NULL : &ts,
				  &waitmask) < 0 && errno != EINTR)
				die("ppoll: %s", strerror(errno));
			for (unsigned int i = 0; i < nctx; i++)
				if (pfd[i].revents & POLLIN)
					ctx_event(&ctxs[i]);
		}
	}
	if (stopping) {
		fprintf(stderr, "rdmaflow: stopped by signal %d\n", (int)stopping);
		failed = 1;
	}
	write_csv(out, &sched, dests, o.src ? o.src : local);
	if (fflush(out) || (out != stdout && fclose(out)))
		die("%s: %s", o.out, strerror(errno));
	for (size_t i = 0; i < sched.nmsg; i++)
		if (sched.msg[i].t_done >= 0)
			bytes += sched.msg[i].size;
	fprintf(stderr, "rdmaflow: client %s: ", o.src ? o.src : local);
	if (o.cdf)
		fprintf(stderr, "cdf %s scale %g (mean %.0f bytes), load %g of %g Mbit/s, seed %" PRIu64,
			o.cdf, o.scale, fg_cdf_mean(&src.cdf) * o.scale, o.load,
			o.rate_bps / 1e6, o.seed);
	else if (o.flows)
		fprintf(stderr, "flows %s scale %g", o.flows, o.scale);
	else
		fprintf(stderr, "ping %" PRIu64 " x %" PRIu64 " bytes", o.ping,
			o.ping_size);
	fprintf(stderr, ": %zu messages, %" PRIu64 " completed, %zu incomplete, %" PRIu64 " bytes in %.3f s\n",
		sched.nmsg, sched.completed, sched.nmsg - sched.completed, bytes,
		(now_ns() - t0) / 1e9);
	if (sched.completed < sched.nmsg)
		failed = 1;
	for (uint32_t k = 0; k < nconn; k++) {
		rdma_disconnect(conns[k].id);
		rdma_destroy_qp(conns[k].id);
		rdma_destroy_id(conns[k].id);
	}
	ctx_free_all();
	rdma_destroy_event_channel(ch);
	fg_sched_free(&sched);
	fg_cdf_free(&src.cdf);
	free(src.flows);
	free(src.flow_dst);
	free(conns);
	free(dests);
	return failed;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		bad_usage(NULL);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_text, stdout);
		fputs(help_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "server"))
		return run_server(argc - 1, argv + 1);
	if (!strcmp(argv[1], "client"))
		return run_client(argc - 1, argv + 1);
	bad_usage("unknown mode '%s' (server or client)", argv[1]);
}
