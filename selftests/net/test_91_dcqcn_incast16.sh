#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1200
#
# DCQCN under a 16:1 incast (the DCQCN paper's Fig. 12, 16:1 with its
# settings): the "paper" setting of the dcqcn_params experiment
# (scripts/dcbnet/experiments/dcqcn_params.py, also `dcblab run
# dcqcn_params`): sixteen senders each RDMA-write 100 x 64 KB into r
# through one switch, every port sch_dcb at the lab's default rate
# (100 Mbit/s), PFC on RoCE's band 3 with sch_dcb's default delay, RED
# 5 KB / 20 KB / 1 % on the bottleneck, DCQCN at its defaults.
# Steps, over the run's rows:
#   transfers   every write completes, nothing is dropped, and the
#               bottleneck marked packets (DCQCN was asked to act);
#   queue       the bottleneck's queue stays bounded: its mean over the
#               second half of the incast below DCQCN16_QMAX_KB (default
#               64: a quarter of what PFC alone holds there, the 16
#               ingress ports' XOFF of 16 KB each; the p99 is logged);
#   fairness    Jain's index of the rates of the senders still sending in
#               the incast's second half >= 0.9 (a performance check:
#               XFAIL on the debug kernel).  Not over each sender's own
#               FCT: clients that start one after the other finish at
#               different times; that index is logged.
# The run's files stay in build/selftests/net/test_91_dcqcn_incast16/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw
exp_out
QMAX_KB=${DCQCN16_QMAX_KB:-64}

r() { exp_row "$OUT" "$1" 16-paper; }

exp_run "$OUT" dcqcn_params incasts=16 settings=paper ||
	fail "the dcqcn_params experiment failed (see above)"
log "writes completed $(r completed), drops $(r drops), marked $(r ecn_marked), PAUSE frames $(r pause_tx)," \
	"second half queue mean $(r queue_mean_late) KB p99 $(r queue_p99_late) KB, Jain $(r jain) over the FCTs," \
	"$(r jain_late) over the second half; guest busy $(r cpu_busy) %"

[ "$(r procs_failed)" = 0 ] || check_err 1 "$(r procs_failed) ib_write_bw failed"
check_assert assert_ge "$(r completed)" 1 "fraction of the writes completed"
check_assert assert_le "$(r drops)" 0 "packets the switch dropped"
check_assert assert_ge "$(r ecn_marked)" 1 "packets CE-marked"
log_test transfers

check_assert assert_lt "$(r queue_mean_late)" "$QMAX_KB" "second-half queue mean (KB)"
log_test queue

check_perf_assert assert_ge "$(r jain_late)" 0.9 "second-half Jain"
log_test fairness

tests_exit
