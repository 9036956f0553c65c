// SPDX-License-Identifier: GPL-2.0
/*
 * cpusample - the kernel's share of the CPUs, sampled at an odd period.
 *
 *   cpusample FIFO [--period-us P] [--while PID]
 *
 * Opens a software cpu-clock sampling event on every online CPU (one
 * sample every P microseconds of each CPU's time, default 997), writes
 * "ready PID" (its own process ID) to FIFO, and from then on, at every
 * SIGUSR1, writes a line
 *
 *   KERNEL USER IDLE SAMPLES LOST
 *
 * with the shares (percent, one decimal) of the time since the start:
 * KERNEL the kernel's busy share (system, interrupt and softirq time on
 * all CPUs), USER the user share, IDLE the idle share, SAMPLES the number
 * of samples, LOST the number the ring buffers lost.  SIGTERM or SIGINT
 * ends it, and so does the end of process PID (--while, looked for every
 * second), so that a sampler whose shell was killed does not stay.  On
 * an error it writes "error: ..." to FIFO and exits 1.
 *
 * Why: /proc/stat's split of busy time into user and system comes from
 * the scheduler tick (250 Hz in Debian's kernel), which samples what the
 * CPU runs at the tick.  In a guest under qemu's icount, timers expire
 * exactly, and packet work driven by them can keep a fixed phase to the
 * tick, and identical runs then read very different kernel shares.  A
 * sample period that is no divisor of the tick's (and not a round number)
 * breaks that lock.  The idle share is not
 * sampled: /proc/stat's idle and iowait times are measured exactly (the
 * kernel stops the tick in idle and times the idle periods), and a
 * sample in the idle loop is a kernel sample, so
 *
 *   KERNEL = kernel samples / samples - idle time / (elapsed x CPUs).
 *
 * A softirq that runs on an idle CPU (on top of the idle task) is thereby
 * kernel time, as in /proc/stat.  The sampling costs one timer interrupt
 * per period and CPU (about 0.1-0.3 % of a CPU at 997 us).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES	64	/* data pages per CPU: 32768 samples */
#define MAX_CPUS	256

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;
};

static struct ring rings[MAX_CPUS];
static int nrings;
static FILE *out;
static uint64_t n_kernel, n_other, n_lost;

static void bad_usage(void)
{
	fprintf(stderr, "usage: cpusample FIFO [--period-us P] [--while PID]\n");
	exit(2);
}

/* an integer from 1 to @max for option @opt, or exit with a message */
static unsigned long whole(const char *opt, const char *s, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v || v > max) {
		fprintf(stderr, "cpusample: %s: an integer from 1 to %lu, not '%s'\n",
			opt, max, s);
		exit(2);
	}
	return v;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (out) {
		fprintf(out, "error: ");
		vfprintf(out, fmt, ap);
		fprintf(out, "\n");
		fflush(out);
	}
	va_end(ap);
	va_start(ap, fmt);
	fprintf(stderr, "cpusample: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* idle + iowait of all CPUs from /proc/stat, in seconds */
static double idle_seconds(void)
{
	unsigned long long u, n, s, idle, iow;
	FILE *f = fopen("/proc/stat", "r");
	int got;

	if (!f)
		fail("/proc/stat: %s", strerror(errno));
	got = fscanf(f, "cpu %llu %llu %llu %llu %llu", &u, &n, &s, &idle, &iow);
	fclose(f);
	if (got != 5)
		fail("/proc/stat: unexpected first line");
	return (double)(idle + iow) / sysconf(_SC_CLK_TCK);
}

static void copy_from_ring(const struct ring *r, uint64_t pos, void *dst,
			   size_t len)
{
	size_t off = pos % r->size, first = len;

	if (first > r->size - off)
		first = r->size - off;
	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, len - first);
}

