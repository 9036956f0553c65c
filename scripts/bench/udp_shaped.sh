#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/udp_shaped.sh - one UDP sender, back to back on a blocking
# socket, through a sch_dcb port shaped to RATE (default 100mbit): the
# flow that idles a virtual-time guest (the sender waits for the shaper's
# hrtimer), for scripts/bench/repro.sh.  Runs as root where sch_dcb loads
# (in a guest: scripts/vm-run -- scripts/bench/udp_shaped.sh).  Prints,
# over SECS seconds (default 4) after 1 s of warm-up, as key=value lines:
# wire_mbps (the receiver's bytes), shaper_lag_ms (line time the shaper
# lost to late dequeues) and idle_pct (the guest CPU's idle share).
set -euo pipefail
RATE=${RATE:-100mbit}
SECS=${SECS:-4}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
A=us-a B=us-b

cleanup() {
	[ -z "${SPID:-}" ] || kill "$SPID" 2>/dev/null || :
	ip netns del $A 2>/dev/null || :
	ip netns del $B 2>/dev/null || :
}
trap cleanup EXIT
lsmod | grep -q "^sch_dcb " || insmod "$TOP/sch_dcb/sch_dcb.ko"
export TC_LIB_DIR=$TOP/tc
ip netns add $A
ip netns add $B
ip -n $A link add eth0 type veth peer name eth0 netns $B
ip -n $A addr add 10.77.0.1/24 dev eth0
ip -n $B addr add 10.77.0.2/24 dev eth0
ip -n $A link set eth0 up
ip -n $B link set eth0 up
tc -n $A qdisc add dev eth0 root dcb rate "$RATE"
ip netns exec $B "$TOP/tools/udpflow" sink 9000 /run/us-stop --max 600 >/dev/null &
ip netns exec $A "$TOP/tools/udpflow" send 10.77.0.2 9000 --count 1000000000 \
	--interval 0 >/dev/null 2>&1 &
SPID=$!

# rx: the receiver's byte count and the time of that reading, together
# (a process start between them would put its own time into the window)
rx() {
	ip netns exec $B bash -c \
		'read -r b </sys/class/net/eth0/statistics/rx_bytes; echo "$EPOCHREALTIME $b"'
}
lag() { "$TOP/tools/dcbmon" -s "$A:eth0" | awk '$1 ~ /:shaper_lag_us$/ { print $2 }'; }
idle() { awk '/^cpu / { print $5, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
sleep 1
l0=$(lag); read -r i0 t0 < <(idle); read -r s0 b0 < <(rx)
sleep "$SECS"
read -r s1 b1 < <(rx); l1=$(lag); read -r i1 t1 < <(idle)
: >/run/us-stop
awk -v b=$((b1 - b0)) -v a="$s0" -v z="$s1" -v l=$((l1 - l0)) \
	-v i=$((i1 - i0)) -v t=$((t1 - t0)) 'BEGIN {
	printf "wire_mbps=%.2f\nshaper_lag_ms=%.1f\nidle_pct=%.1f\n",
		8 * b / (z - a) / 1e6, l / 1000, t ? 100 * i / t : 0 }'
