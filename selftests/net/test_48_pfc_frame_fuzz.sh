#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# suite: debug
#
# Fuzzing of sch_dcb's PAUSE receiver (selftests/net/pfc_frame_fuzz.py):
# MAC-control frames (ethertype 0x8808) from a neighbour into a port whose
# root qdisc is sch_dcb, while tcpdump captures on that port (cloned skbs)
# and a packet socket bound to it for 0x8808 (shared skbs), and the port
# sends UDP of its own:
#  1. one frame of every length from 0 to 9014 bytes (jumbo MTU),
#     alternately linear and nonlinear (payload in page fragments), then
#     random frames: 802.3x, 802.1Qbb, unknown opcodes, every kind of
#     destination, reserved vector bits, truncated and padded.  The
#     malformed ones of at least 60 bytes must show in pfc_malformed and
#     the valid PFC ones in pause_rx + resume_rx (lower bounds: how a
#     runt is read is the receiver's business);
#  2. a storm of valid PAUSE/RESUME frames while the port's qdisc is
#     replaced, deleted and added in a loop (the resume path reschedules
#     the qdisc the frame found).
# The guest runner fails the test on any kernel report; the port must
# still forward afterwards.
#
# Environment: DCBLAB_FUZZ_SEED (default 1), DCBLAB_FUZZ_COUNT (random
# frames per phase, default 1000; make check-debug: 2000).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"

SEED=${DCBLAB_FUZZ_SEED:-1}
COUNT=${DCBLAB_FUZZ_COUNT:-1000}
need_cmd jq
need_cmd tcpdump
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing"
load_dcb

topo_init "f48$$" || fail "topo_init"
at_exit topo_cleanup
topo_switch sw || fail "switch"
topo_host a && topo_link a sw >/dev/null || fail "link"
topo_routes || fail "routes"
P=$(topo_port sw a)
ip -n "$(topo_ns a)" link set dev eth0 mtu 9000 || fail "mtu a"
ip -n "$(topo_ns sw)" link set dev "$P" mtu 9000 || fail "mtu sw"
topo_qdisc sw "$P" dcb rate 50mbit dscp-map 0:7 || fail "qdisc"
PMAC=$(ip netns exec "$(topo_ns sw)" cat "/sys/class/net/$P/address")
TMPD=$(mktemp -d)
at_exit "rm -rf $TMPD"

ip netns exec "$(topo_ns sw)" tcpdump -n -i "$P" -w /dev/null >"$TMPD/tcpdump.out" 2>&1 &
at_exit "kill $! 2>/dev/null"
capturing() { grep -q "listening on" "$TMPD/tcpdump.out"; }
wait_for --timeout 60 capturing || fail "tcpdump did not start on $P"
# A packet socket bound to the port for ethertype 0x8808 is delivered after
# the global ETH_P_PAUSE handler, so that handler gets the skb with a
# reference held for the socket: a shared skb.
ip netns exec "$(topo_ns sw)" timeout 600 /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x8808))
s.bind((sys.argv[1], 0x8808))
open(sys.argv[2], "w").close()
time.sleep(600)' "$P" "$TMPD/bound" &
at_exit "kill $! 2>/dev/null"
wait_for --timeout 60 test -e "$TMPD/bound" || fail "packet socket on $P"
# The port's own traffic (its band 7 is what the PAUSEs hold).
ip netns exec "$(topo_ns sw)" timeout 600 /usr/bin/python3 \
	"$TOP/scripts/lib/udp_send.py" "$(topo_ip4 a)" 9048 \
	--count 100000000 --interval 0.001 --len 1000 >/dev/null 2>&1 &
at_exit "kill $! 2>/dev/null"

fuzz() {
	ip netns exec "$(topo_ns a)" /usr/bin/python3 "$TOP/selftests/net/pfc_frame_fuzz.py" \
		--seed "$SEED" "$@" eth0 "$PMAC"
}

# ------------------------------------------------- 1: sweep and random
j0=$(pfc_json sw "$P")
out=$(fuzz --sweep --count "$COUNT") || fail "fuzzer: $out"
log "phase 1: $out"
read -r _ sent _ failed _ valid _ malformed <<<"$out"
# The counters settle once the last frame is through the receive path.
j1=$(pfc_json sw "$P")
counted() {
	j1=$(pfc_json sw "$P")
	[ $(( $(pfc_get "$j1" pfc_malformed) - $(pfc_get "$j0" pfc_malformed) )) -ge "$malformed" ]
}
wait_for --timeout 20 counted
mal=$(( $(pfc_get "$j1" pfc_malformed) - $(pfc_get "$j0" pfc_malformed) ))
prx=$(( $(pfc_get "$j1" pause_rx) + $(pfc_get "$j1" resume_rx) -
	$(pfc_get "$j0" pause_rx) - $(pfc_get "$j0" resume_rx) ))
log "pfc_malformed +$mal, pause_rx + resume_rx +$prx"
assert_ge "$sent" $((9015 / 2)) "frames the sockets took"
assert_ge "$mal" "$malformed" "malformed frames counted"
assert_le "$mal" "$sent" "malformed frames counted"
assert_ge "$prx" "$valid" "valid PFC frames counted (per band)"

# ------------------------------------- 2: PAUSE/RESUME storm vs. replace
churn() {
	local i
	for i in $(seq 1 100000); do
		topo_tc sw qdisc replace dev "$P" root handle 1: dcb rate 50mbit dscp-map 0:7
		topo_tc sw qdisc del dev "$P" root
		topo_tc sw qdisc add dev "$P" root handle 1: dcb rate 10mbit dscp-map 0:7
		topo_tc sw qdisc replace dev "$P" root handle 2: pfifo
		topo_tc sw qdisc replace dev "$P" root handle 1: dcb rate 50mbit dscp-map 0:7
		[ ! -e "$TMPD/stop" ] || break
	done >/dev/null 2>&1
	echo "$i" >"$TMPD/churns"
}
churn &
CHURN=$!
at_exit "kill $CHURN 2>/dev/null"
out=$(fuzz --resume-storm --count $((COUNT * 3))) || fail "fuzzer: $out"
log "phase 2 storm: $out"
out=$(fuzz --count "$COUNT") || fail "fuzzer: $out"
log "phase 2 random: $out"
: >"$TMPD/stop"
wait $CHURN
log "qdisc replace/delete rounds during phase 2: $(cat "$TMPD/churns")"
assert_ge "$(cat "$TMPD/churns")" 2 "qdisc churn rounds during the storm"

topo_qdisc sw "$P" dcb rate 50mbit || fail "qdisc after the storm"
topo_exec a ping -c 1 -W 5 "$(topo_ip4 sw a)" >/dev/null || fail "the port no longer forwards"
exit 0
