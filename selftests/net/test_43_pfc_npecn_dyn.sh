#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 360
#
# NP-ECN (PCN paper section 3) and the dynamic PFC threshold (DCQCN paper
# section 2.2).
#
#   s1 ---- sw1 ---- sw2 ---- r       (congested: sw2 -> r)
#                   /   \
#                  s2    s3
#
# All links 100 Mb/s, data ECT(0) on DSCP 24 (band 3), PFC on band 3.
# Steps:
#   np-ecn             NP-ECN on every switch port.  s2 and s3 saturate
#                      sw2 -> r at line rate; s1 sends 20 Mb/s.  sw2 pauses
#                      sw1 (small XOFF on that ingress port), so sw1's port
#                      toward sw2 is paused but not saturated: it marks
#                      (almost) no packet: at most 2%, those that arrive
#                      while the paused ones drain, as in PCN's state
#                      machine.  sw2's port toward r is saturated and
#                      backlogged: every ECT packet that leaves it is
#                      marked, except those let go unmarked after a RESUME
#                      (np_unmarked; that port is never paused, so about
#                      none): ecn_marked = deq_packets - np_unmarked
#                      (within 1%).
#   dynamic xoff       sw2 with `beta 4` and a 400 KB pool.  (s1 at line
#                      rate into sw1's port toward sw2, now 50 Mb/s, fills
#                      sw1's pool.)  The xoff reported for band 3 of an
#                      ingress port is 4 * (B - R - s) / 8 with B, R, s
#                      from the pool statistics of the same dump: (B - R)
#                      / 2 with the pool empty, smaller (below 75% of
#                      that) while s2, s3 fill the pool.  sw1 (static xoff
#                      16 KB) reports 16384 all along.
#   np-ecn k K         NP-ECN's threshold K, one step per K (s1's NIC,
#                      np-ecn at 50 kb/s): a non-ECT plug in band 7 holds
#                      the port for 240 ms while a burst of N = 14 ECT
#                      frames of P = 1042 bytes queues in band 3; frame i
#                      then leaves with N - i frames behind it and is
#                      marked when (N - i) P > K, so ecn_marked = N - 1 -
#                      floor(K / P) exactly: 13 with k 0 (the paper's
#                      threshold), 12 with k 2083, 11 with k 2084 = 2P
#                      (not above K: not marked), 4 with the default k
#                      10kb; np_unmarked stays 0 (no pause).
#   np-ecn validation  the kernel refuses a K at or above the band's
#                      limit, and kmax or pmax with np-ecn (extack, the
#                      configuration unchanged).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd jq
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
load_dcb

# rates divided, delays and window multiplied by DCBLAB_SLOW (lib.sh)
RATE=$(scaled_rate 100mbit)
DELAY=$(scaled_time 5ms)	# sch_dcb's default
ECT=0x62		# DSCP 24 (band 3), ECT(0)
WIN=${PFC43_WINDOW:-$(scaled_time 2)}
LINE_DPS=$(udp_line_dps "$RATE")
BASE="rate $RATE dscp-map 0:7 buffer 512kb ecn np-ecn"
HOSTOPTS="rate $RATE dscp-map 0:7 limit 2mb"

topo_init "p43$$" || fail "topo_init"
at_exit topo_cleanup
topo_switch sw1 && topo_switch sw2 || fail "switches"
topo_host s1 && topo_link s1 sw1 >/dev/null || fail "s1"
topo_link sw1 sw2 >/dev/null || fail "sw1-sw2"
for h in r s2 s3; do topo_host $h && topo_link $h sw2 >/dev/null || fail "$h"; done
topo_routes || fail "routes"
RIP=$(topo_ip4 r)
UP=$(topo_port sw1 sw2)		# sw1's port toward sw2 (paused, not saturated)
DOWN=$(topo_port sw2 r)		# sw2's port toward r (saturated)
FROM1=$(topo_port sw2 sw1)	# sw2's ingress port from sw1
FROM2=$(topo_port sw2 s2)

config_static()
{
	# shellcheck disable=SC2086
	{ topo_dcb_node sw1 $BASE pfc prio-pfc 3 xoff 16kb delay $DELAY &&
	  topo_qdisc sw2 "$FROM1" dcb $BASE pfc prio-pfc 3 xoff 6kb delay $DELAY &&
	  topo_qdisc sw2 "$FROM2" dcb $BASE pfc prio-pfc 3 xoff 64kb delay $DELAY &&
	  topo_qdisc sw2 "$(topo_port sw2 s3)" dcb $BASE pfc prio-pfc 3 xoff 64kb delay $DELAY &&
	  topo_qdisc sw2 "$DOWN" dcb $BASE pfc prio-pfc 3 xoff 64kb delay $DELAY; } ||
		fail "tc: static PFC configuration"
}
config_static
# shellcheck disable=SC2086
topo_dcb_all host $HOSTOPTS || fail "tc: $HOSTOPTS"
tc_sink r 7001 7002 7003
for h in s1 s2 s3; do
	topo_exec $h ping -c1 -W5 "$RIP" >/dev/null || fail "no path $h -> r"
