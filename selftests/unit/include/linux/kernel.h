/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/kernel.h> for userspace programs next to kernel code (the unit
 * tests and models of the rxe_cc state machines): the system's uAPI
 * header, and the kernel's helpers they use.
 */
#ifndef DCBLAB_UNIT_LINUX_KERNEL_H
#define DCBLAB_UNIT_LINUX_KERNEL_H

#include_next <linux/kernel.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#endif
