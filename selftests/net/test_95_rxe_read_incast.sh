#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
#
# RDMA READ under congestion control: a 4:1 READ incast.  r runs four
# ib_read_bw clients, one to a server on each of s1..s4, so the data (the
# read responses) flows from the four servers' responders into r through
# the switch port sw->r, the bottleneck.  The fabric is test_85's, at its
# defaults (8 s runs, sch_dcb's PFC delay): sch_dcb at $LINE Mbit/s (100)
# on every host NIC and switch port, PFC on every priority
# of the switch, RED marking (none, dcqcn) or np-ecn (pcn).
#
# A QP's reaction point covers everything it sends: its read responses
# carry ECT(0) and are paced at its rate, r's notification point answers
# CE on a response with a CNP to the responder's QP, and that QP's
# algorithm cuts the rate its responses are paced at
# (Documentation/rxe_cc.rst, "RDMA READ").  Before, responses were
# Not-ECT: RED passed them unmarked on the lossless band, no CNP was sent
# and PFC alone held the port.  LDCP's window is the requester's (a READ
# counts as its response packets), and a read response's CE mark is its
# echo: ldcp runs with PFC off and DCTCP step marking at K.  Steps, for
# none, dcqcn, pcn and ldcp:
#  - every client completes and (but ldcp) the lossless port drops
#    nothing;
#  - dcqcn, pcn: r sends CNPs and every responder handles some (the
#    reaction point is the responder's); ldcp: read responses arrive
#    CE-marked at r;
#  - Jain's index of the four responders' sending rates over the second
#    half of the run is >= 0.9;
#  - dcqcn: the bottleneck queue's mean stays at most 1.5 Kmax, ldcp: at
#    most 2 K, and both at most half of none's, which sits at the PFC
#    thresholds.  Before the echo, ldcp's windows grew to their maximum
#    whatever the marks.
# rxe does not split an RDMA READ, so a window holds whole READs (one
# larger than the window goes alone): ldcp's clients read 4 KB (4
# packets), the others perftest's 64 KB, of which the four flows' one
# outstanding READ each would already be 256 KB on the wire
# (notebook/results-history.rst, "RDMA READ under congestion control").
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"
# shellcheck source=../../scripts/lib/cmp.sh
. "$TOP/scripts/lib/cmp.sh"

need_cmd rdma ib_read_bw jq
# the lab's default rate and test_85's run length (about 4000 base RTTs)
SECS=${READ_INCAST_SECS:-$(scaled_time 8)}
LINE=${READ_INCAST_LINE:-$(scaled_mbit 100)}
ALGOS=${READ_INCAST_ALGOS:-"none dcqcn pcn ldcp"}
# sch_dcb's default PFC delay, as test_85's
SW_PFC=$WALK_PFC
RXE_BW_U=14
RXE_BW_TOOL=ib_read_bw
CMP_MON_MS=20

for a in $ALGOS; do
	[ "$a" = none ] || load_algo "$a"
done
rxe_topo 4
topo_dcb_all host rate "${LINE}mbit" || fail "tc: host NICs"
BOTTLENECK="sw:$(topo_port sw r)"

# cnt_sum COUNTER HOST...: the sum of COUNTER over the hosts' devices
cnt_sum()
{
	local c=$1 h n=0
	shift
	for h in "$@"; do n=$((n + $(rxe_cnt "$h" "$c"))); done
	echo "$n"
}

