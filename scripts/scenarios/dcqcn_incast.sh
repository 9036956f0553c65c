# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dcqcn_incast: DCQCN against PFC only, soft-RoCE incast (issue 5).
#
#   s1..s4 -> sw -> r     every link `line` Mb/s, PFC on RoCE's band 3,
#                         RED 5 KB / 20 KB / 1 % on sw -> r
#
# Runs selftests/net/test_70_dcqcn_incast.sh (4:1 and 2:1, each with algo
# dcqcn and none: ib_write_bw, per-sender rates from the rxe counters,
# Jain's index over the second half, PAUSE frames, the rxe_cc_dcqcn
# tracepoint of the 4:1 dcqcn run) and turns its outputs into a table,
# per-flow throughput plots and the rate timeline.

describe()
{
	echo "DCQCN vs PFC only: 2:1 and 4:1 soft-RoCE incast, Jain, PAUSE ratio, rate timeline"
}

params()
{
	cat <<'EOF2'
line            10        line rate of every link and rxe device (Mb/s)
duration        16        ib_write_bw -D seconds per run (Jain needs it: 0.887 once with 12)
timeout_exp     17        ib_write_bw -u (transport timeout 4.096 us * 2^N)
EOF2
}

run()
{
	local t=$REPO/selftests/net/test_70_dcqcn_incast.sh rc=0 f n a
	local src=${DCBLAB_BUILD:-$REPO/build}/selftests/net/test_70_dcqcn_incast
	log "running $t (line ${P[line]} Mb/s, ${P[duration]} s per run)"
	DCQCN70_NS="4 2" DCQCN70_LINE=${P[line]} DCQCN70_SECS=${P[duration]} DCQCN_U=${P[timeout_exp]} \
		bash "$t" >"$OUT/test.log" 2>&1 || rc=$?
	for f in "$src"/*; do [ -e "$f" ] && cp "$f" "$OUT/"; done
	dcqcn_incast_table >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# per-flow throughput (Mb/s of 1024-byte packets) of every run
	for f in "$OUT"/samples-*.txt; do
		[ -e "$f" ] || continue
		a=$(basename "$f" .txt); a=${a#samples-}
		n=$(awk 'NR == 1 { print NF - 1 }' "$f")
		dl_rxe_flows "$f" "$OUT/throughput-$a.png" \
			"$(awk -v c="${P[line]}" -v n="$n" 'BEGIN { print c * 1024 / 1082 / n }')" \
			"dcqcn_incast: ${a%%-*}:1, algo ${a#*-}, ${P[line]} Mb/s"
	done
	[ -e "$OUT/timeline-4.png" ] && log "rate timeline: $OUT/timeline-4.png"
	[ $rc = 0 ] || { warn "test_70 failed (status $rc): $(grep '^FAIL' "$OUT/test.log")"; return 1; }
	return 0
}

dcqcn_incast_table()
{
	echo "dcqcn_incast: ${P[line]} Mb/s links, ${P[duration]} s per run (paper: fair shares and far fewer PAUSE frames with DCQCN)"
	printf '%-6s %-6s %-34s %7s %7s\n' incast algo "Mb/s per sender (2nd half)" Jain PAUSE
	sed -n 's/^\[[ 0-9.]*\] \([0-9]\):1 \([a-z]*\): second half [^:]*: Mb\/s \(.*\), Jain \([0-9.]*\); PAUSE frames sent by sw \([0-9]*\);.*/\1:1 \2|\3|\4|\5/p' \
		"$OUT/test.log" | while IFS='|' read -r a r j p; do
		printf '%-6s %-6s %-34s %7s %7s\n' "${a% *}" "${a#* }" "$r" "$j" "$p"
	done
	grep -E 'PAUSE frames dcqcn [0-9]+, none' "$OUT/test.log" | sed 's/^\[[ 0-9.]*\] /  /'
	grep -E '^FAIL' "$OUT/test.log" || echo "  test_70 assertions: all passed"
}
