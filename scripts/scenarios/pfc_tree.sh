# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pfc_tree: a congestion tree and its victim (DCQCN paper Fig. 4, PCN
# Fig. 1).  s1..s3 and v hang off sw1, s4, s5, r and vr off sw2:
#
#   s1 s2 s3  v            s4 s5
#      \ | | /              | /
#        sw1 ------------- sw2 ---- r    (congested: sw2 -> r)
#                            \
#                             vr
#
# The victim v -> vr never crosses the congested port, but shares sw1's
# port toward sw2, which sw2 pauses; sw1 then pauses its hosts, v too.
# The victim runs alone for the first third of the run, then s1..s5 start.
# Helpers: pfc_incast.sh (pfcs_*).

. "$(dirname "${BASH_SOURCE[0]}")/pfc_incast.sh"

describe()
{
	echo "PFC congestion tree: PAUSE spreads sw2 -> sw1 -> hosts; a victim flow loses throughput"
}

params()
{
	cat <<'EOF2'
rate            10mbit    line rate of every port and host NIC
pfc             on        on: PFC on band 3; off: same buffer, no PFC
buffer          1mb       pool size of each switch
xoff            16kb      static XOFF per (ingress port, band 3)
delay           50ms      PAUSE response time the headroom is sized for (TCG: tens of ms)
quanta          0xffff    pause time sent (512 bit times)
pkt             1000      UDP payload bytes per datagram
host_burst      ""        host NIC shaper catch-up (sch_dcb burst); "" = module default
duration        12        seconds of the victim flow; the incast runs the last 2/3
interval_ms     20        dcbmon sampling interval
report_interval 0.5       iperf3 interval (s) of the throughput time series
EOF2
}

run()
{
	local dur=${P[duration]} late h i rip vrip up down
	late=$(awk -v d="$dur" 'BEGIN { printf "%.1f", d / 3 }')
	pfcs_setup || return 1
	topo_switch sw1 && topo_switch sw2 && topo_link sw1 sw2 >/dev/null || return 1
	for h in s1 s2 s3 v; do topo_host $h && topo_link $h sw1 >/dev/null || return 1; done
	for h in s4 s5 r vr; do topo_host $h && topo_link $h sw2 >/dev/null || return 1; done
	topo_routes || return 1
	pfcs_qdiscs || return 1
	rip=$(topo_ip4 r); vrip=$(topo_ip4 vr)
	up=$(topo_port sw2 sw1); down=$(topo_port sw1 sw2)

	pfcs_server vr 5300
	for i in 1 2 3 4 5; do pfcs_server r $((5300 + i)); done
	dl_wait_listen vr 5300
	for i in 1 2 3 4 5; do dl_wait_listen r $((5300 + i)); done
	pfcs_client v "$vrip" 5300 "$dur"
	for i in 1 2 3 4 5; do
		pfcs_client "s$i" "$rip" $((5300 + i)) "$(awk -v d="$dur" -v l="$late" 'BEGIN { print d - l }')" "$late"
	done
	dl_monitor_start "$(topo_ns sw2):$(topo_port sw2 r)" "$(topo_ns sw2):$up" \
		"$(topo_ns sw1):$down" "$(topo_ns sw1):$(topo_port sw1 v)" \
		"$(topo_ns sw1):$(topo_port sw1 s1)" "$(topo_ns v):eth0" "$(topo_ns s1):eth0"
	log "victim v -> vr for ${dur}s; incast s1..s5 -> r from ${late}s; PFC ${P[pfc]}"
	pfcs_go
	pfcs_wait
	sleep 0.5
	dl_monitor_stop

	pfcs_flow_csv 5300 v >"$OUT/victim.tsv"
	for i in 1 2 3 4 5; do pfcs_flow_csv $((5300 + i)) "s$i"; done >"$OUT/senders.tsv"
	{
		printf 'hop\tport\tpause_tx\tresume_tx\tpause_rx\tpaused_s\tdrops_headroom\tdrops_tail\n'
		pfc_tree_hop "sw2 -> sw1 (pauses sw1)" sw2 "$up"
		pfc_tree_hop "sw1 -> sw2 (paused)" sw1 "$down"
		for h in s1 s2 s3 v; do pfc_tree_hop "sw1 -> $h" sw1 "$(topo_port sw1 $h)"; done
		for h in s4 s5; do pfc_tree_hop "sw2 -> $h" sw2 "$(topo_port sw2 $h)"; done
		for h in s1 s2 s3 v s4 s5; do pfc_tree_hop "$h NIC" $h eth0; done
		pfc_tree_hop "sw2 -> r (congested)" sw2 "$(topo_port sw2 r)"
	} >"$OUT/hops.tsv"
	# the victim's throughput alone (before the incast) and during it
	# (iperf3 interval times count from the victim's start, as does late)
	jq -r '.intervals[]? | .sum | "\(.end) \(.bits_per_second)"' "$OUT/iperf3-server-5300.json" |
		awk -v l="$late" '{ t = $1 + 0
		if (t > 0.6 && t <= l) { a += $2; na++ } else if (t > l + 1) { d += $2; nd++ } }
		END { printf "victim_alone_mbps=%.3f\nvictim_during_mbps=%.3f\n",
			na ? a / na / 1e6 : 0, nd ? d / nd / 1e6 : 0 }' >"$OUT/metrics.env"

	pfc_tree_table >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	cp "$OUT/throughput-v.csv" "$OUT/throughput-f1.csv"
	i=2
	for h in s1 s4; do cp "$OUT/throughput-$h.csv" "$OUT/throughput-f$i.csv"; i=$((i + 1)); done
	dl_plot pfc_flows "$OUT/throughput.png" "prefix='$OUT/throughput-f'" "n=3" \
		"names='victim s1(sw1) s4(sw2)'" "tstart=$late" \
		"plottitle='pfc_tree: victim throughput before and during the incast'"
	pfcs_series "$OUT/pauses.csv" "" pause_tx 3 "$(topo_ns sw2):$up=sw2->sw1" \
		"$(topo_ns sw1):$(topo_port sw1 v)=sw1->v" "$(topo_ns sw1):$(topo_port sw1 s1)=sw1->s1"
	dl_plot pfc_series "$OUT/pauses.png" "datafile='$OUT/pauses.csv'" "ncols=3" \
		"ylab='PAUSE frames sent (cumulative)'" \
		"plottitle='pfc_tree: PAUSE frames, hop by hop'"
	pfcs_series "$OUT/paused.csv" "" paused_us 3 "$(topo_ns sw1):$down=sw1->sw2" \
		"$(topo_ns v):eth0=v NIC" "$(topo_ns s1):eth0=s1 NIC"
	dl_plot pfc_series "$OUT/paused.png" "datafile='$OUT/paused.csv'" "ncols=3" \
		"ylab='time paused (s, cumulative)'" "scale=1000000" \
		"plottitle='pfc_tree: time held by PAUSE'"
	return 0
}

