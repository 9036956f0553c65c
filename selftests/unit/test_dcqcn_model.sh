#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of DCQCN: N = 2, 4, 8 flows through one RED/ECN bottleneck
# driving rxe_cc/dcqcn_sm.c unchanged (selftests/unit/dcqcn/model.c), at
# paper scale (40 Gb/s) and guest scale (100 Mb/s): fair shares, queue
# near Kmin, utilisation.  Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build dcqcn model) || exit $?
"$bin" || { echo "FAIL: DCQCN model scenarios"; exit 1; }
exit 0
