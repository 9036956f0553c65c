#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 2400
# suite: long
#
# PCN's flow scalability (its Fig. 17), the pcn setting of the experiment
# pcn_flows (scripts/dcbnet/experiments/pcn_flows.py, also `dcblab run
# pcn_flows algos=pcn`) at its defaults: N = 4, 8, 16, 32, 64 RC flows
# (PCN92_FLOWS overrides; pass it with VMRUN_ENV=PCN92_FLOWS) from four
# senders into r through one switch port, every port sch_dcb at 100 Mb/s
# with NP-ECN and PFC on RoCE's band 3 (XOFF 64 KB, sch_dcb's default
# delay), PCN on every device at its defaults (period 2 ms, rate floor
# derived; w_min 1/128, or PCN92_W_MIN: "paper" for the paper's 0.1/N),
# with 20 s per N.  Asserted over the rows, one step per N:
#   - every ib_write_bw ends without an error and the switch drops
#     nothing (lossless band);
#   - every flow is seen in the capture at r;
#   - over the second half of the run, Jain's index of the N flows'
#     throughputs >= 0.9 and the slowest flow has at least a quarter of
#     the fair share (the paper: PCN is fair at every N; Jain alone
#     passes 0.9 with 6 of 64 flows starved).  Performance checks,
#     XFAIL on the debug kernel.
# The run's files stay in build/selftests/net/test_92_pcn_flows/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw tcpdump
exp_out
FLOWS=${PCN92_FLOWS:-4,8,16,32,64}

exp_run "$OUT" pcn_flows algos=pcn flows="$FLOWS" run_s="$(scaled_time 20)" \
	pcn_w_min="${PCN92_W_MIN:-default}" ||
	fail "the pcn_flows experiment failed (see above)"

for n in ${FLOWS//,/ }; do
	r() { exp_row "$OUT" "$1.n$n" pcn; }
	log "pcn, $n flows: Jain $(r jain) (lowest over windows $(r jain_window_min)), slowest flow $(r low_share) of the fair share, $(r ip_rate_late) Mb/s; queue mean $(r queue_mean) KB, second half $(r queue_mean_late) KB (p99 $(r queue_p99_late)); PAUSE $(r pause_tx) ($(r pause_late) in the second half); busy $(r cpu_busy) %"
	[ "$(r procs_failed)" = 0 ]; check_err $? "$(r procs_failed) ib_write_bw processes failed"
	[ "$(r drops)" = 0 ]; check_err $? "the switch dropped $(r drops) packets"
	[ "$(r flows_seen)" = "$n" ]; check_err $? "$(r flows_seen) flows in the capture, want $n"
	check_perf_assert assert_ge "$(r jain)" 0.9 "Jain's index over the second half"
	# one starved flow of 64 hardly moves Jain's index
	check_perf_assert assert_ge "$(r low_share)" 0.25 "the slowest flow's share of the fair share"
	log_test "pcn, $n flows"
done
tests_exit
