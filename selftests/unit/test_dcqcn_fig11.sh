#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DCQCN's parameter analyses (the paper's section 5, Fig. 11 and 12, which
# it made with a fluid model) on the discrete model driving
# rxe_cc/dcqcn_sm.c at 40 Gb/s (`model -f`, selftests/unit/dcqcn/model.c).
# Asserted, as the paper finds:
#   Fig. 11: with the strawman parameters (QCN's B 150 KB, T 1.5 ms,
#     DCTCP's cut-off marking at 40 KB, g 1/16) a flow starting at the
#     minimum rate does not catch up with one at line rate in 200 ms; a
#     fast timer (T 55 us) and RED marking (Kmax 200 KB) each narrow the
#     gap, and the paper's settings (Fig. 14) converge;
#   Fig. 12: a smaller g gives a steadier queue (lower standard deviation
#     and maximum) in 2:1 and 16:1 incasts; a smaller R_AI keeps the
#     32:1 queue lower and converges two flows more slowly.
# Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build dcqcn model) || exit $?
out=$("$bin" -f) || { echo "FAIL: model -f"; exit 1; }
echo "$out"
fails=0

# col FIG SETTING N FIELD: FIELD (jain, util, q, sd, max, conv, gap) of
# that line; the setting is the fixed-width column 6-27
col()
{
	awk -v f="$1" -v s="$2" -v n="$3" -v k="$4" '
		BEGIN { split("n jain util q sd max conv gap", name, " ") }
		{
			fig = substr($0, 1, 4); set = substr($0, 6, 22)
			sub(/ +$/, "", fig); sub(/ +$/, "", set)
			m = split(substr($0, 28), v, " ")
			if (fig != f || set != s || v[1] != n)
				next
			for (i = 1; i <= m; i++)
				if (name[i] == k) { print v[i]; exit }
		}' <<<"$out"
}

# check DESCRIPTION AWK-EXPRESSION (on the values substituted in)
check()
{
	if awk "BEGIN { exit !($2) }"; then
		echo "ok: $1"
	else
		echo "FAIL: $1 ($2)"
		fails=$((fails + 1))
	fi
}

straw=$(col 11a "strawman B 150 KB" 2 gap)
timer=$(col 11b "B 10 MB T 55 us" 2 gap)
red=$(col 11c "strawman Kmax 200 KB" 2 gap)
paper=$(col 11 "paper (Fig. 14)" 2 gap)
pconv=$(col 11 "paper (Fig. 14)" 2 conv)
[ "$pconv" = - ] && pconv=0	# never 10 % apart
check "strawman: flows not converged after 200 ms (gap $straw of C)" "$straw > 0.5"
check "fast timer narrows the gap ($timer < $straw)" "$timer < $straw"
check "RED marking narrows the gap ($red < $straw)" "$red < $straw"
check "paper settings converge (gap $paper, by $pconv ms)" "$paper < 0.1 && $pconv < 200"
for n in 2 16; do
	sd16=$(col 12 "g 1/16" $n sd) sd256=$(col 12 "g 1/256" $n sd)
	mx16=$(col 12 "g 1/16" $n max) mx256=$(col 12 "g 1/256" $n max)
	check "$n:1: g 1/256 steadier than 1/16 (sd $sd256 < $sd16 KB, max $mx256 <= $mx16 KB)" \
		"$sd256 < $sd16 && $mx256 <= $mx16"
done
m40=$(col 12 "R_AI 40 Mb/s" 32 max) m5=$(col 12 "R_AI 5 Mb/s" 32 max)
check "32:1: R_AI 5 Mb/s keeps the queue lower (max $m5 < $m40 KB)" "$m5 < $m40"
g40=$(col 12 "R_AI 40 Mb/s" 2 gap) g5=$(col 12 "R_AI 5 Mb/s" 2 gap)
check "two flows: R_AI 5 Mb/s converges more slowly (gap at the end $g5 > $g40)" "$g5 > $g40"
[ "$fails" = 0 ] || { echo "FAIL: $fails check(s)"; exit 1; }
exit 0
