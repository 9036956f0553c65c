#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of DCQCN: N = 2, 4, 8 flows through one RED/ECN bottleneck
# driving rxe_cc/dcqcn_sm.c unchanged (selftests/unit/dcqcn/model.c), at
# paper scale (40 Gb/s) and guest scale (100 Mb/s): fair shares, queue
# near Kmin, utilisation.  Then `model -x` (the sweep behind dcqcn.rst's
# "Fig. 8 at guest scale"): test_71's setting with T = 30 ms and K = 55 ms
# over 48 s keeps every seed within 20 % of the mean share, alpha after
# a cut is higher with K > N than with K = 30 ms < N, and bad arguments
# are refused.  Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build dcqcn model) || exit $?
"$bin" || { echo "FAIL: DCQCN model scenarios"; exit 1; }
out=$("$bin" -x 10 4 5 20 0.01 10 50 30 50 100 48 4 55) || { echo "FAIL: model -x"; exit 1; }
echo "$out"
last=$(tail -n1 <<<"$out")
[[ $last =~ above\ 20%:\ 0\ of\ 4$ ]] || { echo "FAIL: model -x: a seed above 20 %: $last"; exit 1; }
[ "$(grep -c '^seed' <<<"$out")" = 4 ] || { echo "FAIL: model -x: not one line per seed"; exit 1; }
# K > N (55 ms > 50 ms) keeps alpha up between the CNPs of a marked flow;
# K = T = 30 ms < N (the setting before) lets it decay: alpha after a cut
# must be at least 1.3 times higher with K > N
a_kn=$(sed -n 's/^alpha at cuts mean \([0-9.]*\).*/\1/p' <<<"$out")
out30=$("$bin" -x 10 4 5 20 0.01 10 50 30 50 100 48 4 30) || { echo "FAIL: model -x K 30"; exit 1; }
a_30=$(sed -n 's/^alpha at cuts mean \([0-9.]*\).*/\1/p' <<<"$out30")
echo "alpha after cuts: K = 55 ms $a_kn, K = 30 ms $a_30 (N = 50 ms)"
awk -v a="$a_kn" -v b="$a_30" 'BEGIN { exit !(b > 0 && a >= 1.3 * b) }' ||
	{ echo "FAIL: alpha with K > N ($a_kn) not 1.3 x alpha with K < N ($a_30)"; exit 1; }
"$bin" -x 10 4 2>/dev/null; rc=$?
[ $rc = 2 ] || { echo "FAIL: model -x with too few arguments: exit $rc, want 2"; exit 1; }
"$bin" -x 10 0 5 20 0.01 10 50 30 50 100 48 4 2>/dev/null; rc=$?
[ $rc = 2 ] || { echo "FAIL: model -x with N = 0: exit $rc, want 2"; exit 1; }
exit 0
