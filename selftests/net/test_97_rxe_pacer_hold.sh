#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# A paced QP held by its window must not catch up the held time when the
# window opens.  s1 sends ib_write_bw to r at a 1 Mb/s ceiling
# (cc/max_rate_mbps) through the switch port toward r, a sch_dcb at
# 20 Mb/s; r's ACKs are delayed 1.6 s (netem on r's eth0), more than the
# 1.13 s the stock window of 128 packets takes at 1 Mb/s, so the QP is
# held by its window again and again, for about 0.5 s each time, and
# resumes when an ACK acknowledges the next 64 packets.  Only a wait for
# the pacer earns the catch-up of pacer_catchup_us, here 1 s: after a
# window hold the pacer grants pacer_slack_us (1 ms), and the port,
# twenty times faster than the QP, never holds more than a few packets.
# Catching the hold up would send those 64 packets (70 KB) back to back.
# A pacer timer that fires late (a stalled vCPU) is caught up by design;
# at 1 Mb/s a 200 ms stall is 25 KB, so the bound is 32 KB.  Asserted:
# the window held the QP (cc_window_stalls), and the port's backlog peak
# stays below 32 KB.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma ib_write_bw jq
load_rxe
rxe_topo 1
SECS=10
PEAK_MAX=32768

dcb_set rate 20mbit limit 1mb
topo_qdisc r eth0 netem delay 1600ms limit 10000 ||
	fail "netem on r's eth0"
rxe_cc s1 max_rate_mbps 1
rxe_cc s1 pacer_catchup_us 1000000
defer 'rxe_cc s1 max_rate_mbps 0; rxe_cc s1 pacer_catchup_us 100000'

w0=$(rxe_cnt s1 cc_window_stalls)
p0=$(rxe_cnt s1 cc_pacer_delays)
rxe_bw_start s1 18801 "$SECS"
rxe_bw_clients "$SECS"
rxe_bw_wait
w=$(( $(rxe_cnt s1 cc_window_stalls) - w0 ))
p=$(( $(rxe_cnt s1 cc_pacer_delays) - p0 ))
peak=$(dcb_stat backlog_peak)
log "s1: $w window stalls, $p pacer delays; the port's backlog peak $peak B, $(dcb_stat drops_tail) tail drops"

check_assert assert_ge "$w" 3 "window stalls of the paced QP (ACKs 1.6 s late)"
check_assert assert_ge "$p" 50 "pacer delays of the paced QP"
log_test "the window holds the paced QP"
check_assert assert_le "$peak" "$PEAK_MAX" "backlog peak of the 20 Mb/s port after window holds of a 1 Mb/s QP"
log_test "no burst after a window hold"
tests_exit
