/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readers of sch_dcb's statistics for userspace (the tc plugin, dcbmon
 * and their unit test), as pkt_sched_dcb.h lays them out: every
 * structure travels with its size, and a reader copies min(the size it
 * knows, the size it got), leaving the rest of its copy 0.  A module
 * with counters appended is read as far as this build knows it; one
 * with fewer counters is read as far as it sends them.
 */
#ifndef _DCB_XSTATS_H
#define _DCB_XSTATS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pkt_sched_dcb.h"
#include "dcb_stats_fields.h"

/*
 * A TCA_STATS_APP as this build knows it: a port's (port set) or a
 * band's.
 */
struct dcb_xstats {
	unsigned int		nbands;
	bool			port;		/* port and pool blocks sent */
	unsigned int		stats_num;	/* counters in @stats sent */
	struct tc_dcb_port_stats port_stats;
	struct tc_dcb_stats	stats;		/* a band's, or the totals */
	struct tc_dcb_pool_stats pool;
};

/* Copy a block of @got bytes at @src into @dst of @size bytes. */
static inline void dcb_xstats_copy(void *dst, size_t size, const void *src,
				   size_t got)
{
	memset(dst, 0, size);
	memcpy(dst, src, got < size ? got : size);
}

/*
 * A TCA_STATS_APP @data of @len bytes, a qdisc's or a class's, into *@x:
 * NULL, or why it cannot be read (in @why, @size bytes).
 */
static inline const char *dcb_xstats_read(const void *data, size_t len,
					  struct dcb_xstats *x, char *why,
					  size_t size)
{
	const unsigned char *p = data;
	struct tc_dcb_xstats h;
	size_t off, num;

	memset(x, 0, sizeof(*x));
	if (len < offsetof(struct tc_dcb_xstats, size)) {
		snprintf(why, size, "xstats too short (%zu bytes)", len);
		return why;
	}
	dcb_xstats_copy(&h, sizeof(h), data, len);
	if (h.version < TC_DCB_XSTATS_VERSION) {
		/* before the blocks had sizes: nothing to go by */
		snprintf(why, size,
			 "xstats version %u of an older sch_dcb module; this reader needs %u or later",
			 h.version, TC_DCB_XSTATS_VERSION);
		return why;
	}
	if (len < sizeof(h) || h.size < sizeof(h) || h.size % 8 ||
	    h.port_size % 8 || h.stats_size % 8 || h.pool_size % 8 ||
	    (size_t)h.size + h.port_size + h.stats_size + h.pool_size > len) {
		snprintf(why, size,
			 "xstats malformed (%zu bytes; header %u, blocks %u, %u, %u)",
			 len, h.size, h.port_size, h.stats_size, h.pool_size);
		return why;
	}
	x->nbands = h.nbands;
	x->port = h.port_size || h.pool_size;
	off = h.size;
	dcb_xstats_copy(&x->port_stats, sizeof(x->port_stats), p + off,
			h.port_size);
	off += h.port_size;
	dcb_xstats_copy(&x->stats, sizeof(x->stats), p + off, h.stats_size);
	num = h.stats_size / sizeof(__u64);
	x->stats_num = num < DCB_STATS_NUM ? num : DCB_STATS_NUM;
	off += h.stats_size;
	dcb_xstats_copy(&x->pool, sizeof(x->pool), p + off, h.pool_size);
	return NULL;
}

#endif /* _DCB_XSTATS_H */
