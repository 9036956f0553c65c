# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# incast: N ECN-capable UDP senders -> routed switch -> one receiver; the
# switch port toward the receiver is a shaped sch_dcb with RED marking.
#
# A scenario file defines three functions and is sourced by scripts/dcblab:
#   describe   one line for `dcblab list`
#   params     "KEY DEFAULT DESCRIPTION" lines (DEFAULT "" = empty)
#   run        build the topology (topo_*), run, analyse; knobs are in P[],
#              the output directory in $OUT; dcblab cleans up afterwards.

describe()
{
	echo "N ECT(0) UDP senders overload one sch_dcb port (RED marking): queue, marking, fairness"
}

params()
{
	cat <<'EOF'
senders         4         number of UDP senders
rate            100mbit   port line rate (sch_dcb rate)
overhead        24        bytes added per packet by the shaper (preamble+IFG+FCS)
limit           300kb     data band limit (tail drop); "" = module default port limit (1000 MTUs)
burst           ""        shaper burst (sch_dcb burst); "" = module default
ecn             red       port ECN mode: red, step (K = kmin) or off
kmin            5kb       RED Kmin / step K (the lab's RED: DCQCN's scaled by line rate x base RTT)
kmax            20kb      RED Kmax
pmax            0.01      RED Pmax
sender_rate     auto      per-sender UDP payload rate; auto = 1.5 * rate / senders
pkt             1000      UDP payload bytes per datagram
ect             1         1 = senders send ECT(0) (tos 0x62), 0 = non-ECT (tos 0x60, WRED drops)
duration        10        seconds of traffic
interval_ms     10        dcbmon sampling interval
report_interval 0.5       iperf3 interval (s) of the throughput time series
window_ms       100       window of the marked-fraction time series
qdisc           dcb       dcb; tbf = debugging fallback without the module
EOF
}

incast_qdisc_args()
{
	local a
	if [ "${P[qdisc]}" = tbf ]; then
		echo "tbf rate ${P[rate]} burst 10kb limit ${P[limit]:-300kb}"
		return
	fi
	# The senders' data (DSCP 24) goes to band 3, whose limit is the
	# limit knob; iperf3's control traffic (DSCP 0) to band 7, served
	# first, with 64 KB of the port's limit above the data's (see run()).
	a="dcb rate ${P[rate]} overhead ${P[overhead]}"
	[ -n "${P[limit]}" ] &&
		a="$a limit $(( $(dl_size_bytes "${P[limit]}") + 65536 ))b"
	[ -n "${P[burst]}" ] && a="$a burst ${P[burst]}"
	a="$a dscp-map 0:7"
	case ${P[ecn]} in
	red) a="$a ecn red kmin ${P[kmin]} kmax ${P[kmax]} pmax ${P[pmax]}";;
	step) a="$a ecn step k ${P[kmin]}";;
	off) a="$a ecn off";;
	*) die "ecn=${P[ecn]}: want red, step or off";;
	esac
	[ -n "${P[limit]}" ] && a="$a band 3 limit ${P[limit]}"
	echo "$a"
}