done


# start_flows [paced|full]: s1 at a fifth of the line rate (default) or
# at line rate
start_flows()
{
	PIDS=()
	if [ "${1:-paced}" = full ]; then
		pfc_sender s1 "$RIP" 7001 $ECT 100000; PIDS+=("$FLOW_PID")
	else
	# s1: 20 Mb/s on the wire (1042-byte frames every 0.42 ms)
	ip netns exec "$(topo_ns s1)" timeout "$(scaled_time 300)" "$TOP/tools/udpflow" \
		send "$RIP" 7001 --count 1000000 \
		--interval "$(scaled_time 0.00042)" --tos $ECT --len 1000 >/dev/null 2>&1 &
	PIDS+=($!)
	fi
	pfc_sender s2 "$RIP" 7002 $ECT 100000; PIDS+=("$FLOW_PID")
	pfc_sender s3 "$RIP" 7003 $ECT 100000; PIDS+=("$FLOW_PID")
}

# stop_flows: stop the senders; the step fails if the queues do not drain.
stop_flows()
{
	kill "${PIDS[@]}" 2>/dev/null
	wait "${PIDS[@]}" 2>/dev/null
	wait_for --timeout 60 pfc_all_drained sw1 sw2 s1 s2 s3
	check_err $? "queues did not drain"
}

# ------------------------------------------------------------ NP-ECN
up_paused() { [ "$(pfc_stat sw1 "$UP" pause_rx 3)" -ge 1 ]; }
# delta NODE DEV KEY: growth of KEY (band 3) over the window
delta() { echo $(( $(sv W1 "$1" "$2" "$3" 3) - $(sv W0 "$1" "$2" "$3" 3) )); }
np_ecn()
{
	local t0 secs u_deq u_mark u_pause u_pus u_npu d_deq d_mark d_npu d_pause
	start_flows
	if ! wait_for --timeout 30 up_paused; then
		check_err 1 "sw2 never paused sw1 (sw2 port from sw1: in_peak $(pfc_stat sw2 "$FROM1" in_peak 3), pause_tx $(pfc_stat sw2 "$FROM1" pause_tx 3))"
		stop_flows
		return
	fi
	t0=$EPOCHREALTIME
	pfc_snap W0 sw1 sw2
	sleep "$WIN"
	pfc_snap W1 sw1 sw2
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
	stop_flows

	u_deq=$(delta sw1 "$UP" deq_packets)
	u_mark=$(delta sw1 "$UP" ecn_marked)
	u_pause=$(delta sw1 "$UP" pause_rx)
	u_pus=$(delta sw1 "$UP" paused_us)
	u_npu=$(delta sw1 "$UP" np_unmarked)
	d_deq=$(delta sw2 "$DOWN" deq_packets)
	d_mark=$(delta sw2 "$DOWN" ecn_marked)
	d_npu=$(delta sw2 "$DOWN" np_unmarked)
	d_pause=$(delta sw2 "$DOWN" pause_rx)
	log "window: ${WIN}s asked, at most $secs s between the two reads"
	log "paused port sw1->sw2 over the window: deq $u_deq, marked $u_mark, PAUSE rx $u_pause, paused $u_pus us, np_unmarked $u_npu, peak $(sv W1 sw1 "$UP" backlog_peak 3) B"
	log "saturated port sw2->r over the window: deq $d_deq ($(awk -v n="$d_deq" -v s="$secs" 'BEGIN { printf "%.2f", n * 1042 * 8 / s / 1e6 }') Mb/s or more), marked $d_mark, np_unmarked $d_npu, PAUSE rx $d_pause, backlog $(sv W1 sw2 "$DOWN" backlog_bytes 3) B"
	check_assert assert_ge "$u_pause" 1 "PAUSE frames received by sw1's port toward sw2 in the window"
	check_assert assert_ge "$u_pus" 1 "time sw1's port toward sw2 was paused in the window (us)"
	check_assert assert_ge "$u_deq" 100 "packets through sw1's paused port"
	# PCN's state machine lets the N packets queued at RESUME go unmarked
	# and marks what arrives while they drain if it leaves with a queue
	# behind it: a few packets per RESUME (notebook/results-history.rst), far from the
	# saturated port's 100%.
	check_assert assert_le "$u_mark" $((u_deq / 50)) "ECT packets marked by the paused, unsaturated port (2% of $u_deq)"
	# two thirds of the line rate at least (WIN is already scaled)
	check_assert assert_ge "$d_deq" $((WIN * LINE_DPS * 2 / 3)) "packets through the saturated port"
	check_assert assert_ge "$(sv W1 sw2 "$DOWN" backlog_bytes 3)" 1 "saturated port backlogged at the end of the window"
	check_assert assert_within_pct "$d_mark" $((d_deq - d_npu)) 1 "marked by the saturated port vs deq - np_unmarked"
}

