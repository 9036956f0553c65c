#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# Lossless incast (DCQCN paper section 2.2): 8 senders at line rate into one
# shaped switch port.  Every switch port and every host NIC is a sch_dcb
# shaped to the same line rate; data rides DSCP 24 (band 3), PFC on band 3.
# Steps:
#   lossless  PFC on: every sender sent its datagrams, no drop anywhere
#             (every qdisc drop counter, pool drops, the veths'
#             rx/tx_dropped, softnet), every datagram sent is received;
#   pause     in that incast the switch sent PAUSE frames, the senders
#             received them and spent time paused;
#   wire      the frames on the wire (tcpdump at a sender during that
#             incast, decoded by tshark) are 802.1Qbb PFC: dst
#             01:80:c2:00:00:01, ethertype 0x8808, opcode 0x0101,
#             class-enable vector 0x0008, quanta 0x1234 (PAUSE) or 0
#             (RESUME), as many as the switch port counted;
#   pfc off   PFC off, same buffer: drops, and not every datagram is
#             received.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

need_cmd tcpdump tshark
load_dcb

N=8
# line rate; on a slow kernel divided by DCBLAB_SLOW and the PFC delay
# multiplied by it (lib.sh): the same headroom in bytes, the same packets
RATE=$(scaled_rate 100mbit)
QUANTA=0x1234
TOS=0x60		# DSCP 24 -> band 3
LEN=1000
PKTS=${PFC40_PKTS:-3000}	# per sender: 8 x 3000 x 1042 B at 100 Mb/s = 2.0 s
BUF=1mb
SWOPTS="rate $RATE dscp-map 0:7 buffer $BUF"
# sch_dcb's default PAUSE delay (5 ms), scaled with the rate
PFC="pfc prio-pfc 3 xoff 16kb delay $(scaled_time 5ms) quanta $QUANTA"
# hosts: shaped NIC that obeys PAUSE; limit above the socket send buffer
HOSTOPTS="rate $RATE dscp-map 0:7 limit 2mb"

topo_init "p40$$" || fail "topo_init"
at_exit topo_cleanup
topo_switch sw || fail "switch"
topo_host r && topo_link r sw >/dev/null || fail "receiver"
for i in $(seq $N); do
	topo_host "s$i" && topo_link "s$i" sw >/dev/null || fail "sender s$i"
done
topo_routes || fail "routes"
RIP=$(topo_ip4 r)
SENDERS=$(for i in $(seq $N); do echo "s$i"; done)
ALL="sw r $SENDERS"

# shellcheck disable=SC2086
topo_dcb_all host $HOSTOPTS || fail "host qdiscs"
tc_sink r 7000

# run_incast PKTS: all senders at once into r:7000; sets SENT RECEIVED and
# the drop report before/after (D0 D1).  Returns 1 with INCAST_ERR set if
# a sender failed or the queues did not drain.
run_incast()
{
	local pkts=$1 i pids=() s
	INCAST_ERR=
	D0=$(pfc_drop_report $ALL)
	c0=$(tc_sink_pkts r 7000)
	# all senders start together (a process start takes a while in a TCG guest)
	PFC_GO=$TMPD/go-$SECONDS-$RANDOM
	for i in $(seq $N); do
		pfc_sender "s$i" "$RIP" 7000 $TOS "$pkts" $LEN
		pids+=("$FLOW_PID")
	done
	pfc_go "$N"
	# wait for every sender, the first failure kept
	for i in "${pids[@]}"; do
		wait "$i" || [ -n "$INCAST_ERR" ] ||
			INCAST_ERR="a sender failed: $(cat "$TMPD"/sent-* | head -n3)"
	done
	[ -z "$INCAST_ERR" ] || return 1
	# everything queued anywhere has left
	wait_for --timeout 60 pfc_all_drained $ALL ||
		{ INCAST_ERR="queues did not drain"; return 1; }
	D1=$(pfc_drop_report $ALL)
	SENT=0
	for i in $(seq $N); do
		s=$(cat "$TMPD/sent-s$i-7000")
		SENT=$((SENT + s))
	done
	RECEIVED=$(( $(tc_sink_pkts r 7000) - c0 ))
}

# dA KEY NODE DEV [BAND]: growth of KEY between snapshots A and B
dA() { echo $(( $(sv B "$2" "$3" "$1" "${4:-}") - $(sv A "$2" "$3" "$1" "${4:-}") )); }

