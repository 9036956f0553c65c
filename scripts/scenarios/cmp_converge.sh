# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cmp_converge: PCN Fig. 11, scaled dumbbell: N long flows s1..sN -> sw -> r
# start at line rate into one port, run with each algorithm of `algos` in
# one invocation (issue 6).  Measured per algorithm: the time until the sum
# of the algorithm's rates is at most 1.1 x the line rate (pcn and dcqcn:
# from their rate tracepoints), the time until the port's queue drains, per-flow
# throughput and Jain's index over the second half, PAUSE frames, drops.
# The code is in scripts/lib/cmp.sh (shared with test_77).

. "$(dirname "${BASH_SOURCE[0]}")/cmp_burst.sh"

describe()
{
	echo "long-flow convergence: N flows start at line rate into one port, per algorithm (none dcqcn pcn ldcp)"
}

params()
{
	cat <<'EOF2'
algos           none,dcqcn,pcn,ldcp  algorithms, run one after the other
rate            100            line rate of every port, host NIC and rxe device (Mb/s)
flows           3              long flows (senders)
duration        5              flows' duration (s, ib_write_bw -D)
drain_kb        4              the queue is drained when its mean over 1 s is below this (KB)
interval        0.25           sent_pkts sampling interval (s)
interval_ms     50             dcbmon interval (ms)
EOF2
}

run()
{
	local a cols
	cmp_source_libs
	cmp_setup_common
	CMP_N=${P[flows]}; CMP_DRAIN_KB=${P[drain_kb]}
	# shellcheck disable=SC2086
	cmp_load $CMP_ALGOS
	cmp_conv_topo
	cols=$(cmp_conv_cols)
	printf '%s\n' "${cols// /$'\t'}" >"$OUT/summary.tsv"
	for a in $CMP_ALGOS; do
		cmp_conv_run "$a"
		cmp_row "$OUT/conv-$a.env" "$a" "$cols" >>"$OUT/summary.tsv"
	done
	{
		echo "cmp_converge: ${CMP_N} flows -> sw -> r, ${P[rate]} Mb/s, ${P[duration]} s per algorithm"
		for a in $CMP_ALGOS; do echo "  $a: switch ports: ${CMP_SWOPTS[$a]}"; done
		echo "  (per-flow Mb/s and Jain over the second half; converge_s: pcn and dcqcn, from their rate"
		echo "   tracepoints, to the sum of the rates <= 1.1 x line rate (dcqcn: from the last first CNP);"
		echo "   drain_s: from the queue passing ${P[drain_kb]} KB to falling to it after its initial peak peak0_kb;"
		echo "   settle_s: to its 1 s mean staying below ${P[drain_kb]} KB; total_mbps: all flows over active_s)"
		echo
		cmp_table "$OUT/summary.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# (the plots are drawn on the host: scripts/dcbanalysis/scenarios/cmp.py)
	return 0
}
