#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# The DCQCN paper's buffer settings (section 4, its Fig. 18): the
# dcqcn_buffer experiment (scripts/dcbnet/experiments/dcqcn_buffer.py,
# also `dcblab run dcqcn_buffer`): eight senders each RDMA-write
# 100 x 64 KB into r through one switch, every port sch_dcb at the lab's
# default rate (100 Mbit/s), PFC on RoCE's band 3 in a 1.3 MB pool
# (headroom for sch_dcb's default delay), once with the paper's setting
# (dynamic XOFF, beta 8, RED 5 KB / 20 KB / 1 % below section 4's bound,
# DCQCN at its defaults) and once with PFC alone (same pool, no ECN, algo
# none).
# Asserted over the run's rows, the paper's claim that ECN acts before PFC:
#  - every write of both runs completes and the switch drops nothing;
#  - PFC alone pauses (PAUSE frames > 0: the incast does congest the pool,
#    so the comparison means something);
#  - with the paper's setting the switch sends at most 5 % of the PAUSE
#    frames of the PFC-only run, and the bottleneck marked packets;
#  - the paper's Kmin is below section 4's bound for the pool in force.
# The run's files stay in build/selftests/net/test_89_dcqcn_buffer/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw
exp_out

r() { exp_row "$OUT" "$2" "$1"; }

exp_run "$OUT" dcqcn_buffer configs=paper,pfc-only ||
	fail "the dcqcn_buffer experiment failed (see above)"
for c in paper pfc-only; do
	log "$c: writes completed $(r $c completed), PAUSE frames $(r $c pause_tx), drops $(r $c drops), marked $(r $c ecn_marked), pool peak $(r $c pool_peak) KB, lowest XOFF $(r $c xoff_low) KB"
done

for c in paper pfc-only; do
	[ "$(r $c procs_failed)" = 0 ] || check_err 1 "$c: $(r $c procs_failed) ib_write_bw failed"
	check_assert assert_ge "$(r $c completed)" 1 "$c: fraction of the writes completed"
	check_assert assert_le "$(r $c drops)" 0 "$c: packets the switch dropped"
	log_test "$c: every write completes, no drop"
done
check_assert assert_le "$(r paper kmin)" "$(r paper kmin_bound)" "paper: Kmin (KB) within section 4's bound"
log_test "paper: Kmin within section 4's bound"
check_assert assert_ge "$(r pfc-only pause_tx)" 1 "PFC only: PAUSE frames"
check_assert assert_ge "$(r paper ecn_marked)" 1 "paper: packets CE-marked"
check_perf_assert assert_le "$(r paper pause_tx)" "$(( $(r pfc-only pause_tx) * 5 / 100 ))" \
	"paper: PAUSE frames <= 5 % of PFC only's"
log_test "ECN before PFC: marks, <= 5 % of the PAUSE frames"
tests_exit
