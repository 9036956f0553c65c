// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_pacer.c: the per-QP pacer of the rxe_cc engine.
 *
 * A QP's pacing rate is the lowest of the device ceiling
 * (cc/max_rate_mbps), its verbs rate limit (IB_QP_RATE_LIMIT) and its
 * algorithm's rate; every data packet it sends (requests and RDMA READ
 * responses) is charged at that rate, and an hrtimer runs the requester
 * or the responder again when the next packet may go.  A paced QP asks
 * for ACKs in time (cc/paced_ack).  The algorithm's window is here too.
 */

#include <linux/hrtimer.h>
#include <linux/ipv6.h>
#include <linux/ip.h>
#include <linux/math64.h>

#include "rxe_cc_loc.h"
#include "rxe_cc_compat.h"
#include "rxe_loc.h"
#include "rxe_cc_trace.h"

/*
 * The pacer's time has come: run the requester again, and the responder
 * if it holds a READ response.  rxe_cc_qp_stop() runs only once the QP's
 * last reference is gone (rxe_qp_do_cleanup()), and 6.12's
 * rxe_sched_task() must not be called on such a QP (it warns, and its
 * task would take and drop a reference of a count at zero), so the tasks
 * are scheduled only under a reference of our own.  An expiry that
 * clears the responder's bit as it waits again (for a later time, the
 * timer re-armed) runs it early: it finds it must wait and sets the bit
 * again.
 */
enum hrtimer_restart rxe_cc_pacer_fire(struct hrtimer *t)
{
	struct rxe_qp *qp = container_of(t, struct rxe_qp, cc.pacer);

	/* see rxe_cc_qp_stop() */
	if (READ_ONCE(qp->cc.stopped) || !rxe_get(qp))
		return HRTIMER_NORESTART;
	rxe_sched_task(rxe_cc_req_task(qp));
	if (test_and_clear_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait))
		rxe_sched_task(rxe_cc_resp_task(qp));
	rxe_put(qp);
	return HRTIMER_NORESTART;
}

static u32 rxe_cc_qp_rate(struct rxe_qp *qp);

/*
 * The QP is not paced any more (under the cc lock).  A QP whose
 * next_send_ns is 0 is neither behind nor held, so that sending unpaced
 * needs no lock (__rxe_cc_charge_sent()).
 */
static void rxe_cc_pace_stop(struct rxe_qp *qp)
{
	qp->cc.next_send_ns = 0;
	qp->cc.behind = false;
	qp->cc.held = false;
}

/*
 * The QP's pacing rate went up or its last limit went away (under the cc
 * lock).  The pacer's gap was timed at the rate the last packet was
 * charged at: shorten what is left of it in the ratio of the two rates,
 * or end it when no rate is left, and move an armed pacer to the new
 * time.  Otherwise a QP that waits out the gap of a low limit (a 4 KB
 * packet at 1 kb/s: 32 s) keeps waiting after the limit is raised or
 * gone.  A lower rate changes nothing here: it applies from the next
 * packet on.
 */
static void rxe_cc_pace_retime(struct rxe_qp *qp)
{
	u32 kbps = rxe_cc_qp_rate(qp), old = qp->cc.pace_kbps;
	u64 next = qp->cc.next_send_ns, now;

	lockdep_assert_held(&qp->cc.lock);
	if (!next || !old || (kbps && kbps <= old))
		return;
	now = ktime_get_ns();
	if ((s64)(next - now) <= 0)
		return;
	qp->cc.pace_kbps = kbps;
	if (kbps) {
		next = now + mul_u64_u32_div(next - now, old, kbps);
		qp->cc.next_send_ns = next;
	} else {
		next = now;
		rxe_cc_pace_stop(qp);
	}
	/* queued: the requester or the responder waits for it */
	if (!qp->cc.stopped && hrtimer_is_queued(&qp->cc.pacer))
		hrtimer_start(&qp->cc.pacer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS);
}

/* Every QP of the device: the ceiling max_rate_mbps changed. */
void rxe_cc_dev_retime(struct rxe_dev *rxe)
{
	unsigned long index = 0;
	struct rxe_qp *qp;

	while (xa_find(&rxe->qp_pool.xa, &index, U32_MAX, XA_PRESENT)) {
		/* a reference: the QP is not destroyed meanwhile */
		qp = rxe_pool_get_index(&rxe->qp_pool, index);
		if (qp) {
			if (qp->cc.initialized) {
				rxe_cc_lock(qp);
				rxe_cc_pace_retime(qp);
				rxe_cc_unlock(qp);
			}
			rxe_put(qp);
		}
		if (index >= U32_MAX)
			break;
		index++;
	}
}