pfc_tree_hop()
{
	local s
	s=$(pfcs_port_stats "$2" "$3")
	awk -F'\t' -v h="$1" -v p="$2:$3" '{ printf "%s\t%s\t%d\t%d\t%d\t%.3f\t%d\t%d\n",
		h, p, $1, $2, $3, $4 / 1e6, $5, $6 }' <<<"$s"
}

pfc_tree_table()
{
	# shellcheck disable=SC1091,SC2154 # victim_*_mbps come from metrics.env
	. "$OUT/metrics.env"
	echo "pfc_tree: congestion tree at ${P[rate]}, PFC ${P[pfc]}, ${P[duration]} s (incast from 1/3)"
	sed 's/^/  /' "$OUT/qdisc.txt"
	echo
	awk -F'\t' 'NR == 1 { printf "%-24s %-12s %8s %8s %8s %9s %8s %8s\n", "hop", "port",
		"PAUSEtx", "RESUMEtx", "PAUSErx", "paused_s", "hr_drop", "tail"; next }
		{ printf "%-24s %-12s %8d %8d %8d %9.2f %8d %8d\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$OUT/hops.tsv"
	echo
	awk -F'\t' 'NR > 1 { h += $7 } END { printf "headroom drops (all ports): %d\n", h }' "$OUT/hops.tsv"
	awk -F'\t' '{ printf "%-6s rx %6.2f Mb/s  loss %5.2f%%\n", $1, $3 / 1e6, $4 }' "$OUT/senders.tsv"
	# shellcheck disable=SC2154 # from metrics.env
	awk -v a="$victim_alone_mbps" -v d="$victim_during_mbps" 'BEGIN {
		printf "victim: alone %.2f Mb/s, during the incast %.2f Mb/s (%.0f%% of alone)\n",
			a, d, (a > 0) ? 100 * d / a : 0 }'
}
