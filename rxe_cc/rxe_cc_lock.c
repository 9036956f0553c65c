// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_lock.c: the serialisation of one QP's callbacks.
 *
 * Every callback of a QP's algorithm runs under the QP's cc lock, the
 * expiry of its timer (rxe_cc_timer_arm()) included.  A CNP that a
 * callback asks for (rxe_cc_send_cnp()) leaves once the lock is dropped,
 * so the RoCEv2 CNP is built and sent here, and rxe's opcode table
 * learns it here.
 */

#include "rxe_cc_loc.h"
#include "rxe_cc_compat.h"
#include "rxe_loc.h"

#define CREATE_TRACE_POINTS
#include "rxe_cc_trace.h"

/*
 * Send a CNP to the sender of @qp (its peer, DestQP = the peer's QPN),
 * with @rsvd (16 bytes) in the reserved field.  Not under the cc lock.
 */
static int rxe_cc_xmit_cnp(struct rxe_qp *qp, const u8 *rsvd)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);
	struct rxe_pkt_info pkt = {};
	struct rxe_av *av = &qp->pri_av;
	struct rxe_bth *bth;
	struct sk_buff *skb;
	u32 paylen;
	int err;

	/*
	 * The receive path may get here while the QP is being destroyed:
	 * its last reference gone, its cleanup (which releases the socket
	 * rxe_send() uses) about to run.  Send only while holding a
	 * reference of our own, which keeps that cleanup waiting.  The peer
	 * learns nothing from a QP whose responder is not ready.
	 */
	if (!qp->valid || !rxe_cc_resp_ready(qp))
		return -ENOENT;
	if (!rxe_get(qp))
		return -ENOENT;
	paylen = RXE_BTH_BYTES + RXE_CC_CNP_RSVD_BYTES + RXE_ICRC_SIZE;
	pkt.qp = qp;
	pkt.opcode = RXE_CC_OPCODE_CNP;
	skb = rxe_init_packet(rxe, av, paylen, &pkt);
	if (!skb) {
		err = -ENOMEM;
		goto out;
	}
	pkt.paylen = paylen;
	pkt.mask |= RXE_BTH_MASK;

	bth = (struct rxe_bth *)pkt.hdr;
	memset(bth, 0, paylen);
	bth->opcode = RXE_CC_OPCODE_CNP;
	bth->pkey = htons(IB_DEFAULT_PKEY_FULL);
	bth->qpn = cpu_to_be32(BTH_BECN_MASK |
			       (qp->attr.dest_qp_num & BTH_QPN_MASK));
	memcpy(pkt.hdr + RXE_BTH_BYTES, rsvd, RXE_CC_CNP_RSVD_BYTES);

	err = rxe_prepare(av, &pkt, skb);
	if (err) {
		kfree_skb(skb);
		goto out;
	}
	skb->priority = READ_ONCE(rxe->cc.cnp_802p_prio);
	err = rxe_xmit_packet(qp, &pkt, skb);
	if (err)
		goto out;
	rxe_counter_inc(rxe, RXE_CNT_NP_CNP_SENT);
	trace_rxe_cc_cnp_sent(qp_num(qp), qp->attr.dest_qp_num);
out:
	rxe_put(qp);
	return err;
}

/*
 * One QP's callbacks run under its cc lock.  The callers are the
 * requester (process context or tasklet), the receive softirq, the
 * algorithm's soft hrtimer and modify/destroy (process context), never a
 * hard interrupt, so the lock is BH-safe only.
 */
void rxe_cc_lock(struct rxe_qp *qp)
	__acquires(&qp->cc.lock)
{
	spin_lock_bh(&qp->cc.lock);
}

/*
 * A CNP asked for under the lock leaves after it is dropped: rxe's
 * transmit path may deliver it at once (loopback) to a QP whose lock
 * would then nest in this one.
 */
void rxe_cc_unlock(struct rxe_qp *qp)
	__releases(&qp->cc.lock)
{
	u8 rsvd[RXE_CC_CNP_RSVD_BYTES];
	bool cnp = qp->cc.cnp_pending;

	if (cnp) {
		memcpy(rsvd, qp->cc.cnp_rsvd, sizeof(rsvd));
		qp->cc.cnp_pending = false;
	}
	spin_unlock_bh(&qp->cc.lock);
	if (cnp)
		rxe_cc_xmit_cnp(qp, rsvd);
}