void rxe_cc_set_rate(struct rxe_qp *qp, u32 kbps)
{
	if (READ_ONCE(qp->cc.rate_kbps) == kbps)
		return;
	WRITE_ONCE(qp->cc.rate_kbps, kbps);
	trace_rxe_cc_rate(qp_num(qp), kbps);
	rxe_cc_pace_retime(qp);
}
EXPORT_SYMBOL_GPL(rxe_cc_set_rate);

void rxe_cc_set_window(struct rxe_qp *qp, u32 pkts)
{
	WRITE_ONCE(qp->cc.cwnd, min_t(u32, pkts, RXE_MAX_UNACKED_PSNS));
}
EXPORT_SYMBOL_GPL(rxe_cc_set_window);

/*
 * IB_QP_RATE_LIMIT (kb/s, 0 removes the limit) in a modify_qp, checked
 * after rxe checked the other attributes: accepted where mlx5 takes it,
 * on a transition into RTS from RTR, RTS or SQD.
 */
int rxe_cc_chk_rate_limit(struct rxe_qp *qp, struct ib_qp_attr *attr,
			  int mask)
{
	enum ib_qp_state cur = (mask & IB_QP_CUR_STATE) ?
			       attr->cur_qp_state : qp->attr.qp_state;
	enum ib_qp_state new = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	if (!(mask & IB_QP_RATE_LIMIT))
		return 0;
	if (new != IB_QPS_RTS ||
	    (cur != IB_QPS_RTR && cur != IB_QPS_RTS && cur != IB_QPS_SQD))
		return -EINVAL;
	return 0;
}

/*
 * ... and applied once the rest of the modify_qp succeeded.  A QP that
 * goes to RESET or ERR loses its limit, as an mlx5 send queue that
 * leaves the ready state does: the limit is part of the transmit state
 * that RESET clears, and is set again on the way back to RTS.
 */
void rxe_cc_set_rate_limit(struct rxe_qp *qp, struct ib_qp_attr *attr,
			   int mask)
{
	u32 kbps;

	if (mask & IB_QP_RATE_LIMIT)
		kbps = attr->rate_limit;
	else if ((mask & IB_QP_STATE) && (attr->qp_state == IB_QPS_RESET ||
					  attr->qp_state == IB_QPS_ERR))
		kbps = 0;
	else
		return;
	if (READ_ONCE(qp->cc.limit_kbps) == kbps &&
	    !(mask & IB_QP_RATE_LIMIT))
		return;
	WRITE_ONCE(qp->cc.limit_kbps, kbps);
	trace_rxe_cc_rate(qp_num(qp), kbps);
	rxe_cc_lock(qp);
	rxe_cc_pace_retime(qp);
	rxe_cc_unlock(qp);
}

/* query_qp: report the rate limit. */
void rxe_cc_query_qp(struct rxe_qp *qp, struct ib_qp_attr *attr)
{
	attr->rate_limit = READ_ONCE(qp->cc.limit_kbps);
}

/* The QP's pacing rate in kb/s: the lowest of its limits, 0 = none. */
static u32 rxe_cc_qp_rate(struct rxe_qp *qp)
{
	u32 r = READ_ONCE(rxe_cc_qp_dev(qp)->cc.max_rate_mbps) * 1000;
	u32 l = READ_ONCE(qp->cc.limit_kbps);
	u32 a = READ_ONCE(qp->cc.rate_kbps);

	if (l && (!r || l < r))
		r = l;
	if (a && (!r || a < r))
		r = a;
	return r;
}

/*
 * May a paced packet go now?  If not, arm the pacer for when it may and
 * tell the caller to stop; the pacer runs the requester again, and the
 * responder when @resp.  Under the cc lock: the requester and the
 * responder share the pacer and run in tasks of their own.
 */
static bool rxe_cc_pace_wait_locked(struct rxe_qp *qp, bool resp)
{
	u64 now, next = qp->cc.next_send_ns;

	if (!next)
		return false;
	now = ktime_get_ns();
	if ((s64)(next - now) <= 0)
		return false;
	if (!rxe_cc_qp_rate(qp)) {
		/* limits removed since the last packet */
		rxe_cc_pace_stop(qp);
		return false;
	}
	/*
	 * The QP is being destroyed.  Its requester is held: nothing it has
	 * not sent holds a reference.  Its responder is not: the request
	 * packets it has still to answer hold references that the destroy
	 * waits for (rxe_cc_qp_destroying()).
	 */
	if (resp && qp->cc.resp_unpaced)
		return false;
	if (qp->cc.stopped)
		return true;
	qp->cc.behind = true;
	if (resp)
		set_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait);
	hrtimer_start(&qp->cc.pacer, ns_to_ktime(next), HRTIMER_MODE_ABS);
	rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_PACER_DELAYS);
	return true;
}

