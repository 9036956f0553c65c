// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_rltest.c: a kernel consumer of IB_QP_RATE_LIMIT, for the tests.
 *
 * Userspace cannot set a QP's rate limit on rxe (rdma-core's provider has
 * no callback), so this module does what a kernel ULP would: on load it
 * connects two RC QPs of the RDMA device @dev to each other (RoCE v2,
 * IPv4 GID, rxe's loopback), sets IB_QP_RATE_LIMIT = @rate_kbps on the
 * sender with ib_modify_qp() and posts @msgs RDMA WRITEs of 64 KB, the
 * first and the last signaled.  The time between their completions is
 * that of the last @msgs - 1 messages (the fixed latency of a completion
 * cancels out).  The result is in /sys/module/rxe_cc_rltest/parameters/:
 * elapsed_us and wire_kbps (their wire bytes as the rxe_cc pacer counts
 * them, Ethernet to ICRC, over that time).  Loading fails if the transfer
 * fails.  With @reset, the limit must then be gone once the QPs went to
 * RESET (reset_kbps: the wire rate of a second transfer after they are
 * connected again without a limit) and once the sender, limited again,
 * went to ERR, as an mlx5 send queue's does when it leaves the ready
 * state.  With @release, the sender instead posts one WRITE and, once
 * its pacer holds the WRITE's second packet (the device's
 * cc_pacer_delays counter moved), its limit is changed to @release_kbps
 * (0 removes it): release_us is the time from that change to the
 * WRITE's completion, which must not wait out the gap the old limit set.
 * With @comm_est, the receiver is moved to RTR only and the sender posts
 * two WRITEs: the receiver's QP event handler must see
 * IB_EVENT_COMM_EST exactly once (comm_est_events), the sender's never.
 * With @rtnl_held, the QPs are created while this module holds RTNL, as
 * a kernel consumer may (in a worker, so that a create_qp that takes
 * RTNL fails the load after 10 s instead of deadlocking).
 * Not part of rdma_rxe; used by selftests/net/test_65_rxe_rate_limit.sh
 * and test_98_rxe_comm_est.sh.
 */

#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define RLT_MSG		65536
#define RLT_MTU		1024
/* per packet on the wire: Ethernet, IPv4, UDP, BTH, ICRC */
#define RLT_PKT_HDRS	(ETH_HLEN + sizeof(struct iphdr) + \
			 sizeof(struct udphdr) + 12 + 4)
#define RLT_RETH	16

static char *dev = "";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device (rxe) to test");
static uint rate_kbps = 5000;
module_param(rate_kbps, uint, 0444);
MODULE_PARM_DESC(rate_kbps, "IB_QP_RATE_LIMIT of the sender, kb/s (0: none)");
static uint msgs = 32;
module_param(msgs, uint, 0444);
MODULE_PARM_DESC(msgs, "64 KB RDMA WRITEs to post (2-64)");
static ulong elapsed_us;
module_param(elapsed_us, ulong, 0444);
MODULE_PARM_DESC(elapsed_us, "result: time of the transfer, us");
static ulong wire_kbps;
module_param(wire_kbps, ulong, 0444);
MODULE_PARM_DESC(wire_kbps, "result: wire rate of the transfer, kb/s");
static bool reset;
module_param(reset, bool, 0444);
MODULE_PARM_DESC(reset, "check that RESET and ERR clear the limit");
static ulong reset_kbps;
module_param(reset_kbps, ulong, 0444);
MODULE_PARM_DESC(reset_kbps, "result: wire rate after RESET, kb/s");
static bool release;
module_param(release, bool, 0444);
MODULE_PARM_DESC(release, "change the limit while the pacer holds a WRITE");
static uint release_kbps;
module_param(release_kbps, uint, 0444);
MODULE_PARM_DESC(release_kbps, "the limit it is changed to, kb/s (0: none)");
static ulong release_us;
module_param(release_us, ulong, 0444);
MODULE_PARM_DESC(release_us, "result: from the change to the completion, us");
static bool comm_est;
module_param(comm_est, bool, 0444);
MODULE_PARM_DESC(comm_est, "check IB_EVENT_COMM_EST of a receiver in RTR");
static ulong comm_est_events;
module_param(comm_est_events, ulong, 0444);
MODULE_PARM_DESC(comm_est_events, "result: the receiver's COMM_EST events");
static bool rtnl_held;
module_param(rtnl_held, bool, 0444);
MODULE_PARM_DESC(rtnl_held, "create the QPs while holding RTNL");

