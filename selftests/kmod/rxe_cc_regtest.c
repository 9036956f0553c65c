// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_cc_regtest.c: the engine's registration and QP-creation error paths,
 * for the tests.
 *
 * On load, every kind of malformed struct rxe_cc_ops that
 * rxe_cc_register() must refuse is offered to it (no name, an empty name,
 * "none", a name that does not fit cc/algo, a '/' in the name, an unknown
 * flag, per-QP state beyond the engine's limit, and knob tables with no
 * name, a misaligned or out-of-range offset, min > max, a default outside
 * [min, max], a name given twice), then an algorithm named like one
 * already registered ("fixed", built into rdma_rxe).  Each must fail with
 * the expected error; a registration that succeeds is undone and fails
 * the load.  The result is in /sys/module/rxe_cc_regtest/parameters/
 * (refused, of cases).
 *
 * Then it registers a real algorithm, "regtest", whose per-QP init fails
 * with -ENOMEM while the fail_init parameter is set: creating an RC QP on
 * a device that selected it must then fail cleanly (no QP, no module
 * reference, no QP counted by the engine).  qp_inits and qp_releases
 * count the calls that reached the algorithm.
 * Not part of rdma_rxe; used by selftests/net/test_84_rxe_cc_register.sh.
 */

#include <linux/module.h>

#include "rxe_cc.h"

static uint refused;
module_param(refused, uint, 0444);
MODULE_PARM_DESC(refused, "result: malformed registrations refused");
static uint cases;
module_param(cases, uint, 0444);
MODULE_PARM_DESC(cases, "result: malformed registrations tried");
static bool fail_init;
module_param(fail_init, bool, 0644);
MODULE_PARM_DESC(fail_init, "regtest's QP init fails with -ENOMEM");
static atomic_t qp_inits = ATOMIC_INIT(0);
module_param_named(qp_inits, qp_inits.counter, int, 0444);
MODULE_PARM_DESC(qp_inits, "result: calls of regtest's QP init");
static atomic_t qp_releases = ATOMIC_INIT(0);
module_param_named(qp_releases, qp_releases.counter, int, 0444);
MODULE_PARM_DESC(qp_releases, "result: calls of regtest's QP release");

struct regtest_params {
	u32 a;
	u32 b;
};

#define P(_name, _off, _def, _min, _max) \
	{ .name = _name, .offset = _off, .def = _def, .min = _min, .max = _max }

static const struct rxe_cc_param good_params[] = {
	P("a", 0, 1, 0, 10),
	P("b", 4, 1, 0, 10),
};

static const struct rxe_cc_param bad_params[][2] = {
	{ P(NULL, 0, 1, 0, 10), P("b", 4, 1, 0, 10) },	/* no name */
	{ P("a", 0, 1, 0, 10), P("", 4, 1, 0, 10) },	/* empty name */
	{ P("a", 0, 1, 0, 10), P("x/y", 4, 1, 0, 10) },	/* '/' in it */
	{ P("a", 2, 1, 0, 10), P("b", 4, 1, 0, 10) },	/* misaligned */
	{ P("a", 0, 1, 0, 10), P("b", 8, 1, 0, 10) },	/* beyond params */
	{ P("a", 0, 1, 5, 4), P("b", 4, 1, 0, 10) },	/* min > max */
	{ P("a", 0, 11, 0, 10), P("b", 4, 1, 0, 10) },	/* def > max */
	{ P("a", 0, 1, 2, 10), P("b", 4, 1, 0, 10) },	/* def < min */
	{ P("a", 0, 1, 0, 10), P("a", 4, 1, 0, 10) },	/* name twice */
};

static int regtest_init(struct rxe_qp *qp)
{
	atomic_inc(&qp_inits);
	return READ_ONCE(fail_init) ? -ENOMEM : 0;
}

static void regtest_release(struct rxe_qp *qp)
{
	atomic_inc(&qp_releases);
}

static struct rxe_cc_ops regtest_ops = {
	.name = "regtest",
	.owner = THIS_MODULE,
	.params_size = sizeof(struct regtest_params),
	.params = good_params,
	.nparams = ARRAY_SIZE(good_params),
	.init = regtest_init,
	.release = regtest_release,
};

/* Offer @ops to the engine; it must refuse it with @want. */
static void regtest_try(struct rxe_cc_ops *ops, int want, const char *what)
{
	int err = rxe_cc_register(ops);

	cases++;
	if (err == want) {
		refused++;
		return;
	}
	pr_err("%s: register returned %d, expected %d\n",
	       what, err, want);
	if (!err)
		rxe_cc_unregister(ops);
}

static int __init rxe_cc_regtest_init(void)
{
	static const char long_name[] = "a_name_of_thirty_two_characters_";
	struct rxe_cc_ops o;
	unsigned int i;

#define TRY(_field, _value, _want) do {			\
		o = regtest_ops;				\
		INIT_LIST_HEAD(&o.list);			\
		o._field = _value;				\
		regtest_try(&o, _want, #_field " = " #_value);	\
	} while (0)

	TRY(name, NULL, -EINVAL);
	TRY(name, "", -EINVAL);
	TRY(name, "none", -EINVAL);
	TRY(name, long_name, -EINVAL);
	TRY(name, "a/b", -EINVAL);
	TRY(flags, BIT(31), -EINVAL);
	TRY(priv_size, 1 << 20, -EINVAL);
	TRY(params, NULL, -EINVAL);
	for (i = 0; i < ARRAY_SIZE(bad_params); i++)
		TRY(params, bad_params[i], -EINVAL);
	TRY(name, "fixed", -EEXIST);
#undef TRY

	pr_info("%u of %u malformed registrations refused\n",
		refused, cases);
	if (refused != cases)
		return -EINVAL;
	return rxe_cc_register(&regtest_ops);
}

static void __exit rxe_cc_regtest_exit(void)
{
	rxe_cc_unregister(&regtest_ops);
}

module_init(rxe_cc_regtest_init);
module_exit(rxe_cc_regtest_exit);
MODULE_DESCRIPTION("rxe_cc: registration and QP init error paths, for the tests");
MODULE_LICENSE("GPL");