/*
 * May the next packet of the requester (or of the responder: @resp) of a
 * QP that was paced go now (rxe_cc_pace_wait(), rxe_cc_resp_pace_wait())?
 */
bool __rxe_cc_pace_wait(struct rxe_qp *qp, bool resp)
{
	bool wait;

	rxe_cc_lock(qp);
	wait = rxe_cc_pace_wait_locked(qp, resp);
	rxe_cc_unlock(qp);
	return wait;
}

/*
 * A window (the algorithm's, or rxe's unacknowledged PSNs) or rxe's skb
 * limit stops the requester, whatever the pacer says.  The time it is
 * held is not the pacer's to make up: what holds it is congestion (ACKs
 * that do not come back, a qdisc paused or slow to send), and a QP that
 * caught up afterwards would send up to pacer_catchup_us of its rate
 * back to back just when its path is slowest.  So the packet after the
 * hold may make up only what the QP was late when the hold began (a late
 * pacer timer's debt, which a QP catching up often runs into its skb
 * limit with), at least pacer_slack_us as after idle time
 * (rxe_cc_pace_charge()).  @why is the counter of the reason.
 */
void rxe_cc_held(struct rxe_qp *qp, enum rxe_counters why)
{
	u64 now;

	if (READ_ONCE(qp->cc.next_send_ns)) {
		rxe_cc_lock(qp);
		if (qp->cc.next_send_ns && !qp->cc.held) {
			now = ktime_get_ns();
			qp->cc.held = true;
			qp->cc.held_lag_ns = qp->cc.behind &&
				(s64)(now - qp->cc.next_send_ns) > 0 ?
				now - qp->cc.next_send_ns : 0;
			qp->cc.behind = false;
		}
		rxe_cc_unlock(qp);
	}
	rxe_counter_inc(rxe_cc_qp_dev(qp), why);
}

/* Held by the window (an algorithm's, or rxe's unacknowledged PSNs). */
void rxe_cc_window_stall(struct rxe_qp *qp)
{
	rxe_cc_held(qp, RXE_CNT_CC_WINDOW_STALLS);
}

/* Held by rxe's limit of skbs in flight per QP (not yet taken by the stack). */
void rxe_cc_skb_stall(struct rxe_qp *qp)
{
	rxe_cc_held(qp, RXE_CNT_CC_SKB_STALLS);
}

/* Wire size of a packet of @qp's path: Ethernet to ICRC. */
u32 rxe_cc_wire_bytes(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	return ETH_HLEN + sizeof(struct udphdr) + pkt->paylen +
	       (qp->pri_av.network_type == RXE_NETWORK_TYPE_IPV6 ?
		sizeof(struct ipv6hdr) : sizeof(struct iphdr));
}

/* Pacing time a waiting QP could not catch up, in us (a counter). */
static void rxe_cc_count_lost(struct rxe_qp *qp, u64 ns)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);

	atomic64_add(div_u64(ns, NSEC_PER_USEC),
		     &rxe->stats_counters[RXE_CNT_CC_PACER_LOST_US]);
}

/*
 * A paced QP must be acknowledged before its transport timeout although
 * it sends slowly (cc/paced_ack).  Two things in rxe make it time out
 * and go back N with nothing lost:
 *  - rxe asks for an ACK at the end of a message and every
 *    RXE_MAX_PKT_PER_ACK packets, and only ACKs restart the retransmission
 *    timer; at a low pacing rate those packets take longer than the
 *    timeout (64 KB at 0.5 Mb/s: 1 s; perftest's -u 17: 537 ms).  A paced
 *    QP asks once the packets sent since its last AckReq took a quarter
 *    of its timeout at its pacing rate (rxe_cc_paced_ackreq());
 *  - the requester arms the timer only when it is not pending, and an ACK
 *    that acknowledges everything does not re-arm it, so a timer armed
 *    for packets acknowledged long ago keeps running and expires within
 *    the next packets of a slow QP.  A paced QP restarts it when it sends
 *    a packet with nothing older unacknowledged (rxe_cc_paced_timer()).
 */
static void rxe_cc_paced_timer(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	unsigned long tmo = qp->qp_timeout_jiffies;

	if (tmo && READ_ONCE(rxe_cc_qp_dev(qp)->cc.paced_ack) &&
	    psn_compare(pkt->psn, READ_ONCE(qp->comp.psn)) <= 0)
		mod_timer(&qp->retrans_timer, jiffies + tmo);
}

/*
 * The wire time of @bytes at @kbps, in ns: bits / (kbit/s) = ms, so
 * @bytes * 8e6 / @kbps, rounded down.  Without a division per packet:
 * when the rate changes, its reciprocal is computed once, rounded down
 * (ns per byte with 32 fractional bits), so that the product is the
 * quotient or one below it; one multiplication tells which.
 */
