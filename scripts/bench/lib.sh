# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the packet-rate benchmarks (pps.sh, pfc.sh), sourced.

# median N...: the median of the numbers.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B to 3 decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# pg_wait_running DEV PID [NETNS]: wait until a kpktgend thread (of
# NETNS: pktgen is per namespace) lists DEV as running.  "echo start"
# blocks until the run ends, so it is backgrounded; a "stop" written
# before the start reached pktgen is lost, and the start with count 0
# would then never return.
pg_wait_running() {
	local i ns=()
	[ -n "${3:-}" ] && ns=(ip netns exec "$3")
	for ((i = 0; i < 1000; i++)); do
		"${ns[@]}" sh -c "grep -qs '^Running:.* $1 ' /proc/net/pktgen/kpktgend_*" &&
			return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.01
	done
	return 1
}

# clock_note NAME: which clock the rates are measured on.  Under icount
# (scripts/vm-run, VMRUN_ICOUNT) the guest's time counts the instructions
# executed, so a rate is the inverse of the work per packet and does not
# move with the host's load; otherwise it is the wall clock of a guest
# that shares the host.
clock_note() {
	if [ -n "${DCBLAB_ICOUNT:-}" ]; then
		echo "$1: clock: icount shift=$DCBLAB_ICOUNT (2^$DCBLAB_ICOUNT ns per guest instruction; rates are instructions per packet, inverted)"
	else
		echo "$1: clock: wall clock (rates move with the host's load)"
	fi
}
