#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 200
#
# rxe's UDP 4791 sockets exist only in namespaces with an rxe device:
# an empty namespace has none, gets them with its first device (rdma link
# add) and loses them with its last (rdma link delete).
#
# A packet received in one namespace never reaches the rxe device of
# another.  The rxe device of s1 is on eth0; a VLAN device on that eth0 is
# moved to a namespace of its own (x), which has rxe's UDP 4791 socket
# because it has an rxe device of its own.  The switch sends RoCEv2 packets (crafted CNPs)
# tagged with that VLAN to x's address: x's socket receives them, and
# rxe's fallback from a VLAN device to its real device would hand them to
# s1's device in another namespace.  Asserted: x received them (its UDP
# InDatagrams moved), s1's device saw none (rp_cnp_handled and
# rp_cnp_ignored unchanged).
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../scripts/lib/dcb.sh
. "$TOP/scripts/lib/dcb.sh"
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
at_exit "ip netns del $X"
# rxe_port4791 NS: the UDP 4791 sockets of NS (IPv4 and IPv6)
rxe_port4791() { ip netns exec "$1" cat /proc/net/udp /proc/net/udp6 | awk '$2 ~ /:12B7$/' | wc -l; }
[ "$(rxe_port4791 "$X")" = 0 ] || fail "UDP 4791 bound in a namespace without rxe"
ip -n "$X" link add xa type veth peer name xb || fail "veth in $X"
ip -n "$X" link set xa up
ip netns exec "$X" rdma link add "${TOPO_PREFIX}_xa" type rxe netdev xa ||
	fail "rdma link add in $X"
n=$(rxe_port4791 "$X")
[ "$n" -ge 1 ] || fail "no UDP 4791 socket with an rxe device in $X"
ip netns exec "$X" rdma link delete "${TOPO_PREFIX}_xa" || fail "rdma link delete in $X"
wait_for --timeout 10 eval '[ "$(rxe_port4791 "$X")" = 0 ]' ||
	fail "UDP 4791 still bound in $X after its last rxe device went"
log "ok: $X: no UDP 4791 socket, $n with an rxe device, none after it"
ip netns exec "$X" rdma link add "${TOPO_PREFIX}_xa" type rxe netdev xa ||
	fail "rdma link add in $X"
topo_exec s1 ip link add link eth0 name eth0.5 type vlan id 5 ||
	skip "no VLAN support"
topo_exec s1 ip link set eth0.5 netns "$X" || fail "moving the VLAN device"
ip -n "$X" link set lo up
ip -n "$X" addr add 10.199.0.1/24 dev eth0.5
ip -n "$X" link set eth0.5 up
topo_exec sw ip link add link "$SWP" name v5 type vlan id 5 || fail "VLAN on $SWP"
topo_exec sw ip addr add 10.199.0.2/24 dev v5
topo_exec sw ip link set v5 up
wait_for --timeout 20 topo_exec sw ping -c1 -W1 10.199.0.1 ||
	fail "no VLAN connectivity to namespace x"

mkdir -p "$TMPD/cnp"
topo_exec sw "$PY" "$CRAFT" build "$TMPD/cnp" 10.199.0.1 17 10.199.0.2 ||
	fail "crafting the packets"

udp_in() { ip netns exec "$X" awk '/^Udp:/ { if (n++) print $2 }' /proc/net/snmp; }
cnts() { echo "$(rxe_cnt s1 rp_cnp_handled) $(rxe_cnt s1 rp_cnp_ignored)"; }

c0=$(cnts)
u0=$(udp_in)
files=()
for i in $(seq 1 "$N"); do files+=("$TMPD/cnp/valid.bin" "$TMPD/cnp/wrong_qpn.bin"); done
topo_exec sw "$PY" "$CRAFT" send "${files[@]}" || fail "sending"
udp_done() { [ "$(udp_in)" -ge $((u0 + 2 * N)) ]; }
wait_for --timeout 10 udp_done ||
	fail "namespace x received $(($(udp_in) - u0)) of $((2 * N)) UDP 4791 datagrams"
sleep 1
c1=$(cnts)
log "x: $(($(udp_in) - u0)) UDP 4791 datagrams; s1's device: handled/ignored $c0 -> $c1"
[ "$c1" = "$c0" ] ||
	fail "s1's rxe device took packets received in namespace x ($c0 -> $c1)"
log "ok: no packet crossed namespaces"
exit "$ksft_pass"