static u64 rxe_cc_wire_ns(struct rxe_qp *qp, u32 bytes, u32 kbps)
{
	u64 bits_ns = (u64)bytes * 8 * NSEC_PER_MSEC;
	u64 ns;

	if (qp->cc.recip_kbps != kbps) {
		qp->cc.recip_kbps = kbps;
		qp->cc.recip = div_u64((u64)8 * NSEC_PER_MSEC << 32, kbps);
	}
	ns = mul_u64_u32_shr(qp->cc.recip, bytes, 32);
	if (bits_ns - ns * kbps >= kbps)
		ns++;
	return ns;
}

/*
 * A data packet of @bytes left: tell the algorithm, and charge its wire
 * time at @kbps, the QP's rate (0: none), to the pacer; returns that time
 * (ns, 0: not paced).  Under the cc lock.
 */
static u64 rxe_cc_pace_charge(struct rxe_qp *qp, u32 bytes, u32 kbps)
{
	u64 now, debt, catchup, wire_ns;

	if (qp->cc.ops && qp->cc.ops->on_sent)
		qp->cc.ops->on_sent(qp, bytes);
	qp->cc.pace_kbps = kbps;
	if (!kbps) {
		rxe_cc_pace_stop(qp);
		return 0;
	}
	/*
	 * A QP that was waiting for its pacer and got the CPU late (timer
	 * latency, a stalled vCPU) catches up to pacer_catchup_us: the rate
	 * is an average.  Otherwise time the QP spent idle earns at most
	 * pacer_slack_us of credit (the burst after idle), and time it
	 * spent held by a window or the skb limit nothing beyond what it
	 * was late when the hold began (rxe_cc_held()).
	 */
	now = ktime_get_ns();
	catchup = (u64)READ_ONCE(rxe_cc_qp_dev(qp)->cc.pacer_catchup_us) *
		  NSEC_PER_USEC;
	debt = qp->cc.behind ? catchup :
	       (u64)READ_ONCE(rxe_cc_qp_dev(qp)->cc.pacer_slack_us) *
	       NSEC_PER_USEC;
	if (qp->cc.held) {
		qp->cc.held = false;
		debt = max(debt, min(qp->cc.held_lag_ns, catchup));
	}
	if (qp->cc.next_send_ns + debt < now) {
		/* a waiting QP got the CPU later than it can catch up */
		if (qp->cc.behind)
			rxe_cc_count_lost(qp, now - debt - qp->cc.next_send_ns);
		qp->cc.next_send_ns = now - debt;
	}
	wire_ns = rxe_cc_wire_ns(qp, bytes, kbps);
	qp->cc.next_send_ns += wire_ns;
	qp->cc.behind = qp->cc.behind && (s64)(qp->cc.next_send_ns - now) < 0;
	return wire_ns ?: 1;
}

/*
 * A data packet of @qp left: charge it (rxe_cc_pace_charge()); returns
 * its wire time, 0 when the QP is not paced.  A QP with no rate, no
 * pacing left over and no on_sent callback has nothing to charge and
 * takes no lock (rxe_cc_pace_stop()): stock rxe's traffic, and an
 * algorithm's at line rate.
 */
u64 __rxe_cc_charge_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;
	u32 kbps = rxe_cc_qp_rate(qp);
	u64 wire_ns;

	if (!kbps && !READ_ONCE(qp->cc.next_send_ns) &&
	    !(ops && ops->on_sent))
		return 0;
	rxe_cc_lock(qp);
	wire_ns = rxe_cc_pace_charge(qp, rxe_cc_wire_bytes(qp, pkt), kbps);
	rxe_cc_unlock(qp);
	return wire_ns;
}

/* Requester: a packet left (rxe_cc_sent()); charge it to the pacer. */
void __rxe_cc_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u64 wire_ns = __rxe_cc_charge_sent(qp, pkt);

	if (!wire_ns) {
		qp->cc.noack_ns = 0;
		return;
	}
	rxe_cc_paced_timer(qp, pkt);
	qp->cc.noack_ns += wire_ns;
}

/*
 * Requester: should this packet of a paced QP ask for an ACK (see above)?
 * noack_ns is the pacing time of the packets sent since the last AckReq,
 * summed by rxe_cc_sent(); it stays 0 while the QP is not paced.
 */
bool rxe_cc_paced_ackreq(struct rxe_qp *qp)
{
	unsigned long tmo = qp->qp_timeout_jiffies;

	if (!tmo || !qp->cc.noack_ns ||
	    !READ_ONCE(rxe_cc_qp_dev(qp)->cc.paced_ack) ||
	    qp->cc.noack_ns < jiffies_to_nsecs(tmo) / 4)
		return false;
	rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_ACKREQ_ADDED);
	return true;
}
