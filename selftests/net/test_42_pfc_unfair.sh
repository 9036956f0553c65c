#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# PFC unfairness (DCQCN paper Fig. 3): PFC pauses ingress ports, not flows.
#
#   h1 ------- sw1 ---- r         (congested: sw1 -> r)
#               |
#   h2 h3 h4 - sw2
#
# h1 is alone on its ingress port of sw1; h2..h4 share sw1's ingress port
# from sw2.  All at line rate to r, PFC only (no ECN), 100 Mb/s links.
# Steps (over one run of the four senders):
#   bottleneck busy  once sw1 has paused both of its ingress ports, the
#                    bottleneck carries between 5/6 and 25/24 of the
#                    datagrams per second its line rate allows (12,000
#                    of 1042 bytes at 100 Mb/s): busy and not exceeded;
#   no drop          once the queues drained, no drop anywhere;
#   unfairness       sw1 serves its two ingress ports about equally, so h1
#                    gets about half of the bottleneck and h2..h4 a sixth
#                    each: h1 >= 2.5x each of the others (3x in the fluid
#                    picture; a performance check).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

load_dcb

# line rate, PFC delay and window scaled on a slow kernel (DCBLAB_SLOW,
# lib.sh): the same headroom in bytes, the same datagrams per window
RATE=$(scaled_rate 100mbit)
TOS=0x60		# DSCP 24 -> band 3, not ECT
WIN=${PFC42_WINDOW:-$(scaled_time 2)}	# seconds of measurement
LINE_DPS=$(udp_line_dps "$RATE")
# sch_dcb's default PAUSE delay (5 ms), scaled with the rate
SWOPTS="rate $RATE dscp-map 0:7 buffer 1mb ecn off pfc prio-pfc 3 xoff 16kb delay $(scaled_time 5ms)"
HOSTOPTS="rate $RATE dscp-map 0:7 limit 2mb"

topo_init "p42$$" || fail "topo_init"
at_exit topo_cleanup
topo_switch sw1 && topo_switch sw2 || fail "switches"
topo_host r && topo_link r sw1 >/dev/null || fail "r"
topo_host h1 && topo_link h1 sw1 >/dev/null || fail "h1"
topo_link sw2 sw1 >/dev/null || fail "sw2-sw1"
for h in h2 h3 h4; do topo_host $h && topo_link $h sw2 >/dev/null || fail "$h"; done
topo_routes || fail "routes"
# shellcheck disable=SC2086
topo_dcb_all switch $SWOPTS || fail "tc: $SWOPTS"
# shellcheck disable=SC2086
topo_dcb_all host $HOSTOPTS || fail "tc: $HOSTOPTS"
RIP=$(topo_ip4 r)
for h in h1 h2 h3 h4; do
	topo_exec $h ping -c1 -W5 "$RIP" >/dev/null || fail "no path $h -> r"
done
D0=$(pfc_drop_report sw1 sw2 h1 h2 h3 h4 r)


# one UDP port per sender, counted (and consumed) at r's ingress
tc_sink r 7001 7002 7003 7004
p1=$(topo_port sw1 h1); p2=$(topo_port sw1 sw2)
# congestion established: sw1 paused both of its ingress ports
# shellcheck disable=SC2317  # for wait_for
both_paused() {
	[ "$(pfc_stat sw1 "$p1" pause_tx 3)" -ge 1 ] &&
	[ "$(pfc_stat sw1 "$p2" pause_tx 3)" -ge 1 ]
}
# datagrams received per sender over the window (c[1..4]; empty when the
# window was not measured) and the window's length
declare -A c
secs=

# The senders start here and run until the step ends.
bottleneck_busy()
{
	local i pids=() tot=0
	for i in 1 2 3 4; do
		pfc_sender "h$i" "$RIP" $((7000 + i)) $TOS 100000
		pids+=("$FLOW_PID")
	done
	if wait_for --timeout 30 both_paused; then
		measure
	else
		check_err 1 "sw1 did not pause both ingress ports (pause_tx $(pfc_stat sw1 "$p1" pause_tx 3) and $(pfc_stat sw1 "$p2" pause_tx 3))"
	fi
	kill "${pids[@]}" 2>/dev/null
	for i in "${pids[@]}"; do wait "$i" 2>/dev/null; done
	[ "$RET" = 0 ] || return
	for i in 1 2 3 4; do
		log "h$i: ${c[$i]} datagrams received in $secs s" \
			"($(awk -v n="${c[$i]}" -v w="$secs" 'BEGIN { printf "%.2f", n * 1042 * 8 / w / 1e6 }') Mb/s on the wire)"
		tot=$((tot + c[$i]))
	done
	# the bottleneck (LINE_DPS datagrams/s) was busy, and not exceeded
	check_assert assert_ge "$tot" "$(awk -v s="$secs" -v d="$LINE_DPS" 'BEGIN { printf "%d", s * d * 5 / 6 }')" "datagrams through the bottleneck in $secs s"
	check_assert assert_le "$tot" "$(awk -v s="$secs" -v d="$LINE_DPS" 'BEGIN { printf "%d", s * d * 25 / 24 }')" "datagrams through the bottleneck in $secs s"
}

# measure: the window of WIN seconds, into c[] and secs (a missing sink
# counter leaves c[] empty and fails the step).
measure()
{
	local i
	cpu_mark
	tc_sink_snap K0 r
	sleep "$WIN"
	tc_sink_snap K1 r
	cpu_guard "the window"
	for i in 1 2 3 4; do
		if [ -z "${K1[$((7000 + i))]:-}" ]; then
			check_err 1 "no sink counter for port $((7000 + i))"
			c=()
			return
		fi
		c[$i]=$(( K1[$((7000 + i))] - K0[$((7000 + i))] ))
	done
	secs=$(awk -v a="${K0[t]}" -v b="${K1[t]}" 'BEGIN { printf "%.3f", b - a }')
}

no_drop()
{
	local D1 h d
	if ! wait_for --timeout 60 pfc_all_drained sw1 sw2 h1 h2 h3 h4; then
		check_err 1 "queues did not drain"
		return
	fi
	D1=$(pfc_drop_report sw1 sw2 h1 h2 h3 h4 r)
	pfc_drops_delta "$D0" "$D1"
	pfc_snap S sw1 sw2
	log "ingress ports of sw1: from h1 pause_tx $(sv S sw1 "$p1" pause_tx 3) in_peak $(sv S sw1 "$p1" in_peak 3);" \
		"from sw2 pause_tx $(sv S sw1 "$p2" pause_tx 3) in_peak $(sv S sw1 "$p2" in_peak 3)"
	for h in h2 h3 h4; do
		d=$(topo_port sw2 $h)
		log "  sw2 port from $h: pause_tx $(sv S sw2 "$d" pause_tx 3) in_peak $(sv S sw2 "$d" in_peak 3) in_drops $(sv S sw2 "$d" in_drops 3)"
	done
	check_assert assert_le "$PFC_DROPS" 0 "drops anywhere (${PFC_DROPS_WHAT:-none})"
}

unfairness()
{
	local i ratio
	if [ -z "${c[1]:-}" ]; then
		check_err 1 "no window measured (see bottleneck busy)"
		return
	fi
	for i in 2 3 4; do
		ratio=$(awk -v a="${c[1]}" -v b="${c[$i]}" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 99 }')
		check_perf_assert assert_ge "$ratio" 2.5 "h1 / h$i received"
	done
}

bottleneck_busy
log_test "bottleneck busy"
no_drop
log_test "no drop"
unfairness
log_test "unfairness"

tests_exit