declare -A JAIN QMEAN
run()
{
	local a=$1 h i o drops res port cnp0 cnp1 np0 np1 ign0 ign ce0 ce
	o=$(walk_sw_opts "$a" "$LINE" "$SW_PFC")
	# shellcheck disable=SC2086
	topo_dcb_all switch $o || fail "tc: $o"
	for h in s1 s2 s3 s4 r; do
		rxe_cc "$h" algo "$a"
	done
	for i in 1 2 3 4; do cnp0[i]=$(rxe_cnt "s$i" rp_cnp_handled); done
	np0=$(rxe_cnt r np_cnp_sent)
	ce0=$(rxe_cnt r np_ecn_marked_roce_packets)
	ign0=$(cnt_sum rp_cnp_ignored s1 s2 s3 s4)
	pfc_snap S0 sw
	D0=$(pfc_drop_report sw)
	port=$((18700 + 10 * ${RUN:-0})); RUN=$((${RUN:-0} + 1))
	RXE_BW_SIZE=65536
	[ "$a" != ldcp ] || RXE_BW_SIZE=4096
	for i in 1 2 3 4; do
		RXE_BW_DST=s$i rxe_bw_start r $((port + i)) "$SECS"
	done
	cmp_bw_measured "$SECS" "$TMPD/mon-$a.csv" "$BOTTLENECK" "$TMPD/samples-$a" s1 s2 s3 s4
	pfc_snap S1 sw
	for i in 1 2 3 4; do
		rxe_bw_printed "$TMPD/bw-r-$((port + i)).cli"
		check_err $? "$a: the client reading from s$i printed no result"
	done
	drops=$(pfc_sw_drops S0 S1)
	if [ "$a" != ldcp ] && [ "$drops" != 0 ]; then
		pfc_drops_delta "$D0" "$(pfc_drop_report sw)"
		check_err 1 "$a: a lossless port dropped $drops packets: $PFC_DROPS_WHAT"
	fi
	res=$(rxe_shares "$TMPD/samples-$a")
	JAIN[$a]=$(awk '{ print $3 }' <<<"$res")
	read -r "QMEAN[$a]" _ _ <<<"$(cmp_queue_stats "$TMPD/mon-$a.csv" "$BOTTLENECK")"
	np1=$(rxe_cnt r np_cnp_sent)
	for i in 1 2 3 4; do cnp1[i]=$(( $(rxe_cnt "s$i" rp_cnp_handled) - cnp0[i] )); done
	ign=$(( $(cnt_sum rp_cnp_ignored s1 s2 s3 s4) - ign0 ))
	ce=$(( $(rxe_cnt r np_ecn_marked_roce_packets) - ce0 ))
	log "$a: PAUSE $(( $(pfc_sw_sum S1 pause_tx) - $(pfc_sw_sum S0 pause_tx) )), drops $drops," \
		"CE at r $ce, CNPs sent by r $((np1 - np0)), handled by s1..s4 ${cnp1[*]:1} (ignored $ign)," \
		"Jain ${JAIN[$a]} (rates $(cut -d' ' -f4- <<<"$res") Mb/s), queue mean ${QMEAN[$a]} KB"
	log_test "$a: every READ completes$([ "$a" = ldcp ] || echo ', nothing dropped')"
	[ "$a" = none ] && return 0

	if [ "$a" = ldcp ]; then
		check_assert assert_ge "$ce" 1 "ldcp: CE-marked read responses at r"
		log_test "ldcp: marks reach the requester's window"
	else
		check_assert assert_ge $((np1 - np0)) 1 "$a: CNPs r sent for marked read responses"
		for i in 1 2 3 4; do
			check_assert assert_ge "${cnp1[i]}" 1 "$a: CNPs s$i's responder handled"
		done
		log_test "$a: the responders are the reaction points"
	fi

	check_perf_assert assert_ge "${JAIN[$a]}" 0.9 "$a: Jain's index of the four responders"
	case $a in
	dcqcn) check_perf_assert assert_le "${QMEAN[$a]}" $((3 * WALK_KMAX / 2048)) \
		"dcqcn: mean queue (KB) against 1.5 Kmax" ;;
	ldcp) check_perf_assert assert_le "${QMEAN[$a]}" $((2 * WALK_STEP_K / 1024)) \
		"ldcp: mean queue (KB) against 2 K" ;;
	esac
	case $a in
	dcqcn|ldcp)
		[ -z "${QMEAN[none]:-}" ] ||
			check_perf_assert assert_le "${QMEAN[$a]}" \
				"$(awk -v q="${QMEAN[none]}" 'BEGIN { print q / 2 }')" \
				"$a: mean queue (KB) against half of none's" ;;
	esac
	log_test "$a: fair shares and a held queue"
}

for a in $ALGOS; do run "$a"; done
log "summary: $(for a in $ALGOS; do printf '%s Jain %s queue %s KB; ' "$a" "${JAIN[$a]}" "${QMEAN[$a]}"; done)"
tests_exit
