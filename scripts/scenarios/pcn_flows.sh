# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pcn_flows: PCN's flow scalability (its Fig. 17: 4 to 64 flows into one
# port, queue, PAUSE, utilisation and Jain's index per algorithm) at the
# lab's 100 Mb/s.  selftests/unit/pcn/model -n makes the same sweep at the
# paper's 10 Gb/s (pcn.rst).
#
#   s1..sH -> sw -> r      every port and host NIC sch_dcb at `rate`, PFC
#                          on RoCE's band 3, the algorithm's marking on
#                          the port toward r (cmp.sh: RED for dcqcn,
#                          NP-ECN for pcn, none for none)
#
# N flows are N RC connections: each of the H senders runs one
# ib_write_bw -q N/H -D run_s to its own server on r.  A capture at
# r's eth0 (RoCEv2 to r, 96 bytes per packet) gives each connection's
# throughput (scripts/dcbanalysis/roce_flows.py: flow = source address
# and destination QP), and over the second half of the run Jain's index
# of the N flows (a flow that sent nothing counts as 0), its lowest and
# median value over windows of `window_s`, and the total; dcbmon the
# bottleneck's queue, pfc_snap the PAUSE frames and drops over the run.
# Every flow starts at the line rate, so the first seconds fill the queue
# to the senders' XOFF whatever the algorithm; dcbmon of the bottleneck
# and of the senders' ingress ports gives the queue and the PAUSE frames
# of the run's second half too (the steady state the paper's "no PAUSE"
# is about; cmpmetrics.late).  Results:
# summary.tsv (one row per algorithm and N, named ALGO-N), summary.txt,
# per-run directories (capture.pcap, dcbmon.csv, ib_write_bw outputs).
#
# The switch is the comparison's (cmp.sh: sch_dcb's default PFC delay,
# a 1 MB pool) with a larger XOFF: PCN's queue oscillates by
# (N - 2 + w_min) w_min C T in steady state (the paper's eq. 15, 12 KB at
# N = 64, 100 Mb/s and T = 2 ms) above NP-ECN's K, and the ingress ports
# do not share it evenly: at N = 64 the second-half queue's p99 is
# 50 KB, which 16 KB per ingress port turns into PAUSE frames in the
# steady state.  64 KB per port holds all of it.
# PCN's period and rate floor are derived from the line rate (rxe_cc.rst,
# "The rule": T 2 ms, floor 409 kb/s, 64 flows at the floor a quarter of
# the line); pcn_period_us and pcn_min_rate_kbps override them.  A 60 s
# run is 30000 periods (the paper's testbed run is 40000 of 50 us).
#
# The functions pcnf_* are also used by the guest test
# test_92_pcn_flows.sh, which sources this file after lib.sh, dcb.sh,
# rxe.sh and cmp.sh.

PCNF_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
PCNF_TOP=$(cd "$PCNF_HERE/../.." && pwd -P)
# shellcheck source=../lib/cmp_scenario.sh
. "$PCNF_HERE/../lib/cmp_scenario.sh"

describe()
{
	echo "PCN Fig. 17: 4 to 64 RDMA flows into one port, per algorithm: Jain (from a capture), queue, PAUSE"
}