struct rlt {
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp[2];
	void			*buf[2];
	u64			dma[2];
	union ib_gid		gid;
	u32			gid_index;
	u8			mac[ETH_ALEN];
};

/* The port's RoCE v2 IPv4 GID and its netdev's MAC. */
static int rlt_find_gid(struct rlt *t)
{
	const struct ib_gid_attr *a;
	struct net_device *ndev;
	u32 i;

	for (i = 0; i < t->ibdev->port_data[1].immutable.gid_tbl_len; i++) {
		a = rdma_get_gid_attr(t->ibdev, 1, i);
		if (IS_ERR(a))
			continue;
		if (a->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)a->gid.raw)) {
			rcu_read_lock();
			ndev = rdma_read_gid_attr_ndev_rcu(a);
			if (!IS_ERR(ndev))
				ether_addr_copy(t->mac, ndev->dev_addr);
			rcu_read_unlock();
			t->gid = a->gid;
			t->gid_index = i;
			rdma_put_gid_attr(a);
			return IS_ERR(ndev) ? PTR_ERR(ndev) : 0;
		}
		rdma_put_gid_attr(a);
	}
	return -ENOENT;
}

/* COMM_EST events of each QP (its qp_context is its index) */
static atomic_t rlt_comm_est[2];

static void rlt_qp_event(struct ib_event *ev, void *ctx)
{
	long i = (long)ctx;

	if (ev->event == IB_EVENT_COMM_EST && i >= 0 && i < 2)
		atomic_inc(&rlt_comm_est[i]);
}

static int rlt_connect_to(struct rlt *t, struct ib_qp *qp,
			  struct ib_qp *peer, enum ib_qp_state last);

/* RESET -> INIT -> RTR -> RTS, connected to @peer on the same port. */
static int rlt_connect(struct rlt *t, struct ib_qp *qp, struct ib_qp *peer)
{
	return rlt_connect_to(t, qp, peer, IB_QPS_RTS);
}

/* ... up to @last (RTR or RTS) */
static int rlt_connect_to(struct rlt *t, struct ib_qp *qp,
			  struct ib_qp *peer, enum ib_qp_state last)
{
	struct ib_qp_attr attr = {};
	int err;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer->qp_num;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &t->gid, 0, t->gid_index, 64, 0);
	ether_addr_copy(attr.ah_attr.roce.dmac, t->mac);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err || last == IB_QPS_RTR)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 20;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 0;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/* Wait for the next completion; 0 or an error. */
static int rlt_wait(struct rlt *t, unsigned long deadline)
{
	struct ib_wc wc;
	int n;

	while (!(n = ib_poll_cq(t->cq, 1, &wc))) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(100, 200);
	}
	if (n < 0)
		return n;
	if (wc.status != IB_WC_SUCCESS) {
		pr_err("rxe_cc_rltest: completion status %s\n",
		       ib_wc_status_msg(wc.status));
		return -EIO;
	}
	return 0;
}

/*
 * Post a WRITE of @len bytes from the first buffer to the second on the
 * sender's QP, with @wr_id, signaled if @signaled.
 */
static int rlt_post_write(struct rlt *t, u32 len, u64 wr_id, bool signaled)
{
	struct ib_sge sge = {
		.addr = t->dma[0],
		.length = len,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr.wr_id = wr_id,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = signaled ? IB_SEND_SIGNALED : 0,
		.remote_addr = t->dma[1],
		.rkey = t->pd->unsafe_global_rkey,
	};
	const struct ib_send_wr *bad;

	return ib_post_send(t->qp[0], &wr.wr, &bad);
}

/* Post the WRITEs, time the first and the last completion. */
static int rlt_run(struct rlt *t)
{
	unsigned long deadline;
	u64 start, ns, wire;
	unsigned int i;
	int err;

	for (i = 0; i < msgs; i++) {
		err = rlt_post_write(t, RLT_MSG, i, i == 0 || i == msgs - 1);
		if (err)
			return err;
	}
	/*
	 * allow four times the nominal time (at least 100 kb/s) and two
	 * seconds: test_65's device ceiling of 2 Mb/s under a 5000 kb/s
	 * limit takes 2.5 times the nominal time of 9 messages
	 */
	deadline = jiffies + msecs_to_jiffies(2000 +
		div_u64((u64)msgs * RLT_MSG * 8 * 4, max(rate_kbps, 100U)));
	err = rlt_wait(t, deadline);
	if (err)
		return err;
	start = ktime_get_ns();
	err = rlt_wait(t, deadline);
	if (err)
		return err;
	ns = ktime_get_ns() - start;
	wire = (u64)(msgs - 1) *
	       ((RLT_MSG / RLT_MTU) * (RLT_MTU + RLT_PKT_HDRS) + RLT_RETH);
	elapsed_us = div_u64(ns, NSEC_PER_USEC);
	wire_kbps = div64_u64(wire * 8 * USEC_PER_SEC, max_t(u64, ns, 1));
	return 0;
}

