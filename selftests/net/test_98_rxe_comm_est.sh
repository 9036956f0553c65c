#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# IB_EVENT_COMM_EST: a connected QP in RTR that receives its first packet
# raises Communication Established, once, as an HCA does; a CM uses it to
# establish the passive side of a connection whose RTU was lost.  A
# kernel consumer (selftests/kmod/rxe_cc_rltest.c, comm_est=1) connects two RC
# QPs of one device, the receiver only to RTR, and sends it two RDMA
# WRITEs.  Asserted: both complete, the receiver's event handler saw
# COMM_EST exactly once, the sender's never.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma
RLT_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/kmod/rxe_cc_rltest.ko
[ -f "$RLT_KO" ] || fail "$RLT_KO not built (run make)"
load_rxe
rxe_topo 1

if insmod "$RLT_KO" dev="${RXE_DEV[s1]}" comm_est=1; then
	log "receiver in RTR: $(cat /sys/module/rxe_cc_rltest/parameters/comm_est_events) COMM_EST event"
	rmmod rxe_cc_rltest
else
	check_err 1 "COMM_EST: $(dmesg | grep rxe_cc_rltest | tail -n1)"
fi
log_test "COMM_EST raised once by a QP in RTR"
tests_exit
