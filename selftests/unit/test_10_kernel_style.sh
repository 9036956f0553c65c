#!/usr/bin/env bash
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
trap 'rm -f "$log"' EXIT
rc=0
# Force a rebuild of our objects so every warning shows up again.
find "$top/sch_dcb" -name '*.o' -delete
if ! make -C "$kdir" M="$top" W=1 C=2 modules >"$log" 2>&1; then
	echo "FAIL: module build failed"; tail -30 "$log"; exit 1
fi
if grep -E "warning:|error:" "$log"; then
	echo "FAIL: W=1 / sparse diagnostics above"; rc=1
else
	echo "ok: W=1 and sparse clean ($(grep -c 'CHECK' "$log") files checked)"
fi
if ! bash "$top/scripts/checkpatch.sh" >"$log" 2>&1; then
	echo "FAIL: checkpatch"; cat "$log"; rc=1
else
	echo "ok: checkpatch clean"
fi
exit $rc
