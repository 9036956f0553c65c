# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# cmp_burst: PCN's concurrent burst (PCN section 3.1, scaled), run with
# each algorithm of `algos` in one invocation (issue 6):
#
#   f0 --\                    /-- r0
#         s0 ------------- s1 --- r1     F0: f0 -> r0, F1: f1 -> r1 (long)
#   f1 --/                 |  \          burst: b1..bN -> r1 (short writes)
#                         b1 .. bN
#
# PFC on RoCE's band 3 with NP-ECN (pcn), RED (dcqcn) or no marking (none) on
# every switch port; ldcp without PFC and with DCTCP step marking.  The
# code is in scripts/lib/cmp.sh (shared with test_76).

describe()
{
	echo "PCN concurrent burst: long flows F0/F1 + a short burst into r1, per algorithm (none dcqcn pcn ldcp)"
}

params()
{
	cat <<'EOF2'
algos           none,dcqcn,pcn,ldcp  algorithms, run one after the other
rate            100            line rate of every port, host NIC and rxe device (Mb/s)
bursters        3              burst senders on s1
burst_msgs      64             RDMA WRITEs per burst sender
burst_size      16384          bytes per WRITE
pre             1.5            seconds of both long flows before the burst
post            2              seconds of the long flows after the burst (then they are stopped)
duration        30             long flows' longest duration (s, ib_write_bw -D; stopped earlier)
interval        0.25           sent_pkts sampling interval (s)
interval_ms     50             dcbmon interval (ms)
EOF2
}

# cmp_source_libs: the helpers of scripts/lib shared with the tests
# (common.sh, dcb.sh, rxe.sh, cmp.sh)
cmp_source_libs()
{
	# the scenario keeps dcblab's topology prefix (run_once's topo_init),
	# whatever the libraries set
	local l=$REPO/scripts/lib prefix=$TOPO_PREFIX
	# shellcheck source=../lib/common.sh
	. "$l/common.sh"
	# shellcheck source=../lib/dcb.sh
	. "$l/dcb.sh"
	# shellcheck source=../lib/rxe.sh
	. "$l/rxe.sh"
	# shellcheck source=../lib/cmp.sh
	. "$l/cmp.sh"
	# common.sh's exit handling (_lib_exit), and dcblab's own as well
	trap '_cmp_rc=$?; dl_monitor_stop; topo_cleanup; (exit $_cmp_rc); _lib_exit' EXIT
	TOPO_PREFIX=$prefix
}

# cmp_setup_common: knobs from P[] into the cmp.sh variables
cmp_setup_common()
{
	CMP_RATE_MBPS=${P[rate]}; CMP_LINE_MBPS=${P[rate]}
	CMP_SECS=${P[duration]}; CMP_IV=${P[interval]}; CMP_MON_MS=${P[interval_ms]}
	CMP_OUT=$OUT
	CMP_ALGOS=$(tr ',' ' ' <<<"${P[algos]}")
}

run()
{
	local a
	cmp_source_libs
	cmp_setup_common
	CMP_NB=${P[bursters]}; CMP_BURST_MSGS=${P[burst_msgs]}; CMP_BURST_SIZE=${P[burst_size]}
	CMP_PRE=${P[pre]}; CMP_POST=${P[post]}
	# shellcheck disable=SC2086
	cmp_load $CMP_ALGOS
	cmp_burst_topo
	printf '%s\n' "${CMP_BURST_COLS// /$'\t'}" >"$OUT/summary.tsv"
	for a in $CMP_ALGOS; do
		cmp_burst_run "$a"
		cmp_row "$OUT/burst-$a.env" "$a" "$CMP_BURST_COLS" >>"$OUT/summary.tsv"
	done
	{
		echo "cmp_burst: F0 f0->r0 and F1 f1->r1 across s0->s1, burst ${CMP_NB} x ${CMP_BURST_MSGS} x ${CMP_BURST_SIZE} B -> r1; ${P[rate]} Mb/s links"
		for a in $CMP_ALGOS; do echo "  $a: switch ports: ${CMP_SWOPTS[$a]}"; done
		echo "  (Mb/s of RDMA payload from sent_pkts; pre/burst/post: before, during, after the burst;"
		echo "   queue: s1->r1, q01: s0->s1; recovery_s: until both long flows are within 20% of half the pre-burst aggregate over 1 s)"
		echo
		cmp_table "$OUT/summary.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# (the plots are drawn on the host: scripts/dcbanalysis/scenarios/cmp.py)
	return 0
}
