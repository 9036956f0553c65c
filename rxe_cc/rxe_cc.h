/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxe_cc: congestion-control engine of the DCB lab rdma_rxe.
 *
 * The engine owns the mechanisms (pacer, window, ECT marking, CE counting,
 * CNP transmit and receive, counters, sysfs knobs); an algorithm is a
 * struct rxe_cc_ops registered by name, in the style of tcp_congestion_ops.
 * See Documentation/rxe_cc.rst.
 */
#ifndef RXE_CC_H
#define RXE_CC_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/skbuff.h>

#include "rxe.h"

/* RoCEv2 Congestion Notification Packet: BTH opcode 0x81. */
#define RXE_CC_OPCODE_CNP	0x81
#define RXE_CC_CNP_RSVD_BYTES	16

/* pkt->mask bit: the packet arrived with ECN CE (set by rxe_cc_rx_ecn). */
#define RXE_CC_CE_MASK		BIT(30)
/* pkt->mask bit: the algorithm wants this request packet sent Not-ECT. */
#define RXE_CC_NOECT_MASK	BIT(29)

/* struct rxe_cc_qp.pace_wait: who waits for the pacer (bit numbers) */
#define RXE_CC_PACE_RESP	0	/* the responder, with a READ response */

/* struct rxe_cc_ops.flags */
#define RXE_CC_F_ECT		BIT(0)	/* data packets carry ECT(0) */
#define RXE_CC_F_NP		BIT(1)	/* engine sends CNPs on CE (DCQCN NP) */
/*
 * The responder sets BECN in the ACK covering a CE-marked request packet;
 * on_ack's echo is that bit, or a read response's own CE mark.
 */
#define RXE_CC_F_BECN		BIT(2)

/*
 * A per-device u32 knob of an algorithm: cc/<algo>/<name>.  @def is its
 * value until ops->defaults() derives one (@derived: it does).
 */
struct rxe_cc_param {
	const char	*name;
	size_t		offset;		/* in the algorithm's params struct */
	u32		def;
	u32		min;
	u32		max;
	bool		derived;	/* set by ops->defaults() */
};

/*
 * One entry of an algorithm's table of knobs: the u32 @member of its
 * params struct @type, the file cc/<algo>/<member>, @d in [@lo, @hi].  A
 * member that is not a u32 does not build.  An algorithm reads a knob
 * with rxe_cc_knob_get(), by name, never by offset.
 */
#define RXE_CC_KNOB_ENTRY(type, member, d, lo, hi, drv) {		\
	.name = #member,						\
	.offset = offsetof(type, member) +				\
		  BUILD_BUG_ON_ZERO(!__same_type(((type *)0)->member, u32)), \
	.def = d,							\
	.min = lo,							\
	.max = hi,							\
	.derived = drv,							\
}
#define RXE_CC_KNOB(type, member, d, lo, hi)				\
	RXE_CC_KNOB_ENTRY(type, member, d, lo, hi, false)
/*
 * A knob whose default ops->defaults() derives from the line rate and the
 * base RTT; @d is its value until then.
 */
#define RXE_CC_KNOB_AUTO(type, member, d, lo, hi)			\
	RXE_CC_KNOB_ENTRY(type, member, d, lo, hi, true)

/*
 * What an algorithm's defaults derive from (Documentation/rxe_cc.rst,
 * "Default parameters").
 */
struct rxe_cc_env {
	u32		line_kbps;	/* the device's line rate, kb/s */
	u32		rtt_us;		/* cc/base_rtt_us */
	u32		cnp_us;		/* cc/min_time_between_cnps (N) */
	u32		mtu;		/* the port's active MTU, bytes */
};

/* A received, validated CNP. */
struct rxe_cc_cnp {
	u8		rsvd[RXE_CC_CNP_RSVD_BYTES];
};

/*
 * An algorithm.  The engine serialises the callbacks of one QP: it calls
 * every one of them, init and release included, with the QP's cc lock
 * held (a spinlock taken with BHs off), so an algorithm needs no locking
 * of its own for its per-QP state.  Callbacks run in process context
 * (init, release, on_sent, pkt_prep, pkt_unsent) or in softirq context
 * (the others; on_sent and pkt_prep too), on any CPU, and must not sleep.
 * Within a callback an algorithm may call rxe_cc_set_rate(),
 * rxe_cc_set_window(), rxe_cc_params() (its knobs, each read with
 * rxe_cc_knob_get()), rxe_cc_timer_arm() and rxe_cc_send_cnp(), nothing
 * else of rxe's.  QPs keep the algorithm they were created with.
 * Documentation/rxe_cc.rst, "Locking".
 */