struct rlt_create {
	struct work_struct	work;
	struct completion	done;
	struct ib_pd		*pd;
	struct ib_qp_init_attr	*qia;
	struct ib_qp		*qp;
};

static void rlt_create_fn(struct work_struct *work)
{
	struct rlt_create *c = container_of(work, struct rlt_create, work);

	c->qp = ib_create_qp(c->pd, c->qia);
	complete(&c->done);
}

/*
 * ib_create_qp() while this thread holds RTNL.  The create runs in a
 * worker: if it needs RTNL it waits until this thread gives up after
 * 10 s, and the load fails instead of hanging.
 */
static struct ib_qp *rlt_create_qp_rtnl(struct ib_pd *pd,
					struct ib_qp_init_attr *qia)
{
	struct rlt_create c = { .pd = pd, .qia = qia };
	unsigned long left;

	INIT_WORK_ONSTACK(&c.work, rlt_create_fn);
	init_completion(&c.done);
	rtnl_lock();
	queue_work(system_unbound_wq, &c.work);
	left = wait_for_completion_timeout(&c.done, 10 * HZ);
	rtnl_unlock();
	flush_work(&c.work);
	destroy_work_on_stack(&c.work);
	if (left)
		return c.qp;
	pr_err("rxe_cc_rltest: create_qp waited for RTNL\n");
	if (!IS_ERR(c.qp))
		ib_destroy_qp(c.qp);
	return ERR_PTR(-EDEADLK);
}

/* The device's hardware counter @name (port 1), or 0 if it has none. */
static u64 rlt_counter(struct ib_device *ibdev, const char *name)
{
	struct rdma_hw_stats *st;
	u64 v = 0;
	int i;

	if (!ibdev->ops.alloc_hw_port_stats || !ibdev->ops.get_hw_stats)
		return 0;
	st = ibdev->ops.alloc_hw_port_stats(ibdev, 1);
	if (!st)
		return 0;
	mutex_lock(&st->lock);
	if (ibdev->ops.get_hw_stats(ibdev, st, 1, st->num_counters) >= 0)
		for (i = 0; i < st->num_counters; i++)
			if (!strcmp(st->descs[i].name, name))
				v = st->value[i];
	mutex_unlock(&st->lock);
	rdma_free_hw_stats_struct(st);
	return v;
}

/*
 * One signaled WRITE under the limit; once the pacer holds its second
 * packet, the limit becomes release_kbps; time the rest.
 */
static int rlt_release(struct rlt *t)
{
	struct ib_qp_attr attr = { .rate_limit = release_kbps };
	unsigned long deadline;
	struct ib_wc wc;
	u64 delays, start;
	int err;

	delays = rlt_counter(t->ibdev, "cc_pacer_delays");
	err = rlt_post_write(t, RLT_MSG, 0, true);
	if (err)
		return err;
	deadline = jiffies + 10 * HZ;
	while (rlt_counter(t->ibdev, "cc_pacer_delays") == delays) {
		if (ib_poll_cq(t->cq, 1, &wc) || time_after(jiffies, deadline)) {
			pr_err("rxe_cc_rltest: the pacer did not hold the WRITE\n");
			return -EINVAL;
		}
		usleep_range(100, 200);
	}
	start = ktime_get_ns();
	err = ib_modify_qp(t->qp[0], &attr, IB_QP_RATE_LIMIT);
	if (err) {
		pr_err("rxe_cc_rltest: IB_QP_RATE_LIMIT %u: %d\n",
		       release_kbps, err);
		return err;
	}
	/* the old limit's gap (8.8 s at 1 kb/s) and more */
	err = rlt_wait(t, jiffies + 30 * HZ);
	if (err)
		return err;
	release_us = div_u64(ktime_get_ns() - start, NSEC_PER_USEC);
	return 0;
}

/*
 * The receiver in RTR, the sender in RTS: two signaled WRITEs complete
 * (the receiver answers them in RTR), and the receiver raised
 * IB_EVENT_COMM_EST once, the sender not at all.
 */
