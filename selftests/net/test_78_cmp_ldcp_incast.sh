#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# LDCP incast without PFC (issue 6): the ldcp setting of the cmp_incast
# experiment (scripts/dcbnet/experiments/cmp_incast.py, also `dcblab run
# cmp_incast algos=ldcp`).  Four senders each RDMA-write 150 x 64 KB
# (ib_write_bw -n) into r through the switch port toward r: sch_dcb at
# 100 Mb/s, DCTCP step marking at K = 8 KB, WRED drops of non-ECT packets
# above K (LDCP's fast start), PFC off on every port.  Asserted over the
# run's rows:
#  - every sender completes all its writes (perftest's result line), so
#    whatever was dropped was recovered (drops and go-back-N are printed);
#  - steady state: over the second half of the incast (dcbmon samples of
#    the bottleneck every 20 ms) the mean queue is at most K + 4 MTU (the
#    issue's "below Kmin plus a few MTU"), and the 99th percentile at most
#    4 K (no runaway: without a working LDCP the queue would grow to the
#    1 MB buffer);
#  - the switch sent no PAUSE frame.
# The run's files stay in build/selftests/net/test_78_cmp_ldcp_incast/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw
exp_out
K=8192
MTU=1100	# a 1024-byte RoCE payload on the wire (IP/UDP/BTH/ICRC, Ethernet)

r() { exp_row "$OUT" "$1" ldcp; }

exp_run "$OUT" cmp_incast algos=ldcp ldcp_k=8kb ||
	fail "the cmp_incast experiment failed (see above)"
log "writes completed $(r completed); drops tail $(r drops_tail) wred $(r drops_wred); go-back-N: completer_retry_err $(r gbn_retries), out_of_seq_request $(r oos_requests)"
log "queue over the incast: mean $(r queue_mean) KB, p99 $(r queue_p99) KB; second half ($(r queue_samples_late) samples): mean $(r queue_mean_late) KB, median $(r queue_p50_late) KB, p99 $(r queue_p99_late) KB, max $(r queue_max_late) KB (K = $K B)"
log "PAUSE frames $(r pause_tx); FCT max $(r fct_max) s; Jain $(r jain); guest busy $(r cpu_busy) %"

[ "$(r procs_failed)" = 0 ] || check_err 1 "$(r procs_failed) ib_write_bw failed"
check_assert assert_ge "$(r completed)" 1 "fraction of the writes completed"
log_test "every write completes"
check_assert assert_ge "$(r queue_samples_late)" 20 "dcbmon samples in the second half"
check_perf_assert assert_le "$(r queue_mean_late)" "$(awk -v k="$K" -v m="$MTU" 'BEGIN { print (k + 4 * m) / 1024 }')" \
	"second-half mean queue (KB) <= K + 4 MTU"
check_perf_assert assert_le "$(r queue_p99_late)" "$(awk -v k="$K" 'BEGIN { print 4 * k / 1024 }')" \
	"second-half p99 queue (KB) <= 4 K"
log_test "steady state: the queue near K"
[ "$(r pause_tx)" = 0 ] || check_err 1 "$(r pause_tx) PAUSE frames with PFC off"
log_test "no PAUSE frame with PFC off"
tests_exit
