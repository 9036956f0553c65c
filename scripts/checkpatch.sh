#!/usr/bin/env bash
# Run the kernel's checkpatch.pl (from Debian's linux-source-6.1 tarball) on
# our kernel C files, the tests' modules (selftests/kmod/) included.  Exit
# status is checkpatch's: non-zero on any error or warning.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
cache=${DCBLAB_BUILD:-$top/build}/checkpatch
cp=$cache/linux-source-6.1/scripts/checkpatch.pl
if [ ! -x "$cp" ]; then
	[ -f "$tarball" ] || { echo "checkpatch: $tarball missing (apt-get install linux-source-6.1)" >&2; exit 2; }
	mkdir -p "$cache"
	tar -xJf "$tarball" -C "$cache" linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
cd "$top"
files=$(git ls-files -- 'sch_dcb/*.[ch]' 'rxe_cc/*.[ch]' 'selftests/kmod/*.[ch]' 2>/dev/null || true)
[ -n "$files" ] || files=$(find sch_dcb rxe_cc selftests/kmod -name '*.[ch]' ! -name '*.mod.c' 2>/dev/null)
# shellcheck disable=SC2086
exec "$cp" --no-tree --terse --show-types -f $files
