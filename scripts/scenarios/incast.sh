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
rate            40mbit    port line rate (sch_dcb rate)
overhead        24        bytes added per packet by the shaper (preamble+IFG+FCS)
limit           300kb     port limit (tail drop); "" = module default (1000 MTUs)
burst           64kb      shaper burst (catch-up after late timers; TCG needs it); "" = module default
ecn             red       port ECN mode: red, step (K = kmin) or off
kmin            20kb      RED Kmin / step K
kmax            100kb     RED Kmax
pmax            0.2       RED Pmax
sender_rate     auto      per-sender UDP payload rate; auto = 1.5 * rate / senders
pkt             1000      UDP payload bytes per datagram
ect             1         1 = senders send ECT(0) (tos 2), 0 = non-ECT (WRED drops)
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
	a="dcb rate ${P[rate]} overhead ${P[overhead]}"
	[ -n "${P[limit]}" ] && a="$a limit ${P[limit]}"
	[ -n "${P[burst]}" ] && a="$a burst ${P[burst]}"
	case ${P[ecn]} in
	red) a="$a ecn red kmin ${P[kmin]} kmax ${P[kmax]} pmax ${P[pmax]}";;
	step) a="$a ecn step k ${P[kmin]}";;
	off) a="$a ecn off";;
	*) die "ecn=${P[ecn]}: want red, step or off";;
	esac
	echo "$a"
}

run()
{
	local n=${P[senders]} i port rxip rate_bps srate tos dur qargs
	local mon_t0 t
	local -a cpids spids

	case $n in ''|*[!0-9]*|0) die "senders=$n";; esac
	dur=${P[duration]}
	rate_bps=$(dl_rate_bps "${P[rate]}") || return 1
	if [ "${P[sender_rate]}" = auto ]; then
		srate=$(awk -v c="$rate_bps" -v n="$n" 'BEGIN { printf "%.0f", 1.5 * c / n }')
	else
		srate=$(dl_rate_bps "${P[sender_rate]}") || return 1
	fi
	tos=0; [ "${P[ect]}" = 1 ] && tos=2

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

	for i in $(seq "$n"); do
		topo_exec rx timeout $((${dur%.*} + 60)) iperf3 -s -1 -p $((5200 + i)) \
			-i "${P[report_interval]}" -J >"$OUT/iperf3-server-h$i.json" 2>&1 &
		spids+=($!)
	done
	for i in $(seq "$n"); do dl_wait_listen rx $((5200 + i)); done

	log "$n senders x $(awk -v r="$srate" 'BEGIN { printf "%.2f", r / 1e6 }') Mb/s -> $port ($qargs), ${dur}s"
	# Process start-up is slow under TCG (each `ip netns exec` takes a
	# while): every client waits for a start file, then all go together.
	local go
	go=$(mktemp -u "${TMPDIR:-/tmp}/dcblab-go.XXXXXX") || return 1
	for i in $(seq "$n"); do
		topo_exec "h$i" timeout $((${dur%.*} + 60)) bash -c \
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

	incast_analyze "$n" "$srate" "$rate_bps"
}

