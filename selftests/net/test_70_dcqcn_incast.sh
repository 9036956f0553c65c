#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 500
# suite: long
#
# In `make check-long`, not `make check`: test_85_lossless_fabric runs the
# same 4:1 incast with the defaults a user gets (Jain, drops, dcqcn's PAUSE
# frames against none's), test_74 the tracepoint timeline.  This one keeps
# the hand-scaled knobs, 10 Mb/s and the 4:1 timeline plot.
#
# The 4:1 incast (issue 5); the 2:1 is test_74_dcqcn_timeline (Jain,
# drops, PAUSE ratio).  DCQCN70_NS="4 2" runs both here (the 2:1 Jain
# here came too close to 0.95 to block landings twice; results.rst).
#
# DCQCN incast with soft-RoCE (issue 5): s1..sN -> sw -> r, every link
# 10 Mb/s (sch_dcb on every switch port and host NIC), PFC on RoCE's band 3,
# RED ECN (5 KB / 20 KB / 1 %) on the bottleneck sw -> r.  ib_write_bw
# from N senders to r at once, N = 4 (DCQCN70_NS), each with algo dcqcn (scaled
# knobs, rxe.sh DCQCN_KNOBS) and with algo none (PFC only, no ECN: the
# paper's baseline).  Asserts:
#  - dcqcn: Jain's fairness index >= 0.95 over the second half of the run
#    (per-sender rates from the devices' sent_pkts, sampled every 0.5 s);
#  - no headroom, ingress or tail drop at the switch in any run (WRED
#    drops of perftest's non-ECT TCP SYN/FIN/ACKs are logged only);
#  - dcqcn sends far fewer PAUSE frames than none: ratio <= 0.25;
#  - the rxe_cc_dcqcn tracepoint of the 4:1 run gives every QP a timeline
#    (R_C, R_T, alpha) with CNP cuts: trace-4.csv and trace-4.qps in
#    build/selftests/net/test_70_dcqcn_incast/, which
#    `python3 -m dcbanalysis timeline` plots on the host.
# The experiment is the dcblab scenario's (scripts/scenarios/
# dcqcn_incast.sh, dcqi_*); this test asserts on what it measured.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"
# shellcheck source=../../scripts/scenarios/dcqcn_incast.sh
. "$TOP/scripts/scenarios/dcqcn_incast.sh"

need_cmd rdma ib_write_bw ibv_rc_pingpong jq
RXE_BW_U=${DCQCN_U:-17}
# 20 s: 16 s runs with T = K = 55 ms missed the Jain bound (results.rst;
# T is 30 ms since: rxe.sh)
SECS=${DCQCN70_SECS:-20}
DCQI_RED=${DCQCN70_RED:-}
dcqi_setup "${DCQCN70_LINE:-10}" "${DCBLAB_BUILD:-$TOP/build}/selftests/net/wip_70_dcqcn_incast"

# 4:1 first: its QPNs are then 17..20 (rxe_qpn_skip), distinct in the trace
NS=${DCQCN70_NS:-4}
for n in $NS; do
	for algo in dcqcn none; do
		dcqi_run "$n" "$algo" "$SECS"
		[ -z "${DCQI_DROPS[$n-$algo]}" ] ||
			check_err 1 "$n:1 $algo: drops at the switch: ${DCQI_DROPS[$n-$algo]}"
		_lib_num "${DCQI_JAIN[$n-$algo]}" ||
			check_err 1 "$n:1 $algo: flows did not overlap long enough"
		log_test "$n:1 $algo: no drop, flows overlap"
	done
done
if [[ " $NS " == *" 4 "* ]]; then
	[ "$(printf '%s\n' "${DCQI_QPNS[@]#*:}" | sort -u | wc -l)" = 4 ] ||
		check_err 1 "the senders' QPNs are not distinct: ${DCQI_QPNS[*]}"
	for i in "${DCQI_QPNS[@]}"; do
		check_assert assert_ge "$(awk -F, -v q="${i#*:}" '$2 == q && $6 == "cnp"' "$DCQI_OUT/trace-4.csv" | wc -l)" 1 \
			"CNP cuts of ${i%:*} (QP ${i#*:}) in the trace"
	done
	q=$(wc -l <"$DCQI_OUT/trace-4.qps")
	[ "$q" = 4 ] || check_err 1 "$q QPs with a timeline, expected 4"
	log "timeline: PYTHONPATH=scripts python3 -m dcbanalysis timeline" \
		"$DCQI_OUT/trace-4.csv $DCQI_OUT/trace-4.qps timeline-4.png"
	log_test "4:1 dcqcn: distinct QPNs, CNP cuts, timeline"
fi
for n in $NS; do
	# no Jain's index when the flows did not overlap (the run's step failed)
	if _lib_num "${DCQI_JAIN[$n-dcqcn]}"; then
		check_perf_assert assert_ge "${DCQI_JAIN[$n-dcqcn]}" 0.95 "$n:1 dcqcn: Jain's index, second half"
	fi
	ratio=$(awk -v a="${DCQI_PAUSE[$n-dcqcn]}" -v b="${DCQI_PAUSE[$n-none]}" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 99 }')
	log "$n:1: PAUSE frames dcqcn ${DCQI_PAUSE[$n-dcqcn]}, none ${DCQI_PAUSE[$n-none]}, ratio $ratio; Jain none ${DCQI_JAIN[$n-none]}"
	check_perf_assert assert_ge "${DCQI_PAUSE[$n-none]}" 10 "$n:1 none: PAUSE frames (PFC must be what limits the senders)"
	check_perf_assert assert_le "$ratio" 0.25 "$n:1: PAUSE frames dcqcn / none"
	log_test "$n:1: dcqcn's Jain, PAUSE frames against none's"
done
tests_exit
