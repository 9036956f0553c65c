#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# The engine's error paths (rxe_cc/rxe_cc_regtest.c).  Asserted:
#  - rxe_cc_register() refuses every malformed struct rxe_cc_ops the test
#    module offers (bad names, flags, per-QP size, knob tables) with
#    -EINVAL and a duplicate name with -EEXIST (the module loads only if
#    all were refused);
#  - while the selected algorithm's per-QP init fails, creating an RC QP
#    fails (ibv_rc_pingpong cannot create its QP), no QP is left, the
#    engine counts none (the device can switch algorithm at once) and
#    no module reference leaks (refcnt of rxe_cc_regtest back to the one
#    the selection holds);
#  - once init succeeds again, a ping-pong over the algorithm completes,
#    and every init that succeeded gets its release;
#  - the module cannot be unloaded while a device has it selected, and
#    can once none is selected.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ibv_rc_pingpong
KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rxe_cc_regtest.ko
[ -f "$KO" ] || fail "$KO not built (run make)"
P=/sys/module/rxe_cc_regtest/parameters
load_rxe
rxe_topo 1
insmod "$KO" fail_init=1 || { dmesg | grep rxe_cc_regtest | tail -n 20 >&2; fail "insmod $KO (a malformed registration was accepted?)"; }
at_exit 'rmmod rxe_cc_regtest 2>/dev/null'
log "registrations refused: $(cat $P/refused) of $(cat $P/cases)"
assert_ge "$(cat $P/cases)" 18 "malformed registrations tried"
[ "$(cat $P/refused)" = "$(cat $P/cases)" ] || fail "a malformed registration was accepted"

ref0=$(cat /sys/module/rxe_cc_regtest/refcnt)
rxe_cc s1 algo regtest
rxe_cc r algo regtest
ref1=$(cat /sys/module/rxe_cc_regtest/refcnt)
[ "$ref1" = $((ref0 + 2)) ] || fail "selecting regtest on two devices: refcnt $ref0 -> $ref1"

# pp HOST [SERVER_IP]: ibv_rc_pingpong on HOST (server without an address)
pp()
{
	topo_exec "$1" timeout 60 ibv_rc_pingpong -d "${RXE_DEV[$1]}" \
		-g "$(rxe_gid4 "$1")" -p 18650 -n 50 ${2:+"$2"}
}

# 1. init fails: no QP
i0=$(cat $P/qp_inits)
if pp s1 >"$TMPD/fail.out" 2>&1; then
	cat "$TMPD/fail.out"; fail "ibv_rc_pingpong ran although the QP's init fails"
fi
grep -q "Couldn't create QP" "$TMPD/fail.out" ||
	{ cat "$TMPD/fail.out"; fail "ibv_rc_pingpong failed for another reason"; }
[ "$(cat $P/qp_inits)" = $((i0 + 1)) ] || fail "the algorithm's init was not called once ($(cat $P/qp_inits) - $i0)"
[ "$(rxe_nqp s1)" = 0 ] || fail "a QP is left after the failed create"
[ "$(cat /sys/module/rxe_cc_regtest/refcnt)" = "$ref1" ] ||
	fail "the failed create leaked a module reference (refcnt $ref1 -> $(cat /sys/module/rxe_cc_regtest/refcnt))"
# the engine counts no QP: the device may switch algorithm
rxe_cc s1 algo none
rxe_cc s1 algo regtest
log "ok: failed init: no QP, no reference, device idle"

# 2. init succeeds: a ping-pong over regtest, every init released
echo 0 >$P/fail_init
i0=$(cat $P/qp_inits); r0=$(cat $P/qp_releases)
pp r >"$TMPD/srv.out" 2>&1 &
srv=$!
wait_for --timeout 30 rxe_listen 18650 r || fail "ibv_rc_pingpong server did not start"
pp s1 "$(topo_ip4 r)" >"$TMPD/cli.out" 2>&1 || { cat "$TMPD/cli.out"; fail "ping-pong over regtest failed"; }
wait "$srv" || { cat "$TMPD/srv.out"; fail "ibv_rc_pingpong server failed"; }
wait_for --timeout 20 no_qps || fail "QPs not destroyed"
inits=$(( $(cat $P/qp_inits) - i0 )); rels=$(( $(cat $P/qp_releases) - r0 ))
log "ping-pong over regtest: $inits inits, $rels releases"
assert_ge "$inits" 2 "QP inits of the ping-pong"
[ "$rels" = "$inits" ] || fail "$inits inits but $rels releases"

# 3. unload only when no device holds it
if rmmod rxe_cc_regtest 2>/dev/null; then
	fail "rxe_cc_regtest unloaded while two devices had it selected"
fi
rxe_cc s1 algo none
rxe_cc r algo none
[ "$(cat /sys/module/rxe_cc_regtest/refcnt)" = "$ref0" ] || fail "references left after deselecting"
rmmod rxe_cc_regtest || fail "rmmod rxe_cc_regtest with no device holding it"
log "ok: unload refused while selected, done once deselected"
