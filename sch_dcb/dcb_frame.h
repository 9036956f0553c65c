/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: the MAC control frames of flow control, as the ports send them
 * (dcb_pool.c) and the qdisc receives them (dcb_qdisc.c): 802.1Qbb
 * per-priority PAUSE (PFC) and 802.3x PAUSE.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_FRAME_H
#define _SCH_DCB_FRAME_H

#include <linux/types.h>
#include <linux/if_ether.h>

#include "uapi/pkt_sched_dcb.h"

#define DCB_PFC_OPCODE		0x0101	/* 802.1Qbb per-priority PAUSE */
#define DCB_PAUSE_OPCODE	0x0001	/* 802.3x PAUSE */

/* MAC control frame after the Ethernet header. */
struct dcb_pfc_hdr {
	__be16	opcode;
	__be16	vector;		/* 802.3x: the pause time itself */
	__be16	time[TC_DCB_NUM_BANDS];
} __packed;

static const u8 dcb_pfc_dst[ETH_ALEN] __aligned(2) = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};

#endif /* _SCH_DCB_FRAME_H */