struct rxe_cc_ops {
	struct list_head	list;
	const char		*name;
	struct module		*owner;
	u32			flags;		/* RXE_CC_F_* */
	size_t			priv_size;	/* per QP, rxe_cc_priv() */
	size_t			params_size;	/* per device, rxe_cc_params() */
	const struct rxe_cc_param *params;
	unsigned int		nparams;

	/* QP created: set the initial rate/window; an error fails the create. */
	int (*init)(struct rxe_qp *qp);
	/* QP destroyed or reset: the engine's timers are cancelled. */
	void (*release)(struct rxe_qp *qp);
	/*
	 * RP: a data packet of @bytes (on the wire) left: a request, or an
	 * RDMA READ response of the QP's responder.
	 */
	void (*on_sent)(struct rxe_qp *qp, u32 bytes);
	/*
	 * RP: a valid CNP for this QP arrived.  Non-zero: the algorithm
	 * rejects its reserved bytes (counted as rp_cnp_ignored).
	 */
	int (*on_cnp)(struct rxe_qp *qp, const struct rxe_cc_cnp *cnp);
	/*
	 * NP: a data packet of @bytes on the wire (counted as on_sent
	 * counts them) arrived for this QP from its peer: a request, or a
	 * response to one of its RDMA READs.
	 */
	void (*on_rx)(struct rxe_qp *qp, u32 bytes, bool ce);
	/* RP: a request packet is being built (also for retransmissions). */
	void (*pkt_prep)(struct rxe_qp *qp, struct rxe_cc_pkt *p);
	/*
	 * RP: the packet last given to pkt_prep (@p as it returned) was not
	 * sent; rxe will build it again.  Undo what pkt_prep counted.
	 */
	void (*pkt_unsent)(struct rxe_qp *qp, const struct rxe_cc_pkt *p);
	/*
	 * RP: an ACK or read response acknowledged @npkts packets not
	 * acknowledged before (npkts >= 1); @becn: its BTH BECN bit, or
	 * for RXE_CC_F_BECN the CE mark of a read response.
	 */
	void (*on_ack)(struct rxe_qp *qp, u32 npkts, bool becn);
	/* The time given to rxe_cc_timer_arm() came (softirq). */
	void (*on_timer)(struct rxe_qp *qp);

	/*
	 * Knobs, not QPs (process context, the device's selection lock
	 * held): write the derived knobs' values for @env into @params,
	 * which holds every knob's @def.  The engine clamps them to each
	 * knob's range and keeps those a user wrote.
	 */
	void (*defaults)(void *params, const struct rxe_cc_env *env);
	/*
	 * Knobs: the invariant that @params break with @env, or NULL.  The
	 * engine warns when a write leaves one broken.
	 */
	const char *(*check)(const void *params, const struct rxe_cc_env *env);
};

/*
 * In an algorithm module: `echo <name> > cc/algo` loads it when it is not
 * loaded yet (request_module("rxe-cc-<name>")).
 */
#define MODULE_ALIAS_RXE_CC(name)	MODULE_ALIAS("rxe-cc-" name)

int rxe_cc_register(struct rxe_cc_ops *ops);
void rxe_cc_unregister(struct rxe_cc_ops *ops);

/* Helpers for algorithms. */
static inline void *rxe_cc_priv(struct rxe_qp *qp)
{
	return qp->cc.priv;
}

static inline struct rxe_dev *rxe_cc_qp_dev(struct rxe_qp *qp)
{
	return to_rdev(qp->ibqp.device);
}

/*
 * The knobs of the QP's device: its algorithm's params struct.  The
 * device keeps its algorithm, and so this struct, while a QP uses it
 * (cc/algo refuses a change, EBUSY); read each knob with
 * rxe_cc_knob_get(), as a user may write one at any time.
 */
static inline const void *rxe_cc_params(struct rxe_qp *qp)
{
	return rxe_cc_qp_dev(qp)->cc.params;
}

/* Knob @member of @k, the algorithm's params struct (rxe_cc_params()). */
#define rxe_cc_knob_get(k, member)	READ_ONCE((k)->member)