/*
 * The algorithm's timer.  A callback may re-arm it (rxe_cc_timer_arm())
 * while this waits for the lock: the hrtimer is queued again and
 * timer_ns tells that this expiry is stale.
 */
enum hrtimer_restart rxe_cc_timer_fire(struct hrtimer *t)
{
	struct rxe_qp *qp = container_of(t, struct rxe_qp, cc.timer);
	u64 due;

	rxe_cc_lock(qp);
	due = qp->cc.timer_ns;
	if (due && !qp->cc.stopped && (s64)(ktime_get_ns() - due) >= 0) {
		qp->cc.timer_ns = 0;
		qp->cc.ops->on_timer(qp);
	}
	rxe_cc_unlock(qp);
	return HRTIMER_NORESTART;
}

/*
 * From a callback: call ops->on_timer at @expires_ns (CLOCK_MONOTONIC,
 * ktime_get_ns()), replacing any earlier request; 0 cancels it.
 */
void rxe_cc_timer_arm(struct rxe_qp *qp, u64 expires_ns)
{
	lockdep_assert_held(&qp->cc.lock);
	if (qp->cc.stopped || !qp->cc.ops->on_timer ||
	    expires_ns == qp->cc.timer_ns)
		return;
	qp->cc.timer_ns = expires_ns;
	/* a stale expiry that fires finds timer_ns 0 and does nothing */
	if (expires_ns)
		hrtimer_start(&qp->cc.timer, ns_to_ktime(expires_ns),
			      HRTIMER_MODE_ABS_SOFT);
}
EXPORT_SYMBOL_GPL(rxe_cc_timer_arm);

/*
 * Stop the algorithm's timer for good (destroy) or until the algorithm
 * starts again (reset): no callback may arm it once this returns.
 */
void rxe_cc_timer_stop(struct rxe_qp *qp, bool destroy)
{
	rxe_cc_lock(qp);
	qp->cc.timer_ns = 0;
	qp->cc.np_ce_pending = false;
	if (destroy)
		WRITE_ONCE(qp->cc.stopped, true);
	rxe_cc_unlock(qp);
	hrtimer_cancel(&qp->cc.timer);
	hrtimer_cancel(&qp->cc.np_timer);
}

/*
 * From a callback: send a CNP with @rsvd (16 bytes, NULL: zeros) to the
 * QP's peer once the callback returned (rxe_cc_unlock()).  A second call
 * in the same callback replaces the first.
 */
void rxe_cc_send_cnp(struct rxe_qp *qp, const u8 *rsvd)
{
	BUILD_BUG_ON(sizeof(qp->cc.cnp_rsvd) != RXE_CC_CNP_RSVD_BYTES);
	lockdep_assert_held(&qp->cc.lock);
	if (rsvd)
		memcpy(qp->cc.cnp_rsvd, rsvd, RXE_CC_CNP_RSVD_BYTES);
	else
		memset(qp->cc.cnp_rsvd, 0, RXE_CC_CNP_RSVD_BYTES);
	qp->cc.cnp_pending = true;
}
EXPORT_SYMBOL_GPL(rxe_cc_send_cnp);

/* Teach rxe's opcode table the CNP (for the ICRC helpers). */
void rxe_cc_cnp_init(void)
{
	rxe_opcode[RXE_CC_OPCODE_CNP].name = "IB_OPCODE_CNP";
	rxe_opcode[RXE_CC_OPCODE_CNP].mask = RXE_BTH_MASK;
	rxe_opcode[RXE_CC_OPCODE_CNP].length = RXE_BTH_BYTES +
					       RXE_CC_CNP_RSVD_BYTES;
	rxe_opcode[RXE_CC_OPCODE_CNP].offset[RXE_BTH] = 0;
	/* no payload: the ICRC covers BTH and the reserved bytes once */
	rxe_opcode[RXE_CC_OPCODE_CNP].offset[RXE_PAYLOAD] = RXE_BTH_BYTES +
		RXE_CC_CNP_RSVD_BYTES;
}
