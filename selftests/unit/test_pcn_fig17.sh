#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PCN's flow scalability (the paper's Fig. 17) on the packet-level model
# driving rxe_cc/pcn_sm.c (`model -n`, selftests/unit/pcn/model.c): N = 4,
# 8, 16, 32, 64 flows into one port at the testbed's 10 Gb/s and at the
# guests' 40 Mb/s, PFC holding the senders above an XOFF.  Asserted, as
# the paper reports for its testbed: at every N Jain's index of the flows'
# throughputs >= 0.9 (the model's own check, both scales); at 10 Gb/s the
# link at least 99 % used, the mean queue below 60 KB and no PAUSE in
# the second half of the run.  Exit: 0 pass, 1 fail, 4 skip.
#
# The model runs about 30 s of one host CPU; the timeout only guards
# against a hang (on a host whose two CPUs ran a dozen guests it took
# over 120 s).
# timeout: 300
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build pcn model) || exit $?
out=$("$bin" -n)
rc=$?
echo "$out"
[ $rc = 0 ] || { echo "FAIL: model -n: Jain below 0.9"; exit 1; }
# scale N jain jain_w util q_mean q_max pauses
bad=$(awk '$1 == "10Gb/s" && ($5 < 0.99 || $6 >= 60 || $8 != 0) {
		printf "N=%s: utilisation %s, mean queue %s KB, pauses %s\n", $2, $5, $6, $8 }' <<<"$out")
[ -z "$bad" ] || { echo "FAIL: 10 Gb/s: $bad"; exit 1; }
[ "$(grep -c '^10Gb/s' <<<"$out")" = 5 ] && [ "$(grep -c '^40Mb/s' <<<"$out")" = 5 ] ||
	{ echo "FAIL: not one line per scale and N"; exit 1; }
echo "ok: Jain >= 0.9 at every N; 10 Gb/s: utilisation >= 0.99, mean queue < 60 KB, no PAUSE"
exit 0
