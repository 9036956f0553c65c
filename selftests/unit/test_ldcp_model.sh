#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of LDCP: N = 2, 4, 8 window flows through one DCTCP-step
# ECN bottleneck (WRED drop of non-ECT fast-start packets above K) with
# per-packet ACKs and go-back-N, driving rxe_cc/ldcp_sm.c unchanged
# (selftests/unit/ldcp/model.c), at guest scale (BDP 20 packets) and
# datacenter scale (BDP 50): queue small and stable, utilisation, fair
# shares, ECE fraction at the fluid model's fixed point.
# Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build ldcp model) || exit $?
"$bin" || { echo "FAIL: LDCP model scenarios"; exit 1; }
# an ACK every 4th packet (n-packet ACKs) must hold the same bounds
"$bin" -k 4 || { echo "FAIL: LDCP model with ack_every 4"; exit 1; }
# the checks can fail: beta = 1.0 drains the queue (utilisation < 90%)
if "$bin" -b 1024 >/dev/null; then
	echo "FAIL: the model accepted beta = 1.0"; exit 1
fi
exit 0
