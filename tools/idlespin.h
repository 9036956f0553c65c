/* SPDX-License-Identifier: GPL-2.0 */
/*
 * idlespin.h - keep a virtual-time guest's CPU from halting.
 *
 * Under qemu's icount with sleep=on the guest's clock advances with the
 * instructions it runs, but while its CPU is halted (nothing to run) it
 * follows the host's clock: a timer due while the guest idles fires when
 * the host wakes qemu, late by whatever the host's load makes of that
 * wake-up.  A UDP sender blocked on its shaped qdisc, or sleeping until
 * its next datagram is due, leaves the guest idle until the shaper's or
 * its own hrtimer, so lost wake-ups became lost line time, and rates and
 * marked fractions moved with the host's load.
 *
 * idlespin_run() turns the calling process into the guest's idle loop: it
 * spins at SCHED_IDLE (every other task and all kernel work go first) so
 * that the CPU never halts and every timer fires at its deadline counted
 * in instructions.  One spinner runs per guest: the others block on a
 * lock file until it is theirs.  It returns (the caller exits) once the
 * process @owner is gone.
 */
#ifndef IDLESPIN_H
#define IDLESPIN_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/types.h>

#define IDLESPIN_LOCK "/run/lock/dcblab-idlespin"

static inline int idlespin_owner_alive(pid_t owner)
{
	return kill(owner, 0) == 0 || errno != ESRCH;
}

static inline void idlespin_run(pid_t owner)
{
	struct sched_param sp = { .sched_priority = 0 };
	unsigned long n = 0;
	int fd;

	sched_setscheduler(0, SCHED_IDLE, &sp);
	setpriority(PRIO_PROCESS, 0, 19);
	/* one spinner per guest; the lock is released when its holder exits */
	fd = open(IDLESPIN_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		while (flock(fd, LOCK_EX) && errno == EINTR)
			;
	/*
	 * 256 nops a round: each counts as an instruction, so the guest's
	 * clock advances as it would in a busy loop, but TCG turns them into
	 * no host code at all, and a spun guest second costs qemu little
	 * more than its translated-block dispatch.  About every 1 ms of
	 * guest time: is the owner still there?
	 */
	while ((++n & 0xfff) || idlespin_owner_alive(owner))
		__asm__ __volatile__(".rept 256\n\tnop\n\t.endr" ::: "memory");
}

#endif
