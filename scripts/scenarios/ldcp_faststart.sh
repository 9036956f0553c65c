# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# ldcp_faststart: LDCP's fast start (the LDCP slides, "LDCP - fast start
# algorithm") under an incast of many small messages beside a long flow,
# without PFC, with and without fast start.
#
#   s1..sH -> sw -> r      every port and host NIC sch_dcb at `rate`, PFC
#   sL     -> sw -> r      off, DCTCP step marking at `k` on the switch's
#                          ports (non-ECT packets above it are dropped by
#                          WRED: LDCP's fast-start packets)
#
# Per setting: the long flow sL -> r (ib_write_bw -D long_s) runs alone for
# `warmup` seconds, then the incast starts: each of the H senders runs one
# ib_write_bw -q Q -n `iters` -s `size`, so H x Q small flows (RC
# connections, at least 32 by default) write into r at once.  A capture at
# r (scripts/dcbanalysis/roce_flows.py --spans) gives each flow's first
# and last packet: the completion time (FCT) of every small flow, the
# incast's (first to last packet of any small flow: the slides' "incast
# completion time") and the long flow's rate while the incast ran; the switch's counters give the
# WRED and tail drops from the incast's start, the senders' rxe counters
# the go-back-N retries.
#
#   fs     LDCP with fast start: ldcp/init_window_pkts = `iw`
#   nofs   LDCP without: init_window_pkts = 0
#
# Results: summary.tsv (one row per setting, named in the algo column),
# summary.txt, fct.tsv (every small flow's FCT per setting), per-setting
# directories.
#
# The functions ldfs_* are also used by the guest test
# test_93_ldcp_faststart.sh.

LDFS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
LDFS_TOP=$(cd "$LDFS_HERE/../.." && pwd -P)
# shellcheck source=../lib/cmp_scenario.sh
. "$LDFS_HERE/../lib/cmp_scenario.sh"

describe()
{
	echo "LDCP fast start: 32+ small RDMA flows beside a long flow without PFC, with and without fast start: FCT, WRED drops"
}

params()
{
	cat <<'EOF2'
settings        fs,nofs        fast start on (fs) and off (nofs), in this order
hosts           4              incast senders (the long flow has its own host)
qps             8              small flows per incast sender (RC connections)
iters           5              writes per small flow (perftest: at least 5)
size            4096           bytes per write (4 packets at RoCE MTU 1024)
tx_depth        1              ib_write_bw -t: writes in flight per small flow (1: each starts on an idle QP, where fast start applies)
rate            100            line rate of every port, host NIC and rxe device (Mb/s)
k               8kb            marking threshold of the switch ports (step: k; red: kmin)
marking         step           step (DCTCP at k) or red (kmin k, kmax, pmax); non-ECT fast-start packets meet the same curve (WRED)
kmax            64kb           RED's kmax (marking red)
pmax            0.1            RED's pmax (marking red)
iw              8              fast-start window (packets) of the fs setting
warmup          2              seconds the long flow runs alone first
long_s          6              the long flow's ib_write_bw -D (s)
interval_ms     20             dcbmon interval (ms)
duration        200            time budget (s): only sizes dcblab's guest timeout (10 x duration + 240)
EOF2
}

# ldfs_setup: knobs, modules, topology (s1..sH, sL = s<H+1>, sw, r).
ldfs_setup()
{
	local h
	CMP_RATE_MBPS=${P[rate]}; CMP_LINE_MBPS=${P[rate]}
	CMP_MON_MS=${P[interval_ms]}
	case ${P[marking]} in
	step) CMP_STEP="ecn step k ${P[k]}" ;;
	red) CMP_STEP="ecn red kmin ${P[k]} kmax ${P[kmax]} pmax ${P[pmax]}" ;;
	*) fail "marking: '${P[marking]}' is neither step nor red" ;;
	esac
	LDFS_OUT=${LDFS_OUT:-$OUT}
	for h in hosts qps iters size tx_depth iw warmup long_s; do
		[[ ${P[$h]} =~ ^[0-9]+$ ]] || fail "$h: '${P[$h]}' is not a number"
	done
	need_cmd tcpdump ib_write_bw
	load_dcb
	cmp_load ldcp
	CMP_N=$((P[hosts] + 1))
	cmp_conv_topo
	LDFS_LONG=s$CMP_N
	LDFS_INC=("${CMP_S[@]:0:${P[hosts]}}")
	for h in "${CMP_S[@]}" r; do rxe_gid4 "$h" >/dev/null; done
	printf '%s\n' "$LDFS_HDR" >"$LDFS_OUT/summary.tsv"
	printf 'setting\tflow\tfct_s\n' >"$LDFS_OUT/fct.tsv"
}

LDFS_HDR='algo	flows	incast_s	fct_median_s	fct_p90_s	fct_max_s	long_mbps	drops_wred	drops_tail	retries	failed	cap_dropped'

