#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of PCN's reaction and notification points (rxe_cc/pcn_sm.c),
# built unchanged in userspace against selftests/unit/include/.
# Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build pcn test_pcn) || exit $?
"$bin" || { echo "FAIL: pcn_sm unit tests"; exit 1; }
exit 0
