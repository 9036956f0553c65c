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
# Helpers: scripts/lib/pfcs.sh (pfcs_*).  The guest leaves hops.tsv (band 3 of
# every hop), victim.tsv, senders.tsv, iperf3's JSON, dcbmon.csv and
# ports.tsv; the host computes results.csv, the table and the plots
# (scripts/dcbanalysis/scenarios/pfc_tree.py).

# shellcheck source=../lib/pfcs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pfcs.sh"

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
		pfc_tree_hop sw2-sw1 sw2 "$up"
		pfc_tree_hop sw1-sw2 sw1 "$down"
		for h in s1 s2 s3 v; do pfc_tree_hop "sw1-$h" sw1 "$(topo_port sw1 $h)"; done
		for h in s4 s5; do pfc_tree_hop "sw2-$h" sw2 "$(topo_port sw2 $h)"; done
		for h in s1 s2 s3 v s4 s5; do pfc_tree_hop "nic-$h" $h eth0; done
		pfc_tree_hop sw2-r sw2 "$(topo_port sw2 r)"
	} >"$OUT/hops.tsv"
	# the table and the plots are made on the host from these files
	# (scripts/dcbanalysis/scenarios/pfc_tree.py)
	pfcs_ports "sw2-sw1=sw2:$up" "sw1-sw2=sw1:$down" "sw1-v=sw1:$(topo_port sw1 v)" \
		"sw1-s1=sw1:$(topo_port sw1 s1)" "nic-v=v:eth0" "nic-s1=s1:eth0"
	return 0
}

# pfc_tree_hop HOP NODE DEV: one line of hops.tsv, band 3 of NODE's DEV
# (HOP: "sw2-sw1" is sw2's port toward sw1, "nic-v" v's NIC).
pfc_tree_hop()
{
	local s
	s=$(pfcs_port_stats "$2" "$3")
	awk -F'\t' -v h="$1" -v p="$2:$3" '{ printf "%s\t%s\t%d\t%d\t%d\t%.3f\t%d\t%d\n",
		h, p, $1, $2, $3, $4 / 1e6, $5, $6 }' <<<"$s"
}
