// SPDX-License-Identifier: GPL-2.0
/*
 * idlespin - keep a virtual-time guest's CPU from halting while a
 * measurement runs.
 *
 *   idlespin --while PID
 *
 * Spins at SCHED_IDLE and nice 19 until the process PID is gone (see
 * idlespin.h for why).  scripts/lib/common.sh's clock_spin starts it for
 * the measured windows of flows that idle the guest (iperf3's UDP flows,
 * the CPU guard's window); tools/udpflow forks the same loop itself.
 */
#define _GNU_SOURCE	/* SCHED_IDLE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idlespin.h"

int main(int argc, char **argv)
{
	char *end;
	long pid;

	if (argc != 3 || strcmp(argv[1], "--while")) {
		fprintf(stderr, "usage: idlespin --while PID\n");
		return 2;
	}
	pid = strtol(argv[2], &end, 10);
	if (*end || pid <= 0) {
		fprintf(stderr, "idlespin: bad PID '%s'\n", argv[2]);
		return 2;
	}
	idlespin_run(pid);
	return 0;
}
