# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# compare: the side-by-side comparison of issue 6 (`make demo`).  Runs the
# scenarios cmp_incast, cmp_burst and cmp_converge, each through dcblab
# itself (`dcblab run NAME --native --out OUT/NAME`, so each builds and
# tears down its own topology), each with every setting of `algos` in one
# invocation.  Every scenario writes OUT/NAME/summary.tsv (a header, then
# one row per setting, first column `algo`).  compare prints ONE table:
# per scenario and setting, throughput per flow, Jain's index, queue mean
# and p99, PAUSE frames, drops, go-back-N retries and completion times
# (the columns of that name, or of an alias, in the scenario's summary.tsv;
# per-flow f1_mbps, f2_mbps, ... are joined with "/"; "-" where a scenario
# has none; its other columns follow as key=value), writes it to OUT/compare.tsv and
# OUT/summary.txt, and copies the scenarios' plots to OUT/NAME-*.png.
# A scenario that is missing or fails is reported and skipped.

describe()
{
	echo "issue 6 comparison: cmp_incast, cmp_burst, cmp_converge x none/dcqcn/pcn/ldcp, one table + plots"
}

params()
{
	cat <<'EOF'
scenarios       cmp_incast,cmp_burst,cmp_converge  scenarios to run, in this order
algos           none,dcqcn,pcn,ldcp  settings (passed to scenarios that have an algos knob)
incast_args     ""        extra key=value for cmp_incast (comma-separated)
burst_args      ""        extra key=value for cmp_burst (comma-separated)
converge_args   ""        extra key=value for cmp_converge (comma-separated)
duration        900       time budget (s) of the whole comparison: only sizes dcblab's guest timeout (3 x duration + 300)
EOF
}

# columns of the one table, in order: NAME:ALTERNATIVE|ALTERNATIVE...
CMP_COLS='flows_mbps:flows_mbps|mbps|throughput_mbps|tput_mbps
jain:jain|jain_post
queue_mean_kb:queue_mean_kb|qmean_kb|queue_mean
queue_p99_kb:queue_p99_kb|qp99_kb|queue_p99
pause_tx:pause_tx|pauses|pause_frames
drops:drops|drops_total
retries:gbn_retry|retries
fct_s:fct_max_s|fct_s|completion_s|recovery_s|converge_s'

cmp_one()
{
	local name=$1 f=$SCN_DIR/$1.sh args=() a extra st
	if [ ! -f "$f" ]; then
		log "compare: scenario $name is missing ($f): skipped"
		echo "$name	missing" >>"$OUT/status.tsv"
		return 0
	fi
	if bash "$SELF" params "$name" | awk '{ print $1 }' | grep -qx algos; then
		args+=("algos=${P[algos]}")
	fi
	case $name in
	cmp_incast) extra=${P[incast_args]};;
	cmp_burst) extra=${P[burst_args]};;
	cmp_converge) extra=${P[converge_args]};;
	*) extra=;;
	esac
	for a in ${extra//,/ }; do args+=("$a"); done
	log "compare: dcblab run $name ${args[*]}"
	mkdir -p "$OUT/$name"
	DCBLAB_IN_GUEST=1 bash "$SELF" run "$name" --native --out "$OUT/$name" "${args[@]}" \
		2>&1 | tee "$OUT/$name/dcblab.log"
	st=${PIPESTATUS[0]}
	if [ "$st" != 0 ]; then
		log "compare: $name failed (status $st; log $OUT/$name/dcblab.log)"
		echo "$name	failed" >>"$OUT/status.tsv"
	elif [ ! -s "$OUT/$name/summary.tsv" ]; then
		log "compare: $name wrote no summary.tsv"
		echo "$name	no-summary" >>"$OUT/status.tsv"
	else
		echo "$name	ok" >>"$OUT/status.tsv"
	fi
	for a in "$OUT/$name"/*.png; do
		[ -f "$a" ] && cp "$a" "$OUT/$name-$(basename "$a")"
	done
	return 0
}

# cmp_table: compare.tsv from every OUT/NAME/summary.tsv
cmp_table()
{
	local name
	{
		printf 'scenario\talgo'
		awk -F: '{ printf "\t%s", $1 }' <<<"$CMP_COLS"
		printf '\tother\n'
		for name in ${P[scenarios]//,/ }; do
			[ -s "$OUT/$name/summary.tsv" ] || continue
			awk -F'\t' -v scn="$name" -v cols="$CMP_COLS" '
			BEGIN { nc = split(cols, cl, "\n")
				for (i = 1; i <= nc; i++) { split(cl[i], kv, ":"); alt[i] = kv[2] } }
			NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; nf = NF
				for (j = 1; j <= nc; j++) {
					pick[j] = 0; na = split(alt[j], a, "|")
					for (x = 1; x <= na && !pick[j]; x++)
						for (i = 2; i <= NF; i++) if (h[i] == a[x]) { pick[j] = i; break }
					if (pick[j]) used[pick[j]] = 1
				}
				# no flows_mbps column: join f1_mbps, f2_mbps, ...
				nfl = 0
				if (!pick[1]) for (i = 2; i <= NF; i++) if (h[i] ~ /^f[0-9]+_mbps$/) {
					fl[++nfl] = i; used[i] = 1 }
				next }
			{
				line = scn "\t" $1
				for (j = 1; j <= nc; j++) {
					v = pick[j] ? $pick[j] : "-"
					if (j == 1 && !pick[1] && nfl) {
						v = ""; for (x = 1; x <= nfl; x++) v = v (x > 1 ? "/" : "") $fl[x]
					}
					line = line "\t" v
				}
				o = ""
				for (i = 2; i <= nf; i++) if (!used[i]) o = o (o == "" ? "" : " ") h[i] "=" $i
				print line "\t" (o == "" ? "-" : o)
			}' "$OUT/$name/summary.tsv"
		done
	} >"$OUT/compare.tsv"
}

run()
{
	local name
	: >"$OUT/status.tsv"
	for name in ${P[scenarios]//,/ }; do
		cmp_one "$name"
	done
	cmp_table
	{
		echo "compare: ${P[scenarios]} x ${P[algos]}"
		echo "(flows_mbps: per flow, '/'-separated; queue in KB at the bottleneck;"
		echo " pause_tx: PAUSE frames sent by the switches; fct_s: completion or recovery time)"
		echo
		column -t -s "$(printf '\t')" "$OUT/compare.tsv"
		echo
		awk -F'\t' '$2 != "ok" { printf "%s: %s\n", $1, $2 }' "$OUT/status.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	ls "$OUT"/*.png >/dev/null 2>&1 && log "plots: $(cd "$OUT" && echo ./*.png)"
	return 0
}