params()
{
	cat <<'EOF2'
algos           pcn,dcqcn      algorithms, in this order
flows           4,8,16,32,64   flow counts (RC connections), in this order
hosts           4              senders (the flows are spread evenly over them)
rate            100            line rate of every port, host NIC and rxe device (Mb/s)
run_s           60             ib_write_bw -D per run (s)
size            16384          bytes per write
window_s        2              window of the windowed Jain's index (s)
pcn_period_us   default        PCN's period T (us; default: derived, 2000 at 100 Mb/s)
pcn_min_rate_kbps default      PCN's rate floor (kb/s; default: derived, 409 at 100 Mb/s)
pcn_w_min       default        PCN's w_min (1/65536): default (1/128), paper (0.1/N of each run, PCN section 5), or a number
pcn_ecn_pct     95             PCN's ecn_threshold_pct: a period is congested when more than this % of its packets are CE
xoff            64kb           PFC XOFF per (ingress port, RoCE's band) of the switch (see above)
delay           default        PFC delay the headroom is sized for (default: sch_dcb's, 5 ms)
buffer          1mb            the switch's shared buffer pool (sch_dcb buffer; 4 x xoff and the headroom must fit)
interval_ms     20             dcbmon interval (ms)
duration        1200           time budget (s): only sizes dcblab's guest timeout (10 x duration + 240)
EOF2
}

# pcnf_w_min N: PCN's w_min knob for a run of N flows from pcn_w_min:
# auto (the default, 1/128), 0.1/N in 1/65536 (paper: PCN section 5's
# guideline), or the number given; fails on anything else.
pcnf_w_min()
{
	case ${P[pcn_w_min]} in
	default) echo auto ;;
	paper) echo $((65536 / (10 * $1))) ;;
	*) [[ ${P[pcn_w_min]} =~ ^[1-9][0-9]*$ ]] ||
		fail "pcn_w_min: '${P[pcn_w_min]}' is not default, paper or a number"
	   echo "${P[pcn_w_min]}" ;;
	esac
}

