#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# PFC state survives reconfiguration and goes away cleanly (no oops, no
# leak, the runner checks dmesg):
#  - replacing a paused switch port's qdisc under traffic: the old port
#    resumes what it had paused (the sender sends again within 5 s, though
#    a PAUSE of 0xffff quanta at 2 Mbit/s lasts 16.8 s) and the new port
#    takes over (it pauses the sender again);
#  - `pfc off` on a paused port sends a RESUME;
#  - the switch namespace deleted while ports are paused and packets are
#    queued and charged across ports;
#  - sch_dcb unloaded right after its last qdisc is deleted under traffic.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
load_dcb

SW="rate 2mbit dscp-map 0:7 buffer 1mb"
# xon far below xoff: the slow egress port keeps s1 paused most of the time
PFC="pfc prio-pfc 3 xoff 20kb xon 2kb delay 30ms"
HOST="rate 2mbit dscp-map 0:7 limit 2mb"
TOS=0x60	# DSCP 24: band 3

build()
{
	topo_init "p45$$-$1" || fail "topo_init"
	topo_switch sw >/dev/null || fail "switch"
	topo_host s1 && topo_link s1 sw >/dev/null || fail "s1"
	topo_host r && topo_link r sw >/dev/null || fail "r"
	topo_routes || fail "routes"
	RIP=$(topo_ip4 r)
	IN=$(topo_port sw s1)
	OUT=$(topo_port sw r)
	topo_qdisc s1 eth0 dcb $HOST || fail "s1 qdisc"
	topo_qdisc r eth0 dcb $HOST || fail "r qdisc"
	topo_qdisc sw "$IN" dcb $SW $PFC || fail "sw in qdisc"
	# the congested egress port: 5% of the line rate
	topo_qdisc sw "$OUT" dcb rate 100kbit dscp-map 0:7 $PFC || fail "sw out qdisc"
}

# flood SECONDS: s1 sends band-3 datagrams at ~4 Mbit/s (blocking socket).
flood()
{
	topo_exec s1 timeout "$1" python3 "$TOP/scripts/lib/udp_send.py" "$RIP" 9 \
		--count 1000000 --interval 0.002 --tos $TOS --len 1000 >/dev/null 2>&1 &
	FLOOD_PID=$!
}

in_paused() { [ "$(pfc_stat sw "$IN" pause_tx 3)" -ge "$1" ]; }
# in_holding: the switch's ingress port has s1 paused now (one snapshot).
in_holding()
{
	local j
	j=$(pfc_json sw "$IN")
	[ "$(pfc_get "$j" pause_tx 3)" -gt "$(pfc_get "$j" resume_tx 3)" ]
}

s1_sent_more() { [ "$(pfc_stat s1 eth0 deq_packets)" -ge "$1" ]; }

FLOOD_PID=
at_exit 'kill $FLOOD_PID 2>/dev/null; topo_cleanup'

build a
flood 200
wait_for --timeout 30 in_paused 1 || fail "switch never paused s1"
log "paused: pause_tx=$(pfc_stat sw "$IN" pause_tx 3)"

# 1. Replace the ingress port's qdisc three times under traffic.
for i in 1 2 3; do
	wait_for --timeout 30 in_holding || fail "s1 not paused before replacement $i"
	d0=$(pfc_stat s1 eth0 deq_packets)
	topo_qdisc sw "$IN" dcb $SW $PFC || fail "replace $i"
	wait_for --timeout 5 s1_sent_more $((d0 + 5)) ||
		fail "s1 still held 5 s after replacement $i: the old port did not resume"
	wait_for --timeout 30 in_paused 1 || fail "replacement $i never paused s1"
done
log "after 3 replacements: pause_tx=$(pfc_stat sw "$IN" pause_tx 3) s1 pause_rx=$(pfc_stat s1 eth0 pause_rx 3) resume_rx=$(pfc_stat s1 eth0 resume_rx 3)"

# 2. pfc off on the paused port: one more RESUME reaches s1.
wait_for --timeout 30 in_holding || fail "not paused before pfc off"
r0=$(pfc_stat s1 eth0 resume_rx 3)
topo_tc sw qdisc change dev "$IN" root dcb rate 2mbit pfc off || fail "pfc off"
wait_for --timeout 10 eval '[ "$(pfc_stat s1 eth0 resume_rx 3)" -gt '"$r0"' ]' ||
	fail "no RESUME after pfc off"
topo_tc sw qdisc change dev "$IN" root dcb rate 2mbit $PFC || fail "pfc back on"
wait_for --timeout 30 in_paused 1 || fail "not paused again"

# 3. Delete the switch while paused, with packets queued and charged.
wait_for --timeout 30 eval '[ "$(pfc_stat sw "$OUT" backlog_bytes)" -gt 10000 ]' ||
	fail "no backlog at the congested port"
log "deleting the switch: backlog $(pfc_stat sw "$OUT" backlog_bytes) B, pool used $(pfc_stat sw "$OUT" pool.used) B"
ip netns del "$(topo_ns sw)" || fail "netns del"
kill $FLOOD_PID 2>/dev/null
wait $FLOOD_PID 2>/dev/null
topo_cleanup

# 4. Unload right after the last qdisc goes, under traffic.
build b
flood 200
wait_for --timeout 30 in_paused 1 || fail "switch b never paused s1"
for n in sw s1 r; do
	for d in $(topo_ports "$n"); do
		topo_tc "$n" qdisc del dev "$d" root || fail "qdisc del $n:$d"
	done
done
kill $FLOOD_PID 2>/dev/null
wait $FLOOD_PID 2>/dev/null
rmmod sch_dcb || fail "rmmod sch_dcb after deleting every qdisc"
log "sch_dcb unloaded"
load_dcb
echo "PASS: replace x3, pfc off, netns delete while paused, unload"
exit 0
