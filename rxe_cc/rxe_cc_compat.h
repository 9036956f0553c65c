/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxe_cc: the differences between the rxe and kernel versions we build
 * for (Debian's 6.1 and 6.12 LTS), in this one place.  Our .c and trace
 * files use the names below and contain no version tests; the changes
 * to rxe itself are in the per-version series rxe_cc/patches/<X.Y>/.
 *
 * The tests are on the release a change first appeared in where we know
 * it, on 6.12 for the rxe changes: between 6.1 and 6.12 rxe was reworked
 * in many steps, and we build for no release in between.
 *
 * Copyright (c) 2026 DCB lab
 */
#ifndef RXE_CC_COMPAT_H
#define RXE_CC_COMPAT_H

#include <linux/version.h>
#include <linux/netdevice.h>

#include "rxe.h"

#define RXE_CC_KERNEL_GE(major, minor)					\
	(LINUX_VERSION_MAJOR > (major) ||				\
	 (LINUX_VERSION_MAJOR == (major) && LINUX_VERSION_PATCHLEVEL >= (minor)))

/* Tracepoints: since 6.10 __assign_str() takes only the field. */
#if RXE_CC_KERNEL_GE(6, 10)
#define rxe_cc_assign_str(field, src)	__assign_str(field)
#else
#define rxe_cc_assign_str(field, src)	__assign_str(field, src)
#endif

#if RXE_CC_KERNEL_GE(6, 12)

/*
 * The task that runs the requester: one send task runs the requester and
 * then the completer.
 */
#define rxe_cc_req_task(qp)		(&(qp)->send_task)
/* The task that runs the responder. */
#define rxe_cc_resp_task(qp)		(&(qp)->recv_task)

/*
 * May the QP's responder send (ACKs, and so our CNPs)?  The responder
 * has no state of its own: the QP's is RTR or later and not an error.
 */
static inline bool rxe_cc_resp_ready(struct rxe_qp *qp)
{
	enum ib_qp_state s = READ_ONCE(qp->attr.qp_state);

	return s >= IB_QPS_RTR && s != IB_QPS_ERR;
}

/*
 * The device's netdev, held until rxe_cc_netdev_put(), or NULL: rxe
 * keeps it in ib_core's port data (rxe_dev.ndev is gone).
 */
static inline struct net_device *rxe_cc_netdev_get(struct rxe_dev *rxe)
{
	return rxe_ib_device_get_netdev(&rxe->ib_dev);
}

static inline void rxe_cc_netdev_put(struct net_device *ndev)
{
	dev_put(ndev);
}

#else /* 6.1 */

/* The requester and the completer run in tasks of their own. */
#define rxe_cc_req_task(qp)		(&(qp)->req.task)
#define rxe_cc_resp_task(qp)		(&(qp)->resp.task)

static inline bool rxe_cc_resp_ready(struct rxe_qp *qp)
{
	return qp->resp.state == QP_STATE_READY;
}

/*
 * rxe_dev.ndev: set at creation.  The device's unregistration releases
 * it (free_netdevs()) once disable_device() has waited for the ib_device
 * references: a caller that is not a verb of a QP of the device holds
 * one (ib_device_try_get()).
 */
static inline struct net_device *rxe_cc_netdev_get(struct rxe_dev *rxe)
{
	return rxe->ndev;
}

static inline void rxe_cc_netdev_put(struct net_device *ndev)
{
}

#endif

#endif /* RXE_CC_COMPAT_H */
