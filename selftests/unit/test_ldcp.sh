#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of LDCP's state machine (rxe_cc/ldcp_sm.c), built unchanged
# in userspace against selftests/unit/dcqcn/shim.h.
# Exit: 0 pass, 1 fail, 4 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${DCBLAB_BUILD:-$here/../../build}/ldcp
command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
	{ echo "SKIP: no compiler/make"; exit 4; }
if ! make -s -C "$here/ldcp" OUT="$out" "$out/test_ldcp"; then
	echo "FAIL: build of test_ldcp"; exit 1
fi
"$out/test_ldcp" || { echo "FAIL: ldcp_sm unit tests"; exit 1; }
exit 0
