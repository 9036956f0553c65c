#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# The DCQCN paper's buffer settings (section 4, its Fig. 18), the dcblab
# scenario dcqcn_buffer (scripts/scenarios/dcqcn_buffer.sh, sourced: the
# topology, qdiscs, traffic and analysis): eight senders each RDMA-write
# 100 x 64 KB into r through one switch, every port sch_dcb at the lab's
# default rate (100 Mbit/s), PFC on RoCE's band 3 in a 1.3 MB pool
# (headroom for sch_dcb's default delay), once with the paper's setting
# (dynamic XOFF, beta 8, RED 5 KB / 20 KB / 1 % below section 4's bound,
# DCQCN at its defaults) and once with PFC alone (same pool, no ECN, algo
# none).
# Asserted, the paper's claim that ECN acts before PFC:
#  - every write of both runs completes and the switch drops nothing;
#  - PFC alone pauses (PAUSE frames > 0: the incast does congest the pool,
#    so the comparison means something);
#  - with the paper's setting the switch sends at most 5 % of the PAUSE
#    frames of the PFC-only run, and the bottleneck marked packets;
#  - the paper's Kmin is below section 4's bound for the pool in force.
# Results are kept in build/selftests/net/test_89_dcqcn_buffer/.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"
. "$TOP/scripts/scenarios/dcqcn_buffer.sh"

need_cmd rdma ib_write_bw jq
CMPI_OUT=${DCBLAB_BUILD:-$TOP/build}/selftests/net/test_89_dcqcn_buffer
rm -rf "$CMPI_OUT"
mkdir -p "$CMPI_OUT" || fail "mkdir $CMPI_OUT"
declare -gA P=([configs]="paper,pfc-only")

dcqb_setup
log "topology up: ${#CMPI_HOSTS[@]} senders"
for c in paper pfc-only; do
	dcqb_run "$c"
done
cmpi_summary

# thresholds.tsv: config algo pool_b reserved ports xoff kmin kmin_bound ...
read -r _ _ _ _ _ _ kmin bound _ < <(awk -F'\t' '$1 == "paper"' "$CMPI_OUT/thresholds.tsv")
declare -A PAUSE DROPS MARKS DONE WANT RC
for c in paper pfc-only; do
	# shellcheck disable=SC1090,SC1091
	eval "$(. "$CMPI_OUT/$c/counters.env"; . "$CMPI_OUT/$c/metrics.env"
		echo "PAUSE[$c]=$pause_tx DROPS[$c]=$drops MARKS[$c]=$ecn_marked"
		echo "DONE[$c]=$writes_done WANT[$c]=$writes_want RC[$c]=$bw_rc")"
	log "$c: writes ${DONE[$c]}/${WANT[$c]}, PAUSE frames ${PAUSE[$c]}, drops ${DROPS[$c]}, marked ${MARKS[$c]}"
done

for c in paper pfc-only; do
	[ "${RC[$c]}" = 0 ] || check_err 1 "$c: an ib_write_bw failed"
	[ "${DONE[$c]}" = "${WANT[$c]}" ] || check_err 1 "$c: writes completed ${DONE[$c]}, want ${WANT[$c]}"
	[ "${DROPS[$c]}" = 0 ] || check_err 1 "$c: the switch dropped ${DROPS[$c]} packets"
	log_test "$c: every write completes, no drop"
done
check_assert assert_le "$kmin" "$bound" "paper: Kmin (B) within section 4's bound"
log_test "paper: Kmin within section 4's bound"
check_assert assert_ge "${PAUSE[pfc-only]}" 1 "PFC only: PAUSE frames"
check_assert assert_ge "${MARKS[paper]}" 1 "paper: packets CE-marked"
check_perf_assert assert_le "${PAUSE[paper]}" "$(( PAUSE[pfc-only] * 5 / 100 ))" \
	"paper: PAUSE frames <= 5 % of PFC only's"
log_test "ECN before PFC: marks, <= 5 % of the PAUSE frames"
tests_exit
