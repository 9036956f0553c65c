#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unit tests of PCN's reaction and notification points (rxe_cc/pcn_sm.c),
# built unchanged in userspace against selftests/unit/pcn/shim.h.
# Exit: 0 pass, 1 fail, 4 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${DCBLAB_BUILD:-$here/../../build}/pcn
command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
	{ echo "SKIP: no compiler/make"; exit 4; }
if ! make -s -C "$here/pcn" OUT="$out" "$out/test_pcn"; then
	echo "FAIL: build of test_pcn"; exit 1
fi
"$out/test_pcn" || { echo "FAIL: pcn_sm unit tests"; exit 1; }
exit 0
