# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The helpers of pcn_fig5, the last bash scenario on PFC alone (it
# sources this file): sch_dcb options from the P[] knobs, iperf3 servers
# and UDP clients on band 3 started together, a port's band 3 counters.
# (The PFC experiments are Python: scripts/dcbnet/experiments/.)

# pfcs_opts: sch_dcb options of a switch port.
pfcs_opts()
{
	local a="rate ${P[rate]} dscp-map 0:7 buffer ${P[buffer]}"
	if [ "${P[pfc]:-on}" = on ]; then
		a="$a pfc prio-pfc 3 xoff ${P[xoff]} delay ${P[delay]}"
		[ -n "${P[quanta]:-}" ] && a="$a quanta ${P[quanta]}"
	else
		a="$a pfc off"
	fi
	echo "$a"
}

# pfcs_qdiscs: sch_dcb on every switch port and host NIC (hosts: line
# rate, limit above the socket send buffer so that senders block).
pfcs_qdiscs()
{
	local sw
	sw=$(pfcs_opts)
	# shellcheck disable=SC2086
	topo_dcb_all switch $sw || return 1
	local h="rate ${P[rate]} dscp-map 0:7 limit 2mb"
	[ -n "${P[host_burst]:-}" ] && h="$h burst ${P[host_burst]}"
	# shellcheck disable=SC2086
	topo_dcb_all host $h || return 1
	echo "switch ports: $sw" >"$OUT/qdisc.txt"
	echo "host NICs: $h" >>"$OUT/qdisc.txt"
}

# pfcs_server NODE PORT: one-shot iperf3 server (JSON in iperf3-server-PORT.json)
pfcs_server()
{
	topo_exec "$1" timeout $((${P[duration]%.*} + $(safety_margin 90))) iperf3 -s -1 -p "$2" \
		-i "${P[report_interval]}" -J >"$OUT/iperf3-server-$2.json" 2>&1 &
	PFCS_SPIDS+=($!)
}

# pfcs_client NODE DST PORT SECONDS [DELAY [MBPS]]: UDP client at line
# rate (or MBPS Mb/s) on DSCP 24 (band 3), started when $PFCS_GO exists
# (plus DELAY seconds).
# iperf3's UDP socket blocks while the host NIC is paused (measured), so
# the host's shaped sch_dcb sets the pace.  No --pacing-timer 100: eight
# clients waking every 100 us starve a TCG guest, and the PAUSE frames
# are then handled so late that headrooms overflow.
pfcs_client()
{
	local rate_bps
	if [ -n "${6:-}" ]; then
		rate_bps=$(awk -v m="$6" 'BEGIN { printf "%d", m * 1e6 }')
	else
		rate_bps=$(dl_rate_bps "${P[rate]}")
	fi
	clock_spin
	topo_exec "$1" timeout $((${4%.*} + $(safety_margin 90))) bash -c \
		'while [ ! -e "$1" ]; do sleep 0.02; done; sleep "$2"; shift 2; exec "$@"' \
		_ "$PFCS_GO" "${5:-0}" \
		iperf3 -c "$2" -p "$3" -u -b "$rate_bps" -l "${P[pkt]}" -t "$4" \
		--tos 0x60 -J >"$OUT/iperf3-client-$3.json" 2>&1 &
	PFCS_CPIDS+=($!)
}

# pfcs_go: start the waiting clients; records the start in starts.txt.
pfcs_go()
{
	local t
	sleep 0.3
	t=$(dl_now_ns)
	: >"$PFCS_GO"
	echo "clients_start_ms $(( (t - ${DL_MON_T0:-$t}) / 1000000 ))" >"$OUT/starts.txt"
}

pfcs_wait()
{
	local p
	for p in "${PFCS_CPIDS[@]}" "${PFCS_SPIDS[@]}"; do wait "$p"; done
	rm -f "$PFCS_GO"
}

pfcs_setup()
{
	PFCS_CPIDS=(); PFCS_SPIDS=()
	PFCS_GO=$(mktemp -u "${TMPDIR:-/tmp}/dcblab-go.XXXXXX") || return 1
}

# pfcs_port_stats NODE DEV: one TSV line of the port's totals and band 3:
# pause_tx resume_tx pause_rx paused_us drops_headroom drops_tail in_peak
# backlog_peak pool.peak pool.drops_full
pfcs_port_stats()
{
	topo_qdiscs_json "$1" "$2" | jq -r '.[] | select(.kind == "dcb" and .root == true) |
		(.bands[] | select(.band == 3)) as $b |
		[$b.pause_tx, $b.resume_tx, $b.pause_rx, $b.paused_us, .drops_headroom, .drops_tail,
		 $b.in_peak, .backlog_peak, .pool.peak, .pool.drops_full] | @tsv'
}
