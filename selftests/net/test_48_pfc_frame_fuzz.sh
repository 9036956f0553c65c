#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# suite: debug
#
# Fuzzing of sch_dcb's PAUSE receiver (selftests/net/pfc_frame_fuzz.py):
# MAC-control frames (ethertype 0x8808) from a neighbour into a port whose
# root qdisc is sch_dcb, while tcpdump captures on that port (cloned skbs)
# and a packet socket bound to it for 0x8808 (shared skbs), and the port
# sends UDP of its own.  The guest runner fails the test on any kernel
# report.  Steps:
#   sweep    one frame of every length from 0 to 9014 bytes (jumbo MTU),
#            alternately linear and nonlinear (payload in page fragments),
#            then random frames: 802.3x, 802.1Qbb, unknown opcodes, every
#            kind of destination, reserved vector bits, truncated and
#            padded.  The malformed ones of at least 60 bytes must show in
#            pfc_malformed and the valid PFC ones in pause_rx + resume_rx
#            (lower bounds: how a runt is read is the receiver's business);
#   storm    a storm of valid PAUSE/RESUME frames, then random frames,
#            while the port's qdisc is replaced, deleted and added in a
#            loop (the resume path reschedules the qdisc the frame found);
#            the loop ran at least twice;
#   forward  the port takes a fresh sch_dcb and still forwards.
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
defer topo_cleanup
topo_switch sw || fail "switch"
topo_host a && topo_link a sw >/dev/null || fail "link"
topo_routes || fail "routes"
P=$(topo_port sw a)
ip -n "$(topo_ns a)" link set dev eth0 mtu 9000 || fail "mtu a"
ip -n "$(topo_ns sw)" link set dev "$P" mtu 9000 || fail "mtu sw"
topo_qdisc sw "$P" dcb rate 50mbit dscp-map 0:7 || fail "qdisc"
PMAC=$(ip netns exec "$(topo_ns sw)" cat "/sys/class/net/$P/address")

ip netns exec "$(topo_ns sw)" tcpdump -n -i "$P" -w /dev/null >"$TMPD/tcpdump.out" 2>&1 &
defer "kill $! 2>/dev/null"
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
defer "kill $! 2>/dev/null"
wait_for --timeout 60 test -e "$TMPD/bound" || fail "packet socket on $P"
# The port's own traffic (its band 7 is what the PAUSEs hold).
ip netns exec "$(topo_ns sw)" timeout 600 "$TOP/tools/udpflow" \
	send "$(topo_ip4 a)" 9048 \
	--count 100000000 --interval 0.001 --len 1000 >/dev/null 2>&1 &
defer "kill $! 2>/dev/null"

fuzz() {
	ip netns exec "$(topo_ns a)" /usr/bin/python3 "$TOP/selftests/net/pfc_frame_fuzz.py" \
		--seed "$SEED" "$@" eth0 "$PMAC"
}

# every length, then random frames: the malformed and the valid PFC ones
# counted
sweep()
{
	local j0 j1 out sent valid malformed mal prx
	j0=$(pfc_read sw "$P")
	if ! out=$(fuzz --sweep --count "$COUNT"); then
		check_err 1 "fuzzer: $out"
		return
	fi
	log "sweep: $out"
	read -r _ sent _ _ _ valid _ malformed <<<"$out"
	# The counters settle once the last frame is through the receive path.
	j1=$(pfc_read sw "$P")
	# shellcheck disable=SC2317  # for wait_for
	counted() {
		j1=$(pfc_read sw "$P")
		[ $(( $(pfc_get "$j1" pfc_malformed) - $(pfc_get "$j0" pfc_malformed) )) -ge "$malformed" ]
	}
	wait_for --timeout 20 counted
	mal=$(( $(pfc_get "$j1" pfc_malformed) - $(pfc_get "$j0" pfc_malformed) ))
	prx=$(( $(pfc_get "$j1" pause_rx) + $(pfc_get "$j1" resume_rx) -
		$(pfc_get "$j0" pause_rx) - $(pfc_get "$j0" resume_rx) ))
	log "pfc_malformed +$mal, pause_rx + resume_rx +$prx"
	check_assert assert_ge "$sent" $((9015 / 2)) "frames the sockets took"
	check_assert assert_ge "$mal" "$malformed" "malformed frames counted"
	check_assert assert_le "$mal" "$sent" "malformed frames counted"
	check_assert assert_ge "$prx" "$valid" "valid PFC frames counted (per band)"
}

# PAUSE/RESUME storm and random frames while the qdisc churns
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
storm()
{
	local churn_pid out
	churn &
	churn_pid=$!
	defer_scope_push
	defer "kill $churn_pid 2>/dev/null; wait $churn_pid 2>/dev/null"
	if out=$(fuzz --resume-storm --count $((COUNT * 3))); then
		log "storm: $out"
		if out=$(fuzz --count "$COUNT"); then
			log "random during the churn: $out"
		else
			check_err 1 "fuzzer: $out"
		fi
	else
		check_err 1 "fuzzer: $out"
	fi
	: >"$TMPD/stop"
	wait "$churn_pid"
	defer_scope_pop
	log "qdisc replace/delete rounds during the storm: $(cat "$TMPD/churns")"
	check_assert assert_ge "$(cat "$TMPD/churns")" 2 "qdisc churn rounds during the storm"
}

# the port still forwards after all that
forward()
{
	topo_qdisc sw "$P" dcb rate 50mbit
	check_err $? "qdisc after the storm"
	topo_exec a ping -c 1 -W 5 "$(topo_ip4 sw a)" >/dev/null
	check_err $? "the port no longer forwards"
}

sweep
log_test sweep
storm
log_test storm
forward
log_test forward

tests_exit
