#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/dcqcn.sh - CPU cost of the DCQCN hooks without congestion:
# ib_write_bw with cc/algo dcqcn against algo none, in the same guest run.
#
#   scripts/vm-run --timeout 1200 -- bash scripts/bench/dcqcn.sh
#
# Two namespaces joined by a veth pair (no qdisc, nothing marks), one of
# our rxe devices in each, ib_write_bw (64 KB writes, -D seconds) from one
# to the other, so every packet passes the requester hooks (pacer check,
# per-packet ECT, on_sent byte counter) and the receiver's (CE check, NP).
# No ceiling (max_rate_mbps 0): dcqcn takes the veth's 10 Gb/s as line
# rate, far above what the guest reaches, so its QP never paces: the
# difference is the hooks' cost.  Interleaved rounds, the order alternates;
# the table gives each variant's median MB/s and dcqcn/none (goal >= 0.95).
# A benchmark: exit status 1 only if the measurement failed.
#
# Environment:
#   DCBLAB_BENCH_ROUNDS  rounds per variant      (default 4)
#   DCBLAB_BENCH_SECS    ib_write_bw -D seconds  (default 5)
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
ROUNDS=${DCBLAB_BENCH_ROUNDS:-4}
SECS=${DCBLAB_BENCH_SECS:-5}
B=${DCBLAB_BUILD:-$TOP/build}/rxe_cc
A=dqa$$
Z=dqb$$
OUT=$(mktemp -d)

die() { echo "dcqcn.sh: error: $*" >&2; exit 1; }
note() { echo "# $*"; }

[ -f "$B/rdma_rxe.ko" ] && [ -f "$B/rxe_cc_dcqcn.ko" ] || die "modules not built (make)"
for m in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel; do modprobe "$m"; done
if [ -d /sys/module/rdma_rxe ] && ! grep -qw rxe_cc_register /proc/kallsyms; then
	modprobe -r rdma_rxe || die "cannot unload the distribution's rdma_rxe"
fi
[ -d /sys/module/rdma_rxe ] || insmod "$B/rdma_rxe.ko"
[ -d /sys/module/rxe_cc_dcqcn ] || insmod "$B/rxe_cc_dcqcn.ko"
cleanup()
{
	for p in $(ip netns pids $A 2>/dev/null) $(ip netns pids $Z 2>/dev/null); do kill -9 "$p"; done
	ip netns del $A 2>/dev/null
	ip netns del $Z 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT
ip netns add $A
ip netns add $Z
ip link add eth0 netns $A type veth peer name eth0 netns $Z
ip -n $A addr add 10.98.0.1/24 dev eth0
ip -n $Z addr add 10.98.0.2/24 dev eth0
for n in $A $Z; do
	ip -n $n link set lo up
	ip -n $n link set eth0 up
	ip netns exec $n rdma link add "rx_$n" type rxe netdev eth0
done
gid()
{
	local n=$1 want=$2 i g
	for i in $(seq 100); do
		g=$(cd "/sys/class/infiniband/rx_$n/ports/1" &&
			grep -l "RoCE v2" gid_attrs/types/? 2>/dev/null |
			while read -r f; do
				grep -q "$want" "gids/${f##*/}" && echo "${f##*/}"
			done | head -n1) || true
		[ -n "$g" ] && { echo "$g"; return 0; }
		sleep 0.1
	done
	die "no GID on rx_$n"
}
GA=$(gid $A ffff:0a62:0001)
GZ=$(gid $Z ffff:0a62:0002)

# run ALGO: one ib_write_bw from A to Z, prints MB/s
run()
{
	local n i
	for n in $A $Z; do echo "$1" >"/sys/class/infiniband/rx_$n/cc/algo"; done
	ip netns exec $Z ib_write_bw -F -d "rx_$Z" -x "$GZ" -D "$SECS" -s 65536 -p 18998 >"$OUT/srv" 2>&1 &
	local srv=$!
	for i in $(seq 200); do
		ip netns exec $Z ss -ltnH 'sport = :18998' | grep -q . && break
		sleep 0.1
	done
	ip netns exec $A ib_write_bw -F -d "rx_$A" -x "$GA" -D "$SECS" -s 65536 -p 18998 10.98.0.2 \
		>"$OUT/cli" 2>&1 || { cat "$OUT/cli" >&2; die "ib_write_bw ($1)"; }
	wait "$srv" || true
	awk '$1 == 65536 { print $4 }' "$OUT/cli" | tail -n1
}

declare -A R=()
c0=$(cat "/sys/class/infiniband/rx_$A/ports/1/hw_counters/cc_pacer_delays")
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="none dcqcn"; else order="dcqcn none"; fi
	for v in $order; do
		bw=$(run "$v")
		note "round $r $v: $bw MB/s"
		R[$v]+="$bw "
	done
done
c1=$(cat "/sys/class/infiniband/rx_$A/ports/1/hw_counters/cc_pacer_delays")
cnp=$(cat "/sys/class/infiniband/rx_$Z/ports/1/hw_counters/np_cnp_sent")

med() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
n=$(med "${R[none]}"); d=$(med "${R[dcqcn]}")
printf '%-8s %10s %8s   %s\n' algo "MB/s" ratio "rounds"
printf '%-8s %10s %8s   %s\n' none "$n" 1.00 "${R[none]}"
printf '%-8s %10s %8s   %s\n' dcqcn "$d" "$(awk -v a="$d" -v b="$n" 'BEGIN { printf "%.3f", a / b }')" "${R[dcqcn]}"
note "goal: dcqcn/none >= 0.95; pacer delays during the runs: $((c1 - c0)), CNPs: $cnp (both should be 0: no congestion)"
