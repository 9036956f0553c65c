#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# A port refreshes its PAUSE before the peer lets it lapse, when the peer
# times the quanta at a higher rate than the port's own.  Step:
#   faster peer      s1 at 20 Mbit/s (a PAUSE of 0xffff quanta lasts
#                    1.68 s there) feeds a switch port at 5 Mbit/s (6.7 s
#                    at its own rate); the egress port at 8 bit/s
#                    keeps what s1 sent, so once 40 datagrams passed the
#                    switch port holds s1 paused for good.  100 more
#                    datagrams queue at s1; over the next three PAUSE
#                    frames the switch port sends, s1 sends none of them
#                    and counts no lapse (pause_lapses: a PAUSE that came
#                    after the previous one had expired).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
load_dcb
dcb_topo 1
IN=$(topo_port sw s1)
TOS=0x60	# DSCP 24: band 3

FLOOD_PID=
at_exit 'kill $FLOOD_PID 2>/dev/null'

in_pauses() { [ "$(pfc_stat sw "$IN" pause_tx 3)" -ge "$1" ]; }
s1_holds() { [ "$(pfc_stat s1 eth0 backlog_packets 3)" -ge "$1" ]; }

faster_peer()
{
	local p0 deq paused lapses t0 t1
	topo_qdisc s1 eth0 dcb rate 20mbit dscp-map 0:7 limit 2mb ||
		{ check_err 1 "tc: s1"; return; }
	topo_qdisc sw "$IN" dcb rate 5mbit dscp-map 0:7 buffer 1mb \
		pfc prio-pfc 3 xoff 20kb delay 1ms || { check_err 1 "tc: ingress port"; return; }
	topo_qdisc sw "$PORT" dcb rate 8bit dscp-map 0:7 || { check_err 1 "tc: egress port"; return; }
	# past XOFF (20 KB) at the switch port: it pauses s1
	topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
		--count 40 --interval 0 --tos $TOS --len 1000 >/dev/null
	if ! wait_for --timeout 30 in_pauses 1; then
		check_err 1 "the switch port never paused s1"
		return
	fi
	# what s1 sends now waits in its own queue
	topo_exec s1 timeout "$(scaled_time 200)" "$TOP/tools/udpflow" \
		send "$RIP" 9 --count 100 --interval 0 \
		--tos $TOS --len 1000 >/dev/null 2>&1 &
	FLOOD_PID=$!
	if ! wait_for --timeout 30 s1_holds 50; then
		check_err 1 "s1 never held 50 datagrams: $(pfc_stat s1 eth0 backlog_packets 3) queued, $(pfc_stat s1 eth0 deq_packets 3) sent"
		return
	fi
	pfc_snap A sw s1
	t0=${EPOCHREALTIME//[.,]/}
	p0=$(sv A sw "$IN" pause_tx 3)
	# three more PAUSE frames: refreshes of the same pause
	if ! wait_for --timeout 30 in_pauses $((p0 + 3)); then
		check_err 1 "the switch port sent fewer than 3 refreshes in 30 s"
		return
	fi
	pfc_snap B sw s1
	t1=${EPOCHREALTIME//[.,]/}
	deq=$(( $(sv B s1 eth0 deq_packets 3) - $(sv A s1 eth0 deq_packets 3) ))
	paused=$(( $(sv B s1 eth0 paused_us 3) - $(sv A s1 eth0 paused_us 3) ))
	log "$(( $(sv B sw "$IN" pause_tx 3) - p0 )) PAUSEs from the switch port in $(( (t1 - t0) / 1000 )) ms: s1 sent $deq in band 3 of the $(sv A s1 eth0 backlog_packets 3) it held, was paused $(( paused / 1000 )) ms"
	check_assert assert_le "$deq" 0 "band-3 packets s1 sent while the switch port held it paused"
	lapses=$(( $(sv B s1 eth0 pause_lapses 3) - $(sv A s1 eth0 pause_lapses 3) ))
	log "pause_lapses at s1: $(sv B s1 eth0 pause_lapses 3) in all, +$lapses"
	check_assert assert_le "$lapses" 0 "PAUSEs of the switch port that came after s1's pause had lapsed"
	kill "$FLOOD_PID" 2>/dev/null
}

faster_peer
log_test "faster peer"

tests_exit
