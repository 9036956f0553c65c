/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/minmax.h> for the userspace builds of kernel code.  Plain
 * comparisons: the kernel's versions also check that both sides have one
 * type, which the kernel build (W=1) checks for the same code.
 */
#ifndef DCBLAB_UNIT_LINUX_MINMAX_H
#define DCBLAB_UNIT_LINUX_MINMAX_H

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)

#endif
