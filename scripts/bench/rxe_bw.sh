#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/rxe_bw.sh - ib_write_bw through our rdma_rxe against the
# distribution's, in the same guest run.
#
#   scripts/vm-run --timeout 1200 -- bash scripts/bench/rxe_bw.sh
#
# The distribution's rxe works only in the initial namespace, so both run
# there: one rxe device on a veth (10.99.0.1), ib_write_bw server and
# client on it (RoCE v2, IPv4 GID; rxe's internal loopback, so this
# measures rxe itself, not veth).  Three variants in interleaved rounds
# (the order rotates): "dist" (modprobe rdma_rxe), "ours" (algo none, no
# ceiling), "paced" (ours with cc/max_rate_mbps above what the guest can
# reach, so the pacer runs for every packet).  The table gives each
# variant's median MB/s and the ratios; goals (issue 44): ours/dist >= 0.99,
# paced/dist >= 0.95.  A benchmark: exit status 1 only if the measurement
# failed.
#
# Environment:
#   DCBLAB_BENCH_ROUNDS  rounds per variant      (default 3)
#   DCBLAB_BENCH_SECS    ib_write_bw -D seconds  (default 5)
#   DCBLAB_BENCH_PACE    ceiling of "paced", Mb/s (default 20000)
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
ROUNDS=${DCBLAB_BENCH_ROUNDS:-3}
SECS=${DCBLAB_BENCH_SECS:-5}
PACE=${DCBLAB_BENCH_PACE:-20000}
KO=${DCBLAB_BUILD:-$TOP/build}/rxe_cc/rdma_rxe.ko
DEV=rxbench0
OUT=$(mktemp -d)

die() { echo "rxe_bw.sh: error: $*" >&2; exit 1; }
note() { echo "# $*"; }

[ -f "$KO" ] || die "$KO not built (make)"
for m in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel; do modprobe "$m"; done
ip link add rxb0 type veth peer name rxb1
# (errexit applies inside the trap: every step may fail harmlessly)
cleanup() {
	rdma link delete "$DEV" 2>/dev/null || true
	modprobe -r rdma_rxe 2>/dev/null || rmmod rdma_rxe 2>/dev/null || true
	ip link del rxb0 2>/dev/null || true
	rm -rf "$OUT"
}
trap cleanup EXIT
ip addr add 10.99.0.1/24 dev rxb0
ip link set rxb0 up
ip link set rxb1 up

unload() {
	rdma link delete "$DEV" 2>/dev/null || true
	if [ -d /sys/module/rdma_rxe ]; then
		modprobe -r rdma_rxe 2>/dev/null || rmmod rdma_rxe
	fi
}

# load VARIANT: the module and the device for it
load() {
	unload
	case $1 in
	dist) modprobe rdma_rxe ;;
	*)	# `modprobe -r rdma_rxe` also removed the unused dependencies
		for m in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel; do modprobe "$m"; done
		insmod "$KO" ;;
	esac
	rdma link add "$DEV" type rxe netdev rxb0
	[ "$1" = paced ] && echo "$PACE" >"/sys/class/infiniband/$DEV/cc/max_rate_mbps"
	local i
	for i in $(seq 100); do
		gid=$(cd "/sys/class/infiniband/$DEV/ports/1" &&
			grep -l "RoCE v2" gid_attrs/types/? 2>/dev/null |
			while read -r f; do
				n=${f##*/}
				grep -q ffff:0a63:0001 "gids/$n" && echo "$n"
			done | head -n1) || true
		[ -n "$gid" ] && return 0
		sleep 0.1
	done
	die "no GID on $DEV"
}

# run VARIANT: one ib_write_bw, prints MB/s
run() {
	ib_write_bw -F -d "$DEV" -x "$gid" -D "$SECS" -s 65536 -p 18999 >"$OUT/srv" 2>&1 &
	local srv=$! i
	for i in $(seq 100); do
		ss -ltnH 'sport = :18999' | grep -q . && break
		sleep 0.1
	done
	ib_write_bw -F -d "$DEV" -x "$gid" -D "$SECS" -s 65536 -p 18999 10.99.0.1 >"$OUT/cli" 2>&1 ||
		{ cat "$OUT/cli" >&2; die "ib_write_bw ($1)"; }
	wait "$srv" || true
	awk '$1 == 65536 { print $4 }' "$OUT/cli" | tail -n1
}

VARIANTS=(dist ours paced)
declare -A R=()
for r in $(seq "$ROUNDS"); do
	for k in 0 1 2; do
		v=${VARIANTS[$(((k + r) % 3))]}
		load "$v"
		bw=$(run "$v")
		note "round $r $v: $bw MB/s"
		R[$v]+="$bw "
	done
done
unload

med() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
d=$(med "${R[dist]}"); o=$(med "${R[ours]}"); p=$(med "${R[paced]}")
printf '%-8s %10s %8s\n' variant "MB/s" "ratio"
printf '%-8s %10s %8s\n' dist "$d" 1.00
printf '%-8s %10s %8s\n' ours "$o" "$(awk -v a="$o" -v b="$d" 'BEGIN { printf "%.3f", a / b }')"
printf '%-8s %10s %8s\n' paced "$p" "$(awk -v a="$p" -v b="$d" 'BEGIN { printf "%.3f", a / b }')"
note "goals: ours/dist >= 0.99, paced/dist >= 0.95 (paced at $PACE Mb/s)"
