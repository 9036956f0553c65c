#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 480
#
# PCN's convergence (PCN Fig. 11, scaled): the pcn run of the
# cmp_converge experiment (scripts/dcbnet/experiments/cmp_converge.py,
# also `dcblab run cmp_converge algos=pcn`): three ib_write_bw flows
# s1..s3 -> sw -> r start at the 100 Mb/s line rate into the 100 Mb/s
# port sw -> r (PFC on RoCE's band 3, NP-ECN, rxe_cc_pcn at its defaults
# everywhere: period 2 ms).  From the rxe_cc_pcn_rate tracepoint (each
# flow at line rate until its first CNP; a flow starts one period before
# its first CNP): the sum of the three rates comes down to at most 1.1 x
# the line rate within CMP77_PERIODS (5: "a few", PCN Appendix A)
# periods of the last flow's start.  From dcbmon samples of the port
# (every 50 ms): after the initial peak (the largest backlog in the
# CMP77_PEAK_S, 0.5 s, after it first passed CMP77_DRAIN_KB) the queue
# falls to CMP77_DRAIN_KB or less within CMP77_DRAIN_S (0.5 s) of
# passing it.  PCN's steady queue swings above CMP77_DRAIN_KB too, so
# the peak's window is no longer than the bound: with the experiment's
# default 2 s a later swing can be taken for the start's peak.
# CMP77_DRAIN_KB is twice np-ecn's K (10 KB), 20 KB: PCN holds the queue
# at K (a mean of 10.4-11.7 KB at 100 Mb/s, p99 about 22 KB), so a bound
# at K measured when a 50 ms sample first dipped below the mean, not the
# drain, and one below K (4 KB) was not always reached.  Every transfer
# completes.  The run's files stay in
# build/selftests/net/test_77_cmp_converge/.
. "$(dirname "$0")/lib.sh"

need_mininet rdma ib_write_bw
PERIODS=${CMP77_PERIODS:-5}
DRAIN_S=${CMP77_DRAIN_S:-0.5}
DRAIN_KB=${CMP77_DRAIN_KB:-20}
exp_out

# r METRIC: the pcn run's value (the test ends without it); r_opt
# METRIC: NaN for a value that could not be measured (left out of the
# rows), such as a convergence that never came
r() { exp_row "$OUT" "$1" pcn; }
r_opt() { ( exp_row "$OUT" "$1" pcn ) 2>/dev/null || echo NaN; }

exp_run "$OUT" cmp_converge algos=pcn duration="${CMP77_SECS:-5}" \
	drain_kb="$DRAIN_KB" peak_s="${CMP77_PEAK_S:-0.5}" ||
	fail "the cmp_converge experiment failed (see above)"
conv=$(r_opt converge_periods)
drain=$(r_opt drain)
[ "$(r flows_failed)" = 0 ] || check_err 1 "$(r flows_failed) ib_write_bw transfer(s) failed"
log_test "every transfer completes"
log "converge $(r_opt converge) s ($conv periods);" \
	"drain $drain s from a peak of $(r_opt queue_peak0) KB (1 s mean below $DRAIN_KB KB after $(r_opt settle) s); second half: $(r_opt rate_late.f1) $(r_opt rate_late.f2) $(r_opt rate_late.f3) Mb/s, Jain $(r_opt jain);" \
	"PAUSE $(r pause_tx); queue mean $(r queue_mean) KB p99 $(r queue_p99) KB; guest busy $(r cpu_busy) %"
if _lib_num "$conv"; then
	check_perf_assert assert_le "$conv" "$PERIODS" "periods until the aggregate is at most 1.1 C"
else
	check_err 1 "the aggregate rate never came down to 1.1 x line rate"
fi
log_test "aggregate at most 1.1 C within $PERIODS periods"
if _lib_num "$drain"; then
	check_perf_assert assert_le "$drain" "$DRAIN_S" "queue drain time (s)"
else
	check_err 1 "the queue never drained"
fi
log_test "queue down to $DRAIN_KB KB within $DRAIN_S s"
tests_exit