# ------------------------------------------------------------ dynamic XOFF
BETA=4
dynamic_xoff()
{
	local B R S H x_empty x_static0 x_min sw1_used_max k x exp xs us d
	# shellcheck disable=SC2086
	if ! topo_dcb_node sw2 rate $RATE dscp-map 0:7 buffer 400kb ecn off pfc prio-pfc 3 beta $BETA delay $DELAY; then
		check_err 1 "tc: dynamic threshold"
		return
	fi
	# The XOFF read is the port's (the largest of its bands': band 3 is
	# the only lossless one), which comes in the same netlink message as
	# the pool's counters; a band's own comes in another dump (its
	# class's).
	pfc_snap J sw1 sw2
	B=$(sv J sw2 "$FROM2" pool.size); R=$(sv J sw2 "$FROM2" pool.reserved)
	S=$(sv J sw2 "$FROM2" pool.used); x_empty=$(sv J sw2 "$FROM2" xoff)
	log "pool empty: size $B reserved $R used $S, xoff $x_empty"
	check_assert assert_le "$S" 0 "pool empty before the flows"
	check_assert assert_within_pct "$x_empty" $((BETA * (B - R) / 8)) 1 "dynamic xoff with the pool empty = beta*(B-R)/8"
	x_static0=$(sv J sw1 "$(topo_port sw1 s1)" xoff)
	check_assert assert_ge "$x_static0" 16384 "static xoff of sw1"
	check_assert assert_le "$x_static0" 16384 "static xoff of sw1"

	# sw1's port toward sw2 at half rate: s1 at line rate fills sw1's pool
	# shellcheck disable=SC2086
	if ! topo_qdisc sw1 "$UP" dcb rate "$(scaled_rate 50mbit)" dscp-map 0:7 buffer 512kb pfc prio-pfc 3 xoff 16kb delay $DELAY; then
		check_err 1 "tc: sw1 port toward sw2 at 50mbit"
		return
	fi
	start_flows full
	x_min=$x_empty
	sw1_used_max=0
	for k in $(seq 8); do
		pfc_snap J sw1 sw2
		S=$(sv J sw2 "$FROM2" pool.used); x=$(sv J sw2 "$FROM2" xoff)
		B=$(sv J sw2 "$FROM2" pool.size); R=$(sv J sw2 "$FROM2" pool.reserved)
		# s: the shared part's occupancy (headroom bytes are in R)
		H=$(sv J sw2 "$FROM2" pool.headroom_used)
		exp=$((BETA * (B - R - (S - H)) / 8))
		[ "$exp" -ge 0 ] || exp=0
		xs=$(sv J sw1 "$(topo_port sw1 s1)" xoff); us=$(sv J sw1 "$(topo_port sw1 s1)" pool.used)
		log "  sample $k: sw2 pool used $S (headroom $H), xoff $x (formula $exp); sw1 pool used $us, static xoff $xs"
		# one MTU of slack: the pool moves between the two reads in the kernel
		d=$((x - exp)); [ $d -ge 0 ] || d=$((-d))
		check_assert assert_le "$d" 1514 "dynamic xoff vs beta*(B-R-s)/8 (sample $k)"
		[ "$xs" = 16384 ] || check_err 1 "static xoff of sw1 changed to $xs (pool used $us)"
		[ "$x" -lt "$x_min" ] && x_min=$x
		[ "$us" -gt "$sw1_used_max" ] && sw1_used_max=$us
	done
	stop_flows
	log "dynamic xoff: $x_empty empty, $x_min lowest while filling; sw1 pool used up to $sw1_used_max with static xoff 16384"
	check_assert assert_le "$x_min" $((x_empty * 3 / 4)) "dynamic xoff shrinks as the pool fills"
	check_assert assert_ge "$sw1_used_max" 1 "sw1's pool was in use while its xoff stayed 16384"
}