static int rlt_comm_est_check(struct rlt *t)
{
	int i, err;

	err = rlt_connect(t, t->qp[0], t->qp[1]);
	if (!err)
		err = rlt_connect_to(t, t->qp[1], t->qp[0], IB_QPS_RTR);
	if (err)
		return err;
	for (i = 0; i < 2; i++) {
		err = rlt_post_write(t, RLT_MTU, 0, true);
		if (!err)
			err = rlt_wait(t, jiffies + 10 * HZ);
		if (err)
			return err;
	}
	comm_est_events = atomic_read(&rlt_comm_est[1]);
	if (comm_est_events != 1 || atomic_read(&rlt_comm_est[0])) {
		pr_err("rxe_cc_rltest: COMM_EST events: receiver in RTR %lu (want 1), sender %d (want 0)\n",
		       comm_est_events, atomic_read(&rlt_comm_est[0]));
		return -EINVAL;
	}
	return 0;
}

static void rlt_free(struct rlt *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->qp[i] && !IS_ERR(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
		if (t->dma[i])
			ib_dma_unmap_single(t->ibdev, t->dma[i], RLT_MSG,
					    DMA_BIDIRECTIONAL);
		kfree(t->buf[i]);
	}
	if (t->cq && !IS_ERR(t->cq))
		ib_free_cq(t->cq);
	if (t->pd && !IS_ERR(t->pd))
		ib_dealloc_pd(t->pd);
	ib_device_put(t->ibdev);
}

/* The rate limit ib_query_qp() reports for @qp, or a negative error. */
static long rlt_query_limit(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	int err;

	err = ib_query_qp(qp, &attr, IB_QP_RATE_LIMIT, &init);
	return err ? err : attr.rate_limit;
}

/*
 * IB_QP_RATE_LIMIT alone or with @mask must be refused (@qp is in
 * @state) and leave the limit unset.
 */
static int rlt_refused(struct ib_qp *qp, int mask, enum ib_qp_state state,
		       const char *what)
{
	struct ib_qp_attr attr = { .rate_limit = 1000, .qp_state = state };
	long got;
	int err;

	err = ib_modify_qp(qp, &attr, mask | IB_QP_RATE_LIMIT);
	got = rlt_query_limit(qp);
	if (!err || got) {
		pr_err("rxe_cc_rltest: IB_QP_RATE_LIMIT %s: returned %d, limit now %ld (want an error and 0)\n",
		       what, err, got);
		return -EINVAL;
	}
	return 0;
}

/* Move @qp to @state; the limit it reports must then be 0. */
static int rlt_cleared(struct ib_qp *qp, enum ib_qp_state state,
		       const char *what)
{
	struct ib_qp_attr attr = { .qp_state = state };
	long got;
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err) {
		pr_err("rxe_cc_rltest: modify to %s: %d\n", what, err);
		return err;
	}
	got = rlt_query_limit(qp);
	if (got) {
		pr_err("rxe_cc_rltest: rate_limit %ld after %s, want 0\n", got,
		       what);
		return -EINVAL;
	}
	return 0;
}

/*
 * The transfer ran with the limit: RESET both QPs (the limit goes),
 * connect them again, transfer without a limit (reset_kbps); set the
 * limit again and move the sender to ERR (the limit goes).
 */
static int rlt_reset(struct rlt *t)
{
	struct ib_qp_attr attr = { .rate_limit = rate_kbps };
	ulong limited = wire_kbps;
	int err;

	err = rlt_cleared(t->qp[0], IB_QPS_RESET, "RESET");
	if (!err)
		err = rlt_cleared(t->qp[1], IB_QPS_RESET, "RESET");
	if (!err)
		err = rlt_connect(t, t->qp[0], t->qp[1]);
	if (!err)
		err = rlt_connect(t, t->qp[1], t->qp[0]);
	if (!err)
		err = rlt_run(t);
	if (err)
		return err;
	reset_kbps = wire_kbps;
	wire_kbps = limited;
	err = ib_modify_qp(t->qp[0], &attr, IB_QP_RATE_LIMIT);
	if (err || rlt_query_limit(t->qp[0]) != rate_kbps) {
		pr_err("rxe_cc_rltest: IB_QP_RATE_LIMIT after RESET: %d\n",
		       err);
		return err ? err : -EINVAL;
	}
	return rlt_cleared(t->qp[0], IB_QPS_ERR, "ERR");
}

