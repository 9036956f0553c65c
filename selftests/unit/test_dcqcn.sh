#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of DCQCN's reaction-point state machine (rxe_cc/dcqcn_sm.c),
# built unchanged in userspace against selftests/unit/include/.
# Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build dcqcn test_dcqcn) || exit $?
"$bin" || { echo "FAIL: dcqcn_sm unit tests"; exit 1; }
exit 0