# ------------------------------------------------------------ NP-ECN's K
S1P=$(topo_port s1 sw1)
KN=14
KDEF=10240	# TC_DCB_NP_ECN_K_DEFAULT
KP=1042		# 1000 bytes of UDP payload on the wire
# np_k_burst: a plug (non-ECT, DSCP 0: band 7, 1514 bytes on the wire)
# then KN ECT frames on DSCP 24 (band 3), from one process
np_k_burst()
{
	ip netns exec "$(topo_ns s1)" /usr/bin/python3 -c '
import socket, sys
dst, n = sys.argv[1], int(sys.argv[2])
plug = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ect = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
ect.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 0x62)
plug.sendto(b"\0" * 1472, (dst, 7001))
for i in range(n):
    ect.sendto(b"\0" * 1000, (dst, 7001))
' "$RIP" "$KN"
}
k_drained() { [ "$(pfc_stat s1 "$S1P" deq_packets 3)" -ge "$KN" ]; }
# np_k_case K WANT: a fresh port with np-ecn K (empty: tc's default),
# one burst; WANT frames marked.  A burst that did not queue whole
# behind the plug (the guest stalled) is sent again on a fresh port.
np_k_case()
{
	local k=$1 want=$2 try peak mark npu
	for try in 1 2 3; do
		# a new qdisc (replace would change the old one): counters
		# and backlog_peak from 0
		topo_tc s1 qdisc del dev "$S1P" root 2>/dev/null
		if ! topo_qdisc s1 "$S1P" dcb rate 50kbit burst 1 dscp-map 0:7 limit 2mb \
			ecn np-ecn ${k:+k $k}; then
			check_err 1 "tc: np-ecn ${k:+k $k}"
			return
		fi
		if ! np_k_burst; then
			check_err 1 "np-ecn K burst"
			return
		fi
		if ! wait_for --timeout 30 k_drained; then
			check_err 1 "np-ecn K burst did not drain"
			return
		fi
		pfc_snap K s1
		peak=$(sv K s1 "$S1P" backlog_peak 3)
		mark=$(sv K s1 "$S1P" ecn_marked 3)
		npu=$(sv K s1 "$S1P" np_unmarked 3)
		log "np-ecn k ${k:-default}: try $try: $KN frames, band 3 peak $peak B, marked $mark (want $want), np_unmarked $npu"
		[ "$peak" -ge $((KN * KP)) ] && break
		if [ "$try" = 3 ]; then
			check_err 1 "np-ecn k ${k:-default}: the burst never queued whole (peak $peak B of $((KN * KP)))"
			return
		fi
	done
	check_assert assert_ge "$mark" "$want" "np-ecn k ${k:-default}: frames marked"
	check_assert assert_le "$mark" "$want" "np-ecn k ${k:-default}: frames marked"
	check_assert assert_le "$npu" 0 "np-ecn k ${k:-default}: np_unmarked (no pause)"
}

# the kernel's validation: refused with a message, nothing changed
np_ecn_validation()
{
	local kref out
	kref=$(topo_tc s1 -j qdisc show dev "$S1P" | jq -c '.[0].options')
	out=$(topo_tc s1 qdisc change dev "$S1P" root dcb rate 50kbit limit 4kb ecn np-ecn k 4kb 2>&1)
	check_fail $? "np-ecn with K = the port limit accepted"
	grep -q "np-ecn: K must be below the band's limit" <<<"$out"
	check_err $? "np-ecn K >= limit: '$out'"
	out=$(topo_tc s1 qdisc change dev "$S1P" root dcb rate 50kbit band 3 limit 10kb 2>&1)
	check_fail $? "band limit below np-ecn's K accepted"
	grep -q "np-ecn: K must be below the band's limit" <<<"$out"
	check_err $? "band limit <= K: '$out'"
	out=$(topo_exec s1 python3 "$TOP/selftests/net/dcb_nl.py" change "$S1P" '{"ecn":[3,5120,1,0]}' 2>&1)
	check_fail $? "np-ecn with kmax accepted"
	grep -q "kmax and pmax must be 0" <<<"$out"
	check_err $? "np-ecn kmax: '$out'"
	[ "$(topo_tc s1 -j qdisc show dev "$S1P" | jq -c '.[0].options')" = "$kref" ]
	check_err $? "configuration changed by a refused np-ecn K"
	[ "$RET" = 0 ] && log "kernel refused np-ecn K >= limit and kmax != 0; configuration unchanged"
}

np_ecn
log_test np-ecn
dynamic_xoff
log_test "dynamic xoff"
np_k_case 0 $((KN - 1))
log_test "np-ecn k 0"
np_k_case $((2 * KP - 1)) $((KN - 2))
log_test "np-ecn k $((2 * KP - 1))"
np_k_case $((2 * KP)) $((KN - 3))
log_test "np-ecn k $((2 * KP))"
np_k_case "" $((KN - 1 - KDEF / KP))
log_test "np-ecn k default"
np_ecn_validation
log_test "np-ecn validation"

tests_exit
