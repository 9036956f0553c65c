/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_dcb: a port of a pool, and the PFC frames it sends (dcb_pfc.c) as
 * the pool (dcb_pool.c) uses them.  Private to those two files: the qdisc
 * knows a port by its pointer alone (dcb_pool.h).
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef _SCH_DCB_PFC_H
#define _SCH_DCB_PFC_H

#include <linux/types.h>
#include <linux/netdevice.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/rcupdate.h>

#include "dcb_pool.h"

struct dcb_port_band {
	u64	bytes;		/* charged: shared + headroom */
	u64	peak;
	u64	headroom;	/* of bytes, in the headroom */
	u64	in_drops;
	u64	in_borrowed;	/* beyond the headroom, queued in shared */
	u64	pause_tx;
	u64	resume_tx;
	u64	pause_t0;	/* ns: the PAUSE of the pause in progress */
	u64	pause_bytes;	/* arrived since then, dropped or not */
	u64	inflight_peak;	/* highest pause_bytes */
	u64	react_ns;	/* longest PAUSE to arrival */
	bool	paused;		/* we have paused the peer */
};

struct dcb_port {
	struct dcb_pool		*pool;
	struct net_device	*dev;
	int			ifindex;
	bool			dead;		/* qdisc going: announce nothing */
	bool			replaced;	/* a successor speaks for dev */
	bool			joined;		/* dev joined dcb_pfc_dst */
	u32			refs;		/* the qdisc, charged packets */
	struct dcb_pfc_cfg	pfc;		/* with defaults resolved */
	u32			mtu;
	u64			rate;		/* bytes/s, 0 = not shaped */
	u64			reserve;	/* counted in pool->reserved */
	u8			changed;	/* bands to announce */
	unsigned int		failures;	/* transmissions failed in a row */
	struct dcb_port_band	band[TC_DCB_NUM_BANDS];
	struct tasklet_struct	tx;
	struct hrtimer		refresh;
	struct rcu_head		rcu;
};

extern u64 (*dcb_peer_rate)(struct net_device *dev);

int dcb_send_pfc(struct net_device *dev, u8 pause, u8 resume, u16 quanta);
void dcb_port_tx(struct tasklet_struct *t);
enum hrtimer_restart dcb_port_refresh(struct hrtimer *timer);

#endif /* _SCH_DCB_PFC_H */
