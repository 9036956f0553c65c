#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/rxe_bisect.sh [KDIR]
#
# Checks that the rxe patch series of KDIR's kernel (rxe_cc/patches/X.Y,
# default the Debian 6.1 headers) is bisectable: for N = 1 .. number of
# patches, prepares rxe with the first N patches (scripts/rxe_prepare.sh,
# RXE_PATCH_COUNT=N) in build/bisect/ and builds it.  Until the hooks
# patch (the one that embeds rxe_cc_types.h) is applied, rdma_rxe is
# built without the engine (RXE_CC=n); until the namespace patch (the one
# that includes rxe_ns.h) is, also without rxe_ns.c (RXE_NS=n).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${1:-${KDIR:-$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort | tail -n 1)}}
out=$top/build/bisect/rxe_cc
vh=$kdir/include/generated/uapi/linux/version.h
series=$top/rxe_cc/patches/$(sed -n 's/^#define LINUX_VERSION_\(MAJOR\|PATCHLEVEL\) //p' "$vh" | paste -sd.)
[ -d "$series" ] || { echo "rxe_bisect: no series $series for $kdir" >&2; exit 1; }
total=$(find "$series" -name '*.patch' | wc -l)
cc=n
ns=n
for ((n = 1; n <= total; n++)); do
	p=$(find "$series" -name '*.patch' | sort | sed -n "${n}p")
	grep -q '^+#include "rxe_cc_types.h"' "$p" && cc=y
	grep -q '^+#include "rxe_ns.h"' "$p" && ns=y
	RXE_PATCH_COUNT=$n bash "$top/scripts/rxe_prepare.sh" "$kdir" "$out"
	make -C "$kdir" M="$out" RXE_CC=$cc RXE_NS=$ns W=1 modules >"$out.log" 2>&1 ||
		{ tail -n 20 "$out.log"; echo "rxe_bisect: $(basename "$p") (first $n) does not build" >&2; exit 1; }
	echo "rxe_bisect: first $n patch(es), up to $(basename "$p"), RXE_NS=$ns RXE_CC=$cc: builds"
done
