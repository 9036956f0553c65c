// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_qp.c: a QP's life in the rxe_cc engine and the hooks of its
 * requests and ACKs.
 *
 * Creation gives an RC QP the device's algorithm, RESET starts it afresh,
 * destroy stops the engine's timers before rxe frees the QP.  The
 * requester's hooks choose AckReq and ECT and roll back a packet that was
 * not sent; the responder's set BECN, the completer's pass ACKs on.
 */

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "rxe_cc_loc.h"
#include "rxe_cc_compat.h"
#include "rxe_loc.h"

/*
 * QP creation.  An RC QP gets the device's algorithm; if its state cannot
 * be set up the creation fails (a QP silently without congestion control
 * would look like one with it).
 */
int rxe_cc_qp_init(struct rxe_dev *rxe, struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops;
	u32 line = 0;
	int err = 0;
	u8 src = 0;

	hrtimer_init(&qp->cc.pacer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	qp->cc.pacer.function = rxe_cc_pacer_fire;
	hrtimer_init(&qp->cc.timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->cc.timer.function = rxe_cc_timer_fire;
	hrtimer_init(&qp->cc.np_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	qp->cc.np_timer.function = rxe_cc_np_timer_fire;
	spin_lock_init(&qp->cc.lock);
	/* RC only: QP1 is created while the device registers */
	if (qp->ibqp.qp_type == IB_QPT_RC)
		line = rxe_cc_dev_line(rxe, &qp->cc.port_kbps, &src);
	qp->cc.initialized = true;

	mutex_lock(&rxe->cc.lock);
	ops = rxe->cc.ops;
	if (ops && qp->ibqp.qp_type == IB_QPT_RC) {
		/*
		 * The first QP of an idle device derives the defaults again:
		 * the port's rate (its sch_dcb, its link) may have changed
		 * since the algorithm was selected.
		 */
		if (!atomic_read(&rxe->cc.nqps))
			rxe_cc_derive(rxe, line, src);
		__module_get(ops->owner);
		qp->cc.priv = kzalloc(max_t(size_t, ops->priv_size, 1),
				      GFP_KERNEL);
		qp->cc.ops = ops;
		if (!qp->cc.priv) {
			err = -ENOMEM;
		} else if (ops->init) {
			rxe_cc_lock(qp);
			err = ops->init(qp);
			rxe_cc_unlock(qp);
		}
		if (err) {
			rxe_cc_timer_stop(qp, true);
			kfree(qp->cc.priv);
			qp->cc.priv = NULL;
			qp->cc.ops = NULL;
			module_put(ops->owner);
		} else {
			atomic_inc(&rxe->cc.nqps);
		}
	}
	mutex_unlock(&rxe->cc.lock);
	return err;
}

/*
 * QP destroy (rxe_qp_do_cleanup(), after the QP's last reference was
 * dropped), before its tasks are cleaned up: from here on the engine's
 * timers schedule nothing.  A requester tasklet scheduled after
 * rxe_cleanup_task() has killed it would run again on the freed QP.
 * A pacer callback that read stopped == false has finished when
 * hrtimer_cancel() returns, so its tasklet is flushed by the task
 * cleanup that follows; a requester running on another CPU may still
 * arm the pacer, whose callback then does nothing, and
 * rxe_cc_qp_cleanup() cancels it for good.  The algorithm's timer cannot
 * be armed again once stopped is set under the lock.
 */
void rxe_cc_qp_stop(struct rxe_qp *qp)
{
	if (!qp->cc.initialized)
		return;
	rxe_cc_timer_stop(qp, true);
	hrtimer_cancel(&qp->cc.pacer);
}

/*
 * destroy_qp, before rxe waits (up to 50 s, then it warns) for the QP's
 * last references to go.  The request packets queued for its responder
 * hold some, and a responder paced at a low rate can take longer than
 * that to answer the RDMA READs among them.  So from here the responder
 * sends unpaced, and runs now if it was waiting for the pacer.  Nobody
 * reads the answers any more: the requester that asked is gone or going.
 */
void rxe_cc_qp_destroying(struct rxe_qp *qp)
{
	if (!qp->cc.initialized)
		return;
	rxe_cc_lock(qp);
	qp->cc.resp_unpaced = true;
	rxe_cc_unlock(qp);
	if (test_and_clear_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait))
		rxe_sched_task(rxe_cc_resp_task(qp));
}

/* Give the QP's algorithm up (its timer is stopped). */
static void rxe_cc_qp_put_algo(struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	kfree(qp->cc.priv);
	qp->cc.priv = NULL;
	qp->cc.ops = NULL;
	atomic_dec(&rxe_cc_qp_dev(qp)->cc.nqps);
	module_put(ops->owner);
}

/* QP cleanup, after its tasks are cleaned up (rxe_cc_qp_stop() ran) */
void rxe_cc_qp_cleanup(struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	if (!qp->cc.initialized)
		return;
	rxe_cc_timer_stop(qp, true);
	hrtimer_cancel(&qp->cc.pacer);
	if (ops) {
		if (ops->release) {
			rxe_cc_lock(qp);
			ops->release(qp);
			rxe_cc_unlock(qp);
		}
		rxe_cc_qp_put_algo(qp);
	}
	qp->cc.initialized = false;
}

/*
 * modify_qp to RESET, with the QP's tasks stopped and drained: forget
 * everything about the packets sent and received so far and start the
 * algorithm afresh, as a new QP.  The QP's states are already RESET, so
 * the receive path drops its packets; synchronize_net() waits for those
 * that passed that check (the receive path runs under RCU), so that no
 * callback but the algorithm's timer, stopped here, can run.  If the
 * algorithm cannot start again the QP continues without it (warned).
 */
void rxe_cc_qp_reset(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = rxe_cc_qp_dev(qp);
	const struct rxe_cc_ops *ops = qp->cc.ops;
	int err = 0;

	if (!qp->cc.initialized)
		return;
	hrtimer_cancel(&qp->cc.pacer);
	/* only an algorithm's state is not safe against those callbacks */
	if (ops) {
		synchronize_net();
		rxe_cc_timer_stop(qp, false);
	}
	rxe_cc_lock(qp);
	qp->cc.acked_valid = false;
	qp->cc.acked_psn = 0;
	qp->cc.snd_max = 0;
	qp->cc.ce_unacked = false;
	qp->cc.last_cnp_ns = 0;
	qp->cc.np_ce_pending = false;
	qp->cc.cnp_pending = false;
	qp->cc.next_send_ns = 0;
	qp->cc.pace_kbps = 0;
	qp->cc.behind = false;
	qp->cc.held = false;
	clear_bit(RXE_CC_PACE_RESP, &qp->cc.pace_wait);
	qp->cc.noack_ns = 0;
	qp->cc.undo.valid = false;
	if (ops) {
		if (ops->release)
			ops->release(qp);
		memset(qp->cc.priv, 0, ops->priv_size);
		rxe_cc_set_rate(qp, 0);
		rxe_cc_set_window(qp, 0);
		if (ops->init)
			err = ops->init(qp);
	}
	rxe_cc_unlock(qp);
	if (err) {
		dev_warn_ratelimited(&rxe->ib_dev.dev,
				     "qp#%d: %s cannot restart after RESET (%d), continuing without congestion control\n",
				     qp_num(qp), ops->name, err);
		rxe_cc_timer_stop(qp, false);
		rxe_cc_qp_put_algo(qp);
	}
}

/*
 * Does the algorithm follow the packets in flight: does it see them
 * built (pkt_prep) or acknowledged (on_ack)?  Only then does the
 * requester keep the PSNs sent (snd_max) and acknowledged (acked_psn).
 */
static bool rxe_cc_tracks_pkts(const struct rxe_cc_ops *ops)
{
	return ops && (ops->pkt_prep || ops->on_ack);
}

/*
 * Requester, under the cc lock: the algorithm sees the packet, may change
 * AckReq and ECT.
 */
static void rxe_cc_algo_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;
	struct rxe_cc_pkt p;
	u32 npsn = 1;

	/* a READ request takes the PSNs of its response packets */
	if ((pkt->mask & RXE_READ_MASK) && pkt->wqe)
		npsn = rxe_cc_read_pkts(qp, pkt->wqe);
	if (!qp->cc.acked_valid) {
		/* the first packet: ACKs count from here */
		qp->cc.acked_psn = pkt->psn;
		qp->cc.snd_max = pkt->psn;
		qp->cc.acked_valid = true;
	}
	p.retry = psn_compare(pkt->psn, qp->cc.snd_max) < 0;
	if (!p.retry)
		qp->cc.snd_max = (pkt->psn + npsn) & BTH_PSN_MASK;
	if (!ops->pkt_prep)
		return;
	qp->cc.undo.prepped = true;
	p.psn = pkt->psn;
	p.npsn = npsn;
	p.payload = pkt->paylen - rxe_opcode[pkt->opcode].length -
		    bth_pad(pkt) - RXE_ICRC_SIZE;
	p.first = pkt->mask & RXE_START_MASK;
	p.last = pkt->mask & RXE_END_MASK;
	p.ect = true;
	p.ackreq = bth_ack(pkt);
	ops->pkt_prep(qp, &p);
	qp->cc.undo.pkt = p;
	bth_set_ack(pkt, p.ackreq);
	if (!p.ect)
		pkt->mask |= RXE_CC_NOECT_MASK;
}

/*
 * Requester: a request packet's BTH is written (rxe_cc_req_pkt()); choose
 * its AckReq bit (a paced QP's, then the algorithm's) and whether it
 * carries ECT(0).  An algorithm that follows no packets takes no lock.
 */
void __rxe_cc_req_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	/* what rxe_cc_req_unsent() restores if the packet does not go */
	qp->cc.undo.valid = true;
	qp->cc.undo.prepped = false;
	qp->cc.undo.noack_ns = qp->cc.noack_ns;
	if (!bth_ack(pkt) && rxe_cc_paced_ackreq(qp))
		bth_set_ack(pkt, 1);
	if (rxe_cc_tracks_pkts(qp->cc.ops)) {
		rxe_cc_lock(qp);
		qp->cc.undo.acked_valid = qp->cc.acked_valid;
		qp->cc.undo.snd_max = qp->cc.snd_max;
		rxe_cc_algo_pkt(qp, pkt);
		rxe_cc_unlock(qp);
	}
	/* whoever asked, the time to the next AckReq counts from here */
	if (bth_ack(pkt))
		qp->cc.noack_ns = 0;
}

