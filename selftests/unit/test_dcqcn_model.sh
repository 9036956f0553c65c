#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of DCQCN: N = 2, 4, 8 flows through one RED/ECN bottleneck
# driving rxe_cc/dcqcn_sm.c unchanged (selftests/unit/dcqcn/model.c), at
# paper scale (40 Gb/s) and guest scale (100 Mb/s): fair shares, queue
# near Kmin, utilisation.  Then `model -x` (the sweep behind the notebook's
# "Fig. 8 at guest scale"): test_71's setting (N = 27 ms, T = K = 30 ms)
# over 48 s keeps every seed within 20 % of the mean share and alpha never
# decays less than N after a CNP (it does with N = 50 ms > K), and bad
# arguments are refused.  Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build dcqcn model) || exit $?
"$bin" || { echo "FAIL: DCQCN model scenarios"; exit 1; }
out=$("$bin" -x 10 4 5 20 0.01 10 27 30 50 100 48 4 30) || { echo "FAIL: model -x"; exit 1; }
echo "$out"
last=$(tail -n1 <<<"$out")
[[ $last =~ above\ 20%:\ 0\ of\ 4$ ]] || { echo "FAIL: model -x: a seed above 20 %: $last"; exit 1; }
[ "$(grep -c '^seed' <<<"$out")" = 4 ] || { echo "FAIL: model -x: not one line per seed"; exit 1; }
# K > N: alpha must not decay between two CNPs of a flow still marked,
# i.e. never less than N after a CNP.  With N = 27 ms < K = 30 ms: none;
# with N = 50 ms > K = 30 ms it does (the check can fail)
early=$(sed -n 's/^alpha decays less than N after a CNP: //p' <<<"$out")
old=$("$bin" -x 10 4 5 20 0.01 10 50 30 50 100 48 4 30 | sed -n 's/^alpha decays less than N after a CNP: //p')
echo "alpha decays less than N after a CNP: $early (N 27 ms, K 30 ms), $old (N 50 ms, K 30 ms)"
[ "$early" = 0 ] || { echo "FAIL: alpha decayed $early times less than N after a CNP"; exit 1; }
[ "${old:-0}" -gt 0 ] || { echo "FAIL: the check cannot fail: no early decay with K < N either"; exit 1; }
exit 0
