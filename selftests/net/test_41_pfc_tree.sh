#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# PAUSE spreads hop by hop (a congestion tree) and hurts a victim flow
# (DCQCN paper Fig. 4, PCN Fig. 1):
#
#   s1 s2 s3  v                 s4 s5
#    \  |  | /                   | /
#       sw1 ------------------- sw2 ---- r     (congested: sw2 -> r)
#                                 \
#                                  vr          (victim's receiver)
#
# s1..s5 send at line rate to r; v sends to vr and never crosses the
# congested port sw2 -> r.  All links 100 Mb/s, PFC on band 3 everywhere.
# Steps:
#   victim alone      the victim's flow arrives, and alone it gets at
#                     least 90% of its line rate (limited by its own NIC,
#                     not starved; a performance check);
#   victim slowed     with s1..s5 sending, the victim's sender is paused
#                     and its throughput is below half its throughput
#                     alone (the paper's Fig. 4: halved with no sender
#                     beside the incast's; a performance check);
#   no drop           once the queues drained, no drop anywhere;
#   pause hop by hop  counters at each hop: sw2 pauses sw1 (sw2's port
#                     toward sw1 pause_tx, sw1's port toward sw2 pause_rx
#                     and paused_us), sw1 then pauses its hosts (sw1's
#                     host ports pause_tx, the hosts' NICs paused_us),
#                     including the victim's sender v, sw2 pauses s4 and
#                     s5, and the victim's receiver vr is never paused.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

load_dcb

# line rate, PFC delay and windows scaled on a slow kernel (DCBLAB_SLOW,
# lib.sh): the same headroom in bytes
RATE=$(scaled_rate 100mbit)
TOS=0x60		# DSCP 24 -> band 3
WIN=${PFC41_WINDOW:-$(scaled_time 1)}	# seconds per measurement window
# sch_dcb's default PAUSE delay (5 ms), scaled with the rate
SWOPTS="rate $RATE dscp-map 0:7 buffer 1mb pfc prio-pfc 3 xoff 16kb delay $(scaled_time 5ms)"
HOSTOPTS="rate $RATE dscp-map 0:7 limit 2mb"

topo_init "p41$$" || fail "topo_init"
at_exit topo_cleanup
topo_switch sw1 && topo_switch sw2 || fail "switches"
topo_link sw1 sw2 >/dev/null || fail "sw1-sw2"
for h in s1 s2 s3 v; do topo_host $h && topo_link $h sw1 >/dev/null || fail "$h"; done
for h in s4 s5 r vr; do topo_host $h && topo_link $h sw2 >/dev/null || fail "$h"; done
topo_routes || fail "routes"
# shellcheck disable=SC2086
topo_dcb_all switch $SWOPTS || fail "tc: $SWOPTS"
# shellcheck disable=SC2086
topo_dcb_all host $HOSTOPTS || fail "tc: $HOSTOPTS"
RIP=$(topo_ip4 r)
VRIP=$(topo_ip4 vr)
ALL=(sw1 sw2 s1 s2 s3 s4 s5 v r vr)
topo_exec v ping -c1 -W5 "$VRIP" >/dev/null || fail "no path v -> vr"
topo_exec s1 ping -c1 -W5 "$RIP" >/dev/null || fail "no path s1 -> r"

rx_bytes() { iface_stat vr eth0 rx_bytes; }
# victim_rate SECONDS: vr's received bits/s over SECONDS
victim_rate()
{
	local b0 b1 t0 t1
	b0=$(rx_bytes); t0=$(date +%s.%N)
	sleep "$1"
	b1=$(rx_bytes); t1=$(date +%s.%N)
	awk -v b=$((b1 - b0)) -v a="$t0" -v z="$t1" 'BEGIN { printf "%.0f", 8 * b / (z - a) }'
}
# shellcheck disable=SC2317  # for wait_for
flowing() { [ "$(rx_bytes)" -ge $(($1 + 100000)) ]; }

# Traffic runs through the steps: the victim from the first on, the
# incast (pids in INCAST) from the second; the second ends both.
D0=$(pfc_drop_report "${ALL[@]}")
tc_sink vr 7001
tc_sink r 7000
ALONE=
INCAST=()
up=$(topo_port sw2 sw1)
down=$(topo_port sw1 sw2)
# shellcheck disable=SC2317  # for wait_for
paused_v() { [ "$(pfc_stat v eth0 pause_rx 3)" -ge 1 ]; }

