#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# suite: debug
#
# Concurrency fuzzing of the rxe_cc sysfs interface
# (selftests/net/rxe_sysfs_fuzz.py), on s1's rxe device: two readers check
# every file of cc/ and cc/<algo>/, two writers write every knob (valid,
# boundary and invalid values: negative, huge, non-numeric, empty, blanks,
# 4 KB and 5 KB strings; a refused write must leave the value unchanged),
# cc/algo switches among none, fixed, dcqcn, pcn and ldcp, the algorithm
# modules are loaded and unloaded (refused while in use), QPs are created
# and destroyed (lone ibv_rc_pingpong servers killed, ping-pongs s1 -> r,
# some killed mid-transfer), and the device is deleted and added again
# (rdma link delete / add), all at once.  The guest runner fails the test
# on any kernel report; the fuzzer fails it on a wrong value or errno and
# on any operation stuck longer than the op timeout.  Steps:
#   fuzz           rxe_sysfs_fuzz.py exits 0 (its output is printed);
#   no_qps         once the fuzzer's processes are killed, no QP is left
#                  on s1 or r;
#   algo_modules   with algo none on both devices every algorithm
#                  module's refcount returns to 0 and it unloads;
#   rdma_rxe       both devices delete, rdma_rxe's refcount returns to 0
#                  and it unloads.
#
# Environment: DCBLAB_FUZZ_SEED (default 1), DCBLAB_FUZZ_COUNT (knob
# writes, default 1000), RXE80_SECS (at most, default 30, 60 in make
# check-debug; times DCBLAB_TIMEOUT_SCALE).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

SEED=${DCBLAB_FUZZ_SEED:-1}
COUNT=${DCBLAB_FUZZ_COUNT:-1000}
SCALE=${DCBLAB_TIMEOUT_SCALE:-1}
# the debug kernel is slow enough that the time, not the count, ends the run
secs=30
[ "${DCBLAB_CHECK_DEBUG:-0}" = 0 ] || secs=60
SECS=$(( ${RXE80_SECS:-$secs} * SCALE ))
PY=/usr/bin/python3
FUZZ=$TOP/selftests/net/rxe_sysfs_fuzz.py
KO_DIR=${DCBLAB_BUILD:-$TOP/build}/rxe_cc
ALGS="dcqcn pcn ldcp"
need_cmd rdma ibv_rc_pingpong "$PY"
for a in $ALGS; do
	[ -f "$KO_DIR/rxe_cc_$a.ko" ] || fail "$KO_DIR/rxe_cc_$a.ko not built (run make rxe)"
done

load_rxe
for a in $ALGS; do
	[ -d "/sys/module/rxe_cc_$a" ] || insmod "$KO_DIR/rxe_cc_$a.ko" ||
		fail "insmod rxe_cc_$a.ko"
done
rxe_topo 1
# algo none at exit if the test ends before algo_modules sets it (a no-op
# once the rdma_rxe step has deleted the devices)
defer 'rxe_cc_none s1 r'
rxe_cc r algo fixed

log "seed $SEED, $COUNT knob writes, at most $SECS s"
rc=0
timeout -k 10 $((SECS + 150 * SCALE)) "$PY" "$FUZZ" --seed "$SEED" --count "$COUNT" \
	--secs "$SECS" --op-timeout $((60 * SCALE)) --ko-dir "$KO_DIR" \
	--dev "${RXE_DEV[s1]}" --ns "$(topo_ns s1)" --gid "$(rxe_gid s1 4)" \
	--peer-dev "${RXE_DEV[r]}" --peer-ns "$(topo_ns r)" --peer-gid "$(rxe_gid r 4)" \
	--peer-ip "$RIP" >"$TMPD/fuzz" 2>&1 || rc=$?
cat "$TMPD/fuzz"
[ "$rc" = 0 ]
check_err $? "rxe_sysfs_fuzz.py failed (exit $rc; seed $SEED), see above"
log_test fuzz

rxe_kill_all
wait_for --timeout 60 no_qps
check_err $? "QPs left: s1 $(rxe_nqp s1), r $(rxe_nqp r)"
log_test no_qps

# Every module can go: no QP left, no device selecting an algorithm.
algo_modules()
{
	local h a m ref
	for h in s1 r; do
		check_assert rxe_cc "$h" algo none
	done
	for a in $ALGS; do
		m=rxe_cc_$a
		[ -d "/sys/module/$m" ] || continue
		ref=$(cat "/sys/module/$m/refcnt")
		if [ "$ref" != 0 ]; then
			check_err 1 "$m refcnt $ref with no device using it"
			continue
		fi
		rmmod "$m"
		check_err $? "rmmod $m"
	done
	[ "$RET" = 0 ] && log "ok: algorithm modules at refcount 0, unloaded"
}

rdma_rxe_mods()
{
	local h
	for h in s1 r; do
		timeout 60 ip netns exec "$(topo_ns "$h")" rdma link delete "${RXE_DEV[$h]}"
		check_err $? "rdma link delete ${RXE_DEV[$h]}"
	done
	if ! wait_for --timeout 30 eval '[ "$(cat /sys/module/rdma_rxe/refcnt)" = 0 ]'; then
		check_err 1 "rdma_rxe refcnt $(cat /sys/module/rdma_rxe/refcnt) with no device"
		return
	fi
	rmmod rdma_rxe
	check_err $? "rmmod rdma_rxe"
	[ "$RET" = 0 ] && log "ok: rdma_rxe at refcount 0, unloaded"
}

algo_modules
log_test algo_modules
rdma_rxe_mods
log_test rdma_rxe

tests_exit
