#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# rxe's UDP 4791 sockets exist only in namespaces with an rxe device:
# an empty namespace has none, gets them with its first device (rdma link
# add) and loses them with its last (rdma link delete): step "udp sockets".
#
# A packet received in one namespace never reaches the rxe device of
# another.  The rxe device of s1 is on eth0; a VLAN device on that eth0 is
# moved to a namespace of its own (x), which has rxe's UDP 4791 socket
# because it has an rxe device of its own.  The switch sends RoCEv2 packets (crafted CNPs)
# tagged with that VLAN to x's address: x's socket receives them, and
# rxe's fallback from a VLAN device to its real device would hand them to
# s1's device in another namespace.  Step "isolation" asserts: x received
# them (its UDP InDatagrams moved), s1's device saw none (rp_cnp_handled
# and rp_cnp_ignored unchanged).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rdma python3
PY=${PYTHON:-python3}
"$PY" -c 'import scapy.contrib.roce' 2>/dev/null || skip "no scapy"
load_rxe
modprobe -q 8021q 2>/dev/null
rxe_topo 1
CRAFT=$TOP/selftests/net/rxe_cnp_craft.py
SWP=${TOPO_PORT[sw,s1]}
X=${TOPO_PREFIX}-vlanx
N=20

ip netns add "$X" || fail "netns $X"
defer "ip netns del $X"
# the VLAN device of step isolation, made here so that a kernel without
# VLANs skips the test before any step has run
topo_exec s1 ip link add link eth0 name eth0.5 type vlan id 5 ||
	skip "no VLAN support"

# rxe_port4791 NS: the UDP 4791 sockets of NS (IPv4 and IPv6)
rxe_port4791() { ip netns exec "$1" cat /proc/net/udp /proc/net/udp6 | awk '$2 ~ /:12B7$/' | wc -l; }
# shellcheck disable=SC2317  # for wait_for
x_unbound() { [ "$(rxe_port4791 "$X")" = 0 ]; }

# x has rxe's UDP 4791 sockets only while it has an rxe device
udp_sockets()
{
	local n
	[ "$(rxe_port4791 "$X")" = 0 ]
	check_err $? "UDP 4791 bound in a namespace without rxe"
	if ! ip -n "$X" link add xa type veth peer name xb; then
		check_err 1 "veth in $X"
		return
	fi
	ip -n "$X" link set xa up
	if ! ip netns exec "$X" rdma link add "${TOPO_PREFIX}_xa" type rxe netdev xa; then
		check_err 1 "rdma link add in $X"
		return
	fi
	n=$(rxe_port4791 "$X")
	[ "$n" -ge 1 ]
	check_err $? "no UDP 4791 socket with an rxe device in $X"
	if ! ip netns exec "$X" rdma link delete "${TOPO_PREFIX}_xa"; then
		check_err 1 "rdma link delete in $X"
		return
	fi
	wait_for --timeout 10 x_unbound
	check_err $? "UDP 4791 still bound in $X after its last rxe device went"
	[ "$RET" = 0 ] && log "ok: $X: no UDP 4791 socket, $n with an rxe device, none after it"
}

# udp_in: UDP InDatagrams of x
# shellcheck disable=SC2016  # awk's $2
udp_in() { ip netns exec "$X" awk '/^Udp:/ { if (n++) print $2 }' /proc/net/snmp; }
# udp_done N: x has received N UDP datagrams
# shellcheck disable=SC2317  # for wait_for
udp_done() { [ "$(udp_in)" -ge "$1" ]; }
cnts() { echo "$(rxe_cnt s1 rp_cnp_handled) $(rxe_cnt s1 rp_cnp_ignored)"; }

# RoCEv2 packets received by x on s1's VLAN never reach s1's device
isolation()
{
	local c0 c1 u0 i files=()
	if ! ip netns exec "$X" rdma link add "${TOPO_PREFIX}_xa" type rxe netdev xa; then
		check_err 1 "rdma link add in $X"
		return
	fi
	if ! topo_exec s1 ip link set eth0.5 netns "$X"; then
		check_err 1 "moving the VLAN device"
		return
	fi
	ip -n "$X" link set lo up
	ip -n "$X" addr add 10.199.0.1/24 dev eth0.5
	ip -n "$X" link set eth0.5 up
	if ! topo_exec sw ip link add link "$SWP" name v5 type vlan id 5; then
		check_err 1 "VLAN on $SWP"
		return
	fi
	topo_exec sw ip addr add 10.199.0.2/24 dev v5
	topo_exec sw ip link set v5 up
	if ! wait_for --timeout 20 topo_exec sw ping -c1 -W1 10.199.0.1; then
		check_err 1 "no VLAN connectivity to namespace x"
		return
	fi

	mkdir -p "$TMPD/cnp"
	if ! topo_exec sw "$PY" "$CRAFT" build "$TMPD/cnp" 10.199.0.1 17 10.199.0.2; then
		check_err 1 "crafting the packets"
		return
	fi
	c0=$(cnts)
	u0=$(udp_in)
	for i in $(seq 1 "$N"); do files+=("$TMPD/cnp/valid.bin" "$TMPD/cnp/wrong_qpn.bin"); done
	if ! topo_exec sw "$PY" "$CRAFT" send "${files[@]}"; then
		check_err 1 "sending"
		return
	fi
	wait_for --timeout 10 udp_done $((u0 + 2 * N))
	check_err $? "namespace x received $(($(udp_in) - u0)) of $((2 * N)) UDP 4791 datagrams"
	# time for a packet handed to s1's device to show in its counters
	sleep 1
	c1=$(cnts)
	log "x: $(($(udp_in) - u0)) UDP 4791 datagrams; s1's device: handled/ignored $c0 -> $c1"
	[ "$c1" = "$c0" ]
	check_err $? "s1's rxe device took packets received in namespace x ($c0 -> $c1)"
	[ "$RET" = 0 ] && log "ok: no packet crossed namespaces"
}

udp_sockets
log_test "udp sockets"
isolation
log_test isolation

tests_exit
