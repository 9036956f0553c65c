#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of PCN: N = 2, 4, 8 flows through one bottleneck with
# NP-ECN marking at sch_dcb's default K, driving rxe_cc/pcn_sm.c
# unchanged (NP and RP; selftests/unit/pcn/model.c), at paper scale
# (40 Gb/s), at 100 Mb/s and at the guest tests' 40 Mb/s: total rate to
# (1 - w_min) C within one control period from overload (not at 40 Mb/s),
# shares converging to C/N (Appendix A).  Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build pcn model) || exit $?
"$bin" || { echo "FAIL: PCN model scenarios"; exit 1; }
exit 0
