/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/math64.h> for the userspace builds of kernel code: 64-bit
 * divisions, which userspace does natively.
 */
#ifndef DCBLAB_UNIT_LINUX_MATH64_H
#define DCBLAB_UNIT_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
