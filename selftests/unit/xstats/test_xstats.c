// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of dcb_xstats_read() (include/dcb_xstats.h), the reader of
 * sch_dcb's TCA_STATS_APP that the tc plugin and dcbmon share: statistics
 * of this module, of a newer one (counters appended to each block, a
 * longer header, a block this build does not know), of an older one
 * (fewer counters), and the ones it must refuse.  The blobs are built
 * here as the module lays them out (pkt_sched_dcb.h).
 */
#include <stdio.h>
#include <string.h>

#include "dcb_xstats.h"
#include "../check.h"

#define EXTRA_VALUE	77

struct blob {
	unsigned char	data[2048];
	size_t		len;
};

static void put(struct blob *b, const void *p, size_t len)
{
	if (len)
		memcpy(b->data + b->len, p, len);
	b->len += len;
}

/* @extra u64 of EXTRA_VALUE after @len bytes of @p: a newer block */
static void put_block(struct blob *b, const void *p, size_t len, unsigned int extra)
{
	__u64 v = EXTRA_VALUE;

	put(b, p, len);
	while (extra--)
		put(b, &v, sizeof(v));
}

static struct tc_dcb_port_stats port = { .rate = 2500000, .pfc_malformed = 4 };
static struct tc_dcb_pool_stats pool = { .id = 2, .ports = 3, .size = 4194304, .used = 90000 };

static void fill_stats(struct tc_dcb_stats *st)
{
	__u64 *v = (__u64 *)st;
	unsigned int i;

	for (i = 0; i < DCB_STATS_NUM; i++)
		v[i] = 1000 + i;
}

/*
 * The port's statistics: @extra counters appended to every block and
 * @extra * 8 bytes to the header, then a block of @extra * 8 bytes;
 * @fewer counters less in the stats block.
 */
static void port_blob(struct blob *b, unsigned int extra, unsigned int fewer)
{
	struct tc_dcb_xstats h = {
		.version = TC_DCB_XSTATS_VERSION,
		.nbands = TC_DCB_NUM_BANDS,
		.size = sizeof(h) + 8 * extra,
		.port_size = sizeof(port) + 8 * extra,
		.stats_size = sizeof(struct tc_dcb_stats) + 8 * extra - 8 * fewer,
		.pool_size = sizeof(pool) + 8 * extra,
	};
	struct tc_dcb_stats st;

	fill_stats(&st);
	b->len = 0;
	put_block(b, &h, sizeof(h), extra);
	put_block(b, &port, sizeof(port), extra);
	put_block(b, &st, sizeof(st) - 8 * fewer, extra);
	put_block(b, &pool, sizeof(pool), extra);
	put_block(b, NULL, 0, extra);
}

static void check_port(struct __test_metadata *_metadata, const struct dcb_xstats *x,
		       unsigned int num)
{
	struct tc_dcb_stats st;
	unsigned int i;

	fill_stats(&st);
	CHECK(x->port, "the port's blocks not seen");
	CHECK(x->nbands == TC_DCB_NUM_BANDS, "nbands %u", x->nbands);
	CHECK(x->stats_num == num, "stats_num %u, expected %u", x->stats_num, num);
	CHECK(!memcmp(&x->port_stats, &port, sizeof(port)), "port block differs");
	CHECK(!memcmp(&x->pool, &pool, sizeof(pool)), "pool block differs");
	for (i = 0; i < DCB_STATS_NUM; i++)
		CHECK(((const __u64 *)&x->stats)[i] == (i < num ? 1000 + i : 0),
		      "counter %u is %llu", i,
		      (unsigned long long)((const __u64 *)&x->stats)[i]);
}

/*
 * A port's blob with @extra counters appended to each block (a newer
 * module) and the statistics block's last @fewer left out (an older one)
 * reads as the port's blocks with @num counters.
 */
static void check_read(struct __test_metadata *_metadata, unsigned int extra,
		       unsigned int fewer, unsigned int num)
{
	struct dcb_xstats x;
	struct blob b;
	char why[128];

	port_blob(&b, extra, fewer);
	ASSERT_EQ(NULL, dcb_xstats_read(b.data, b.len, &x, why, sizeof(why)))
		TH_LOG("%u counters appended, %u left out: %s", extra, fewer, why);
	check_port(_metadata, &x, num);
}

TEST(this_module)
{
	check_read(_metadata, 0, 0, DCB_STATS_NUM);
}

TEST(newer_module)
{
	unsigned int extra;

	for (extra = 1; extra <= 5; extra++)
		check_read(_metadata, extra, 0, DCB_STATS_NUM);
}

TEST(older_module)
{
	check_read(_metadata, 0, 3, DCB_STATS_NUM - 3);
}

/* A class: the header, no port or pool block, the band's counters */
TEST(band)
{
	struct tc_dcb_xstats h = {
		.version = TC_DCB_XSTATS_VERSION,
		.nbands = TC_DCB_NUM_BANDS,
		.size = sizeof(h),
		.stats_size = sizeof(struct tc_dcb_stats) + 16,
	};
	struct tc_dcb_stats st;
	struct dcb_xstats x;
	struct blob b = { .len = 0 };
	char why[128];

	fill_stats(&st);
	put(&b, &h, sizeof(h));
	put_block(&b, &st, sizeof(st), 2);
	ASSERT_EQ(NULL, dcb_xstats_read(b.data, b.len, &x, why, sizeof(why)));
	CHECK(!x.port, "a band's statistics read as a port's");
	CHECK(x.stats_num == DCB_STATS_NUM, "stats_num %u", x.stats_num);
	CHECK(!memcmp(&x.stats, &st, sizeof(st)), "band counters differ");
}

TEST(refused)
{
	struct tc_dcb_xstats *h;
	struct dcb_xstats x;
	struct blob b;
	char why[128];

	port_blob(&b, 0, 0);
	h = (struct tc_dcb_xstats *)b.data;
	/* the layout before sizes: refused by its version */
	h->version = 7;
	ASSERT_NE(NULL, dcb_xstats_read(b.data, b.len, &x, why, sizeof(why)));
	CHECK(strstr(why, "version 7"), "message: %s", why);
	h->version = TC_DCB_XSTATS_VERSION;
	/* blocks longer than the payload */
	ASSERT_NE(NULL, dcb_xstats_read(b.data, b.len - 8, &x, why, sizeof(why)));
	CHECK(strstr(why, "malformed"), "message: %s", why);
	/* a size that is not a multiple of 8 */
	h->pool_size -= 4;
	ASSERT_NE(NULL, dcb_xstats_read(b.data, b.len, &x, why, sizeof(why)));
	h->pool_size += 4;
	/* a header shorter than the one this build knows */
	h->size = 16;
	ASSERT_NE(NULL, dcb_xstats_read(b.data, b.len, &x, why, sizeof(why)));
	h->size = sizeof(*h);
	/* too short for a header */
	ASSERT_NE(NULL, dcb_xstats_read(b.data, 6, &x, why, sizeof(why)));
	CHECK(strstr(why, "too short"), "message: %s", why);
	ASSERT_EQ(NULL, dcb_xstats_read(b.data, b.len, &x, why, sizeof(why)));
}

TEST_HARNESS_MAIN