/*
 * Requester: the packet last built was not sent (rxe_xmit_packet() said
 * -EAGAIN) and rxe rolled its state back to send it again: roll back
 * what rxe_cc_req_pkt() changed, and let the algorithm undo its pkt_prep.
 * Otherwise the retry would pass for a go-back-N retransmission and an
 * algorithm that counts packets in flight would count this one twice.
 */
void rxe_cc_req_unsent(struct rxe_qp *qp)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;

	if (!qp->cc.undo.valid)
		return;
	qp->cc.undo.valid = false;
	qp->cc.noack_ns = qp->cc.undo.noack_ns;
	if (!rxe_cc_tracks_pkts(ops))
		return;
	rxe_cc_lock(qp);
	qp->cc.snd_max = qp->cc.undo.snd_max;
	qp->cc.acked_valid = qp->cc.undo.acked_valid;
	if (qp->cc.undo.prepped && ops->pkt_unsent)
		ops->pkt_unsent(qp, &qp->cc.undo.pkt);
	rxe_cc_unlock(qp);
}

/*
 * Responder: it executes a CE-marked request of a QP whose algorithm
 * takes BECN (rxe_cc_resp_pkt(); new requests only, in PSN order, each
 * before the ACK that covers it).  CE is noted here rather than on
 * receive: 6.12's responder runs from a work queue, behind packets
 * already received, and a flag set on receive was taken by the ACK of an
 * earlier request (one BECN for a batch of marked packets).
 */