# Per-sender results: senders.csv; throughput time series: throughput-hN.csv
incast_iperf()
{
	local n=$1 i off c s
	echo "sender,offered_bps,rx_bps,loss_pct,packets,lost_packets" >"$OUT/senders.csv"
	for i in $(seq "$n"); do
		c=$OUT/iperf3-client-h$i.json s=$OUT/iperf3-server-h$i.json
		if ! jq -e '.end.sum_received' "$s" >/dev/null 2>&1; then
			warn "h$i: no iperf3 server result ($s)"
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

incast_analyze()
{
	local n=$1 srate=$2 rate_bps=$3 ovh kmin kmax limit_b
	ovh=${P[overhead]}; [ "${P[qdisc]}" = dcb ] || ovh=0
	kmin=$(dl_size_bytes "${P[kmin]}"); kmax=$(dl_size_bytes "${P[kmax]}")
	limit_b=$(dl_size_bytes "${P[limit]:-0}")

	incast_iperf "$n"

	# port metrics from the dcbmon samples (band "all")
	: >"$OUT/metrics.env"
	if [ -s "$OUT/dcbmon.csv" ]; then
		awk -F, -v ovh="$ovh" -v win="${P[window_ms]}" \
		    -v qf="$OUT/queue.csv" -v wf="$OUT/window.csv" \
		    -v sf="$OUT/.busy-sorted" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
			  print "t_s,backlog_bytes" > qf
			  print "t_s,marked_frac,wire_mbps,drop_frac" > wf; next }
		$c["band"] != "all" { next }
		{
			k++; t[k] = $c["t_ms"]; q[k] = $c["backlog_bytes"]
			enq[k] = $c["enq_packets"]; mk[k] = $c["ecn_marked"]
			w[k] = $c["deq_bytes"] + ovh * $c["deq_packets"]
			dr[k] = $c["drops_tail"] + $c["drops_wred"]
			if ("backlog_peak" in c) pk = $c["backlog_peak"]
			printf "%.3f,%d\n", t[k] / 1000, q[k] > qf
			if (k == 1) { lw = 1; next }
			if (t[k] - t[lw] >= win) {
				de = enq[k] - enq[lw]; dd = dr[k] - dr[lw]
				# (parenthesised: a bare ">" in printf args redirects)
				fm = (de > 0) ? sprintf("%.4f", (mk[k] - mk[lw]) / de) : "NaN"
				fd = (de + dd > 0) ? sprintf("%.4f", dd / (de + dd)) : "NaN"
				printf "%.3f,%s,%.3f,%s\n", t[k] / 1000, fm,
					(w[k] - w[lw]) * 8 / (t[k] - t[lw]) / 1000, fd > wf
				lw = k
			}
		}
		END {
			# busy period: first to last sample with a standing queue.
			# Line rate is measured over the sample intervals that start
			# and end with a queue (the shaper is never idle in them).
			for (i = 1; i <= k; i++) if (q[i] > 0) { if (!b0) b0 = i; b1 = i }
			for (i = 2; i <= k; i++) if (q[i - 1] > 0 && q[i] > 0) {
				bw += w[i] - w[i - 1]; bt += t[i] - t[i - 1] }
			if (b1 > b0 && bt > 0) {
				printf "port_wire_bps=%.0f\n", bw * 8 * 1000 / bt
				printf "busy_s=%.3f\n", bt / 1000
				# sort the busy samples (mawk has no asort)
				m = 0; srt = "sort -n > " sf
				for (i = b0; i <= b1; i++) { print q[i] | srt; s += q[i]; m++ }
				close(srt)
				for (i = 1; (getline x < sf) > 0; i++) v[i] = x + 0
				close(sf)
				p = int(0.99 * m + 0.999999); if (p < 1) p = 1
				printf "queue_mean_bytes=%.0f\nqueue_p99_bytes=%d\n", s / m, v[p]
				printf "queue_sample_max_bytes=%d\n", v[m]
			} else {
				print "port_wire_bps=0"
			}
			if (pk == "") { pk = 0; for (i = 1; i <= k; i++) if (q[i] > pk) pk = q[i] }
			printf "queue_peak_bytes=%d\n", pk
			printf "enq_packets=%d\necn_marked=%d\n", enq[k], mk[k]
			printf "marked_frac=%.4f\n", (enq[k] > 0) ? mk[k] / enq[k] : 0
			printf "samples=%d\n", k
		}' "$OUT/dcbmon.csv" >>"$OUT/metrics.env"
		rm -f "$OUT/.busy-sorted"
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["band"] == "all" { t = $c["drops_tail"]; w = $c["drops_wred"] }
			END { printf "drops_tail=%d\ndrops_wred=%d\n", t, w }' \
			"$OUT/dcbmon.csv" >>"$OUT/metrics.env"
	fi
	awk -F, -v n="$n" -v c="$rate_bps" -v pl="${P[pkt]}" -v ovh="$ovh" \
	    -v kmin="$kmin" -v kmax="$kmax" 'NR > 1 {
		s += $3; s2 += $3 * $3; o += $2 }
		END {
			printf "senders=%d\nrate_bps=%d\noverhead=%d\n", n, c, ovh
			printf "kmin_bytes=%d\nkmax_bytes=%d\n", kmin, kmax
			printf "offered_bps=%.0f\ngoodput_bps=%.0f\n", o, s
			# UDP payload share of a wire packet: +8 UDP +20 IPv4 +14 Ethernet
			printf "expected_goodput_bps=%.0f\n", c * pl / (pl + 42 + ovh)
			printf "jain=%.4f\n", (s2 > 0) ? s * s / (n * s2) : 0
		}' "$OUT/senders.csv" >>"$OUT/metrics.env"
	echo "limit_bytes=$limit_b" >>"$OUT/metrics.env"

	incast_table >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	incast_plots "$n" "$kmin" "$kmax" "$rate_bps"
}

