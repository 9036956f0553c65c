#!/usr/bin/env bash
# timeout: 400
# The kernel code builds warning-free with W=1, is sparse-clean (C=2) and
# checkpatch-clean.  Runs on the host: only building, no loading.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${KDIR:-$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n1)}
if [ -z "$kdir" ] || [ ! -d "$kdir" ]; then
	echo "SKIP: no linux-headers-6.1 (run scripts/deps.sh)"; exit 4
fi
command -v sparse >/dev/null || { echo "SKIP: sparse not installed"; exit 4; }
log=$(mktemp)
# one compiler (and sparse) per file, on every CPU
jobs=-j$(nproc)
trap 'rm -f "$log"' EXIT
rc=0
# Force a rebuild of our objects so every warning shows up again.
find "$top/sch_dcb" -name '*.o' -delete
if ! make -C "$kdir" M="$top" W=1 C=2 "$jobs" modules >"$log" 2>&1; then
	echo "FAIL: module build failed"; tail -30 "$log"; exit 1
fi
if grep -E "warning:|error:" "$log"; then
	echo "FAIL: W=1 / sparse diagnostics above"; rc=1
else
	echo "ok: W=1 and sparse clean ($(grep -c 'CHECK' "$log") files checked)"
fi
# rdma_rxe with rxe_cc: patched upstream sources + ours, in its own dir.
rxe=${DCBLAB_BUILD:-$top/build}/rxe_cc
if [ ! -f /usr/src/linux-source-6.1.tar.xz ]; then
	echo "FAIL: linux-source-6.1 not installed (scripts/deps.sh)"; exit 1
fi
if ! bash "$top/scripts/rxe_prepare.sh" "$kdir" "$rxe" >"$log" 2>&1 ||
   ! make -C "$kdir" M="$rxe" W=1 C=2 "$jobs" modules >>"$log" 2>&1; then
	echo "FAIL: rdma_rxe build failed"; tail -30 "$log"; exit 1
fi
touch "$rxe/.prepared"
if grep -E "warning:|error:" "$log"; then
	echo "FAIL: rdma_rxe W=1 / sparse diagnostics above"; rc=1
else
	echo "ok: rdma_rxe W=1 and sparse clean ($(grep -c 'CHECK' "$log") files checked)"
fi
if ! bash "$top/scripts/checkpatch.sh" >"$log" 2>&1; then
	echo "FAIL: checkpatch"; cat "$log"; rc=1
else
	echo "ok: checkpatch clean"
fi
exit $rc