/*
 * The line rate the algorithms start from, in kb/s: the lowest of the
 * device's max_rate_mbps (0: none) and the port's rate when the QP was
 * created (the shaping rate of sch_dcb as the netdev's root qdisc, else
 * the link speed; 10 Gb/s when the netdev reports none).
 */
static inline u32 rxe_cc_line_rate_kbps(struct rxe_qp *qp)
{
	u32 m = READ_ONCE(rxe_cc_qp_dev(qp)->cc.max_rate_mbps) * 1000;

	return m && m < qp->cc.port_kbps ? m : qp->cc.port_kbps;
}

void rxe_cc_set_rate(struct rxe_qp *qp, u32 kbps);
void rxe_cc_set_window(struct rxe_qp *qp, u32 pkts);
void rxe_cc_timer_arm(struct rxe_qp *qp, u64 expires_ns);
void rxe_cc_send_cnp(struct rxe_qp *qp, const u8 *rsvd);

/* Hooks called from the patched rxe. */
int rxe_cc_init(void);
void rxe_cc_exit(void);

int rxe_cc_dev_add(struct rxe_dev *rxe);
void rxe_cc_dev_del(struct rxe_dev *rxe);
void rxe_cc_netdev_event(struct rxe_dev *rxe, unsigned long event);
int rxe_cc_qp_init(struct rxe_dev *rxe, struct rxe_qp *qp);
void rxe_cc_qp_destroying(struct rxe_qp *qp);
void rxe_cc_qp_stop(struct rxe_qp *qp);
void rxe_cc_qp_reset(struct rxe_qp *qp);
void rxe_cc_qp_cleanup(struct rxe_qp *qp);
int rxe_cc_chk_rate_limit(struct rxe_qp *qp, struct ib_qp_attr *attr,
			  int mask);
void rxe_cc_set_rate_limit(struct rxe_qp *qp, struct ib_qp_attr *attr,
			   int mask);
void rxe_cc_query_qp(struct rxe_qp *qp, struct ib_qp_attr *attr);
void rxe_cc_held(struct rxe_qp *qp, enum rxe_counters why);
void rxe_cc_window_stall(struct rxe_qp *qp);
void rxe_cc_skb_stall(struct rxe_qp *qp);
void rxe_cc_rx_ecn(struct rxe_dev *rxe, struct sk_buff *skb,
		   struct rxe_pkt_info *pkt);
void rxe_cc_cnp_rcv(struct sk_buff *skb);
void rxe_cc_req_unsent(struct rxe_qp *qp);

/*
 * The engine's functions behind the per-packet hooks, which are tests
 * inline in rxe (rxe_cc_hooks.h) in front of them.
 */
bool __rxe_cc_pace_wait(struct rxe_qp *qp, bool resp);
void __rxe_cc_req_pkt(struct rxe_qp *qp, struct rxe_pkt_info *pkt);
u64 __rxe_cc_charge_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt);
void __rxe_cc_sent(struct rxe_qp *qp, struct rxe_pkt_info *pkt);
void __rxe_cc_np_rcv(struct rxe_pkt_info *pkt);
void __rxe_cc_resp_pkt(struct rxe_qp *qp);
void __rxe_cc_ack_prep(struct rxe_qp *qp, struct rxe_pkt_info *ack,
		       u8 syndrome);
void __rxe_cc_ack_rcv(struct rxe_qp *qp, struct rxe_pkt_info *pkt);

/*
 * The response packets of the RDMA READ @wqe still to come: the PSNs its
 * request takes (rxe's update_wqe_psn()).
 */
static inline u32 rxe_cc_read_pkts(struct rxe_qp *qp,
				   const struct rxe_send_wqe *wqe)
{
	return max_t(u32, 1, DIV_ROUND_UP(wqe->dma.resid, qp->mtu));
}

/*
 * A packet the reaction point controls, which carries ECT and is paced: a
 * request, or an RDMA READ response (the only responses with a payload).
 * ACKs, NAKs and atomic acknowledgements are neither.
 */
static inline bool rxe_cc_data_pkt(const struct rxe_pkt_info *pkt)
{
	return (pkt->mask & RXE_REQ_MASK) ||
	       (pkt->mask & (RXE_ACK_MASK | RXE_PAYLOAD_MASK)) ==
	       (RXE_ACK_MASK | RXE_PAYLOAD_MASK);
}

#endif /* RXE_CC_H */