/* count the records that arrived in every ring */
static void drain(void)
{
	for (int i = 0; i < nrings; i++) {
		struct ring *r = &rings[i];
		uint64_t head = __atomic_load_n(&r->meta->data_head,
						 __ATOMIC_ACQUIRE);
		uint64_t tail = r->meta->data_tail;

		while (tail < head) {
			struct perf_event_header h;

			copy_from_ring(r, tail, &h, sizeof(h));
			if (h.size < sizeof(h))
				fail("corrupt ring buffer on CPU %d", i);
			if (h.type == PERF_RECORD_SAMPLE) {
				if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				    PERF_RECORD_MISC_KERNEL)
					n_kernel++;
				else
					n_other++;
			} else if (h.type == PERF_RECORD_LOST &&
				   h.size >= sizeof(h) + 16) {
				uint64_t lost;

				copy_from_ring(r, tail + sizeof(h) + 8, &lost,
					       sizeof(lost));
				n_lost += lost;
			}
			tail += h.size;
		}
		__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	}
}

static void open_rings(unsigned long period_us)
{
	long page = sysconf(_SC_PAGESIZE);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = period_us * 1000;
	a.sample_type = 0;	/* the header's cpumode is all we read */
	a.watermark = 1;
	a.wakeup_watermark = RING_PAGES * page / 2;

	for (long cpu = 0; cpu < ncpu && cpu < MAX_CPUS; cpu++) {
		struct ring *r = &rings[nrings];
		void *m;
		int fd;

		fd = syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;	/* CPU offline */
			fail("perf_event_open on CPU %ld: %s", cpu,
			     strerror(errno));
		}
		m = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			fail("mmap of CPU %ld's ring: %s", cpu, strerror(errno));
		r->fd = fd;
		r->meta = m;
		r->data = (unsigned char *)m + page;
		r->size = (uint64_t)RING_PAGES * page;
		nrings++;
	}
	if (!nrings)
		fail("no CPU to sample");
}

int main(int argc, char **argv)
{
	unsigned long period_us = 997;
	double t0, idle0;
	struct pollfd *pfd;
	pid_t parent = 0;
	sigset_t sigs;
	int fd, sfd;

	if (argc < 2 || argv[1][0] == '-')
		bad_usage();
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc)
			bad_usage();
		if (!strcmp(argv[i], "--period-us"))
			period_us = whole(argv[i], argv[i + 1], 1000000);
		else if (!strcmp(argv[i], "--while"))
			parent = whole(argv[i], argv[i + 1], 1UL << 22);
		else
			bad_usage();
	}
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "cpusample: %s: %s\n", argv[1], strerror(errno));
		exit(1);
	}
	out = fdopen(fd, "w");
	if (!out) {
		fprintf(stderr, "cpusample: fdopen: %s\n", strerror(errno));
		exit(1);
	}

	/* the signals arrive as reads of sfd, polled with the rings */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL))
		fail("sigprocmask: %s", strerror(errno));
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		fail("signalfd: %s", strerror(errno));

	open_rings(period_us);
	pfd = calloc(nrings + 1, sizeof(*pfd));
	if (!pfd)
		fail("out of memory");
	for (int i = 0; i < nrings; i++) {
		pfd[i].fd = rings[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[nrings].fd = sfd;
	pfd[nrings].events = POLLIN;
	t0 = now();
	idle0 = idle_seconds();
	fprintf(out, "ready %d\n", (int)getpid());
	fflush(out);

	for (;;) {
		struct signalfd_siginfo si;
		int report = 0;

		if (poll(pfd, nrings + 1, 1000) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		if (parent && kill(parent, 0) && errno == ESRCH)
			break;
		if (pfd[nrings].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo != SIGUSR1)
				return 0;	/* SIGTERM, SIGINT */
			report = 1;
		}
		drain();
		if (report) {
			double el = (now() - t0) * nrings;
			double idle = el > 0 ? (idle_seconds() - idle0) / el : 0;
			uint64_t n = n_kernel + n_other;
			double k = n ? (double)n_kernel / n - idle : 0;
			double u = n ? (double)n_other / n : 0;

			if (k < 0)
				k = 0;
			if (idle > 1)
				idle = 1;
			fprintf(out, "%.1f %.1f %.1f %llu %llu\n", 100 * k,
				100 * u, 100 * idle, (unsigned long long)n,
				(unsigned long long)n_lost);
			fflush(out);
		}
	}
	return 0;
}
