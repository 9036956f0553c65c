#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench/clock.sh - the lab's two clocks side by side (make
# bench-clock).  For each port rate, a 4:1 RDMA incast (ib_write_bw,
# scripts/examples/first-fabric.sh: RED and PFC on the RoCE bands) runs
# in a guest in virtual time and, right after it, in one in real time, so
# both see the same host.  Per run: the wire rate the switch port toward
# the receiver reached, the guest's CPU busy share during the incast,
# PAUSE frames, how many perftest clients printed a result, and wall
# seconds per guest second (the whole guest: boot, set-up, incast).
# Runs on the host; each guest is a scripts/vm-run.
#
#   scripts/bench/clock.sh [RATE_MBIT...]     (default: 40 100 200 400)
#
# Environment: ALGO (none|dcqcn|pcn|ldcp, default none: PFC alone, the
# rate the fabric carries), SECS (incast length, guest seconds, default 5),
# CLOCKS (default "virtual real").

set -uo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd -P)
ALGO=${ALGO:-none}
SECS=${SECS:-5}
CLOCKS=${CLOCKS:-virtual real}
RATES=("$@")
[ ${#RATES[@]} -gt 0 ] || RATES=(40 100 200 400)
OUT=$(mktemp -d "${DCBLAB_BUILD:-$TOP/build}/bench-clock.XXXXXX") || exit 1

# key FILE KEY: KEY's value in a first-fabric report
key() { sed -n "s/^$2=//p" "$1" | tail -n1; }

printf '%-8s %-8s %8s %6s %8s %8s %7s %9s\n' rate clock wire_Mb/s link% kernel% pauses clients wall/guest
rc=0
for r in "${RATES[@]}"; do
	for c in $CLOCKS; do
		f=$OUT/$r-$c
		t0=$EPOCHREALTIME
		RATE=${r}mbit SECS=$SECS FF_REPORT=$f VMRUN_ENV="RATE SECS FF_REPORT" \
			"$TOP/scripts/vm-run" --clock "$c" --timeout 1800 -- bash -c \
			'bash "$1" "$2" >"$3.log" 2>&1; s=$?; read -r u _ </proc/uptime; echo "guest_uptime=$u" >>"$3"; exit $s' \
			_ "$TOP/scripts/examples/first-fabric.sh" "$ALGO" "$f" || rc=1
		t1=$EPOCHREALTIME
		if [ ! -s "$f" ] || [ -z "$(key "$f" wire_mbps)" ]; then
			printf '%-8s %-8s %s\n' "$r" "$c" "no result (guest log: $f.log)"
			[ ! -s "$f.log" ] || tail -n 5 "$f.log" | sed 's/^/  /'
			rc=1
			continue
		fi
		awk -v r="$r" -v c="$c" -v w="$(key "$f" wire_mbps)" -v cpu="$(key "$f" kernel_busy_pct)" \
			-v p="$(key "$f" pause_frames)" -v n="$(key "$f" clients_reported)" \
			-v up="$(key "$f" guest_uptime)" -v t0="$t0" -v t1="$t1" 'BEGIN {
			printf "%-8s %-8s %8.1f %6.1f %8d %8d %5d/4 %9.2f\n",
				r, c, w, 100 * w / r, cpu, p, n, (t1 - t0) / up }'
	done
done
echo "clock.sh: guest logs and reports in $OUT"
echo "clock.sh: algo $ALGO, incast $SECS s; virtual = qemu icount shift=${VMRUN_ICOUNT:-0}, one vCPU; real = TCG, two vCPUs"
exit $rc
