#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Model test of PCN: N = 2, 4, 8 flows through one bottleneck with
# NP-ECN-style marking, driving rxe_cc/pcn_sm.c unchanged (NP and RP;
# selftests/unit/pcn/model.c), at paper scale (40 Gb/s) and guest scale
# (100 Mb/s): total rate to (1 - w_min) C within one control period from
# overload, shares converging to C/N (Appendix A).  Exit: 0 pass, 1 fail, 4 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${DCBLAB_BUILD:-$here/../../build}/pcn
command -v "${CC:-gcc}" >/dev/null && command -v make >/dev/null ||
	{ echo "SKIP: no compiler/make"; exit 4; }
if ! make -s -C "$here/pcn" OUT="$out" "$out/model"; then
	echo "FAIL: build of the model"; exit 1
fi
"$out/model" || { echo "FAIL: PCN model scenarios"; exit 1; }
exit 0
