# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pfc_unfair: PFC pauses ports, not flows (DCQCN paper Fig. 3).
#
#   h1 ------- sw1 ---- r        (congested: sw1 -> r)
#               |
#   h2 h3 h4 - sw2
#
# h1 is alone on its ingress port of sw1; h2..h4 share sw1's ingress port
# from sw2.  All send at line rate to r, PFC only (no ECN): sw1 serves its
# two ingress ports about equally, so h1 gets about half of the bottleneck
# and h2..h4 a sixth each.  Helpers: scripts/lib/pfcs.sh (pfcs_*).

# shellcheck source=../lib/pfcs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pfcs.sh"

describe()
{
	echo "PFC unfairness: a lone sender vs three behind one ingress port (DCQCN Fig. 3)"
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
duration        10        seconds of traffic
interval_ms     20        dcbmon sampling interval
report_interval 0.5       iperf3 interval (s) of the throughput time series
EOF2
}

run()
{
	local dur=${P[duration]} h i rip p1 p2
	pfcs_setup || return 1
	topo_switch sw1 && topo_switch sw2 || return 1
	topo_host r && topo_link r sw1 >/dev/null || return 1
	topo_host h1 && topo_link h1 sw1 >/dev/null || return 1
	topo_link sw2 sw1 >/dev/null || return 1
	for h in h2 h3 h4; do topo_host $h && topo_link $h sw2 >/dev/null || return 1; done
	topo_routes || return 1
	pfcs_qdiscs || return 1
	rip=$(topo_ip4 r)
	p1=$(topo_port sw1 h1); p2=$(topo_port sw1 sw2)

	for i in 1 2 3 4; do pfcs_server r $((5400 + i)); done
	for i in 1 2 3 4; do dl_wait_listen r $((5400 + i)); done
	for i in 1 2 3 4; do pfcs_client "h$i" "$rip" $((5400 + i)) "$dur"; done
	dl_monitor_start "$(topo_ns sw1):$(topo_port sw1 r)" "$(topo_ns sw1):$p1" \
		"$(topo_ns sw1):$p2" "$(topo_ns sw2):$(topo_port sw2 sw1)"
	log "h1 alone, h2..h4 behind sw2 -> r at ${P[rate]}, PFC ${P[pfc]}, ${dur}s"
	pfcs_go
	pfcs_wait
	sleep 0.5
	dl_monitor_stop

	for i in 1 2 3 4; do pfcs_flow_csv $((5400 + i)) "h$i"; done >"$OUT/senders.tsv"
	{
		pfcs_port_stats sw1 "$p1" | sed 's/^/sw1<-h1\t/'
		pfcs_port_stats sw1 "$p2" | sed 's/^/sw1<-sw2\t/'
	} >"$OUT/ingress.tsv"
	local hr=0 n d
	for n in sw1 sw2; do
		for d in $(topo_ports $n); do hr=$((hr + $(pfcs_port_stats $n "$d" | cut -f5))); done
	done
	echo "$hr" >"$OUT/headroom_drops.txt"
	# the table, throughput.png and ingress.png are made on the host from
	# these files (scripts/dcbanalysis/scenarios/pfc_unfair.py)
	printf '%s:%s from h1\n%s:%s from sw2\n' "$(topo_ns sw1)" "$p1" "$(topo_ns sw1)" "$p2" \
		>"$OUT/ingress.ports"
	return 0
}
