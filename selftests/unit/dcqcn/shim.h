/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers rxe_cc/dcqcn_sm.c uses, for building it
 * unchanged in userspace (unit and model tests).
 */
#ifndef DCQCN_SHIM_H
#define DCQCN_SHIM_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

#ifndef U32_MAX
#define U32_MAX UINT32_MAX
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif
