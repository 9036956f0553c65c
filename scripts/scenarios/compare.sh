# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# compare: the side-by-side comparison of issue 6 (`make demo`).  Runs the
# scenarios cmp_incast, cmp_burst and cmp_converge, each through dcblab
# itself (`dcblab run NAME --native --out OUT/NAME`, so each builds and
# tears down its own topology), each with every setting of `algos` in one
# invocation.  A bash scenario writes OUT/NAME/summary.tsv (a header, then
# one row per setting, first column `algo`) and summary.txt, which compare
# prints one after the other (OUT/summary.txt); an experiment of the
# Python layer (all three) leaves its raw files.  The scenarios' plots
# are copied to OUT/NAME-*.png.  The one table of every metric with its
# unit, over all runs of --repeat, is made on the host from those files
# (scripts/dcbanalysis/scenarios/compare.py: results.csv and table.txt).
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
duration        900       time budget (s) of the whole comparison: only sizes dcblab's guest timeout (10 x duration + 240 per run)
EOF
}

cmp_one()
{
	local name=$1 args=() a extra st
	# a bash scenario or a Python experiment (dcblab's scenario_file)
	if [ ! -f "$SCN_DIR/$name.sh" ] && [ ! -f "$EXP_DIR/$name.py" ]; then
		log "compare: scenario $name is missing: skipped"
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
	elif [ ! -f "$EXP_DIR/$name.py" ] && [ ! -s "$OUT/$name/summary.tsv" ]; then
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

run()
{
	local name
	: >"$OUT/status.tsv"
	for name in ${P[scenarios]//,/ }; do
		cmp_one "$name"
	done
	{
		echo "compare: ${P[scenarios]} x ${P[algos]}"
		for name in ${P[scenarios]//,/ }; do
			echo
			cat "$OUT/$name/summary.txt" 2>/dev/null
		done
		echo
		awk -F'\t' '$2 != "ok" { printf "%s: %s\n", $1, $2 }' "$OUT/status.tsv"
	} >"$OUT/summary.txt"
	cat "$OUT/summary.txt"
	ls "$OUT"/*.png >/dev/null 2>&1 && log "plots: $(cd "$OUT" && echo ./*.png)"
	return 0
}
