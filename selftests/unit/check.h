/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace unit tests of the rxe_cc state machines run on the
 * kernel's selftest harness (kselftest_harness.h: TEST(), EXPECT_*,
 * TH_LOG, TEST_HARNESS_MAIN, TAP output, one forked child per test).  It
 * is not in this repository: sm_lib.sh extracts it from Debian's
 * linux-source-6.1 package into the build directory.
 *
 * CHECK(cond, fmt, ...) is EXPECT_TRUE(cond) with a message saying what
 * was measured: a failure marks the test failed and it goes on.  The
 * harness's EXPECT_TRUE() and its TH_LOG() handler expand to two
 * statements; the do-while keeps CHECK() one (checkpatch sees one).
 */
#ifndef DCBLAB_UNIT_CHECK_H
#define DCBLAB_UNIT_CHECK_H

#include "kselftest_harness.h"

/*
 * Each test runs in a forked child that leaves with _exit(): with stdout
 * a pipe or a file, what a test printf()s would stay in its buffer, and
 * the parent's unflushed lines would be printed again by every child.
 * Line-buffer stdout from the start.
 */
static void __attribute__((constructor)) check_line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

#define CHECK(cond, ...) do {						\
	EXPECT_TRUE(cond)						\
		TH_LOG(__VA_ARGS__);					\
} while (0)

#endif /* DCBLAB_UNIT_CHECK_H */
