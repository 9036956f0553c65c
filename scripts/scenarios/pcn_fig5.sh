# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pcn_fig5: PCN paper Fig. 5 (section 4.1), scaled: a flow sent no faster
# than its receiving rate triggers no PAUSE, and then spares the flows it
# shares its upstream link with.
#
#   f0 --\                  /-- r0      F0: f0 -> r0 at its fair share
#         s0 ------------ s1 --- r1     F1: f1 -> r1, swept down step by step
#   f1 --/                  |           b1..b3 -> r1 at line rate (the
#                        b1 b2 b3        "uncontrollable bursts")
#
# PFC only (no ECN, no congestion control: UDP senders at fixed rates, as
# the paper's rate limiters).  r1's port is congested; F1's packets queue
# at s1's ingress from s0 (the paper's p1/S1) while F1 sends faster than
# it receives, that port pauses s0, and F0, which crosses no congested
# port, loses throughput.  One run of `step_s` seconds per F1 rate of
# `f1_shares`; per step: F0's and F1's sending and receiving rates, the
# bursters' sum, PAUSE frames from s1's port toward s0 per second, and
# the share of the step s0's port toward s1 was held by PAUSE.  F0's and
# F1's rates are fractions of the line rate C, the paper's 0.5 C for F0
# and its sweep of F1 from 0.5 C down.
#
# Scaling: F1's bytes at s1's ingress are F1's rate times the queueing
# delay of r1's port, whose queue the n ingress ports feeding it (F1's
# and the bursters') can fill to XOFF + headroom each: F1 pauses s0 when
# F1 / C > XOFF / (n (XOFF + H)).  In the paper H (22.4 KB, 4.5 us at
# 40 Gb/s) is small against the queue a rate mismatch builds, so the
# threshold is F1's receiving rate C / n; sch_dcb's headroom (2 MTU + C x
# its default delay of 5 ms, 64 KB at 100 Mb/s) is not, so XOFF is made
# large against it: XOFF = 4 H, 256 KB at 100 Mb/s, puts the threshold
# at 0.8 C / n (F1 at 0.2 C with the three bursters).  The pool holds
# the six ports' headrooms and the four loaded ingress ports' XOFF.
# Helpers: scripts/lib/pfcs.sh (pfcs_*).

# shellcheck source=../lib/pfcs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pfcs.sh"

describe()
{
	echo "PCN Fig. 5: PAUSEs from the congested path vs the victim's throughput as F1's sending rate is swept (UDP, PFC only)"
}