void __rxe_cc_resp_pkt(struct rxe_qp *qp)
{
	rxe_cc_lock(qp);
	qp->cc.ce_unacked = true;
	rxe_cc_unlock(qp);
}

/*
 * Responder: an ACK or read response of a QP whose algorithm takes BECN
 * is built (rxe_cc_ack_prep()); carry BECN if CE was seen.  NAKs do not
 * carry it (the requester does not take them as ACKs): the next positive
 * ACK does.
 */
void __rxe_cc_ack_prep(struct rxe_qp *qp, struct rxe_pkt_info *ack,
		       u8 syndrome)
{
	bool becn;

	if ((ack->mask & RXE_AETH_MASK) &&
	    (syndrome & AETH_TYPE_MASK) != AETH_ACK)
		return;
	rxe_cc_lock(qp);
	becn = qp->cc.ce_unacked;
	qp->cc.ce_unacked = false;
	rxe_cc_unlock(qp);
	if (!becn)
		return;
	bth_set_becn(ack, 1);
	rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_BECN_SENT);
}

/*
 * Requester, receive path (softirq, before the completer): an ACK or read
 * response for @qp, whose algorithm has on_ack, passed rxe's header
 * checks (rxe_cc_ack_rcv()).  Tell the algorithm how
 * many packets it acknowledges for the first time.  Duplicates, NAKs and
 * PSNs outside what was sent are not acknowledgements.
 *
 * The echo passed along is the BTH BECN bit, which the responder sets on
 * the ACK that covers a CE-marked request.  A read response is itself the
 * data of the READ: for an algorithm that takes BECN its own CE mark is
 * the echo, since the window it marks (the READ's response PSNs) is this
 * requester's.  LDCP's slides add ACKs for read responses so that the
 * responder learns of the marks; here the requester, which holds the
 * window, sees them directly, and the responder needs no algorithm.
 */
void __rxe_cc_ack_rcv(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	const struct rxe_cc_ops *ops = qp->cc.ops;
	bool ece = bth_becn(pkt);
	u32 next, n;

	if (!(pkt->mask & RXE_ACK_MASK))
		return;
	if ((pkt->mask & RXE_AETH_MASK) &&
	    (aeth_syn(pkt) & AETH_TYPE_MASK) != AETH_ACK)
		return;
	if (ece)
		rxe_counter_inc(rxe_cc_qp_dev(qp), RXE_CNT_CC_BECN_RCVD);
	if ((ops->flags & RXE_CC_F_BECN) && rxe_cc_data_pkt(pkt) &&
	    (pkt->mask & RXE_CC_CE_MASK))
		ece = true;
	next = (pkt->psn + 1) & BTH_PSN_MASK;
	rxe_cc_lock(qp);
	if (qp->cc.acked_valid && psn_compare(next, qp->cc.acked_psn) > 0 &&
	    psn_compare(next, qp->cc.snd_max) <= 0) {
		n = (next - qp->cc.acked_psn) & BTH_PSN_MASK;
		qp->cc.acked_psn = next;
		ops->on_ack(qp, n, ece);
	}
	rxe_cc_unlock(qp);
}