# the victim alone (line rate: limited by its own shaped NIC)
victim_alone()
{
	local b
	pfc_sender v "$VRIP" 7001 $TOS 100000
	vpid=$FLOW_PID
	b=$(rx_bytes)
	if ! wait_for --timeout 20 flowing "$b"; then
		check_err 1 "victim flow does not arrive"
		return
	fi
	cpu_mark
	ALONE=$(victim_rate "$WIN")
	cpu_guard "the victim alone"
	log "victim alone: $ALONE b/s"
	# the victim alone was limited by its NIC's line rate, not starved
	check_perf_assert assert_ge "$ALONE" $(( $(rate_bps "$RATE") * 9 / 10 )) "victim alone (b/s)"
}

# the incast: the victim's rate while its sender is paused
victim_slowed()
{
	local h during ratio
	for h in s1 s2 s3 s4 s5; do
		pfc_sender $h "$RIP" 7000 $TOS 100000
		INCAST+=("$FLOW_PID")
	done
	if ! wait_for --timeout 30 paused_v; then
		check_err 1 "the victim's sender was never paused (sw2->sw1 pause_tx $(pfc_stat sw2 "$up" pause_tx 3))"
		return
	fi
	cpu_mark
	during=$(victim_rate "$WIN")
	cpu_guard "the victim during the incast"
	log "victim during the incast: $during b/s"
	if [ -z "$ALONE" ]; then
		check_err 1 "no rate of the victim alone to compare with"
		return
	fi
	ratio=$(awk -v a="$ALONE" -v d="$during" 'BEGIN { printf "%.3f", d / a }')
	log "victim throughput during / alone = $ratio"
	check_perf_assert assert_le "$ratio" 0.5 "victim's throughput during the incast relative to alone"
}

no_drop()
{
	local D1
	if ! wait_for --timeout 60 pfc_all_drained "${ALL[@]}"; then
		check_err 1 "queues did not drain"
		return
	fi
	D1=$(pfc_drop_report "${ALL[@]}")
	pfc_drops_delta "$D0" "$D1"
	check_assert assert_le "$PFC_DROPS" 0 "drops anywhere (${PFC_DROPS_WHAT:-none})"
}

pause_hop_by_hop()
{
	local h sw
	pfc_snap S "${ALL[@]}"
	log "sw2 port toward sw1: pause_tx $(sv S sw2 "$up" pause_tx 3) in_peak $(sv S sw2 "$up" in_peak 3)"
	log "sw1 port toward sw2: pause_rx $(sv S sw1 "$down" pause_rx 3) paused_us $(sv S sw1 "$down" paused_us 3) backlog_peak $(sv S sw1 "$down" backlog_peak)"
	for h in s1 s2 s3 v s4 s5; do
		sw=sw1; case $h in s4|s5) sw=sw2;; esac
		log "  $h: $sw port pause_tx $(sv S $sw "$(topo_port $sw $h)" pause_tx 3) in_peak $(sv S $sw "$(topo_port $sw $h)" in_peak 3) in_drops $(sv S $sw "$(topo_port $sw $h)" in_drops 3)," \
			"NIC pause_rx $(sv S $h eth0 pause_rx 3) paused_us $(sv S $h eth0 paused_us 3)"
	done
	check_assert assert_ge "$(sv S sw2 "$up" pause_tx 3)" 1 "sw2 paused sw1 (pause_tx toward sw1)"
	check_assert assert_ge "$(sv S sw1 "$down" pause_rx 3)" 1 "sw1's port toward sw2 received PAUSE"
	check_assert assert_ge "$(sv S sw1 "$down" paused_us 3)" 1 "sw1's port toward sw2 was paused (us)"
	for h in s1 s2 s3 v; do
		check_assert assert_ge "$(sv S sw1 "$(topo_port sw1 $h)" pause_tx 3)" 1 "sw1 paused $h"
		check_assert assert_ge "$(sv S $h eth0 paused_us 3)" 1 "$h was paused (us)"
	done
	for h in s4 s5; do
		check_assert assert_ge "$(sv S sw2 "$(topo_port sw2 $h)" pause_tx 3)" 1 "sw2 paused $h"
	done
	check_assert assert_le "$(sv S vr eth0 pause_rx 3)" 0 "the victim's receiver was not paused"
}

victim_alone
log_test "victim alone"
victim_slowed
kill "${INCAST[@]}" "$vpid" 2>/dev/null
log_test "victim slowed"
no_drop
log_test "no drop"
pause_hop_by_hop
log_test "pause hop by hop"

tests_exit
