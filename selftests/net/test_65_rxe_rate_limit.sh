#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# IB_QP_RATE_LIMIT, the verbs per-QP rate limit, set by a kernel consumer
# (selftests/kmod/rxe_cc_rltest.c: two RC QPs of one device connected through
# rxe's loopback, ib_modify_qp(IB_QP_RATE_LIMIT) on the sender, RDMA
# WRITEs timed between the first and the last completion; userspace cannot set it on rxe).  Asserted: at 5000 kb/s
# the transfer's wire rate is within 3% of the limit; without a limit it
# is more than twice as fast; with the device ceiling cc/max_rate_mbps
# below the QP's limit the lower one (the ceiling) holds, within 3%; a QP
# that goes to RESET loses its limit (query_qp says 0, a transfer after
# it is connected again runs unlimited), and so does one that goes to ERR;
# a limit of 1 kb/s removed, or raised to 100 Mb/s, while the pacer holds
# the QP's next packet (an 8.8 s gap at 1 kb/s) lets the QP go on at once:
# its 64 KB WRITE completes within 2 s of the change.  First of all, the
# device's first RC QPs are created while the consumer holds RTNL, as a
# kernel consumer may: create_qp must not take RTNL.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma
RLT_KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/kmod/rxe_cc_rltest.ko
[ -f "$RLT_KO" ] || fail "$RLT_KO not built (run make)"
load_rxe
rxe_topo 1
D=${RXE_DEV[s1]}

# rlt RATE_KBPS MSGS [ARGS]: run the consumer, print its wire rate in kb/s.
rlt()
{
	local p=/sys/module/rxe_cc_rltest/parameters r c h0=() h=
	for c in cc_skb_stalls cc_window_stalls cc_pacer_lost_us; do
		h0+=("$(rxe_cnt s1 "$c")")
	done
	insmod "$RLT_KO" dev="$D" rate_kbps="$1" msgs="$2" ${3:+"$3"} ||
		{ dmesg | tail -n 5 >&2; fail "rxe_cc_rltest rate_kbps=$1 failed"; }
	r=$(cat "$p/wire_kbps")
	for c in cc_skb_stalls cc_window_stalls cc_pacer_lost_us; do
		h+=" $c +$(( $(rxe_cnt s1 "$c") - h0[0] ))"
		h0=("${h0[@]:1}")
	done
	log "rate_limit $1 kb/s, $2 x 64 KB: $(cat "$p/elapsed_us") us, $r kb/s on the wire;$h" >&2
	if [ -n "${3:-}" ]; then
		cat "$p/reset_kbps" >"$TMPD/reset_kbps"
		log "after RESET, connected again: $(cat "$TMPD/reset_kbps") kb/s on the wire" >&2
	fi
	rmmod rxe_cc_rltest
	echo "$r"
}

# before anything else creates a QP on the device
if insmod "$RLT_KO" dev="$D" msgs=2 rtnl_held=1; then
	rmmod rxe_cc_rltest
else
	check_err 1 "QPs created under RTNL: $(dmesg | grep rxe_cc_rltest | tail -n1)"
fi
log_test "QPs created under RTNL"
r=$(rlt 5000 17 reset=1)
check_perf_assert assert_within_pct "$r" 5000 3 "wire rate at IB_QP_RATE_LIMIT 5000 kb/s"
log_test "QP rate limit"
check_perf_assert assert_ge "$(cat "$TMPD/reset_kbps")" 10000 "after RESET: more than twice the 5000 kb/s limit"
log_test "limit gone after RESET"
free=$(rlt 0 33)
check_perf_assert assert_ge "$free" 10000 "no limit: more than twice the 5000 kb/s limit"
log_test "no limit"
rxe_cc s1 max_rate_mbps 2
r=$(rlt 5000 9)
check_perf_assert assert_within_pct "$r" 2000 3 "device ceiling 2 Mb/s under a 5000 kb/s QP limit"
rxe_cc s1 max_rate_mbps 0
log_test "device ceiling below the QP limit"

# release KBPS: limit 1 kb/s, one 64 KB WRITE; once the pacer holds its
# second packet the limit becomes KBPS; prints the us to the completion
release()
{
	local p=/sys/module/rxe_cc_rltest/parameters r
	insmod "$RLT_KO" dev="$D" rate_kbps=1 release=1 release_kbps="$1" ||
		{ dmesg | tail -n 5 >&2; fail "rxe_cc_rltest release_kbps=$1 failed"; }
	r=$(cat "$p/release_us")
	log "rate_limit 1 -> $1 kb/s while the pacer holds the WRITE: done $r us later" >&2
	rmmod rxe_cc_rltest
	echo "$r"
}
check_assert assert_le "$(release 0)" 2000000 "limit removed: the WRITE waited out the old gap"
log_test "limit removed while paced"
check_assert assert_le "$(release 100000)" 2000000 "limit raised: the WRITE waited out the old gap"
log_test "limit raised while paced"
tests_exit