static int __init rlt_init(void)
{
	struct ib_qp_init_attr qia = {
		.cap = { .max_send_wr = 64, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.event_handler = rlt_qp_event,
	};
	struct ib_qp_attr attr = {};
	struct rlt t = {};
	int i, err;

	if (msgs < 2 || msgs > 64)
		return -EINVAL;
	t.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_RXE);
	if (!t.ibdev) {
		pr_err("rxe_cc_rltest: no rxe device '%s'\n", dev);
		return -ENODEV;
	}
	err = rlt_find_gid(&t);
	if (err) {
		pr_err("rxe_cc_rltest: %s has no RoCE v2 IPv4 GID\n", dev);
		goto out;
	}
	t.pd = ib_alloc_pd(t.ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	t.cq = ib_alloc_cq(t.ibdev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(t.pd) || IS_ERR(t.cq)) {
		err = IS_ERR(t.pd) ? PTR_ERR(t.pd) : PTR_ERR(t.cq);
		goto out;
	}
	qia.send_cq = t.cq;
	qia.recv_cq = t.cq;
	for (i = 0; i < 2; i++) {
		t.buf[i] = kzalloc(RLT_MSG, GFP_KERNEL);
		if (!t.buf[i]) {
			err = -ENOMEM;
			goto out;
		}
		t.dma[i] = ib_dma_map_single(t.ibdev, t.buf[i], RLT_MSG,
					     DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(t.ibdev, t.dma[i])) {
			t.dma[i] = 0;
			err = -ENOMEM;
			goto out;
		}
		qia.qp_context = (void *)(long)i;
		t.qp[i] = rtnl_held ? rlt_create_qp_rtnl(t.pd, &qia) :
				      ib_create_qp(t.pd, &qia);
		if (IS_ERR(t.qp[i])) {
			err = PTR_ERR(t.qp[i]);
			goto out;
		}
	}
	if (comm_est) {
		err = rlt_comm_est_check(&t);
		if (!err)
			pr_info("rxe_cc_rltest: %s: receiver in RTR: %lu COMM_EST event\n",
				dev, comm_est_events);
		goto out;
	}
	/* only on the way into RTS (RTR, RTS, SQD -> RTS), as mlx5 */
	err = rlt_refused(t.qp[0], 0, IB_QPS_RESET, "in RESET");
	if (err)
		goto out;
	err = rlt_connect(&t, t.qp[0], t.qp[1]);
	if (!err)
		err = rlt_connect(&t, t.qp[1], t.qp[0]);
	if (err) {
		pr_err("rxe_cc_rltest: connecting the QPs: %d\n", err);
		goto out;
	}
	/* validated with the rest of the attributes: RTS -> RTR is invalid */
	err = rlt_refused(t.qp[0], IB_QP_STATE, IB_QPS_RTR,
			  "with an invalid transition");
	if (err)
		goto out;
	attr.rate_limit = rate_kbps;
	err = ib_modify_qp(t.qp[0], &attr, IB_QP_RATE_LIMIT);
	if (err) {
		pr_err("rxe_cc_rltest: IB_QP_RATE_LIMIT refused: %d\n", err);
		goto out;
	}
	if (rlt_query_limit(t.qp[0]) != rate_kbps) {
		pr_err("rxe_cc_rltest: query_qp reports rate_limit %ld, want %u\n",
		       rlt_query_limit(t.qp[0]), rate_kbps);
		err = -EINVAL;
		goto out;
	}
	if (release) {
		err = rlt_release(&t);
		if (!err)
			pr_info("rxe_cc_rltest: %s: rate_limit %u -> %u kb/s while paced: completion after %lu us\n",
				dev, rate_kbps, release_kbps, release_us);
		goto out;
	}
	err = rlt_run(&t);
	if (!err && reset)
		err = rlt_reset(&t);
	if (err)
		pr_err("rxe_cc_rltest: transfer failed: %d\n", err);
	else
		pr_info("rxe_cc_rltest: %s: rate_limit %u kb/s: %u x 64 KB in %lu us, %lu kb/s on the wire\n",
			dev, rate_kbps, msgs, elapsed_us, wire_kbps);
out:
	rlt_free(&t);
	return err;
}

static void __exit rlt_exit(void)
{
}

module_init(rlt_init);
module_exit(rlt_exit);
MODULE_DESCRIPTION("DCB lab: IB_QP_RATE_LIMIT test consumer for rxe_cc");
MODULE_LICENSE("GPL");