run()
{
	local n=${P[senders]} i port rxip rate_bps srate tos dur qargs
	local mon_t0 t
	local -a cpids spids

	case $n in ''|*[!0-9]*|0) die "senders=$n";; esac
	# clock_spin (common.sh); common.sh's exit handling (_lib_exit) and
	# dcblab's own as well
	dl_test_libs
	# shellcheck disable=SC2154
	trap '_inc_rc=$?; dl_monitor_stop; topo_cleanup; (exit $_inc_rc); _lib_exit' EXIT
	dur=${P[duration]}
	rate_bps=$(dl_rate_bps "${P[rate]}") || return 1
	if [ "${P[sender_rate]}" = auto ]; then
		srate=$(awk -v c="$rate_bps" -v n="$n" 'BEGIN { printf "%.0f", 1.5 * c / n }')
	else
		srate=$(dl_rate_bps "${P[sender_rate]}") || return 1
	fi
	# DSCP 24 (band 3), ECT(0) or not.  iperf3 (3.12) opens each UDP
	# stream with one 4-byte datagram sent before --tos applies, so at
	# DSCP 0 and not-ECT, and never resent; its TCP control connection is
	# not-ECT too.  In the data's band, past Kmin, RED would drop that
	# datagram (always past Kmax), and a client that opens its stream
	# after the others have filled the queue gives up 30 s later with no
	# result.  So DSCP 0 has band 7 (dscp-map 0:7), as a switch gives its
	# control traffic a class of its own.
	tos=0x60; [ "${P[ect]}" = 1 ] && tos=0x62

	# topology: rx on the switch's first port, then the senders
	topo_switch sw || return 1
	topo_host rx || return 1
	topo_link rx sw >/dev/null || return 1
	for i in $(seq "$n"); do
		topo_host "h$i" || return 1
		topo_link "h$i" sw >/dev/null || return 1
	done
	topo_routes || return 1
	port=$(topo_port sw rx)
	rxip=$(topo_ip4 rx)
	qargs=$(incast_qdisc_args)
	# shellcheck disable=SC2086
	topo_qdisc sw "$port" $qargs || return 1
	echo "$(topo_ns sw):$port $qargs" >"$OUT/qdisc.txt"

	# The servers and clients are killed this long after the run should
	# have ended: a safety net, scaled with the tests' timeouts (starting
	# four clients takes minutes on the debug kernel).
	local margin
	margin=$(safety_margin 60)
	for i in $(seq "$n"); do
		topo_exec rx timeout $((${dur%.*} + margin)) iperf3 -s -1 -p $((5200 + i)) \
			-i "${P[report_interval]}" -J >"$OUT/iperf3-server-h$i.json" 2>&1 &
		spids+=($!)
	done
	for i in $(seq "$n"); do dl_wait_listen rx $((5200 + i)); done

	log "$n senders x $(awk -v r="$srate" 'BEGIN { printf "%.2f", r / 1e6 }') Mb/s -> $port ($qargs), ${dur}s"
	# Process start-up takes a while (each `ip netns exec`): every
	# client waits for a start file, then all go together.
	local go
	go=$(mktemp -u "${TMPDIR:-/tmp}/dcblab-go.XXXXXX") || return 1
	clock_spin
	for i in $(seq "$n"); do
		topo_exec "h$i" timeout $((${dur%.*} + margin)) bash -c \
			'while [ ! -e "$1" ]; do sleep 0.02; done; shift; exec "$@"' _ "$go" \
			iperf3 -c "$rxip" -p $((5200 + i)) \
			-u -b "$srate" -l "${P[pkt]}" -t "$dur" --tos "$tos" -J \
			>"$OUT/iperf3-client-h$i.json" 2>&1 &
		cpids+=($!)
	done
	sleep 0.5
	if [ "${P[qdisc]}" = dcb ]; then
		dl_monitor_start "$(topo_ns sw):$port"
		mon_t0=$DL_MON_T0
	else
		mon_t0=$(dl_now_ns)
	fi
	sleep 0.3
	t=$(dl_now_ns)
	: >"$go"
	echo "clients_start_ms $(( (t - mon_t0) / 1000000 ))" >"$OUT/starts.txt"
	for i in "${cpids[@]}" "${spids[@]}"; do wait "$i"; done
	sleep 0.5	# let the queue drain into the samples
	dl_monitor_stop
	rm -f "$go"

	incast_iperf "$n"
}

# Per-sender results: senders.csv; throughput time series: throughput-hN.csv.
# The metrics, the table and the plots are computed from these and
# dcbmon.csv on the host (scripts/dcbanalysis/scenarios/incast.py).
incast_iperf()
{
	local n=$1 i off c s why
	echo "sender,offered_bps,rx_bps,loss_pct,packets,lost_packets" >"$OUT/senders.csv"
	for i in $(seq "$n"); do
		c=$OUT/iperf3-client-h$i.json s=$OUT/iperf3-server-h$i.json
		if ! jq -e '.end.sum_received' "$s" >/dev/null 2>&1; then
			# say why: the server's error, a report cut short (the
			# server killed by its timeout), or the client's error
			# (a server whose stream never opened reports none)
			why=$(jq -r '.error // empty' "$s" 2>/dev/null) ||
				why="incomplete JSON, $(wc -c <"$s") bytes"
			[ -n "$why" ] ||
				why="client: $(jq -r '.error // "no error"' "$c" 2>/dev/null || echo "no report")"
			warn "h$i: no iperf3 server result ($s): $why"
			echo "h$i,0,0,100,0,0" >>"$OUT/senders.csv"
			continue
		fi
		jq -r --arg h "h$i" --slurpfile c "$c" '
			[$h, ($c[0].end.sum.bits_per_second // 0),
			 .end.sum_received.bits_per_second,
			 .end.sum_received.lost_percent,
			 .end.sum_received.packets,
			 .end.sum_received.lost_packets] | @csv' "$s" |
			tr -d '"' >>"$OUT/senders.csv"
		off=$(awk '$1 == "clients_start_ms" { print $2 / 1000 }' "$OUT/starts.txt")
		{
			echo "t_s,rx_mbps"
			jq -r --argjson off "${off:-0}" '.intervals[] | .sum |
				select(.seconds > 0.05) |
				"\(.end + $off),\(.bits_per_second / 1e6)"' "$s"
		} >"$OUT/throughput-h$i.csv"
	done
}
