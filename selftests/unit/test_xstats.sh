#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of the statistics reader the tc plugin and dcbmon share
# (include/dcb_xstats.h): a newer module's statistics are read as far as
# this build knows them, an older one's as far as it sends them, and
# malformed ones are refused.  Exit: 0 pass, 1 fail, 4 skip.
. "$(dirname "$0")/sm_lib.sh"
bin=$(sm_build xstats test_xstats) || exit $?
"$bin" || { echo "FAIL: dcb_xstats_read unit tests"; exit 1; }
exit 0
