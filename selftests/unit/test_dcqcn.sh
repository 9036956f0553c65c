#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of DCQCN's reaction-point state machine (rxe_cc/dcqcn_sm.c),
# built unchanged in userspace against selftests/unit/dcqcn/shim.h.
# Exit: 0 pass, 1 fail, 4 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${DCBLAB_BUILD:-$here/../../build}/dcqcn
command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
	{ echo "SKIP: no compiler/make"; exit 4; }
if ! make -s -C "$here/dcqcn" OUT="$out" "$out/test_dcqcn"; then
	echo "FAIL: build of test_dcqcn"; exit 1
fi
"$out/test_dcqcn" || { echo "FAIL: dcqcn_sm unit tests"; exit 1; }
exit 0