# ldfs_run SETTING: one incast beside the long flow; SETTING/ and a
# summary.tsv row; sets LDFS_ENV.
ldfs_run()
{
	local s=$1 d h i pids=() r0 rip iw long
	case $s in
	fs) iw=${P[iw]};;
	nofs) iw=0;;
	*) fail "unknown setting '$s' (fs, nofs)";;
	esac
	d=$LDFS_OUT/$s
	mkdir -p "$d"
	LDCP_KNOBS[init_window_pkts]=$iw
	for h in "${CMP_S[@]}" r; do cmp_algo "$h" ldcp; done
	cmp_switch ldcp
	pfc_snap CMP_S0 sw
	r0=$(cmp_rxe_sum completer_retry_err "${CMP_S[@]}")
	rip=$(topo_ip4 r)
	long=$(topo_ip4 "$LDFS_LONG")
	# servers: the long flow's (64 KB writes for long_s), then one per
	# incast sender
	RXE_BW_SRV=()
	rxe_bw_start "$LDFS_LONG" 19300 "${P[long_s]}"
	i=0
	for h in "${LDFS_INC[@]}"; do
		i=$((i + 1))
		topo_exec r timeout $((P[long_s] + $(safety_margin 120))) ib_write_bw -F -d "${RXE_DEV[r]}" \
			-x "${RXE_GID4[r]}" -p $((19300 + i)) -q "${P[qps]}" -s "${P[size]}" \
			-n "${P[iters]}" -t "${P[tx_depth]}" -u 20 >"$d/bw-$h.srv" 2>&1 &
		pids+=($!)
	done
	for i in $(seq 1 "${#LDFS_INC[@]}"); do
		wait_for --timeout 60 rxe_listen $((19300 + i)) r ||
			fail "$s: ib_write_bw server $((19300 + i)) did not start"
	done
	cmp_cap_start r "$d"
	cmp_mon_start "$d/dcbmon.csv" "sw:$(topo_port sw r)"
	rxe_bw_clients "${P[long_s]}"	# the long flow
	sleep "${P[warmup]}"	# the long flow's head start is part of the experiment
	pfc_snap LDFS_SW sw	# WRED drops are counted from here: the incast's
	log "$s: incast of ${#LDFS_INC[@]} x ${P[qps]} flows x ${P[iters]} x ${P[size]} B beside the long flow"
	i=0
	for h in "${LDFS_INC[@]}"; do
		i=$((i + 1))
		topo_exec "$h" timeout $((P[long_s] + $(safety_margin 120))) ib_write_bw -F -d "${RXE_DEV[$h]}" \
			-x "${RXE_GID4[$h]}" -p $((19300 + i)) -q "${P[qps]}" -s "${P[size]}" \
			-n "${P[iters]}" -t "${P[tx_depth]}" -u 20 "$rip" >"$d/bw-$h.cli" 2>&1 &
		pids+=($!)
	done
	cmp_wait "${pids[@]}" "${RXE_BW_PIDS[@]}"
	RXE_BW_PIDS=()
	cpu_guard "$s: long flow and small flows"
	mv "$TMPD"/bw-* "$d/"
	cmp_mon_stop
	cmp_cap_stop
	pfc_snap CMP_S1 sw
	# every small flow's FCT (every source but the long flow's)
	PYTHONPATH=$LDFS_TOP/scripts python3 -m dcbanalysis.roce_flows --spans \
		"$d/capture.pcap" >"$d/spans.tsv" || fail "$s: capture analysis"
	awk -F'\t' -v l="$long" -v s="$s" \
		'NR > 1 && $1 != l { printf "%s\t%s:%s\t%.4f\n", s, $1, $2, $4 - $3 }' \
		"$d/spans.tsv" >>"$LDFS_OUT/fct.tsv"
	LDFS_ENV=$d/metrics.env
	{
		PYTHONPATH=$LDFS_TOP/scripts python3 -m dcbanalysis.roce_flows \
			--incast "$long" "$d/capture.pcap" | sed 's/ /=/'
		echo "drops_wred=$(( $(pfc_sw_sum CMP_S1 drops_wred) - $(pfc_sw_sum LDFS_SW drops_wred) ))"
		echo "drops_tail=$(( $(pfc_sw_sum CMP_S1 drops_tail) - $(pfc_sw_sum LDFS_SW drops_tail) ))"
		echo "retries=$(( $(cmp_rxe_sum completer_retry_err "${CMP_S[@]}") - r0 ))"
		echo "failed=$CMP_FAILED"
		echo "cap_dropped=$CMP_CAP_DROPPED"
	} >"$LDFS_ENV"
	# shellcheck disable=SC1090
	( . "$LDFS_ENV"
	  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$flows" "$incast_s" "$fct_median_s" \
		"$fct_p90_s" "$fct_max_s" "$long_mbps" "$drops_wred" "$drops_tail" "$retries" \
		"$failed" "$cap_dropped" ) >>"$LDFS_OUT/summary.tsv"
	log "$s: $(tr '\n' ' ' <"$LDFS_ENV")"
}

# ldfs_summary: summary.txt (printed)
ldfs_summary()
{
	{
		echo "ldcp_faststart: ${P[hosts]} x ${P[qps]} small flows (${P[iters]} x ${P[size]} B each)" \
			"beside a long flow, ${P[rate]} Mb/s, PFC off, $CMP_STEP"
		echo "(FCT of the small flows, first to last packet at r; long_mbps: the long flow during the incast)"
		echo
		column -t -s "$(printf '\t')" "$LDFS_OUT/summary.tsv"
	} >"$LDFS_OUT/summary.txt"
	cat "$LDFS_OUT/summary.txt"
}

run()
{
	local s
	cmp_source_libs
	ldfs_setup
	log "topology up: ${#LDFS_INC[@]} incast senders and $LDFS_LONG, $(topo_port sw r) toward r"
	for s in ${P[settings]//,/ }; do
		ldfs_run "$s"
	done
	ldfs_summary
	return 0
}
