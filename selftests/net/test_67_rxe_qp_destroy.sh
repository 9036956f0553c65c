#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Paced QPs destroyed while they send.  Each round runs ib_write_bw with
# many RC QPs held by their pacer (algorithm fixed, a 1 Mb/s device
# ceiling: the pacer hrtimer of every QP is armed most of the time) and
# kills both ends with SIGKILL in the middle of the transfer, so the QPs
# are destroyed by the uverbs cleanup while their pacers fire.  Destroy
# must stop the pacer before it tears the requester task down (a timer
# that schedules the task after that would run it on a freed QP).
# Asserted: every round's QPs are gone, no pacer timer is left armed, the
# device can be deleted (one step per round, then teardown); the runner
# fails the test on any kernel splat.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_write_bw
[ -r /proc/timer_list ] || skip "no /proc/timer_list"
load_rxe
rxe_topo 1
NQP=${RXE67_NQP:-64}
ROUNDS=${RXE67_ROUNDS:-5}
rxe_cc s1 algo fixed
rxe_cc s1 max_rate_mbps 1
rxe_cc r max_rate_mbps 1

armed() { grep -c rxe_cc_pacer_fire /proc/timer_list; }
none_armed() { [ "$(armed)" = 0 ]; }
some_delays() { [ "$(rxe_cnt s1 cc_pacer_delays)" -gt "$1" ]; }

for i in $(seq 1 "$ROUNDS"); do
	port=$((19100 + i))
	d0=$(rxe_cnt s1 cc_pacer_delays)
	topo_exec r ib_write_bw -F -d "${RXE_DEV[r]}" -x "$(rxe_gid r 4)" \
		-p "$port" -q "$NQP" -t 4 -D 30 -s 1024 >"$TMPD/srv$i" 2>&1 &
	wait_for --timeout 30 rxe_listen "$port" r || fail "round $i: server did not start"
	topo_exec s1 ib_write_bw -F -d "${RXE_DEV[s1]}" -x "$(rxe_gid s1 4)" \
		-p "$port" -q "$NQP" -t 4 -D 30 -s 1024 "$RIP" >"$TMPD/cli$i" 2>&1 &
	# in the middle of the transfer: the pacers are busy
	wait_for --timeout 60 some_delays "$((d0 + NQP))"
	check_err $? "the QPs were not paced ($(tail -n 1 "$TMPD/cli$i"))"
	sleep "0.$((RANDOM % 10))"
	rxe_kill_all
	wait
	wait_for --timeout 60 no_qps
	check_err $? "QPs left: s1 $(rxe_nqp s1), r $(rxe_nqp r)"
	log "round $i: $NQP paced QPs killed after $(($(rxe_cnt s1 cc_pacer_delays) - d0)) pacer delays"
	log_test "round $i: $NQP paced QPs killed"
done

wait_for --timeout 10 none_armed
check_err $? "$(armed) pacer timers still armed after the QPs are gone"
topo_exec s1 rdma link delete "${RXE_DEV[s1]}"
check_err $? "rdma link delete"
log_test "teardown"
tests_exit
