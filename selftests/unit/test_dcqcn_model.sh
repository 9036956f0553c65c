#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of DCQCN: N = 2, 4, 8 flows through one RED/ECN bottleneck
# driving rxe_cc/dcqcn_sm.c unchanged (selftests/unit/dcqcn/model.c), at
# paper scale (40 Gb/s) and guest scale (100 Mb/s): fair shares, queue
# near Kmin, utilisation.  Exit: 0 pass, 1 fail, 4 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${DCBLAB_BUILD:-$here/../../build}/dcqcn
command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
	{ echo "SKIP: no compiler/make"; exit 4; }
if ! make -s -C "$here/dcqcn" OUT="$out" "$out/model"; then
	echo "FAIL: build of the model"; exit 1
fi
"$out/model" || { echo "FAIL: DCQCN model scenarios"; exit 1; }
exit 0
