// SPDX-License-Identifier: GPL-2.0
/*
 * udpflow - a UDP sender without any handshake, and a sink that counts.
 *
 *   udpflow send DST PORT [--count N] [--interval S] [--tos T] [--len L]
 *   udpflow sink PORT STOP [--max S]
 *
 * send: N datagrams (default 500) of L bytes (default 1000) to DST:PORT
 * (IPv4 or IPv6) with the TOS / traffic class byte T, one every S
 * seconds on an absolute schedule (default 0.002; 0: back to back on a
 * blocking socket, so the sender goes as fast as its qdisc lets it);
 * prints the number sent.  A datagram the kernel refuses (ENOBUFS, an
 * ICMP error reported on the socket) is not counted and the flow goes
 * on.
 *
 * sink: counts the datagrams arriving on PORT (any address) until the
 * file STOP exists (looked for every 100 ms) or S seconds passed
 * (default 120), then prints the count.
 *
 * The sch_dcb guest tests drive their flows with it (pfc_sender and
 * pfc_sink in scripts/lib/dcb.sh): a flow must start without any
 * handshake (a non-ECT flow into a queue that WRED-drops every non-ECT
 * packet), and at 100 Mbit/s a flow is 12,000 datagrams per second, which
 * an interpreter in a one-CPU virtual-time guest spends most of that CPU
 * on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "idlespin.h"

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: udpflow send DST PORT [--count N] [--interval S] [--tos T] [--len L]\n"
		"       udpflow sink PORT STOP [--max S]\n");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * num(): the value of @s for option @opt, a number from 0 to @max (a whole
 * one if @whole; strtod() also takes 0x60), or exit with a message.
 */
static double num(const char *opt, const char *s, double max, int whole)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > max || (whole && v != (long)v)) {
		fprintf(stderr, "udpflow: bad value '%s' for %s\n", s, opt);
		exit(2);
	}
	return v;
}

/*
 * In a virtual-time guest (scripts/vm-run exports DCBLAB_ICOUNT) a sender
 * that blocks on its qdisc or sleeps until its next datagram lets the
 * guest's CPU halt, and while it is halted the guest's clock follows the
 * host's (idlespin.h): a child spins at SCHED_IDLE as long as the flow
 * lasts.  DCBLAB_IDLESPIN=0 turns it off.
 */
static void spin_while_sending(void)
{
	const char *e = getenv("DCBLAB_IDLESPIN");
	pid_t parent = getpid();

	if (!getenv("DCBLAB_ICOUNT") || (e && !strcmp(e, "0")))
		return;
	if (fork())	/* the sender, or no child: the flow goes on */
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	/* a caller reading our output waits for its end of file */
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
		_exit(0);
	idlespin_run(parent);
	_exit(0);
}

static int do_send(int argc, char **argv)
{
	double interval = 0.002, t0, delay;
	unsigned long count = 500, i, sent = 0;
	int fd, rc, a, tos = 0, len = 1000;
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai;
	char *buf;

	if (argc < 2)
		bad_usage();
	for (a = 2; a < argc; a += 2) {
		if (a + 1 >= argc)
			bad_usage();
		if (!strcmp(argv[a], "--count"))
			count = num("--count", argv[a + 1], 1e12, 1);
		else if (!strcmp(argv[a], "--interval"))
			interval = num("--interval", argv[a + 1], 3600, 0);
		else if (!strcmp(argv[a], "--len"))
			len = num("--len", argv[a + 1], 65507, 1);
		else if (!strcmp(argv[a], "--tos"))
			tos = num("--tos", argv[a + 1], 255, 1);
		else
			bad_usage();
	}
	rc = getaddrinfo(argv[0], argv[1], &hints, &ai);
	if (rc) {
		fprintf(stderr, "udpflow: %s port %s: %s\n", argv[0], argv[1], gai_strerror(rc));
		return 2;
	}
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("udpflow: socket");
		return 1;
	}
	if (ai->ai_family == AF_INET6)
		rc = setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &(int){ tos }, sizeof(int));
	else
		rc = setsockopt(fd, IPPROTO_IP, IP_TOS, &(int){ tos }, sizeof(int));
	if (rc) {
		perror("udpflow: TOS");
		return 1;
	}
	buf = calloc(1, len + 1);
	if (!buf)
		return 1;
	spin_while_sending();
	t0 = now();
	for (i = 0; i < count; i++) {
		if (interval > 0) {
			delay = t0 + i * interval - now();
			if (delay > 0) {
				struct timespec ts = {
					.tv_sec = (time_t)delay,
					.tv_nsec = (long)((delay - (time_t)delay) * 1e9),
				};

				nanosleep(&ts, NULL);
			}
		}
		if (sendto(fd, buf, len, 0, ai->ai_addr, ai->ai_addrlen) == len)
			sent++;
	}
	printf("%lu\n", sent);
	free(buf);
	freeaddrinfo(ai);
	close(fd);
	return 0;
}

static int do_sink(int argc, char **argv)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	double max = 120, end;
	unsigned long n = 0;
	static char buf[65536];
	struct pollfd p;
	int fd;

	if (argc != 2 && argc != 4)
		bad_usage();
	if (argc == 4) {
		if (strcmp(argv[2], "--max"))
			bad_usage();
		max = num("--max", argv[3], 1e6, 0);
	}
	sa.sin6_port = htons(num("PORT", argv[0], 65535, 1));
	/* a v6 socket with V6ONLY off takes IPv4 datagrams too */
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &(int){ 0 }, sizeof(int)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("udpflow: sink socket");
		return 1;
	}
	p.fd = fd;
	p.events = POLLIN;
	end = now() + max;
	while (now() < end && access(argv[1], F_OK)) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			n++;
	}
	printf("%lu\n", n);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		bad_usage();
	if (!strcmp(argv[1], "send"))
		return do_send(argc - 2, argv + 2);
	if (!strcmp(argv[1], "sink"))
		return do_sink(argc - 2, argv + 2);
	bad_usage();
	return 2;
}
