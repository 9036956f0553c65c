#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/experiments/cm_rtu_loss.sh - rping (rdma_cm) when the client's
# CM RTU messages are lost (issue 14: "RDMA_CM_EVENT_UNREACHABLE, error
# -110").  Not a test: it prints what happens.  Run in the guest:
#	scripts/vm-run --timeout 900 -- bash scripts/experiments/cm_rtu_loss.sh
#
# s1 -> sw -> r as test_82 (hosts' sch_dcb at 40 Mbit/s, the switch port
# at 20 Mbit/s), rping -S 65000 -C 5 -V.  A u32 filter on s1's clsact
# egress drops RoCEv2 packets (UDP 4791) that carry a CM MAD (management
# class 0x07, byte 49 of the IP packet: IP 20 + UDP 8 + BTH 12 + DETH 8
# + 1) whose attribute ID (bytes 64-65) is RTU, 0x0014.  Cases:
#   baseline   no filter;
#   rtu_first  the filter removed as soon as it dropped one RTU;
#   rtu_all    every RTU dropped (the server's REP retries run out).
# Arguments name the cases to run (default: all three, in that order).
# Each case prints the exit codes, the time, the filter's drops, s1's
# send_err and the CM MADs a capture on s1's eth0 saw by attribute.
# rtu_all lasts about 150 s (the client's timeout); without the 6.1
# series' patch 0005 it does not end, the client's rdma_cm ID cannot be
# destroyed (notebook/results-history.rst, "A lost CM RTU").
. "$(dirname "$0")/../../selftests/net/lib.sh"
# shellcheck source=../lib/rxe.sh
. "$TOP/scripts/lib/rxe.sh"

need_cmd rping rdma tcpdump
load_rxe
rxe_rping_topo
S1NS=$(topo_ns s1)
rtu_dropped_any() { [ "$(rtu_drops s1)" -ge 1 ]; }

# cm_mads PCAP ATTR: CM MADs (RoCEv2, management class 0x07) of attribute ATTR
cm_mads()
{
	tcpdump -r "$1" -n "udp dst port 4791 and ip[49] = 0x07 and ip[64:2] = $2" 2>/dev/null | wc -l
}

port=7300
# run NAME first|all|none
run()
{
	local name=$1 how=$2 o=$TMPD/$1 t0 t1 rc=0 src=0 srv cli drops=none
	local err0 cap
	port=$((port + 1))
	err0=$(rxe_cnt s1 send_err)
	ip netns exec "$S1NS" tcpdump -i eth0 -n -w "$o.pcap" 'udp port 4791' 2>"$o.tcpdump" &
	cap=$!
	wait_for --timeout 10 grep -q listening "$o.tcpdump" || fail "$name: no capture"
	[ "$how" = none ] || rtu_drop_on s1 || fail "u32 filter on s1"
	ip netns exec "$(topo_ns r)" timeout 150 rping -s -a "$RIP" -p $port -S 65000 -C 5 \
		>"$o.srv" 2>&1 &
	srv=$!
	wait_for --timeout 30 rxe_cm_listen $port r || fail "$name: no listener"
	t0=$EPOCHREALTIME
	ip netns exec "$S1NS" timeout 150 rping -c -a "$RIP" -p $port -S 65000 -C 5 -V -v \
		>"$o.cli" 2>&1 &
	cli=$!
	if [ "$how" = first ]; then
		wait_for --timeout 30 rtu_dropped_any
		drops=$(rtu_drops s1)
		rtu_drop_off s1
	fi
	wait $cli || rc=$?
	t1=$EPOCHREALTIME
	wait $srv || src=$?
	[ "$how" = all ] && { drops=$(rtu_drops s1); rtu_drop_off s1; }
	kill -INT $cap; wait $cap
	echo "== $name: client exit $rc, server exit $src after $(awk -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%.2f", b - a }') s; RTU filter: $drops;" \
		"client pings $(grep -c '^ping data' "$o.cli");" \
		"s1 send_err +$(($(rxe_cnt s1 send_err) - err0))"
	# CM MADs on s1's eth0 by attribute (a packet the egress filter
	# dropped is not seen: taps see what leaves the qdisc)
	echo "   CM MADs on s1 eth0: REQ $(cm_mads "$o.pcap" 0x0010) REP $(cm_mads "$o.pcap" 0x0013)" \
		"RTU $(cm_mads "$o.pcap" 0x0014) DREQ $(cm_mads "$o.pcap" 0x0015) DREP $(cm_mads "$o.pcap" 0x0016)"
	grep -hv '^ping data\|^server ping data' "$o.cli" "$o.srv" | sed 's/^/   /'
	wait_for --timeout 60 no_qps || echo "   QPs left after 60 s"
}

[ $# -gt 0 ] || set -- baseline rtu_first rtu_all
for c in "$@"; do
	case $c in
	baseline) run baseline none ;;
	rtu_first) run rtu_first first ;;
	rtu_all) run rtu_all all ;;
	*) fail "unknown case $c" ;;
	esac
done
dmesg | grep -E 'cm_destroy_id|hung|blocked' | tail -n 5
