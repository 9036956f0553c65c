/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel types and helpers for building rxe_cc/pcn_sm.c unchanged in
 * userspace: the DCQCN shim plus what PCN needs on top of it.
 */
#ifndef PCN_SHIM_H
#define PCN_SHIM_H

#include "../dcqcn/shim.h"

#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX ((u64)~0ULL)
#endif

#define clamp(v, lo, hi) min(max(v, lo), hi)

static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}

#endif
