// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_cnp.c: ECN and CNPs on receive.
 *
 * CE on received packets, the notification point (a CNP to the sender of
 * CE-marked data, at most one per min_time_between_cnps) and the
 * reaction point's receipt of CNPs, handed to the QP's algorithm.
 */

#include <linux/hrtimer.h>
#include <linux/ipv6.h>
#include <linux/ip.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>

#include "rxe_cc_loc.h"
#include "rxe_loc.h"
#include "rxe_cc_trace.h"

/* Receive: note and count CE (the IP header is still in front). */
void rxe_cc_rx_ecn(struct rxe_dev *rxe, struct sk_buff *skb,
		   struct rxe_pkt_info *pkt)
{
	u8 ds;

	if (skb->protocol == htons(ETH_P_IP))
		ds = ipv4_get_dsfield(ip_hdr(skb));
	else if (skb->protocol == htons(ETH_P_IPV6))
		ds = ipv6_get_dsfield(ipv6_hdr(skb));
	else
		return;
	if (INET_ECN_is_ce(ds)) {
		pkt->mask |= RXE_CC_CE_MASK;
		rxe_counter_inc(rxe, RXE_CNT_NP_ECN_MARKED);
	}
}

/*
 * The notification point's window ended with a CE packet inside it that
 * got no CNP (rxe_cc_np_rcv()): send it now, and the next window starts.
 * np_ce_pending is cleared under the lock wherever the QP stops or
 * resets, so an expiry after that sends nothing.
 */
enum hrtimer_restart rxe_cc_np_timer_fire(struct hrtimer *t)
{
	struct rxe_qp *qp = container_of(t, struct rxe_qp, cc.np_timer);
	u64 gap, now;

	rxe_cc_lock(qp);
	now = ktime_get_ns();
	gap = (u64)READ_ONCE(rxe_cc_qp_dev(qp)->cc.min_time_between_cnps) *
	      NSEC_PER_USEC;
	/*
	 * An expiry that waited for the lock while a CE after the window
	 * sent a CNP and another CE re-armed the timer for the new window
	 * finds that window still open: its own expiry sends then.
	 */
	if (qp->cc.np_ce_pending && !qp->cc.stopped &&
	    now - qp->cc.last_cnp_ns >= gap) {
		qp->cc.np_ce_pending = false;
		qp->cc.last_cnp_ns = now;
		rxe_cc_send_cnp(qp, NULL);
	}
	rxe_cc_unlock(qp);
	return HRTIMER_NORESTART;
}

/*
 * Notification point, for every valid data packet of a QP with an
 * algorithm (rxe_cc_np_rcv(); a request, or a response to its RDMA READ:
 * the peer's reaction point paces both): on_rx sees it, and on
 * CE send a CNP to the QP's peer unless one went less than
 * min_time_between_cnps (N) ago.  Inside that window, the DCQCN paper's
 * NP (its Fig. 6: at most one CNP every N for a flow, if any packet of
 * the window was marked) sends one when the window ends (np_timer); with
 * cc/np_cnp_window_end 0 such a CE is forgotten, as mlx5 does, until a
 * CE after the window.
 */
