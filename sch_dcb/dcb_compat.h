/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: the kernel API differences between the kernels we build for
 * (Debian's 6.1 and 6.12 LTS), in this one place.  The .c files use the
 * dcb_* names below and contain no version tests.
 *
 * DCB_KERNEL_GE(major, minor) is true when the headers we build against
 * (<linux/version.h>, whose parts make up LINUX_VERSION_CODE) are of
 * that release or later.  checkpatch warns on any line naming
 * LINUX_VERSION_CODE itself (advice for code merged upstream).
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_COMPAT_H
#define _SCH_DCB_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <net/pkt_sched.h>

#define DCB_KERNEL_GE(major, minor)					\
	(LINUX_VERSION_MAJOR > (major) ||				\
	 (LINUX_VERSION_MAJOR == (major) && LINUX_VERSION_PATCHLEVEL >= (minor)))

/* 6.5 moved the GSO helpers (skb_gso_segment()) to <net/gso.h>. */
#if DCB_KERNEL_GE(6, 5)
#include <net/gso.h>
#endif

/*
 * Since 6.9 tc autoloads a qdisc module by the alias "net-sch-<kind>";
 * before, by the module name sch_<kind>.
 */
#if DCB_KERNEL_GE(6, 9)
#define DCB_MODULE_ALIAS_SCH(kind)	MODULE_ALIAS_NET_SCH(kind)
#else
#define DCB_MODULE_ALIAS_SCH(kind)	MODULE_ALIAS("sch_" kind)
#endif

/*
 * Tracepoints: since 6.10 __assign_str() takes only the field and copies
 * the string given to __string().
 */
#if DCB_KERNEL_GE(6, 10)
#define dcb_assign_str(field, src)	__assign_str(field)
#else
#define dcb_assign_str(field, src)	__assign_str(field, src)
#endif

#endif /* _SCH_DCB_COMPAT_H */
