# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# parking_lot: flows crossing two bottlenecks (DCQCN paper section 7's
# parking lot, PCN Fig. 19 with N = 2), run with each algorithm of `algos`
# in one invocation.
#
#   h1 --\                  /-- r1     f1: h1 -> r1  bottleneck A only
#         sw1 ---- A ---- sw2          f2: h2 -> r2  A and B
#   h2 --/                  |\-- r2    f3: h3 -> r2  B only
#                          h3   (B: sw2 -> r2)
#
# Every port and host NIC is sch_dcb at `rate`; A (sw1 -> sw2) and B
# (sw2 -> r2) are the bottlenecks.  Max-min fairness gives every flow
# half of the line rate; proportional fairness gives f2 a third and f1
# and f3 two thirds (PCN's claim for PCN: f2 gets 1 / (N + 1)); DCQCN's
# slides: a flow through two RED points is marked more often and gets
# less than the max-min share.  Measured per algorithm (rxe's sent_pkts
# over the second half of the time all three ran): each flow's rate,
# f2's share of the line rate, A's and B's utilisation (f1 + f2 and
# f2 + f3 over the line rate), Jain's index of the three, PAUSE frames,
# drops (and of them, at full headrooms), queues of A and B.  Code: scripts/lib/cmp.sh's helpers.

# shellcheck source=../lib/cmp_scenario.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cmp_scenario.sh"

describe()
{
	echo "parking lot: f2 crosses two bottlenecks, f1 and f3 one each; rates, utilisation, per algorithm (DCQCN section 7, PCN Fig. 19)"
}

params()
{
	cat <<'EOF2'
algos           none,dcqcn,pcn  algorithms, run one after the other (PFC on, as cmp_converge)
rate            100            line rate of every port, host NIC and rxe device (Mb/s)
duration        8              flows' duration (s, ib_write_bw -D)
interval        0.25           sent_pkts sampling interval (s)
interval_ms     50             dcbmon interval (ms)
EOF2
}

pl_topo()
{
	topo_switch sw1 && topo_switch sw2 || fail "switches"
	topo_link sw1 sw2 >/dev/null || fail "sw1 - sw2"
	local h
	for h in h1 h2; do topo_host $h && topo_link $h sw1 >/dev/null || fail "$h"; done
	for h in h3 r1 r2; do topo_host $h && topo_link $h sw2 >/dev/null || fail "$h"; done
	topo_routes || fail "routes"
	cmp_hosts_qdisc
	cmp_switch none
	topo_exec h1 ping -c1 -W5 "$(topo_ip4 r2)" >/dev/null || fail "no path h1 -> r2"
	cmp_rxe_add h1 h2 h3 r1 r2
	PL_A="sw1:$(topo_port sw1 sw2)"; PL_B="sw2:$(topo_port sw2 r2)"
}

