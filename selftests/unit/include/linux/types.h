/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/types.h> for the userspace builds of kernel code (the rxe_cc
 * state machines): the system's uAPI header, then the kernel's own names.
 */
#ifndef DCBLAB_UNIT_LINUX_TYPES_H
#define DCBLAB_UNIT_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#endif
