#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# The engine's error paths (selftests/kmod/rxe_cc_regtest.c), one step each:
#  - register: rxe_cc_register() refuses every malformed struct
#    rxe_cc_ops the test module offers (bad names, flags, per-QP size,
#    knob tables) with -EINVAL and a duplicate name with -EEXIST (the
#    module loads only if all were refused);
#  - select: selecting regtest on two devices takes one module reference
#    each;
#  - failed init: while the selected algorithm's per-QP init fails,
#    creating an RC QP fails (ibv_rc_pingpong cannot create its QP), no QP
#    is left, the engine counts none (the device can switch algorithm at
#    once) and no module reference leaks (refcnt of rxe_cc_regtest back
#    to the one the selection holds);
#  - pingpong: once init succeeds again, a ping-pong over the algorithm
#    completes, and every init that succeeded gets its release;
#  - unload: the module cannot be unloaded while a device has it
#    selected, and can once none is selected.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ibv_rc_pingpong
KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/kmod/rxe_cc_regtest.ko
[ -f "$KO" ] || fail "$KO not built (run make)"
P=/sys/module/rxe_cc_regtest/parameters
REF=/sys/module/rxe_cc_regtest/refcnt
load_rxe
rxe_topo 1
# the module refuses to load unless every malformed registration was
# refused: nothing after this means anything without it
insmod "$KO" fail_init=1 || { dmesg | grep rxe_cc_regtest | tail -n 20 >&2; fail "insmod $KO (a malformed registration was accepted?)"; }
defer 'rmmod rxe_cc_regtest 2>/dev/null'

# pp_cmd HOST: ibv_rc_pingpong on HOST's device, in PP (a server unless
# given the server's address)
pp_cmd()
{
	PP=(timeout 60 ibv_rc_pingpong -d "${RXE_DEV[$1]}" -g "$(rxe_gid4 "$1")" -p 18650 -n 50)
}
# pp HOST [SERVER_IP]: ibv_rc_pingpong on HOST
pp()
{
	pp_cmd "$1"
	topo_exec "$1" "${PP[@]}" ${2:+"$2"}
}

# every malformed registration tried was refused
register()
{
	log "registrations refused: $(cat $P/refused) of $(cat $P/cases)"
	check_assert assert_ge "$(cat $P/cases)" 18 "malformed registrations tried"
	[ "$(cat $P/refused)" = "$(cat $P/cases)" ]
	check_err $? "a malformed registration was accepted"
}

# selecting regtest on two devices takes one module reference each
select_regtest()
{
	ref0=$(cat $REF)
	defer 'rxe_cc_none s1 r'
	rxe_cc s1 algo regtest
	rxe_cc r algo regtest
	ref1=$(cat $REF)
	[ "$ref1" = $((ref0 + 2)) ]
	check_err $? "selecting regtest on two devices: refcnt $ref0 -> $ref1"
}

# while the algorithm's per-QP init fails: no QP, no reference, and the
# engine counts no QP (the device may switch algorithm)
failed_init()
{
	local i0
	i0=$(cat $P/qp_inits)
	if pp s1 >"$TMPD/fail.out" 2>&1; then
		cat "$TMPD/fail.out"
		check_err 1 "ibv_rc_pingpong ran although the QP's init fails"
	elif ! grep -q "Couldn't create QP" "$TMPD/fail.out"; then
		cat "$TMPD/fail.out"
		check_err 1 "ibv_rc_pingpong failed for another reason"
	fi
	[ "$(cat $P/qp_inits)" = $((i0 + 1)) ]
	check_err $? "the algorithm's init was not called once ($(cat $P/qp_inits) - $i0)"
	[ "$(rxe_nqp s1)" = 0 ]
	check_err $? "a QP is left after the failed create"
	[ "$(cat $REF)" = "$ref1" ]
	check_err $? "the failed create leaked a module reference (refcnt $ref1 -> $(cat $REF))"
	check_assert rxe_cc s1 algo none
	check_assert rxe_cc s1 algo regtest
	[ "$RET" = 0 ] && log "ok: failed init: no QP, no reference, device idle"
}

# once init succeeds: a ping-pong over regtest, every init released
pingpong()
{
	local i0 r0 srv inits rels
	echo 0 >$P/fail_init
	i0=$(cat $P/qp_inits); r0=$(cat $P/qp_releases)
	pp_cmd r
	# srv: the server's timeout(1), which passes a kill on to the server
	topo_spawn srv r "${PP[@]}" >"$TMPD/srv.out" 2>&1
	defer_scope_push
	defer "kill $srv 2>/dev/null; wait $srv 2>/dev/null"
	if ! wait_for --timeout 30 rxe_listen 18650 r; then
		check_err 1 "ibv_rc_pingpong server did not start"
		defer_scope_pop
		return
	fi
	if ! pp s1 "$(topo_ip4 r)" >"$TMPD/cli.out" 2>&1; then
		cat "$TMPD/cli.out"
		check_err 1 "ping-pong over regtest failed"
		defer_scope_pop
		return
	fi
	if ! wait "$srv"; then
		cat "$TMPD/srv.out"
		check_err 1 "ibv_rc_pingpong server failed"
	fi
	defer_scope_pop
	wait_for --timeout 20 no_qps
	check_err $? "QPs not destroyed"
	inits=$(( $(cat $P/qp_inits) - i0 )); rels=$(( $(cat $P/qp_releases) - r0 ))
	log "ping-pong over regtest: $inits inits, $rels releases"
	check_assert assert_ge "$inits" 2 "QP inits of the ping-pong"
	[ "$rels" = "$inits" ]
	check_err $? "$inits inits but $rels releases"
}

# the module unloads only when no device holds it
unload()
{
	if rmmod rxe_cc_regtest 2>/dev/null; then
		check_err 1 "rxe_cc_regtest unloaded while two devices had it selected"
		return
	fi
	check_assert rxe_cc s1 algo none
	check_assert rxe_cc r algo none
	[ "$(cat $REF)" = "$ref0" ]
	check_err $? "references left after deselecting"
	rmmod rxe_cc_regtest
	check_err $? "rmmod rxe_cc_regtest with no device holding it"
	[ "$RET" = 0 ] && log "ok: unload refused while selected, done once deselected"
}

register
log_test register
select_regtest
log_test select
failed_init
log_test "failed init"
pingpong
log_test pingpong
unload
log_test unload

tests_exit