params()
{
	cat <<'EOF2'
rate            100mbit   line rate of every port and host NIC
f0_share        0.5       F0's sending rate, a fraction of the line rate: its fair share of s0 -> s1
f1_shares       0.5,0.4,0.3,0.25,0.2,0.15,0.1,0.05  F1's sending rates (fractions of the line rate), one step each, in this order
bursters        3         senders b1..bN at line rate into r1
buffer          2mb       pool size of each switch
xoff            256kb     static XOFF per (ingress port, band 3): 4 x the headroom (see above)
delay           5ms       PAUSE response time the headroom is sized for (sch_dcb's default)
pkt             1000      UDP payload bytes per datagram
step_s          8         seconds of traffic per step
duration        200       time budget (s): only sizes dcblab's guest timeout (10 x duration + 240)
interval_ms     20        dcbmon sampling interval
report_interval 0.5       iperf3 interval (s)
EOF2
}

# pf5_held NODE DEV: pause_tx and paused_us of the port's band 3
pf5_held() { pfcs_port_stats "$1" "$2" | cut -f1,4; }

# pf5_rx PORT: bits/s the iperf3 server on PORT received
pf5_rx()
{
	jq -r '.end.sum_received.bits_per_second // 0' "$OUT/iperf3-server-$1.json" 2>/dev/null || echo 0
}

# pf5_mbps SHARE: SHARE of the line rate in Mb/s
pf5_mbps()
{
	awk -v s="$1" -v c="$(dl_rate_bps "${P[rate]}")" 'BEGIN { printf "%g\n", s * c / 1e6 }'
}

# pf5_step K F1_MBPS: one step (F0 at PF5_F0 Mb/s); appends its row to
# steps.tsv
pf5_step()
{
	local k=$1 f1=$2 r0ip r1ip p1 p0 i base pause0 pause1 held0 held1 bsum=0 b
	r0ip=$(topo_ip4 r0); r1ip=$(topo_ip4 r1)
	p1=$(topo_port s1 s0); p0=$(topo_port s0 s1)
	base=$((5500 + 10 * k))
	pfcs_setup || return 1
	pfcs_server r0 "$base"
	for i in $(seq 1 $((${P[bursters]} + 1))); do pfcs_server r1 $((base + i)); done
	dl_wait_listen r0 "$base" || return 1
	for i in $(seq 1 $((${P[bursters]} + 1))); do dl_wait_listen r1 $((base + i)) || return 1; done
	pfcs_client f0 "$r0ip" "$base" "${P[step_s]}" 0 "$PF5_F0"
	pfcs_client f1 "$r1ip" $((base + 1)) "${P[step_s]}" 0 "$f1"
	for i in $(seq 1 "${P[bursters]}"); do
		pfcs_client "b$i" "$r1ip" $((base + 1 + i)) "${P[step_s]}"
	done
	read -r pause0 _ < <(pf5_held s1 "$p1"); read -r _ held0 < <(pf5_held s0 "$p0")
	log "step $k: F0 $PF5_F0 Mb/s, F1 $f1 Mb/s, ${P[bursters]} bursters at ${P[rate]}, ${P[step_s]} s"
	pfcs_go
	pfcs_wait
	read -r pause1 _ < <(pf5_held s1 "$p1"); read -r _ held1 < <(pf5_held s0 "$p0")
	for i in $(seq 1 "${P[bursters]}"); do
		b=$(pf5_rx $((base + 1 + i))); bsum=$(awk -v a="$bsum" -v b="$b" 'BEGIN { print a + b }')
	done
	awk -v f1="$f1" -v f0="$PF5_F0" -v r0="$(pf5_rx "$base")" -v r1="$(pf5_rx $((base + 1)))" \
	    -v bs="$bsum" -v dp=$((pause1 - pause0)) -v dh=$((held1 - held0)) -v d="${P[step_s]}" 'BEGIN {
		printf "%s\t%.3f\t%s\t%.3f\t%.3f\t%d\t%.2f\t%.4f\n", f1, r1 / 1e6, f0, r0 / 1e6, bs / 1e6,
			dp, dp / d, dh / (d * 1e6) }' >>"$OUT/steps.tsv"
	log "step $k: $(tail -n1 "$OUT/steps.tsv")"
}

PF5_HDR='f1_send_mbps	f1_rx_mbps	f0_send_mbps	f0_rx_mbps	burst_rx_mbps	pause_tx	pause_per_s	s0_held'

run()
{
	local h i k=0 f1
	# clock_spin (common.sh), which pfcs_client calls; common.sh's exit
	# handling (_lib_exit) and dcblab's own as well
	dl_test_libs
	# shellcheck disable=SC2154
	trap '_pf5_rc=$?; dl_monitor_stop; topo_cleanup; (exit $_pf5_rc); _lib_exit' EXIT
	pfcs_setup || return 1
	PF5_F0=$(pf5_mbps "${P[f0_share]}") || return 1
	topo_switch s0 && topo_switch s1 || return 1
	topo_link s0 s1 >/dev/null || return 1
	for h in f0 f1; do topo_host $h && topo_link $h s0 >/dev/null || return 1; done
	for h in r0 r1; do topo_host $h && topo_link $h s1 >/dev/null || return 1; done
	for i in $(seq 1 "${P[bursters]}"); do
		topo_host "b$i" && topo_link "b$i" s1 >/dev/null || return 1
	done
	topo_routes || return 1
	P[pfc]=on
	pfcs_qdiscs || return 1
	printf '%s\n' "$PF5_HDR" >"$OUT/steps.tsv"
	dl_monitor_start "$(topo_ns s1):$(topo_port s1 s0)" "$(topo_ns s1):$(topo_port s1 r1)" \
		"$(topo_ns s0):$(topo_port s0 s1)"
	for f1 in ${P[f1_shares]//,/ }; do
		k=$((k + 1))
		pf5_step "$k" "$(pf5_mbps "$f1")" || return 1
	done
	dl_monitor_stop
	{
		echo "pcn_fig5: F0 f0 -> r0 at $PF5_F0 Mb/s, F1 f1 -> r1 swept, ${P[bursters]} bursters -> r1 at ${P[rate]}; PFC only; ${P[step_s]} s per step"
		sed 's/^/  /' "$OUT/qdisc.txt"
		echo "  (pause_tx, pause_per_s: PAUSE frames s1 sent toward s0; s0_held: share of the step s0 -> s1 was paused)"
		echo
		column -t -s "$(printf '\t')" "$OUT/steps.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# rates.png and pause.png are drawn on the host
	# (scripts/dcbanalysis/scenarios/pcn_fig5.py)
	return 0
}
