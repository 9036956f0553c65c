#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# 200 RC QPs paced at once: ib_write_bw -q 200 (1 KB messages, 4 in flight
# per QP) with a 1 Mb/s ceiling per
# QP.  Every QP is held by its pacer (cc_pacer_delays grows by at least
# one per QP), the aggregate stays under 200 x 1 Mb/s, the transfer
# completes, and once the QPs are destroyed no pacer hrtimer is left armed
# (/proc/timer_list) and the device can be deleted.  Steps: the paced
# QPs (pacer delays, aggregate rate), teardown (no timer, device gone).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_write_bw
[ -r /proc/timer_list ] || skip "no /proc/timer_list"
load_rxe
rxe_topo 1
NQP=200
rxe_cc s1 max_rate_mbps 1

armed() { grep -c rxe_cc_pacer_fire /proc/timer_list; }
none_armed() { [ "$(armed)" = 0 ]; }

d0=$(rxe_cnt s1 cc_pacer_delays)
tx0=$(rxe_tx_bytes s1)
topo_exec r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" -p 19001 \
	-q "$NQP" -u 20 -t 4 -D 6 -s 1024 >"$TMPD/srv" 2>&1 &
SRV=$!
wait_for --timeout 30 rxe_listen 19001 r || fail "server did not start"
t0=$(date +%s.%N)
topo_exec s1 timeout 200 ib_write_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" \
	-p 19001 -q "$NQP" -u 20 -t 4 -D 6 -s 1024 "$RIP" >"$TMPD/cli" 2>&1 ||
	{ tail "$TMPD/cli"; fail "ib_write_bw -q $NQP"; }
t1=$(date +%s.%N)
wait "$SRV"
delays=$(($(rxe_cnt s1 cc_pacer_delays) - d0))
rate=$(awk -v b="$(($(rxe_tx_bytes s1) - tx0))" -v a="$t0" -v c="$t1" \
	'BEGIN { printf "%.0f", b * 8 / (c - a) }')
log "$NQP QPs: $delays pacer delays, $rate b/s on the wire (whole run), $(grep -E '^ *1024 ' "$TMPD/cli" | tr -s ' ')"
check_assert assert_ge "$delays" "$NQP" "pacer delays"
check_assert assert_le "$rate" $((NQP * 1030000)) "aggregate under $NQP x 1 Mb/s"
check_perf_assert assert_ge "$rate" 1000000 "aggregate above one QP's ceiling"
log_test "$NQP paced QPs"

wait_for --timeout 10 none_armed
check_err $? "$(armed) pacer timers still armed after the QPs are gone"
topo_exec s1 rdma link delete "${RXE_DEV[s1]}"
check_err $? "rdma link delete"
log_test "teardown"
tests_exit
