#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of LDCP's state machine (rxe_cc/ldcp_sm.c), built unchanged
# in userspace against selftests/unit/include/.
# Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build ldcp test_ldcp) || exit $?
"$bin" || { echo "FAIL: ldcp_sm unit tests"; exit 1; }
exit 0
