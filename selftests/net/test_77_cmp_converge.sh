#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 480
#
# PCN's convergence (PCN Fig. 11, scaled; the dcblab scenario cmp_converge
# with algos=pcn): three ib_write_bw flows s1..s3 -> sw -> r start at the
# 100 Mb/s line rate into the 100 Mb/s port sw -> r (PFC on RoCE's band
# 3, NP-ECN, rxe_cc_pcn at its defaults everywhere: period 2 ms).  From
# the rxe_cc_pcn_rate tracepoint (each flow at line rate until its first
# CNP; a flow starts one period before its first CNP): the sum of the
# three rates comes down to at most 1.1 x the line rate within
# CMP77_PERIODS (5: "a few", PCN Appendix A) periods of the last flow's
# start.  From dcbmon samples of the port (every 50 ms): after the
# initial peak (the largest backlog in the CMP77_PEAK_S, 0.5 s, after it
# first passed CMP77_DRAIN_KB) the queue falls to CMP77_DRAIN_KB or less
# within CMP77_DRAIN_S (0.5 s) of passing it.  PCN's steady queue swings
# above CMP77_DRAIN_KB too, so the peak's window is no longer than the
# bound: with cmp.sh's 2 s a later swing can be taken for the start's
# peak.  CMP77_DRAIN_KB is twice np-ecn's K (10 KB), 20 KB: PCN holds
# the queue at K (a mean of 10.4-11.7 KB at
# 100 Mb/s, p99 about 22 KB), so a bound at K measured when a 50 ms
# sample first dipped below the mean, not the drain (0.05-0.70 s over ten
# runs at 10 KB), and one below K (4 KB) was never reached in two of five.
# Every transfer completes.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"
# shellcheck source=../../scripts/lib/cmp.sh
. "$TOP/scripts/lib/cmp.sh"

need_cmd rdma ib_write_bw jq
PERIODS=${CMP77_PERIODS:-5}
DRAIN_S=${CMP77_DRAIN_S:-0.5}
CMP_DRAIN_KB=${CMP77_DRAIN_KB:-20}
CMP_PEAK_WIN=${CMP77_PEAK_S:-0.5}
OUTD=${DCBLAB_BUILD:-$TOP/build}/selftests/net/test_77_cmp_converge
rm -rf "$OUTD"; mkdir -p "$OUTD"
CMP_OUT=$OUTD
CMP_SECS=${CMP77_SECS:-5}

cmp_load pcn
load_dcb
topo_init "c77$$" || fail "topo_init"
at_exit topo_cleanup
cmp_conv_topo
log "topology up"
cmp_conv_run pcn
# shellcheck disable=SC1091
. "$OUTD/conv-pcn.env"
# shellcheck disable=SC2154 # from conv-pcn.env
{
	[ "$failed" = 0 ] || check_err 1 "$failed ib_write_bw transfer(s) failed"
	log_test "every transfer completes"
	log "converge ${converge_s} s (${converge_periods} periods, aggregate $agg_at_converge_mbps Mb/s);" \
		"drain ${drain_s} s from a peak of $peak0_kb KB (1 s mean below $CMP_DRAIN_KB KB after $settle_s s); second half: $f1_mbps $f2_mbps $f3_mbps Mb/s, Jain $jain;" \
		"PAUSE $pause_tx; queue mean $queue_mean_kb KB p99 $queue_p99_kb KB"
	if _lib_num "$converge_s"; then
		check_perf_assert assert_le "$converge_periods" "$PERIODS" "periods until the aggregate is at most 1.1 C"
	else
		check_err 1 "the aggregate rate never came down to 1.1 x line rate"
	fi
	log_test "aggregate at most 1.1 C within $PERIODS periods"
	if _lib_num "$drain_s"; then
		check_perf_assert assert_le "$drain_s" "$DRAIN_S" "queue drain time (s)"
	else
		check_err 1 "the queue never drained"
	fi
	log_test "queue down to $CMP_DRAIN_KB KB within $DRAIN_S s"
}
tests_exit
