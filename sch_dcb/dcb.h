/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: what the module exports to other modules.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_H
#define _SCH_DCB_H

#include <linux/types.h>

struct net_device;

u64 dcb_root_rate(struct net_device *dev);

#endif /* _SCH_DCB_H */
