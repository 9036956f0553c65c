/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the bottleneck models of the rxe_cc state machines
 * (selftests/unit/ALGO/model.c) print alike: a scenario line ends with
 * every flow's share of C/N and ok or FAIL, and the run with the number of
 * scenarios that failed.
 */
#ifndef DCBLAB_UNIT_MODEL_H
#define DCBLAB_UNIT_MODEL_H

#include <stdbool.h>
#include <stdio.h>

/* End a scenario's line with the @n shares and @ok's verdict; 1 if failed */
static inline int model_scenario_end(const double *share, int n, bool ok)
{
	int i;

	for (i = 0; i < n; i++)
		printf(" %.2f", share[i]);
	printf("  %s\n", ok ? "ok" : "FAIL");
	return !ok;
}

/* The model's exit status after @fails failed scenarios, said first */
static inline int model_exit(int fails)
{
	printf("model: %d scenario(s) failed\n", fails);
	return fails ? 1 : 0;
}

#endif /* DCBLAB_UNIT_MODEL_H */