void __rxe_cc_np_rcv(struct rxe_pkt_info *pkt)
{
	struct rxe_qp *qp = pkt->qp;
	const struct rxe_cc_ops *ops = qp->cc.ops;
	bool ce = pkt->mask & RXE_CC_CE_MASK;
	u64 now, last, gap;

	/* without on_rx, only CE for a notification point needs the lock */
	if (!rxe_cc_data_pkt(pkt) ||
	    (!ops->on_rx && !(ce && (ops->flags & RXE_CC_F_NP))))
		return;
	rxe_cc_lock(qp);
	if (ops->on_rx)
		ops->on_rx(qp, rxe_cc_wire_bytes(qp, pkt), ce);
	if (ce && (ops->flags & RXE_CC_F_NP)) {
		now = ktime_get_ns();
		gap = (u64)READ_ONCE(pkt->rxe->cc.min_time_between_cnps) *
		      NSEC_PER_USEC;
		last = qp->cc.last_cnp_ns;
		if (!last || now - last >= gap) {
			qp->cc.last_cnp_ns = now;
			qp->cc.np_ce_pending = false;
			rxe_cc_send_cnp(qp, NULL);
		} else if (!qp->cc.np_ce_pending && !qp->cc.stopped &&
			   READ_ONCE(pkt->rxe->cc.np_cnp_window_end)) {
			qp->cc.np_ce_pending = true;
			hrtimer_start(&qp->cc.np_timer,
				      ns_to_ktime(last + gap),
				      HRTIMER_MODE_ABS_SOFT);
		}
	}
	rxe_cc_unlock(qp);
}

/*
 * May the QP send data its reaction point paces?  From RTR on its
 * responder sends RDMA READ responses (a QP that only serves READs, like
 * perftest's ib_read_bw server, never leaves RTR), from RTS on its
 * requester sends requests; SQD and SQE still respond.
 */
static bool rxe_cc_qp_may_send(struct rxe_qp *qp)
{
	enum ib_qp_state s = READ_ONCE(qp->attr.qp_state);

	return s >= IB_QPS_RTR && s <= IB_QPS_SQE;
}

/* Does the CNP come from the QP's peer? */
static bool rxe_cc_cnp_from_peer(struct sk_buff *skb, struct rxe_qp *qp)
{
	struct rxe_av *av = &qp->pri_av;

	if (skb->protocol == htons(ETH_P_IP))
		return av->network_type == RXE_NETWORK_TYPE_IPV4 &&
		       ip_hdr(skb)->saddr ==
		       av->dgid_addr._sockaddr_in.sin_addr.s_addr;
	if (skb->protocol == htons(ETH_P_IPV6))
		return av->network_type == RXE_NETWORK_TYPE_IPV6 &&
		       ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
				       &av->dgid_addr._sockaddr_in6.sin6_addr);
	return false;
}

/*
 * Reaction point: a packet with BTH opcode CNP.  Consumes the skb and
 * the device reference of the receive path.
 */
void rxe_cc_cnp_rcv(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);
	struct rxe_dev *rxe = pkt->rxe;
	struct rxe_qp *qp = NULL;
	struct rxe_cc_cnp cnp;
	u32 qpn = bth_qpn(pkt);
	int err;

	if (pkt->paylen != RXE_BTH_BYTES + RXE_CC_CNP_RSVD_BYTES +
	    RXE_ICRC_SIZE || skb->len < pkt->paylen || bth_pad(pkt) ||
	    !bth_becn(pkt))
		goto ignore;
	if (rxe_icrc_check(skb, pkt))
		goto ignore;
	qp = rxe_pool_get_index(&rxe->qp_pool, qpn);
	if (!qp)
		goto ignore;
	if (qp_type(qp) != IB_QPT_RC || !qp->valid ||
	    !rxe_cc_qp_may_send(qp) || !rxe_cc_cnp_from_peer(skb, qp))
		goto ignore;

	if (qp->cc.ops && qp->cc.ops->on_cnp) {
		memcpy(cnp.rsvd, pkt->hdr + RXE_BTH_BYTES, sizeof(cnp.rsvd));
		rxe_cc_lock(qp);
		err = qp->cc.ops->on_cnp(qp, &cnp);
		rxe_cc_unlock(qp);
		if (err)
			goto ignore;
	}
	rxe_counter_inc(rxe, RXE_CNT_RP_CNP_HANDLED);
	trace_rxe_cc_cnp_rcvd(qpn);
	goto out;
ignore:
	rxe_counter_inc(rxe, RXE_CNT_RP_CNP_IGNORED);
out:
	if (qp)
		rxe_put(qp);
	kfree_skb(skb);
	ib_device_put(&rxe->ib_dev);
}