# pcnf_setup: knobs from P[] (cmp.sh's variables), modules, topology.
pcnf_setup()
{
	local h
	CMP_RATE_MBPS=${P[rate]}; CMP_LINE_MBPS=${P[rate]}
	CMP_MON_MS=${P[interval_ms]}
	# "default" leaves a knob to its derivation ("auto" gives it back)
	PCN_KNOBS[period_us]=${P[pcn_period_us]/#default/auto}
	PCN_KNOBS[min_rate_kbps]=${P[pcn_min_rate_kbps]/#default/auto}
	PCN_KNOBS[ecn_threshold_pct]=${P[pcn_ecn_pct]}
	pcnf_w_min 1 >/dev/null		# refuse a bad pcn_w_min before the runs
	CMP_PFC="pfc prio-pfc $ROCE_BAND xoff ${P[xoff]}"
	[ "${P[delay]}" = default ] || CMP_PFC+=" delay ${P[delay]}"
	CMP_BUFFER=${P[buffer]}
	PCNF_OUT=${PCNF_OUT:-$OUT}
	[[ ${P[hosts]} =~ ^[1-9][0-9]*$ ]] || fail "hosts: '${P[hosts]}' is not a number"
	for h in ${P[flows]//,/ }; do
		[[ $h =~ ^[1-9][0-9]*$ ]] && [ $((h % P[hosts])) = 0 ] ||
			fail "flows: '$h' is not a multiple of hosts (${P[hosts]})"
	done
	need_cmd tcpdump ib_write_bw
	load_dcb
	# shellcheck disable=SC2046
	cmp_load $(tr ',' ' ' <<<"${P[algos]}")
	CMP_N=${P[hosts]}
	cmp_conv_topo
	for h in "${CMP_S[@]}" r; do rxe_gid4 "$h" >/dev/null; done
	printf '%s\n' "$PCNF_HDR" >"$PCNF_OUT/summary.tsv"
}

PCNF_HDR='algo	flows	jain	jain_w_min	jain_w_median	total_mbps	queue_mean_kb	queue_p99_kb	pause_tx	drops	retries	failed	cap_dropped	queue_late_mean_kb	queue_late_p99_kb	pause_late	rates_mbps'

# pcnf_run ALGO N: N flows with ALGO; ALGO-N/ and a summary.tsv row; sets
# PCNF_ENV (the run's key=value file).
pcnf_run()
{
	local a=$1 n=$2 q d h port r0 bn ing=() mon=()
	q=$((n / P[hosts]))
	d=$PCNF_OUT/$a-$n
	mkdir -p "$d"
	PCN_KNOBS[w_min]=$(pcnf_w_min "$n")
	for h in "${CMP_S[@]}" r; do cmp_algo "$h" "$a"; done
	cmp_switch "$a"
	pfc_snap CMP_S0 sw
	r0=$(cmp_rxe_sum completer_retry_err "${CMP_S[@]}")
	RXE_BW_SRV=()
	RXE_BW_SIZE=${P[size]}
	port=19100
	for h in "${CMP_S[@]}"; do
		port=$((port + 1))
		rxe_bw_start "$h" "$port" "${P[run_s]}" -q "$q"
	done
	cmp_cap_start r "$d"
	# the bottleneck, then the ingress ports of the senders (their PAUSEs)
	mon=("sw:$(topo_port sw r)")
	bn=$(topo_ns sw):$(topo_port sw r)
	for h in "${CMP_S[@]}"; do
		mon+=("sw:$(topo_port sw "$h")")
		ing+=("$(topo_ns sw):$(topo_port sw "$h")")
	done
	cmp_mon_start "$d/dcbmon.csv" "${mon[@]}"
	rxe_bw_clients "${P[run_s]}" -q "$q"
	log "$a-$n: ${#CMP_S[@]} senders x $q QPs for ${P[run_s]} s"
	cmp_wait "${RXE_BW_PIDS[@]}"
	RXE_BW_PIDS=()
	cpu_guard "$a-$n: ${#CMP_S[@]} x $q QPs"
	mv "$TMPD"/bw-* "$d/"
	cmp_mon_stop
	cmp_cap_stop
	pfc_snap CMP_S1 sw
	PCNF_ENV=$d/metrics.env
	{
		cmp_pause_drops
		echo "retries=$(( $(cmp_rxe_sum completer_retry_err "${CMP_S[@]}") - r0 ))"
		echo "failed=$CMP_FAILED"
		read -r qm qp _ <<<"$(cmp_queue_stats "$d/dcbmon.csv" "sw:$(topo_port sw r)")"
		echo "queue_mean_kb=$qm"; echo "queue_p99_kb=$qp"
		echo "cap_dropped=$CMP_CAP_DROPPED"
		lab_metrics late "$d/dcbmon.csv" "$bn" --ingress "${ing[*]}"
		PYTHONPATH=$PCNF_TOP/scripts python3 -m dcbanalysis.roce_flows \
			--window "${P[window_s]}" --flows "$n" "$d/capture.pcap" | sed 's/ /=/'
	} >"$PCNF_ENV"
	# shellcheck disable=SC1090
	( . "$PCNF_ENV"
	  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a-$n" "$n" \
		"${jain:-NaN}" "${jain_w_min:-NaN}" "${jain_w_median:-NaN}" "${total_mbps:-NaN}" \
		"$queue_mean_kb" "$queue_p99_kb" "$pause_tx" "$drops" "$retries" "$failed" \
		"$cap_dropped" "${queue_late_mean_kb:-NaN}" "${queue_late_p99_kb:-NaN}" \
		"${pause_late:-NaN}" "${rates_mbps:-}" ) >>"$PCNF_OUT/summary.tsv"
	log "$a-$n: $(grep -v '^rates' "$PCNF_ENV" | tr '\n' ' ')"
}

# pcnf_summary: summary.txt (printed)
pcnf_summary()
{
	{
		echo "pcn_flows: N flows from ${P[hosts]} senders -> sw -> r, ${P[rate]} Mb/s, ${P[run_s]} s per run"
		echo "(second half of each run: Jain of the N flows from r's capture, its lowest and median over"
		echo " ${P[window_s]} s windows, total Mb/s of IPv4 bytes; queue of the port toward r in KB)"
		echo
		cut -f1-16 "$PCNF_OUT/summary.tsv" | column -t -s "$(printf '\t')"
	} >"$PCNF_OUT/summary.txt"
	cat "$PCNF_OUT/summary.txt"
}

run()
{
	local a n
	cmp_source_libs
	pcnf_setup
	log "topology up: ${#CMP_S[@]} senders, $(topo_port sw r) toward r"
	for a in ${P[algos]//,/ }; do
		for n in ${P[flows]//,/ }; do
			pcnf_run "$a" "$n"
		done
	done
	pcnf_summary
	return 0
}