# The PFC-on incast runs in the first step; the next two look at what it
# left: the switch's and senders' counters (snapshots A, B) and the
# capture at s1 (CAP_ERR set if tcpdump did not start).
PFC_ON_DONE=
CAP_ERR=
lossless()
{
	local i d cap_pid R
	# shellcheck disable=SC2086
	topo_dcb_node sw $SWOPTS $PFC || fail "tc: $SWOPTS $PFC"
	S1PORT=$(topo_port sw s1)
	log "switch: $SWOPTS $PFC"
	pfc_snap S sw
	log "pool: size $(sv S sw "$S1PORT" pool.size), reserved $(sv S sw "$S1PORT" pool.reserved), ports $(sv S sw "$S1PORT" pool.ports); headroom per port $(( $(sv S sw "$S1PORT" pool.reserved) / (N + 1) ))"

	# capture what s1 receives of ethertype 0x8808 (for the wire step)
	topo_exec s1 tcpdump -i eth0 -n -U -w "$TMPD/pfc.pcap" ether proto 0x8808 \
		2>"$TMPD/tcpdump.err" &
	cap_pid=$!
	wait_for --timeout 30 grep -q "listening on" "$TMPD/tcpdump.err" ||
		CAP_ERR="tcpdump did not start: $(cat "$TMPD/tcpdump.err")"
	# shellcheck disable=SC2086
	pfc_snap A $ALL

	log "PFC on: $N senders x $PKTS datagrams at line rate"
	run_incast "$PKTS"
	check_err $? "$INCAST_ERR"
	kill "$cap_pid"; wait "$cap_pid" 2>/dev/null
	[ "$RET" = 0 ] || return
	# shellcheck disable=SC2086
	pfc_snap B $ALL
	PFC_ON_DONE=1
	pfc_drops_delta "$D0" "$D1"
	log "sent $SENT received $RECEIVED; drops ${PFC_DROPS} ${PFC_DROPS_WHAT}"
	pause_sw=0; pause_rx=0; paused=0
	for i in $(seq $N); do
		d=$(topo_port sw "s$i")
		pause_sw=$((pause_sw + $(dA pause_tx sw "$d" 3)))
		pause_rx=$((pause_rx + $(dA pause_rx "s$i" eth0 3)))
		paused=$((paused + $(dA paused_us "s$i" eth0 3)))
		log "  s$i: sent $(cat "$TMPD/sent-s$i-7000"); switch port: pause_tx $(dA pause_tx sw "$d" 3)" \
			"resume_tx $(dA resume_tx sw "$d" 3) in_peak $(sv B sw "$d" in_peak 3) xoff $(sv B sw "$d" xoff 3)" \
			"in_drops $(dA in_drops sw "$d" 3) in_borrowed $(dA in_borrowed sw "$d" 3)" \
			"inflight_peak $(sv B sw "$d" pause_inflight_peak 3); NIC: pause_rx $(dA pause_rx "s$i" eth0 3) paused_us $(dA paused_us "s$i" eth0 3)"
	done
	R=$(topo_port sw r)
	log "switch PAUSE sent $pause_sw, senders PAUSE received $pause_rx, paused $paused us;" \
		"r-port peak $(sv B sw "$R" backlog_peak) B, headroom drops $(dA drops_headroom sw "$R"), pool peak $(sv B sw "$R" pool.peak)"

	check_assert assert_ge "$SENT" $((N * PKTS)) "datagrams sent"
	check_assert assert_le "$PFC_DROPS" 0 "drops anywhere with PFC on (${PFC_DROPS_WHAT:-none})"
	check_assert assert_ge "$RECEIVED" "$SENT" "datagrams received with PFC on"
}

pause()
{
	if [ -z "$PFC_ON_DONE" ]; then
		check_err 1 "no incast with PFC on to look at"
		return
	fi
	check_assert assert_ge "$pause_sw" 1 "PAUSE frames sent by the switch"
	check_assert assert_ge "$pause_rx" 1 "PAUSE frames received by the senders"
	check_assert assert_ge "$paused" 1 "time the senders spent paused (us)"
}

wire()
{
	local p1 r1 nframes bad npause nresume
	if [ -z "$PFC_ON_DONE" ]; then
		check_err 1 "no incast with PFC on to look at"
		return
	fi
	if [ -n "$CAP_ERR" ]; then
		check_err 1 "$CAP_ERR"
		return
	fi
	p1=$(dA pause_tx sw "$S1PORT" 3)
	r1=$(dA resume_tx sw "$S1PORT" 3)
	if ! tshark -r "$TMPD/pfc.pcap" -T fields -E separator=' ' -e eth.dst -e eth.type \
		-e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 \
		2>"$TMPD/tshark.err" >"$TMPD/pfc.txt"; then
		check_err 1 "tshark: $(cat "$TMPD/tshark.err")"
		return
	fi
	nframes=$(wc -l <"$TMPD/pfc.txt")
	log "tshark: $nframes frames, first: $(head -n1 "$TMPD/pfc.txt")"
	bad=$(awk '!($1 == "01:80:c2:00:00:01" && $2 == "0x8808" && $3 == "0x0101" &&
		$4 == "0x0008" && ($5 == 4660 || $5 == 0))' "$TMPD/pfc.txt")
	[ -z "$bad" ] || check_err 1 "frames not decoded as PFC band 3 quanta $QUANTA/0: $(head -n3 <<<"$bad")"
	npause=$(awk '$5 == 4660' "$TMPD/pfc.txt" | wc -l)
	nresume=$(awk '$5 == 0' "$TMPD/pfc.txt" | wc -l)
	log "on the wire: $npause PAUSE (quanta 0x1234), $nresume RESUME; port counted $p1 and $r1"
	check_assert assert_ge "$npause" 1 "PFC PAUSE frames decoded by tshark"
	check_assert assert_ge "$npause" "$p1" "PAUSE frames on the wire vs pause_tx"
	check_assert assert_le "$npause" "$p1" "PAUSE frames on the wire vs pause_tx"
	check_assert assert_ge "$nresume" "$r1" "RESUME frames on the wire vs resume_tx"
	check_assert assert_le "$nresume" "$r1" "RESUME frames on the wire vs resume_tx"
}

pfc_off()
{
	# shellcheck disable=SC2086
	if ! topo_dcb_node sw $SWOPTS pfc off; then
		check_err 1 "tc: $SWOPTS pfc off"
		return
	fi
	log "PFC off (same $BUF buffer): $N senders x $PKTS datagrams"
	if ! run_incast "$PKTS"; then
		check_err 1 "$INCAST_ERR"
		return
	fi
	pfc_drops_delta "$D0" "$D1"
	log "sent $SENT received $RECEIVED; drops ${PFC_DROPS} ${PFC_DROPS_WHAT}"
	check_assert assert_ge "$PFC_DROPS" 1 "drops with PFC off"
	check_assert assert_le "$RECEIVED" $((SENT - 1)) "datagrams received with PFC off"
}

lossless
log_test lossless
pause
log_test pause
wire
log_test wire
pfc_off
log_test "pfc off"

tests_exit
