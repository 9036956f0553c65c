/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxe_cc: the per-packet hooks of the patched rxe.
 *
 * Each is a test inline in rxe's datapath in front of the engine's
 * function (__rxe_cc_*(), rxe_cc.h): a QP without an algorithm and
 * without a rate (algo none, stock rxe's traffic) calls into the engine
 * for nothing and takes no lock.  Only rxe's own files include this; the
 * engine and the algorithms include rxe_cc.h.
 */
#ifndef RXE_CC_HOOKS_H
#define RXE_CC_HOOKS_H

#include <net/inet_ecn.h>

#include "rxe_cc.h"

/* Is the QP paced: does any of its limits hold (rxe_cc_qp_rate())? */
static inline bool rxe_cc_qp_limited(struct rxe_qp *qp)
{
	return READ_ONCE(rxe_cc_qp_dev(qp)->cc.max_rate_mbps) |
	       READ_ONCE(qp->cc.limit_kbps) | READ_ONCE(qp->cc.rate_kbps);
}

/*
 * Requester: must the next packet wait for the pacer?  Not for a QP that
 * was never paced, or no longer is (next_send_ns 0).
 */
static inline bool rxe_cc_pace_wait(struct rxe_qp *qp)
{
	return READ_ONCE(qp->cc.next_send_ns) && __rxe_cc_pace_wait(qp, false);
}

/*
 * Responder: may the next RDMA READ response packet go now?  If not, the
 * responder stops with the response where it is; the pacer runs it again.
 */
static inline bool rxe_cc_resp_pace_wait(struct rxe_qp *qp)
{
	return READ_ONCE(qp->cc.next_send_ns) && __rxe_cc_pace_wait(qp, true);
}

/*
 * Requester: a request packet's BTH is written; choose its AckReq bit
 * (a paced QP's, then the algorithm's) and whether it carries ECT(0).
 * Without an algorithm and with no pacing time since the last AckReq
 * (noack_ns) there is nothing to choose and nothing to roll back.
 */
static inline void rxe_cc_req_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	if (qp->cc.ops || qp->cc.noack_ns)
		__rxe_cc_req_pkt(qp, pkt);
	else
		qp->cc.undo.valid = false;
}

/*
 * Was a data packet of a QP without an algorithm and without pacing left
 * over (next_send_ns 0) sent unpaced?  Then there is nothing to charge.
 */
static inline bool rxe_cc_sent_unpaced(struct rxe_qp *qp)
{
	return !qp->cc.ops && !READ_ONCE(qp->cc.next_send_ns) &&
	       !rxe_cc_qp_limited(qp);
}

/* Requester: a packet left; charge its wire size to the pacer. */
static inline void rxe_cc_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt,
			       int payload)
{
	if (rxe_cc_sent_unpaced(qp))
		qp->cc.noack_ns = 0;
	else
		__rxe_cc_sent(qp, pkt);
}

/*
 * Responder: an RDMA READ response packet left.  The QP's rate covers
 * everything it sends, so its responses are paced and counted as its
 * requests are.
 */
static inline void rxe_cc_resp_sent(struct rxe_qp *qp,
				    struct rxe_pkt_info *pkt)
{
	if (!rxe_cc_sent_unpaced(qp))
		__rxe_cc_charge_sent(qp, pkt);
}

/* Receive: a valid packet for a QP (the notification point's part). */
static inline void rxe_cc_np_rcv(struct rxe_pkt_info *pkt)
{
	if (pkt->qp && pkt->qp->cc.ops)
		__rxe_cc_np_rcv(pkt);
}

/*
 * Responder: it executes the request @pkt; an algorithm that takes BECN
 * learns of its CE mark from the ACK that covers it.
 */
static inline void rxe_cc_resp_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	if (qp->cc.ops && (qp->cc.ops->flags & RXE_CC_F_BECN) &&
	    (pkt->mask & RXE_CC_CE_MASK))
		__rxe_cc_resp_pkt(qp);
}

/* Responder: an ACK or read response is built; BECN if CE was seen. */
static inline void rxe_cc_ack_prep(struct rxe_qp *qp, struct rxe_pkt_info *ack,
				   u8 syndrome)
{
	if (qp->cc.ops && (qp->cc.ops->flags & RXE_CC_F_BECN))
		__rxe_cc_ack_prep(qp, ack, syndrome);
}

/* Requester, receive path: an ACK or read response for @qp. */
static inline void rxe_cc_ack_rcv(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	if (qp->cc.ops && qp->cc.ops->on_ack)
		__rxe_cc_ack_rcv(qp, pkt);
}

/*
 * The RC requester holds @wqe's next packet while this is true.  Stock
 * rxe sends while req.psn is at most comp.psn + 128.  An algorithm's
 * window of w packets lets req.psn reach comp.psn + w - 1: w PSNs in
 * flight once the packet is sent.  An RDMA READ request is one packet
 * but takes as many PSNs as its response has packets (update_wqe_psn()),
 * which the responder sends back to back, so under a window it waits
 * until its last response PSN fits too.  A READ larger than the window
 * goes when nothing is outstanding (rxe does not split a READ), alone.
 */
static inline bool rxe_cc_window_full(struct rxe_qp *qp,
				      struct rxe_send_wqe *wqe)
{
	u32 w = READ_ONCE(qp->cc.cwnd);
	u32 last = qp->req.psn;

	if (!w)
		return psn_compare(last, qp->comp.psn + RXE_MAX_UNACKED_PSNS) > 0;
	if (wqe->wr.opcode == IB_WR_RDMA_READ && last != qp->comp.psn)
		last += rxe_cc_read_pkts(qp, wqe) - 1;
	return psn_compare(last, qp->comp.psn + w - 1) > 0;
}

/*
 * The IP TOS/traffic class of an outgoing packet.  CNPs carry cnp_dscp;
 * every other packet the DSCP of its address vector's traffic class, or
 * roce_dscp when that DSCP is 0 (the application set none).  The ECN bits
 * of the traffic class are kept.
 */
static inline u8 rxe_cc_tos(struct rxe_pkt_info *pkt, u8 tos)
{
	struct rxe_qp *qp = pkt->qp;

	if (pkt->opcode == RXE_CC_OPCODE_CNP)
		return READ_ONCE(pkt->rxe->cc.cnp_dscp) << 2;
	if (!(tos & ~INET_ECN_MASK))
		tos |= READ_ONCE(pkt->rxe->cc.roce_dscp) << 2;
	if (qp && qp->cc.ops && (qp->cc.ops->flags & RXE_CC_F_ECT) &&
	    rxe_cc_data_pkt(pkt) && !(pkt->mask & RXE_CC_NOECT_MASK) &&
	    READ_ONCE(pkt->rxe->cc.ecn) &&
	    !INET_ECN_is_capable(tos))
		return tos | INET_ECN_ECT_0;
	return tos;
}

#endif /* RXE_CC_HOOKS_H */
