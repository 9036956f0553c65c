#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# PFC state survives reconfiguration and goes away cleanly (no oops, no
# leak, the runner checks dmesg).  Steps:
#   replace under traffic  replacing a paused switch port's qdisc under
#                          traffic, three times: the old port resumes what
#                          it had paused (the sender sends again within
#                          5 s, though a PAUSE of 0xffff quanta at 2 Mbit/s
#                          lasts 16.8 s) and the new port takes over (it
#                          pauses the sender again);
#   pfc off                `pfc off` on a paused port sends a RESUME, and
#                          with PFC back on the port pauses again;
#   netns delete           the switch namespace deleted while ports are
#                          paused and packets are queued and charged
#                          across ports;
#   unload                 sch_dcb unloaded right after its last qdisc is
#                          deleted under traffic (a second topology);
#   pending resume         a RESUME the port announced but could not send
#                          yet (its link lost its carrier) is sent when its
#                          qdisc is deleted (a third topology; the attempt
#                          read from the tracepoint dcb_pfc_tx, as the
#                          frame cannot reach s1 with the link down).
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
# The steps stop it; SECONDS only bounds a flood a failed step left behind,
# and must outlast the steps (on the debug kernel beside another guest the
# replacements alone took 190 s, and a 200 s flood ended before pfc off).
flood()
{
	topo_exec s1 timeout "$1" "$TOP/tools/udpflow" send "$RIP" 9 \
		--count 1000000 --interval 0.002 --tos $TOS --len 1000 >/dev/null 2>&1 &
	FLOOD_PID=$!
}

in_paused() { [ "$(pfc_stat sw "$IN" pause_tx 3)" -ge "$1" ]; }
# in_holding: the switch's ingress port has s1 paused now (one snapshot).
in_holding()
{
	local j
	j=$(pfc_read sw "$IN")
	[ "$(pfc_get "$j" pause_tx 3)" -gt "$(pfc_get "$j" resume_tx 3)" ]
}

s1_sent_more() { [ "$(pfc_stat s1 eth0 deq_packets)" -ge "$1" ]; }

FLOOD_PID=
at_exit 'kill $FLOOD_PID 2>/dev/null; topo_cleanup'

build a
flood "$(scaled_time 600)"

# Replace the ingress port's qdisc three times under traffic.
replace_under_traffic()
{
	local i d0
	if ! wait_for --timeout 30 in_paused 1; then
		check_err 1 "switch never paused s1"
		return
	fi
	log "paused: pause_tx=$(pfc_stat sw "$IN" pause_tx 3)"
	for i in 1 2 3; do
		if ! wait_for --timeout 30 in_holding; then
			check_err 1 "s1 not paused before replacement $i"
			return
		fi
		d0=$(pfc_stat s1 eth0 deq_packets)
		# shellcheck disable=SC2086
		if ! topo_qdisc sw "$IN" dcb $SW $PFC; then
			check_err 1 "replace $i"
			return
		fi
		if ! wait_for --timeout 5 s1_sent_more $((d0 + 5)); then
			check_err 1 "s1 still held 5 s after replacement $i: the old port did not resume"
			return
		fi
		if ! wait_for --timeout 30 in_paused 1; then
			check_err 1 "replacement $i never paused s1"
			return
		fi
	done
	log "after 3 replacements: pause_tx=$(pfc_stat sw "$IN" pause_tx 3) s1 pause_rx=$(pfc_stat s1 eth0 pause_rx 3) resume_rx=$(pfc_stat s1 eth0 resume_rx 3)"
}

# pfc off on the paused port: one more RESUME reaches s1.  PFC goes back
# on for the next step even when no RESUME came.
pfc_off()
{
	local r0
	if ! wait_for --timeout 30 in_holding; then
		check_err 1 "not paused before pfc off"
		return
	fi
	r0=$(pfc_stat s1 eth0 resume_rx 3)
	if ! topo_tc sw qdisc change dev "$IN" root dcb rate 2mbit pfc off; then
		check_err 1 "pfc off"
		return
	fi
	wait_for --timeout 10 eval '[ "$(pfc_stat s1 eth0 resume_rx 3)" -gt '"$r0"' ]'
	check_err $? "no RESUME after pfc off"
	# shellcheck disable=SC2086
	if ! topo_tc sw qdisc change dev "$IN" root dcb rate 2mbit $PFC; then
		check_err 1 "pfc back on"
		return
	fi
	wait_for --timeout 30 in_paused 1
	check_err $? "not paused again"
}

