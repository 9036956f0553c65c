#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of the sch_dcb tc plugin's parser/encoder/printer
# (tc/dcb_opts.c), no kernel and no tc needed.
# Exit: 0 pass, 1 fail, 4 skip.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

if ! command -v "${CC:-gcc}" >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
	echo "1..0 # SKIP no compiler/make"
	exit 4
fi

if ! out=$(make -s -C "$REPO/tc" test-bin 2>&1); then
	echo "$out"
	echo "not ok 1 - build tc/test_tc_parse"
	exit 1
fi

"$REPO/tc/test_tc_parse"
rc=$?
[ $rc -eq 0 ] && exit 0
exit 1