incast_table()
{
	# shellcheck disable=SC1091
	( . "$OUT/metrics.env"
	echo "incast: ${senders} senders -> $(cat "$OUT/qdisc.txt"), ${P[duration]} s, ECT=${P[ect]}"
	echo
	awk -F, 'NR == 1 { printf "%-8s %12s %12s %8s %10s\n", "sender", "offered_Mbps", "rx_Mbps", "loss_%", "packets"; next }
		{ printf "%-8s %12.2f %12.2f %8.2f %10d\n", $1, $2 / 1e6, $3 / 1e6, $4, $5
		  o += $2; r += $3 }
		END { printf "%-8s %12.2f %12.2f\n", "total", o / 1e6, r / 1e6 }' "$OUT/senders.csv"
	echo
	awk -v g="$goodput_bps" -v e="$expected_goodput_bps" 'BEGIN {
		printf "goodput (iperf3)      %8.2f Mb/s  (expected at line rate %.2f, %+.1f%%)\n",
			g / 1e6, e / 1e6, (e > 0) ? 100 * (g - e) / e : 0 }'
	if [ -n "${port_wire_bps:-}" ]; then
		awk -v w="$port_wire_bps" -v c="$rate_bps" -v b="${busy_s:-0}" 'BEGIN {
			printf "port wire throughput  %8.2f Mb/s  (configured %.2f, %+.1f%%; busy %.1f s)\n",
				w / 1e6, c / 1e6, (c > 0) ? 100 * (w - c) / c : 0, b }'
		awk -v m="$ecn_marked" -v e="$enq_packets" -v f="$marked_frac" \
		    -v t="$drops_tail" -v w="$drops_wred" 'BEGIN {
			printf "ECN marked            %8.4f      (%d of %d enqueued)\n", f, m, e
			printf "drops                 tail %d, wred %d\n", t, w }'
		awk -v a="${queue_mean_bytes:-0}" -v p="${queue_p99_bytes:-0}" \
		    -v k="$queue_peak_bytes" -v lo="$kmin_bytes" -v hi="$kmax_bytes" 'BEGIN {
			printf "queue KB              mean %.1f, p99 %.1f, peak %.1f  (kmin %.1f, kmax %.1f)\n",
				a / 1024, p / 1024, k / 1024, lo / 1024, hi / 1024 }'
	fi
	printf "Jain's fairness index %8.4f\n" "$jain" )
}

incast_plots()
{
	local n=$1 kmin=$2 kmax=$3 rate_bps=$4
	if [ -s "$OUT/queue.csv" ]; then
		dl_plot queue "$OUT/queue.png" "datafile='$OUT/queue.csv'" \
			"kmin=$kmin" "kmax=$kmax" "plottitle='incast: port queue'"
		dl_plot marked "$OUT/marked.png" "datafile='$OUT/window.csv'" \
			"plottitle='incast: ECN marked fraction per ${P[window_ms]} ms'"
	fi
	dl_plot throughput "$OUT/throughput.png" "prefix='$OUT/throughput-h'" \
		"n=$n" "share=$(awk -v c="$rate_bps" -v n="$n" -v pl="${P[pkt]}" \
			-v o="${P[overhead]}" 'BEGIN { print c * pl / (pl + 42 + o) / n / 1e6 }')" \
		"plottitle='incast: received throughput per sender'"
}