# pl_run ALGO: one run; pl-ALGO.env, pl-ALGO-flows.csv
pl_run()
{
	local a=$1 o=$CMP_OUT/pl-$a h pids base k
	for h in h1 h2 h3 r1 r2; do cmp_algo "$h" "$a"; done
	cmp_switch "$a"
	base=$((19300 + 10 * CMP_RUN)); CMP_RUN=$((CMP_RUN + 1))
	pfc_snap CMP_S0 sw1 sw2
	RXE_BW_SRV=()
	RXE_BW_DST=r1 rxe_bw_start h1 "$base" "$CMP_SECS"
	RXE_BW_DST=r2 rxe_bw_start h2 $((base + 1)) "$CMP_SECS"
	RXE_BW_DST=r2 rxe_bw_start h3 $((base + 2)) "$CMP_SECS"
	cmp_mon_start "$o-dcbmon.csv" "$PL_A" "$PL_B"
	rxe_sampler_start "$CMP_IV" "$o-samples.txt" h1 h2 h3
	rxe_bw_clients "$CMP_SECS"
	pids=("${RXE_BW_PIDS[@]}"); RXE_BW_PIDS=()
	log "$a: f1 h1 -> r1, f2 h2 -> r2, f3 h3 -> r2 for $CMP_SECS s"
	cmp_wait "${pids[@]}"
	local fl=$CMP_FAILED
	cpu_guard "$a: three flows"
	cmp_keep_bw "$o"
	rxe_sampler_stop
	cmp_mon_stop
	pfc_snap CMP_S1 sw1 sw2
	local pause drops hr sh qa qb
	pause=$(( $(pfc_sw_sum CMP_S1 pause_tx "$ROCE_BAND") - $(pfc_sw_sum CMP_S0 pause_tx "$ROCE_BAND") ))
	drops=0
	for k in drops_tail drops_wred drops_headroom; do
		drops=$((drops + $(pfc_sw_sum CMP_S1 $k) - $(pfc_sw_sum CMP_S0 $k)))
	done
	hr=$(( $(pfc_sw_sum CMP_S1 drops_headroom) - $(pfc_sw_sum CMP_S0 drops_headroom) ))
	read -r -a sh <<<"$(rxe_shares "$o-samples.txt")"
	read -r -a qa <<<"$(cmp_queue_stats "$o-dcbmon.csv" "$PL_A")"
	read -r -a qb <<<"$(cmp_queue_stats "$o-dcbmon.csv" "$PL_B")"
	awk -v c="$CMP_RATE_MBPS" -v f1="${sh[3]:-NaN}" -v f2="${sh[4]:-NaN}" -v f3="${sh[5]:-NaN}" \
	    -v j="${sh[2]:-NaN}" -v p="$pause" -v d="$drops" -v hr="$hr" -v fl="$fl" \
	    -v qa="${qa[0]:-NaN}" -v qb="${qb[0]:-NaN}" 'BEGIN {
		ok = (f1 != "NaN" && f2 != "NaN" && f3 != "NaN")
		printf "f1_mbps=%s\nf2_mbps=%s\nf3_mbps=%s\njain=%s\n", f1, f2, f3, j
		printf "f2_share=%s\n", ok ? sprintf("%.4f", f2 / c) : "NaN"
		printf "util_a=%s\nutil_b=%s\n", ok ? sprintf("%.4f", (f1 + f2) / c) : "NaN",
			ok ? sprintf("%.4f", (f2 + f3) / c) : "NaN"
		printf "queue_a_kb=%s\nqueue_b_kb=%s\npause_tx=%d\ndrops=%d\ndrops_headroom=%d\nfailed=%d\n", qa, qb, p, d, hr, fl
	}' >"$o.env"
	log "$a: $(tr '\n' ' ' <"$o.env")"
}

PL_COLS="algo f1_mbps f2_mbps f3_mbps f2_share util_a util_b jain queue_a_kb queue_b_kb pause_tx drops drops_headroom failed"

run()
{
	local a
	cmp_source_libs
	cmp_setup_common
	# shellcheck disable=SC2086
	cmp_load $CMP_ALGOS
	pl_topo
	printf '%s\n' "${PL_COLS// /$'\t'}" >"$OUT/summary.tsv"
	for a in $CMP_ALGOS; do
		pl_run "$a"
		cmp_row "$CMP_OUT/pl-$a.env" "$a" "$PL_COLS" >>"$OUT/summary.tsv"
	done
	{
		echo "parking_lot: f1 h1 -> r1 (A), f2 h2 -> r2 (A and B), f3 h3 -> r2 (B); ${P[rate]} Mb/s links, PFC on band $ROCE_BAND"
		for a in $CMP_ALGOS; do echo "  $a: switch ports: ${CMP_SWOPTS[$a]}"; done
		echo "  (Mb/s of RDMA payload over the second half of the overlap; max-min: f2 = 0.5 of the line,"
		echo "   proportional fairness: f2 = 0.333; util_a, util_b: (f1 + f2), (f2 + f3) over the line rate)"
		echo
		cmp_table "$OUT/summary.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	return 0
}
