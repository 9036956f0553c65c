/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/limits.h> for the userspace builds of kernel code: the system's
 * uAPI header (glibc's <limits.h> includes it), then the kernel's limits
 * of its fixed-size types.
 */
#ifndef DCBLAB_UNIT_LINUX_LIMITS_H
#define DCBLAB_UNIT_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <linux/types.h>

#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX		((u64)~0ULL)
#endif

#endif