# Delete the switch while paused, with packets queued and charged.  The
# flood and the topology go at the end of the step, whatever happened.
netns_delete()
{
	if ! wait_for --timeout 30 eval '[ "$(pfc_stat sw "$OUT" backlog_bytes)" -gt 10000 ]'; then
		check_err 1 "no backlog at the congested port"
		return
	fi
	log "deleting the switch: backlog $(pfc_stat sw "$OUT" backlog_bytes) B, pool used $(pfc_stat sw "$OUT" pool.used) B"
	ip netns del "$(topo_ns sw)"
	check_err $? "netns del"
}

# Unload right after the last qdisc goes, under traffic.
unload()
{
	local n d
	build b
	flood "$(scaled_time 600)"
	if ! wait_for --timeout 30 in_paused 1; then
		check_err 1 "switch b never paused s1"
		return
	fi
	for n in sw s1 r; do
		for d in $(topo_ports "$n"); do
			if ! topo_tc "$n" qdisc del dev "$d" root; then
				check_err 1 "qdisc del $n:$d"
				return
			fi
		done
	done
	kill "$FLOOD_PID" 2>/dev/null
	wait "$FLOOD_PID" 2>/dev/null
	rmmod sch_dcb
	check_err $? "rmmod sch_dcb after deleting every qdisc"
	[ "$RET" = 0 ] && log "sch_dcb unloaded"
}

# in_resume_tried: a RESUME of band 3 out of IN is in the trace;
# in_resume_last: it is IN's last frame there.
in_resume_tried() { grep -q "dev=$IN pause=0x00 resume=0x08 " "$TR/trace"; }
in_resume_last() { grep "dev=$IN " "$TR/trace" | tail -n1 | grep -q "pause=0x00 resume=0x08 "; }

# A RESUME the port has announced but not sent (the port's frame failed
# as its link has no carrier; it waits for the link) must go out when the
# qdisc is deleted: in the real case the link is up and the frame was
# about to leave, which no test can time.  The frame sent with the
# carrier off is dropped by the core, so the step reads the attempts
# from the tracepoint.
pending_resume()
{
	topo_cleanup
	build c
	if ! pfc_trace_on; then
		check_err 1 "no tracefs for the sch_dcb tracepoints"
		return
	fi
	flood "$(scaled_time 600)"
	for _ in 1 2 3; do
		if ! wait_for --timeout 30 in_holding; then
			check_err 1 "switch c never paused s1"
			return
		fi
		# s1 down: IN loses its carrier at once (veth); IN's frames
		# from here on are in the trace, and IN still paused then
		# has its RESUME to come
		echo >"$TR/trace"
		topo_exec s1 ip link set eth0 down
		in_holding && break
		# the band resumed just before: try again
		topo_exec s1 ip link set eth0 up
	done
	if ! in_holding; then
		check_err 1 "IN not paused when its carrier went"
		return
	fi
	kill "$FLOOD_PID" 2>/dev/null
	# deleting the egress qdisc credits what IN had charged (unless the
	# egress drained below XON already): IN resumes band 3, and its
	# frame fails for want of a carrier
	topo_tc sw qdisc del dev "$OUT" root
	if ! wait_for --timeout 10 in_resume_last; then
		check_err 1 "IN never tried its RESUME after the egress drained"
		return
	fi
	echo >"$TR/trace"
	topo_tc sw qdisc del dev "$IN" root
	in_resume_tried
	check_err $? "the pending RESUME of band 3 was not sent when IN's qdisc went"
	[ "$RET" = 0 ] && log "pending RESUME sent by the deleted qdisc: $(grep -m1 "dev=$IN " "$TR/trace")"
}

replace_under_traffic
log_test "replace under traffic"
pfc_off
log_test "pfc off"
netns_delete
kill "$FLOOD_PID" 2>/dev/null
wait "$FLOOD_PID" 2>/dev/null
topo_cleanup
log_test "netns delete"
unload
kill "$FLOOD_PID" 2>/dev/null
wait "$FLOOD_PID" 2>/dev/null
load_dcb
log_test "unload"
pending_resume
kill "$FLOOD_PID" 2>/dev/null
wait "$FLOOD_PID" 2>/dev/null
log_test "pending resume"

tests_exit
