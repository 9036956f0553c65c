# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# dcqcn_fig8: PFC's unfairness and the victim flow, then DCQCN (issue 5;
# DCQCN paper Fig. 3 -> Fig. 8 and Fig. 4 -> Fig. 9).
#
#   h1 ----------- sw1 ---- r     (congested: sw1 -> r, `line` Mb/s)
#                  / |
#   h2 h3 h4 v - sw2  vr          (trunk sw2 <-> sw1: 4 x line)
#
# Runs selftests/net/test_71_dcqcn_fig8.sh (v alone; the incast h1..h4 -> r
# with v -> vr under algo none, then dcqcn) and turns its outputs into a
# table (Mb/s per flow over the second half, PAUSE frames, h1's advantage
# under PFC, the victim's share of its rate alone) and per-flow throughput
# plots.

describe()
{
	echo "DCQCN Fig. 3/8/9: PFC unfairness and victim flow, none vs dcqcn, table and plots"
}

params()
{
	cat <<'EOF2'
duration        48        ib_write_bw -D seconds of the dcqcn incast run
none            12        ib_write_bw -D seconds of the PFC-only incast run
alone           6         ib_write_bw -D seconds of v alone
t_us            30000     DCQCN T (rpg_time_reset), us
k_us            30000     DCQCN K (dce_tcp_rtt), us; above the CNP interval N (27 ms)
xoff            96kb      PFC XOFF of every switch port (above RED's kmax 20 KB)
timeout_exp     19        ib_write_bw -u (transport timeout 4.096 us * 2^N)
EOF2
}

run()
{
	local t=$REPO/selftests/net/test_71_dcqcn_fig8.sh rc=0 f a
	local src=${DCBLAB_BUILD:-$REPO/build}/selftests/net/test_71_dcqcn_fig8
	log "running $t (${P[none]} s PFC-only and ${P[duration]} s dcqcn incast runs, xoff ${P[xoff]})"
	DCQCN71_SECS=${P[duration]} DCQCN71_NONE_SECS=${P[none]} DCQCN71_ALONE_SECS=${P[alone]} \
		DCQCN71_KNOBS="rpg_time_reset=${P[t_us]} dce_tcp_rtt=${P[k_us]}" DCQCN71_XOFF=${P[xoff]} \
		DCQCN_U=${P[timeout_exp]} bash "$t" >"$OUT/test.log" 2>&1 || rc=$?
	for f in "$src"/*; do [ -e "$f" ] && cp "$f" "$OUT/"; done
	dcqcn_fig8_table >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	# per-flow throughput (Mb/s of 1024-byte packets) of every run; the
	# line is h1..h4's fair share of the 10 Mb/s bottleneck
	for f in "$OUT"/samples-*.txt; do
		[ -e "$f" ] || continue
		a=$(basename "$f" .txt); a=${a#samples-}
		dl_rxe_flows "$f" "$OUT/throughput-$a.png" "$(awk 'BEGIN { print 10 * 1024 / 1082 / 4 }')" \
			"dcqcn_fig8: $a (flows: $(dcqcn_fig8_flows "$a"))"
	done
	[ $rc = 0 ] || { warn "test_71 failed (status $rc): $(grep '^FAIL' "$OUT/test.log")"; return 1; }
	return 0
}

# dcqcn_fig8_flows RUN: the flows of RUN in the samples' column order
dcqcn_fig8_flows()
{
	case $1 in
	alone) echo "v";;
	*) echo "h1 h2 h3 h4 v";;
	esac
}

dcqcn_fig8_table()
{
	echo "dcqcn_fig8: 10 Mb/s bottleneck sw1 -> r, 40 Mb/s trunk, runs of ${P[none]} s (none) and ${P[duration]} s (dcqcn, T = ${P[t_us]} us) (paper: Fig. 3 h1 about 3x, Fig. 8 fair, Fig. 9 victim kept)"
	printf '%-6s %-6s %-44s %7s\n' run algo "Mb/s per flow (2nd half)" PAUSE
	sed -n 's/^\[[ 0-9.]*\] \([a-z]*\) (\([a-z]*\)): second half [^,]*, Mb\/s: \(.*\) PAUSE frames \([0-9]*\);.*/\1|\2|\3|\4/p' \
		"$OUT/test.log" | while IFS='|' read -r r a f p; do
		printf '%-6s %-6s %-44s %7s\n' "$r" "$a" "$(tr -s ' ' <<<"$f")" "$p"
	done
	grep -E 'h1 / mean|PAUSE frames: dcqcn|victim: alone|Jain|largest deviation' "$OUT/test.log" | sed 's/^\[[ 0-9.]*\] /  /'
	grep -E '^FAIL' "$OUT/test.log" || echo "  test_71 assertions: all passed"
}
