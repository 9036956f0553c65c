#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 360
#
# PFC unfairness (DCQCN paper Fig. 3): PFC pauses ingress ports, not flows.
#
#   h1 ------- sw1 ---- r         (congested: sw1 -> r)
#               |
#   h2 h3 h4 - sw2
#
# h1 is alone on its ingress port of sw1; h2..h4 share sw1's ingress port
# from sw2.  All at line rate to r, PFC only (no ECN), 10 Mb/s links.
# sw1 serves its two ingress ports about equally, so h1 gets about half of
# the bottleneck and h2..h4 a sixth each: h1 >= 1.5x each of the others.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
load_dcb

# line rate, PFC delay and window scaled on a slow kernel (DCBLAB_SLOW,
# lib.sh): the same headroom in bytes, the same datagrams per window
RATE=$(scaled_rate 10mbit)
TOS=0x60		# DSCP 24 -> band 3, not ECT
WIN=${PFC42_WINDOW:-$(scaled_time 6)}	# seconds of measurement
# delay 50ms: headroom 2 MTU + 62.5 KB.  With delay 20ms (28 KB) a port's
# headroom overflowed (in_peak 42722 = XOFF + 26 KB, 18 and 24 drops):
# under TCG a PAUSE sometimes takes over 20 ms to stop a sender.
SWOPTS="rate $RATE dscp-map 0:7 buffer 1mb ecn off pfc prio-pfc 3 xoff 16kb delay $(scaled_time 50ms)"
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
pids=()
for i in 1 2 3 4; do
	pfc_sender "h$i" "$RIP" $((7000 + i)) $TOS 100000
	pids+=("$FLOW_PID")
done
# congestion established: sw1 paused both of its ingress ports
p1=$(topo_port sw1 h1); p2=$(topo_port sw1 sw2)
both_paused() {
	[ "$(pfc_stat sw1 "$p1" pause_tx 3)" -ge 1 ] &&
	[ "$(pfc_stat sw1 "$p2" pause_tx 3)" -ge 1 ]
}
wait_for --timeout 30 both_paused || fail "sw1 did not pause both ingress ports" \
	"(pause_tx $(pfc_stat sw1 "$p1" pause_tx 3) and $(pfc_stat sw1 "$p2" pause_tx 3))"
declare -A c
tc_sink_snap K0 r
sleep "$WIN"
tc_sink_snap K1 r
secs=$(awk -v a="${K0[t]}" -v b="${K1[t]}" 'BEGIN { printf "%.3f", b - a }')
for i in 1 2 3 4; do
	[ -n "${K1[$((7000 + i))]:-}" ] || fail "no sink counter for port $((7000 + i))"
	c[$i]=$(( K1[$((7000 + i))] - K0[$((7000 + i))] ))
done
kill "${pids[@]}" 2>/dev/null
for i in "${pids[@]}"; do wait "$i" 2>/dev/null; done
wait_for --timeout 60 pfc_all_drained sw1 sw2 h1 h2 h3 h4 || fail "queues did not drain"
D1=$(pfc_drop_report sw1 sw2 h1 h2 h3 h4 r)
pfc_drops_delta "$D0" "$D1"

pfc_snap S sw1 sw2
log "ingress ports of sw1: from h1 pause_tx $(sv S sw1 "$p1" pause_tx 3) in_peak $(sv S sw1 "$p1" in_peak 3);" \
	"from sw2 pause_tx $(sv S sw1 "$p2" pause_tx 3) in_peak $(sv S sw1 "$p2" in_peak 3)"
for h in h2 h3 h4; do
	d=$(topo_port sw2 $h)
	log "  sw2 port from $h: pause_tx $(sv S sw2 "$d" pause_tx 3) in_peak $(sv S sw2 "$d" in_peak 3) in_drops $(sv S sw2 "$d" in_drops 3)"
done
tot=0
for i in 1 2 3 4; do
	log "h$i: ${c[$i]} datagrams received in $secs s" \
		"($(awk -v n="${c[$i]}" -v w="$secs" 'BEGIN { printf "%.2f", n * 1042 * 8 / w / 1e6 }') Mb/s on the wire)"
	tot=$((tot + c[$i]))
done
assert_le "$PFC_DROPS" 0 "drops anywhere (${PFC_DROPS_WHAT:-none})"
# the bottleneck (10 Mb/s = 1200 datagrams/s, divided by SLOW) was busy,
# and not exceeded
assert_ge "$tot" "$(awk -v s="$secs" -v k="$SLOW" 'BEGIN { printf "%d", s * 1000 / k }')" "datagrams through the bottleneck in $secs s"
assert_le "$tot" "$(awk -v s="$secs" -v k="$SLOW" 'BEGIN { printf "%d", s * 1250 / k }')" "datagrams through the bottleneck in $secs s"
for i in 2 3 4; do
	ratio=$(awk -v a="${c[1]}" -v b="${c[$i]}" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 99 }')
	xfail_on_slow assert_ge "$ratio" 1.5 "h1 / h$i received"
done
exit 0
