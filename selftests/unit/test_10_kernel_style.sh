#!/usr/bin/env bash
# timeout: 400
# The kernel code builds warning-free with W=1, is sparse-clean (C=2) and
# checkpatch-clean.  Runs on the host: only building, no loading.  Under
# make check it reads the log of make check's own W=1 C=2 build
# (DCBLAB_KBUILD_LOG) instead of building again.
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
rxe=${DCBLAB_BUILD:-$top/build}/rxe_cc

# make check has just built both modules from scratch with W=1 and sparse
# (C=2) and names kbuild's output in DCBLAB_KBUILD_LOG: check that log,
# provided it is newer than every source and holds a compile (CC) and a
# sparse check (CHECK) of each of their C files, rather than compile
# them all again.
kbuild_log_covers() {
	local f n newer
	[ -f "$1" ] || { echo "no $1"; return 1; }
	newer=$(find "$top/sch_dcb" "$top/rxe_cc" "$top/selftests/kmod" "$top/Kbuild" -newer "$1" \
		\( -name '*.[ch]' -o -name '*.patch' -o -name Kbuild \) -print -quit)
	[ -z "$newer" ] || { echo "$newer is newer than $1"; return 1; }
	for f in "$top"/sch_dcb/*.c "$rxe"/*.c "$rxe"/kmod/*.c; do
		case $f in *.mod.c) continue ;; esac
		n=${f%.c}.o
		grep -qF "CC [M]  $n" "$1" && grep -qF "CHECK   $f" "$1" ||
			{ echo "$1 has no compile and sparse check of $f"; return 1; }
	done
}
# diag LOG WHAT: fail on a W=1 or sparse diagnostic in kbuild's LOG
diag() {
	if grep -E "warning:|error:" "$1"; then
		echo "FAIL: $2: W=1 / sparse diagnostics above"; rc=1
	else
		echo "ok: $2: W=1 and sparse clean ($(grep -c '  CHECK  ' "$1") files checked)"
	fi
}

if [ -n "${DCBLAB_KBUILD_LOG:-}" ]; then
	why=$(kbuild_log_covers "$DCBLAB_KBUILD_LOG") ||
		{ echo "FAIL: make check's build log: $why"; exit 1; }
	diag "$DCBLAB_KBUILD_LOG" "sch_dcb and rdma_rxe in make check's build"
else
	# Force a rebuild of our objects so every warning shows up again.
	find "$top/sch_dcb" -name '*.o' -delete
	if ! make -C "$kdir" M="$top" W=1 C=2 "$jobs" modules >"$log" 2>&1; then
		echo "FAIL: module build failed"; tail -30 "$log"; exit 1
	fi
	diag "$log" sch_dcb
	# rdma_rxe with rxe_cc: patched upstream sources + ours, in its own dir.
	if [ ! -f /usr/src/linux-source-6.1.tar.xz ]; then
		echo "FAIL: linux-source-6.1 not installed (scripts/deps.sh)"; exit 1
	fi
	if ! bash "$top/scripts/rxe_prepare.sh" "$kdir" "$rxe" >"$log" 2>&1 ||
	   ! make -C "$kdir" M="$rxe" W=1 C=2 "$jobs" modules >>"$log" 2>&1; then
		echo "FAIL: rdma_rxe build failed"; tail -30 "$log"; exit 1
	fi
	touch "$rxe/.prepared"
	diag "$log" rdma_rxe
fi
# Kernel-version differences live in one compatibility header per
# component (rxe_cc_compat.h, dcb_compat.h): no version test elsewhere.
vt=$(cd "$top" && grep -nE 'LINUX_VERSION_|KERNEL_VERSION\(|_KERNEL_GE\(' \
	sch_dcb/*.[ch] rxe_cc/*.[ch] selftests/kmod/*.[ch] 2>/dev/null |
	grep -vE '^(sch_dcb/dcb_compat\.h|rxe_cc/rxe_cc_compat\.h):' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*\*' | grep -vE '\.mod\.c:')
if [ -n "$vt" ]; then
	echo "$vt"
	echo "FAIL: kernel version tests outside the compatibility headers"; rc=1
else
	echo "ok: kernel version tests only in the compatibility headers"
fi
if ! bash "$top/scripts/checkpatch.sh" >"$log" 2>&1; then
	echo "FAIL: checkpatch"; cat "$log"; rc=1
else
	echo "ok: checkpatch clean"
fi
exit $rc
