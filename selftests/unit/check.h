/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CHECK() for the userspace unit tests of the rxe_cc state machines:
 * counts checks and failures, prints each failure (and each success when
 * `verbose` is set) with the function and line.
 */
#ifndef DCBLAB_UNIT_CHECK_H
#define DCBLAB_UNIT_CHECK_H

#include <stdio.h>

static int fails, checks, verbose;

#define CHECK(cond, ...) do {						\
	int ok_ = !!(cond);						\
	checks++;							\
	if (!ok_)							\
		fails++;						\
	if (!ok_ || verbose) {						\
		printf("%s: %s:%d: ", ok_ ? "ok" : "not ok",		\
		       __func__, __LINE__);				\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

#endif /* DCBLAB_UNIT_CHECK_H */
