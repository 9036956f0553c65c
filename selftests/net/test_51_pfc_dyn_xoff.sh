#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# The dynamic XOFF (beta) counts the shared part of the pool only.  Step:
#   headroom not shared   s1 (which ignores PAUSE) sends 40 band-3
#                         datagrams into the switch; the egress port at
#                         8 bit/s keeps them, so the ingress port pauses
#                         s1 and the bytes beyond XOFF fill its headroom.
#                         The XOFF in force is beta x (B - R - s) / 8 with
#                         s the pool's used bytes less those in headrooms
#                         (which R reserves already), exactly, from one
#                         statistics dump.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
load_dcb
dcb_topo 1
IN=$(topo_port sw s1)
BETA=1
TOS=0x60	# DSCP 24: band 3

queued() { [ "$(pfc_stat sw "$IN" pool.used)" -ge "$1" ]; }

headroom_not_shared()
{
	local size reserved used hr xoff want sent
	# headroom: auto, 2 x 1514 + 10 Mbit/s x 1 ms = 4278 B
	topo_qdisc sw "$IN" dcb rate 10mbit buffer 200kb \
		pfc prio-pfc 3 beta $BETA delay 1ms || { check_err 1 "tc: ingress port"; return; }
	topo_qdisc sw "$PORT" dcb rate 8bit || { check_err 1 "tc: egress port"; return; }
	sent=$(topo_exec s1 "$TOP/tools/udpflow" send "$RIP" 9 \
		--count 40 --interval 0 --tos $TOS --len 1000)
	# the first datagram leaves at once, 39 x 1042 B stay
	if ! wait_for --timeout 10 queued $((39 * 1042)); then
		check_err 1 "s1 sent $sent datagrams, the pool holds $(pfc_stat sw "$IN" pool.used) B"
		return
	fi
	pfc_snap S sw
	size=$(sv S sw "$IN" pool.size)
	reserved=$(sv S sw "$IN" pool.reserved)
	used=$(sv S sw "$IN" pool.used)
	hr=$(sv S sw "$IN" pool.headroom_used)
	# the port's totals: band 3 is its only lossless band
	xoff=$(sv S sw "$IN" xoff)
	want=$(( BETA * (size - reserved - (used - hr)) / 8 ))
	log "pool: size $size reserved $reserved used $used headroom_used $hr; pause_tx $(sv S sw "$IN" pause_tx); xoff $xoff, beta x (B - R - s) / 8 = $want"
	check_assert assert_ge "$(sv S sw "$IN" pause_tx)" 1 "PAUSEs sent by the ingress port"
	check_assert assert_ge "$hr" 1042 "bytes in the headroom"
	[ "$xoff" = "$want" ]
	check_err $? "dynamic XOFF $xoff B, not beta x (B - R - s) / 8 = $want B (with the headroom bytes in s: $(( BETA * (size - reserved - used) / 8 )) B)"
}

headroom_not_shared
log_test "headroom not shared"

tests_exit
