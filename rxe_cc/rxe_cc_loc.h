/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxe_cc: what the files of the engine share among themselves.  An
 * algorithm sees only rxe_cc.h, the patched rxe rxe_cc_hooks.h too.
 */
#ifndef RXE_CC_LOC_H
#define RXE_CC_LOC_H

#include <linux/hrtimer.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "rxe_cc.h"

/* Limits of what an algorithm may ask for. */
#define RXE_CC_NAME_MAX		32	/* with the NUL; algo_store's %31s */
#define RXE_CC_PRIV_MAX		4096	/* per-QP state, bytes */
#define RXE_CC_PARAMS_MAX	64	/* knobs per algorithm */
#define RXE_CC_FLAGS		(RXE_CC_F_ECT | RXE_CC_F_NP | RXE_CC_F_BECN)

/*
 * An algorithm's knobs on one device.  Kept when another algorithm is
 * selected, until the device goes, so that a value a user wrote stays
 * across re-selection; found again by the algorithm's name and layout.
 */
struct rxe_cc_params {
	struct list_head	list;		/* rxe->cc.algo_params */
	char			name[RXE_CC_NAME_MAX];
	size_t			size;		/* ops->params_size */
	unsigned int		nparams;
	DECLARE_BITMAP(set, RXE_CC_PARAMS_MAX);	/* written by a user */
	struct rxe_cc_env	env;		/* of the last derivation */
	u32			*autov;		/* derived, by knob index */
	u32			*userv;		/* written, by knob index */
	void			*scratch;	/* size bytes, for deriving */
	u8			vals[];		/* size bytes: rxe->cc.params */
};

/* Where the line rate of the defaults came from (rxe->cc.line_src). */
enum {
	RXE_CC_LINE_LINK,		/* ethtool link speed */
	RXE_CC_LINE_DCB,		/* root sch_dcb's shaping rate */
	RXE_CC_LINE_MAX_RATE,		/* cc/max_rate_mbps */
};

struct rxe_cc_param_attr;

struct rxe_cc_sysfs {
	struct kobject			kobj;
	struct rxe_dev			*rxe;
	/* cc/<algo>/ of the selected algorithm */
	struct kobject			*algo_kobj;
	struct attribute_group		algo_group;
	struct attribute		**algo_attrs;
	struct rxe_cc_param_attr	*algo_pattrs;
};

/* rxe_cc_algo.c: the registry */
struct rxe_cc_ops *rxe_cc_get(const char *name);
ssize_t rxe_cc_algos_show(char *buf);

/* rxe_cc_knobs.c: the device's knobs, cc/ */
u32 rxe_cc_dev_line(struct rxe_dev *rxe, u32 *port, u8 *src);

/* rxe_cc_params.c: an algorithm's knobs, cc/<algo>/, and their defaults */
void rxe_cc_derive(struct rxe_dev *rxe, u32 line, u8 src);
struct rxe_cc_params *rxe_cc_params_alloc(const struct rxe_cc_ops *ops);
void rxe_cc_params_free(struct rxe_cc_params *cp);
struct rxe_cc_params *rxe_cc_params_get(struct rxe_dev *rxe,
					const struct rxe_cc_ops *ops,
					struct rxe_cc_params **fresh);
int rxe_cc_algo_dir_add(struct rxe_dev *rxe);
void rxe_cc_algo_dir_del(struct rxe_dev *rxe);

/* rxe_cc_lock.c: a QP's callbacks run under its cc lock */
void rxe_cc_lock(struct rxe_qp *qp) __acquires(&qp->cc.lock);
void rxe_cc_unlock(struct rxe_qp *qp) __releases(&qp->cc.lock);
void rxe_cc_cnp_init(void);
enum hrtimer_restart rxe_cc_timer_fire(struct hrtimer *t);
void rxe_cc_timer_stop(struct rxe_qp *qp, bool destroy);

/* rxe_cc_pacer.c */
enum hrtimer_restart rxe_cc_pacer_fire(struct hrtimer *t);
void rxe_cc_dev_retime(struct rxe_dev *rxe);
u32 rxe_cc_wire_bytes(struct rxe_qp *qp, struct rxe_pkt_info *pkt);
bool rxe_cc_paced_ackreq(struct rxe_qp *qp);

/* rxe_cc_cnp.c */
enum hrtimer_restart rxe_cc_np_timer_fire(struct hrtimer *t);

#endif /* RXE_CC_LOC_H */
